# SPDX-License-Identifier: ISC
# nc_helpers.bash - shared by the nc_*.bats tests: free ports for peers that cannot listen on
# port 0 and report it, and the side-by-side runner that compares ncpv nc with nc.openbsd.
load ../lib/helpers

NC_PEER="$BATS_TEST_DIRNAME/../lib/nc_peer.py"

# free_port: a loopback TCP (or with -u UDP) port that was free a moment ago. Only for third-party
# listeners (nc.openbsd, socat, ncat) that cannot listen on port 0 and print the port.
free_port() {
	python3 -c 'import socket,sys
s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM if sys.argv[1:]==["-u"] else socket.SOCK_STREAM)
s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' "$@"
}

# wait_port PORT: poll until something accepts on 127.0.0.1:PORT (at most 5 s).
wait_port() {
	local i
	for ((i = 0; i < 250; i++)); do
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
		sleep 0.02
	done
	return 1
}

# wait_listening LOG: wait for "Listening on HOST PORT" from ncpv nc -lv and set NC_PORT.
wait_listening() {
	wait_for "$1" '^(Listening|Bound) on ' 5 || return 1
	NC_PORT=$(sed -n 's/^\(Listening\|Bound\) on .* \([0-9][0-9]*\)$/\2/p' "$1" | head -1)
	[ -n "$NC_PORT" ]
}

# feed SPEC: what nc reads on stdin. "eof:TEXT" prints TEXT and ends; "open:SECS:TEXT" prints
# TEXT and keeps stdin open SECS seconds; "none" ends at once.
feed() {
	case $1 in
	eof:*) printf '%s' "${1#eof:}" ;;
	open:*) local rest=${1#open:}; printf '%s' "${rest#*:}"; sleep "${rest%%:*}" ;;
	none) ;;
	esac
}

# run_side DIR NC ROLE "FLAGS" STDIN PEERSPEC: one run of nc (the command in NC) against the
# scripted peer; leaves DIR/out (nc's stdout), DIR/result ("rc seconds end", end since the
# epoch) and DIR/peer (JSON).
run_side() {
	local dir=$1 nc=$2 role=$3 flags=$4 stdin=$5 spec=$6 port
	mkdir -p "$dir"
	if [ "$role" = client ]; then
		python3 "$NC_PEER" listen "$dir/port" "$spec" >"$dir/peer" &
		local peer=$!
		for ((i = 0; i < 250; i++)); do [ -s "$dir/port" ] && break; sleep 0.02; done
		port=$(cat "$dir/port")
		feed "$stdin" | { s=$EPOCHREALTIME rc=0; timeout 9 $nc $flags 127.0.0.1 "$port" >"$dir/out" 2>"$dir/err" || rc=$?
			e=$EPOCHREALTIME; echo "$rc $(echo "$e - $s" | bc) $e" >"$dir/result"; }
		wait "$peer"
	else
		port=$(free_port)
		feed "$stdin" | { s=$EPOCHREALTIME rc=0; timeout 9 $nc -l $flags 127.0.0.1 "$port" >"$dir/out" 2>"$dir/err" || rc=$?
			e=$EPOCHREALTIME; echo "$rc $(echo "$e - $s" | bc) $e" >"$dir/result"; } &
		local ncp=$!
		wait_port_quiet "$port"
		python3 "$NC_PEER" connect "$port" "$spec" >"$dir/peer"
		wait "$ncp"
	fi
}

# Like wait_port, without connecting (a probe connection would be nc's one client): poll ss.
wait_port_quiet() {
	local i
	for ((i = 0; i < 250; i++)); do
		ss -Htln "sport = :$1" 2>/dev/null | grep -q . && return 0
		sleep 0.02
	done
	return 1
}

# compare_halfclose ROLE "FLAGS" STDIN PEERSPEC: run nc.openbsd and ncpv nc side by side in the
# same situation and require the same outcome: exit code, bytes written to stdout, what the peer
# received, whether (and about when) the peer saw EOF, and about when nc exited (0.4 s slack).
# Both times count from the connection's start: from nc's own start they also counted how long
# the peer (python) took to start and connect, which under load differed by 0.7 s between sides.
compare_halfclose() {
	local role=$1 flags=$2 stdin=$3 spec=$4 a=$SCRATCH/ref b=$SCRATCH/ours
	run_side "$a" nc.openbsd "$role" "$flags" "$stdin" "$spec" &
	local ref=$!
	run_side "$b" "$NCPV nc" "$role" "$flags" "$stdin" "$spec"
	wait "$ref"
	echo "nc.openbsd: $(cat "$a/result") out=$(cat "$a/out") peer=$(cat "$a/peer")"
	echo "ncpv nc:    $(cat "$b/result") out=$(cat "$b/out") peer=$(cat "$b/peer")"
	python3 - "$a" "$b" <<'PY'
import json, sys
a, b = sys.argv[1], sys.argv[2]
def load(d):
    rc, _, end = open(d + "/result").read().split()
    peer = json.load(open(d + "/peer"))
    return int(rc), float(end) - peer["t0"], open(d + "/out", "rb").read(), peer
ra, rb = load(a), load(b)
problems = []
if ra[0] != rb[0]: problems.append("exit code %d vs %d" % (ra[0], rb[0]))
if abs(ra[1] - rb[1]) > 0.4: problems.append("exit %.2f vs %.2f s after the connection" % (ra[1], rb[1]))
if ra[2] != rb[2]: problems.append("stdout %r vs %r" % (ra[2], rb[2]))
if ra[3]["got"] != rb[3]["got"]: problems.append("peer got %r vs %r" % (ra[3]["got"], rb[3]["got"]))
ea, eb = ra[3]["eof_at"], rb[3]["eof_at"]
if (ea is None) != (eb is None) or (ea is not None and abs(ea - eb) > 0.4):
    problems.append("peer EOF at %s vs %s" % (ea, eb))
if problems:
    print("differs from nc.openbsd: " + "; ".join(problems))
    sys.exit(1)
PY
}
