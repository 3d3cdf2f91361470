#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# serve_get_side.bats - the side channel (docs/SIDECHANNEL.md) between get and one ordinary
# serve: --bidir's and --reverse's figures against both ends' counts, serve's view in the
# summary, and the hellos that are not one (every prefix, near misses, random bytes after the
# NUL, an orphan flood), which must leave raw clients their ordinary behaviour. serve runs its
# default (a loop per core) unless a test says; sessions across --threads 1 to 4 are tested below.

load ../lib/helpers
bats_require_minimum_version 1.5.0

setup() {
	common_setup
}

teardown() {
	common_teardown
}

peer() {
	"$BATS_TEST_DIRNAME/../lib/side_peer.py" "$@"
}

# side_close ROLE KEY: KEY of serve's -j close line for the connection in ROLE (ctl/down/up).
side_close() {
	wait_for "$SERVE_LOG" "\"side\":\"$1\"" 5
	grep "\"side\":\"$1\"" "$SERVE_LOG" | tail -1 | jq -r ".$2"
}

@test "get --bidir: each direction's bytes match both ends' counts; the download is byte-exact" {
	make_file "$SCRATCH/down.bin" 25165824
	make_file "$SCRATCH/up.bin" 3000017
	start_serve --json --source "$SCRATCH/down.bin"
	"$NCPV" get --bidir -o "$SCRATCH/out.bin" -S "$SCRATCH/up.bin" -j "127.0.0.1:$SERVE_PORT" >"$SCRATCH/get.json"
	[ "$(sha "$SCRATCH/out.bin")" = "$(sha "$SCRATCH/down.bin")" ]
	jq -e '.direction == "bidir" and (.streams | length) == 2' "$SCRATCH/get.json"
	# The download: get's count, serve's end line and serve's log all say the file's size.
	jq -e '.streams[0].direction == "receive" and .streams[0].bytes == 25165824' "$SCRATCH/get.json"
	jq -e '.streams[0].server.sent == 25165824 and .streams[0].server.acked == 25165824' "$SCRATCH/get.json"
	[ "$(side_close down sent)" = 25165824 ]
	# The upload: get's sent count against what serve received, in its end line and its log.
	jq -e '.streams[1].direction == "send" and .streams[1].bytes == 3000017' "$SCRATCH/get.json"
	jq -e '.streams[1].server.received == 3000017' "$SCRATCH/get.json"
	[ "$(side_close up received)" = 3000017 ]
	[ "$(side_close ctl end)" = completed ]
}

@test "get --bidir -t: the two directions' figures are separate and each matches serve's log" {
	start_serve --json
	"$NCPV" get --bidir -t 0.5 -j "127.0.0.1:$SERVE_PORT" >"$SCRATCH/get.json"
	local down up
	down=$(jq '.streams[0].bytes' "$SCRATCH/get.json")
	up=$(jq '.streams[1].bytes' "$SCRATCH/get.json")
	[ "$down" -gt 0 ]
	[ "$up" -gt 0 ]
	# serve handed its kernel at least what get read (its acknowledged count can be a little
	# lower: get's TCP may read bytes before it acknowledges them, and a close with data
	# unread resets without acknowledging).
	[ "$(side_close down sent)" -ge "$down" ]
	[ "$(jq '.streams[0].server.sent' "$SCRATCH/get.json")" -ge "$down" ]
	[ "$(side_close up received)" = "$up" ]
	[ "$(jq '.streams[1].server.received' "$SCRATCH/get.json")" = "$up" ]
}

@test "get --reverse: the upload is counted byte-exact by serve, ordinary and --discard alike" {
	local size=4194319 mode
	make_file "$SCRATCH/up.bin" "$size"
	for mode in "" --discard; do
		start_serve --json $mode
		"$NCPV" get -R -S "$SCRATCH/up.bin" -j "127.0.0.1:$SERVE_PORT" >"$SCRATCH/get.json"
		jq -e ".direction == \"send\" and .bytes == $size and .server.received == $size" "$SCRATCH/get.json"
		[ "$(side_close up received)" = "$size" ]
		[ "$(side_close up end)" = completed ]
		stop_pid "$SERVE_PID"
	done
}

@test "get --server-view: serve's sent, acked, cwnd and RTT reach get's summary and --json" {
	start_serve --json
	"$NCPV" get --server-view -b 8M -j "127.0.0.1:$SERVE_PORT" >"$SCRATCH/get.json" 2>"$SCRATCH/get.err"
	jq -e '.bytes == 8388608 and .server.acked >= 8388608 and .server.sent >= .server.acked' "$SCRATCH/get.json"
	jq -e '.server.cwnd > 0 and .server.rtt_ms > 0' "$SCRATCH/get.json"
	# A client that ends the stream: serve's end line gives what had left for the wire (its
	# log's "wire"); "sent" there also counts bytes still queued when the client went away.
	[ "$(jq '.server.sent' "$SCRATCH/get.json")" = "$(side_close down wire)" ]
	"$NCPV" get --server-view -b 1M "127.0.0.1:$SERVE_PORT" 2>"$SCRATCH/get.err"
	unwrapped "$SCRATCH/get.err" | grep -Eq '^server: sent [0-9]+ B, [0-9]+ B acknowledged; retrans [0-9]+, cwnd [1-9][0-9]*, rtt '
	[ "$(wc -L <"$SCRATCH/get.err")" -le 80 ] # laid out for 80 columns, as every summary
	"$NCPV" get --bidir -t 0.2 "127.0.0.1:$SERVE_PORT" 2>"$SCRATCH/bidir.err"
	unwrapped "$SCRATCH/bidir.err" | grep -Eq '^\[down\] received [0-9]+ B .* from 127'
	unwrapped "$SCRATCH/bidir.err" | grep -Eq '^\[up\] sent [0-9]+ B .* to 127'
	[ "$(wc -L <"$SCRATCH/bidir.err")" -le 80 ]
}

@test "serve's size through the side channel: get --server-view without -s shows a percentage and --json's server.size; an endless serve neither" {
	start_serve --size 10M
	"$NCPV" get --server-view -f -j "127.0.0.1:$SERVE_PORT" >"$SCRATCH/get.json" 2>"$SCRATCH/get.err"
	tr '\r' '\n' <"$SCRATCH/get.err" | grep -Eq '\] +100%'
	jq -e '.bytes == 10485760 and .server.size == 10485760' "$SCRATCH/get.json"
	# A --source file is sent once per connection: its size.
	make_file "$SCRATCH/src.bin" 25165824
	start_serve --source "$SCRATCH/src.bin"
	"$NCPV" get --server-view -f -j "127.0.0.1:$SERVE_PORT" >"$SCRATCH/file.json" 2>"$SCRATCH/file.err"
	tr '\r' '\n' <"$SCRATCH/file.err" | grep -Eq '\] +100%'
	jq -e '.bytes == 25165824 and .server.size == 25165824' "$SCRATCH/file.json"
	# An endless stream has no size: the bouncing bar, no percentage, and null.
	start_serve
	"$NCPV" get --server-view -f -t 0.5 -j "127.0.0.1:$SERVE_PORT" >"$SCRATCH/endless.json" 2>"$SCRATCH/endless.err"
	tr '\r' '\n' <"$SCRATCH/endless.err" | grep -q '<=>'
	run grep -E '[0-9]%' "$SCRATCH/endless.err"
	[ "$status" -eq 1 ]
	jq -e '.server.size == null and .server.sent > 0' "$SCRATCH/endless.json"
}

@test "serve says size= only when asked (ask=size) and when each download's bytes are exact" {
	local tok=0123456789abcdef0123456789abcdef
	# answer WANT ARGS... -- PAIRS...: serve ARGS answers a control hello with PAIRS added
	# with "ncpv-side 1 ok TOKEN" and WANT after it.
	answer() {
		local want=$1 args=()
		shift
		while [ "$1" != -- ]; do args+=("$1"); shift; done
		shift
		start_serve -q "${args[@]}"
		peer answer "$SERVE_PORT" "$@" >"$SCRATCH/answer"
		[ "$(cat "$SCRATCH/answer")" = "ncpv-side 1 ok $tok$want" ] ||
			{ echo "serve ${args[*]}, hello with $*: $(cat "$SCRATCH/answer")"; return 1; }
	}
	answer " size=10485760" --size 10M -- ask=size
	# A hello without the key (a get from before it) gets the bare ok it parses.
	answer "" --size 10M --
	answer " size=10485760" --size 10M -- ask=future,size
	answer "" --size 10M -- ask=future
	# --max-bytes caps each connection, endless or sized: exact too.
	answer " size=67108864" --size 128M -b 64M -- ask=size
	answer " size=100663296" -b 96M -- ask=size
	# Not exact, not said: an endless stream, --max-time (it may cut first), --discard.
	answer "" -- ask=size
	answer "" --size 10M -t 5 -- ask=size
	answer "" --discard -- ask=size
}

@test "the size serve says is the size it sends, though its --source file grows between the answer and the download" {
	# Generated: file sizes x growth. Small files are answered only while a paced session holds new
	# connections from sending (else serve's FIN goes before it reads the hello); large ones in
	# any case. It was said N, sent N + growth, each time (the outside attack: 3 of 12 get runs).
	local st said=0 line
	head -c 10 /dev/urandom >"$SCRATCH/src"
	start_serve -q --source "$SCRATCH/src"
	for st in 16777216 8388608; do
		timeout 60 "$BATS_TEST_DIRNAME/../lib/side_peer.py" grow "$SERVE_PORT" "$SCRATCH/src" "$st" 1 4096 1048576 >>"$SCRATCH/grow.out"
	done
	peer paced-ctl "$SERVE_PORT" 60 >"$SCRATCH/ctl.out" &
	STARTED_PIDS+=("$!")
	wait_for "$SCRATCH/ctl.out" 'ok [0-9a-f]{32} rate=' 5
	for st in 1 1000 65536 1048576; do
		timeout 60 "$BATS_TEST_DIRNAME/../lib/side_peer.py" grow "$SERVE_PORT" "$SCRATCH/src" "$st" 1 4096 1048576 >>"$SCRATCH/grow.out"
	done
	while read -r line; do
		[[ $line =~ ^said\ ([0-9]+)\ got\ ([0-9]+)\ eof$ ]] || continue
		[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] || { echo "$line"; return 1; }
		said=$((said + 1))
	done <"$SCRATCH/grow.out"
	# Every case answered and delivered whole but for a race the paced hold closes; at least 16 of 18.
	[ "$(grep -c . "$SCRATCH/grow.out")" -eq 18 ]
	[ "$said" -ge 16 ] || { cat "$SCRATCH/grow.out"; return 1; }
}

# A client that took what it wanted and reset before a wakeup of serve's read its down hello
# (get --server-view -b 1M on loopback: 3 runs in 100) left serve sending into a reset at its
# first pump, the hello counted as data, and the session without its end line: get waited its
# -w and printed "server: no figures". Made certain here: the down connection says hello and
# resets while serve is stopped, so serve's accept and first send meet the reset.
@test "a down connection that said hello and reset before serve accepted it still ends its session with an end line (-T 1 and 2)" {
	local t
	for t in 1 2; do
		start_serve -q -T "$t"
		run timeout 60 "$BATS_TEST_DIRNAME/../lib/side_peer.py" gone-down "$SERVE_PORT" "$SERVE_PID" 5
		echo "-T $t: $output"
		[ "$status" -eq 0 ]
		[ "$(grep -c '^end$' <<<"$output")" -eq 5 ]
		stop_pid "$SERVE_PID"
	done
}

@test "get --server-view -s SIZE against a serve of another size: -s is checked as without the side channel" {
	start_serve --size 32M
	run -1 "$NCPV" get -q -s 64M --server-view "127.0.0.1:$SERVE_PORT"
	[ "$output" = "ncpv get: expected 67108864 bytes, received 33554432" ]
	run -1 "$NCPV" get -q -s 16M --server-view "127.0.0.1:$SERVE_PORT"
	[[ $output == *"the server sent more than --size (16777216 bytes)"* ]]
}

# side_ivals FILE STREAM FIELD: serve's "server_interval" lines of STREAM in FILE (every line must
# parse) are numbered 0, 1, ... in order, each ends where it starts or later, the last is its
# end line's remainder, and their bytes are printed summed (FIELD: the summary's member they
# must add up to, checked too).
side_ivals() {
	jq -e . "$1" >/dev/null
	jq -s -e --argjson k "$2" '[.[] | select(.event == "server_interval" and .stream == $k)] as $sv |
		($sv | length) >= 1 and ([$sv[].index] == [range(0; $sv | length)]) and $sv[-1].final and
		all($sv[]; .end >= .start and .bytes >= 0)' "$1" >/dev/null
	jq -s --argjson k "$2" '[.[] | select(.event == "server_interval" and .stream == $k) | .bytes] | add' "$1"
}

@test "get --server-view -i: serve's per-interval bytes and retransmits add up to its end figures, and to >= what get received" {
	start_serve --json
	"$NCPV" get --server-view -j -i 0.2 -t 1 "127.0.0.1:$SERVE_PORT" >"$SCRATCH/get.json" 2>"$SCRATCH/get.err"
	cat "$SCRATCH/get.json"
	local sum
	sum=$(side_ivals "$SCRATCH/get.json" 0)
	jq -s -e --argjson sum "$sum" '.[-1] as $s | [.[] | select(.event == "server_interval")] as $sv |
		$s.event == "summary" and ($sv | length) >= 4 and $sum == $s.server.sent and $sum >= $s.bytes and
		([$sv[].retransmits] | add) == $s.server.retrans and
		([.[] | select(.event == "interval") | .bytes] | add) == $s.bytes and
		all($sv[]; .direction == "receive")' "$SCRATCH/get.json"
	# serve's close log may count a last write after its end line (under -t): never fewer.
	[ "$sum" -le "$(side_close down sent)" ]
	# The table: each of get's lines and then serve's, within 80 columns.
	"$NCPV" get --server-view -i 0.25 -t 1 "127.0.0.1:$SERVE_PORT" 2>"$SCRATCH/get.err"
	cat "$SCRATCH/get.err"
	[ "$(grep -c '^\[  1\]  *[0-9.]*-[0-9.]* ' "$SCRATCH/get.err")" -ge 4 ]
	[ "$(grep -c '^\[srv\]  *[0-9.]*-[0-9.]* ' "$SCRATCH/get.err")" -ge 4 ]
	[ "$(wc -L <"$SCRATCH/get.err")" -le 80 ]
}

@test "get --server-view -i below the sweep (0.02 to 0.08 s): serve reports each interval as get does" {
	start_serve --json
	local iv
	for iv in 0.02 0.05 0.08; do
		"$NCPV" get --server-view -j -i "$iv" -t 0.8 "127.0.0.1:$SERVE_PORT" >"$SCRATCH/get.json"
		# serve's lines are timed by its own clock (a late wakeup under load may merge two):
		# at 0.02 and 0.05 s far more than the 8 that a 100 ms sweep allows in 0.8 s.
		jq -s -e '[.[] | select(.event == "interval")] as $g | [.[] | select(.event == "server_interval")] as $v |
			($g | length) >= 8 and ($v | length) >= ($g | length) * 0.7' "$SCRATCH/get.json"
	done
}

@test "get -R -i: serve's received per interval adds up to the upload's size, byte-exact and under -t" {
	local size=8388625
	make_file "$SCRATCH/up.bin" "$size"
	start_serve --json
	"$NCPV" get -R -S "$SCRATCH/up.bin" -j -i 0.05 "127.0.0.1:$SERVE_PORT" >"$SCRATCH/get.json"
	cat "$SCRATCH/get.json"
	[ "$(side_ivals "$SCRATCH/get.json" 0)" = "$size" ]
	jq -s -e '.[-1].bytes == 8388625 and all(.[] | select(.event == "server_interval"); .direction == "send")' \
		"$SCRATCH/get.json"
	"$NCPV" get -R -t 1 -j -i 0.2 "127.0.0.1:$SERVE_PORT" >"$SCRATCH/t.json"
	local sum
	sum=$(side_ivals "$SCRATCH/t.json" 0)
	jq -s -e --argjson sum "$sum" '.[-1] as $s | $sum == $s.bytes and $sum == $s.server.received and
		([.[] | select(.event == "server_interval")] | length) >= 4' "$SCRATCH/t.json"
}

@test "get --bidir -i: serve's lines for each direction add up to its end figures; the table keeps 80 columns" {
	start_serve --json
	"$NCPV" get --bidir -j -i 0.2 -t 1 "127.0.0.1:$SERVE_PORT" >"$SCRATCH/get.json"
	cat "$SCRATCH/get.json"
	local down up
	down=$(side_ivals "$SCRATCH/get.json" 0)
	up=$(side_ivals "$SCRATCH/get.json" 1)
	jq -s -e --argjson d "$down" --argjson u "$up" '.[-1] as $s | $s.event == "summary" and
		$d == $s.streams[0].server.sent and $d >= $s.streams[0].bytes and
		$u == $s.streams[1].server.received and $u == $s.streams[1].bytes and
		([.[] | select(.event == "interval" and .direction == "send") | .bytes] | add) == $s.streams[1].bytes' \
		"$SCRATCH/get.json"
	"$NCPV" get --bidir -i 0.25 -t 1 "127.0.0.1:$SERVE_PORT" 2>"$SCRATCH/get.err"
	cat "$SCRATCH/get.err"
	local l
	for l in ' dn' ' up' sdn sup; do
		[ "$(grep -c "^\[$l\]  *[0-9.]*-[0-9.]* " "$SCRATCH/get.err")" -ge 4 ]
	done
	[ "$(wc -L <"$SCRATCH/get.err")" -le 80 ]
}

@test "plain get and a raw upload never meet the side channel: no session in serve's log" {
	start_serve --json
	"$NCPV" get -q -b 1M "127.0.0.1:$SERVE_PORT"
	# Ten clients that send a request, read 100000 bytes and close with the rest unread: serve
	# finds the reset on a send, and still counts the request (it once lost it, 95 in 100).
	python3 -c '
import socket, sys
for _ in range(10):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    s.sendall(b"GET / HTTP/1.0\r\n\r\n")
    got = 0
    while got < 100000:
        got += len(s.recv(65536))
    s.close()
' "$SERVE_PORT"
	# The requests were read as an ordinary client's bytes are: counted and dropped.
	local i
	for ((i = 0; i < 100; i++)); do
		[ "$(grep -c '"event":"close"' "$SERVE_LOG")" -ge 11 ] && break
		sleep 0.05
	done
	[ "$(grep -c '"received":18,' "$SERVE_LOG")" -eq 10 ] || { cat "$SERVE_LOG"; false; }
	run ! grep -q '"side"' "$SERVE_LOG"
}

@test "near-miss hellos, generated (every prefix, bad version, token, role, overlong, random after NUL): serve goes on sending" {
	local seed
	for seed in 7 $((RANDOM)); do # 7: a seed that once found the parser taking binary keys
		start_serve --json
		run peer near-miss "$SERVE_PORT" send "$seed"
		echo "$output"
		[ "$status" -eq 0 ]
		stop_pid "$SERVE_PID"
	done
}

@test "near-miss hellos uploaded to serve --discard: every byte counted as data, none a session" {
	local seed
	for seed in 7 $((RANDOM)); do
		start_serve --json --discard
		run peer near-miss "$SERVE_PORT" discard "$seed" "$SERVE_LOG"
		echo "$output"
		[ "$status" -eq 0 ]
		stop_pid "$SERVE_PID"
	done
}

# A control connection is a connection: --max-conns counts it (docs/SIDECHANNEL.md). With 4
# sessions held open under --max-conns 4, a plain download is refused (reset, exit 1); once they
# close it is served. The orphans test below could not tell: the session table refuses past the
# same number.
@test "control connections count against --max-conns: with all slots held by sessions a plain get is refused" {
	local threads holder
	# One loop counts its own connections; several count them together (two counts to keep).
	for threads in 1 2; do
		start_serve --json --max-conns 4 --threads "$threads"
		peer hold-ctl "$SERVE_PORT" 4 2 >"$SCRATCH/held" &
		holder=$!
		STARTED_PIDS+=("$holder")
		wait_for "$SCRATCH/held" '^held 4$' 10
		run "$NCPV" get -q -w 1 -b 1M "127.0.0.1:$SERVE_PORT"
		echo "threads $threads: $output"
		[ "$status" -eq 1 ]
		[[ "$output" == *"connection reset by peer (after 0 bytes)"* ]]
		wait "$holder"
		"$NCPV" get -q -w 5 -b 1M "127.0.0.1:$SERVE_PORT"
		kill -TERM "$SERVE_PID"
		wait_gone "$SERVE_PID" 10
		: >"$SCRATCH/held"
	done
}

@test "10,000 orphan control hellos: bounded by --max-conns, serve stays up and serves get and get -R after" {
	start_serve --json --max-conns 64
	run peer orphans "$SERVE_PORT" 10000 100
	echo "$output"
	[ "$status" -eq 0 ]
	kill -0 "$SERVE_PID"
	# Its last 100 were open at once: never more than 64 sessions, the rest refused.
	local answered refused
	answered=$(sed -n 's/.*answered \([0-9]*\), refused \([0-9]*\)/\1/p' <<<"$output")
	refused=$(sed -n 's/.*answered \([0-9]*\), refused \([0-9]*\)/\2/p' <<<"$output")
	[ "$answered" -ge 1 ]
	[ "$answered" -le 64 ]
	[ "$refused" -ge 36 ]
	local rss
	rss=$(ps -o rss= -p "$SERVE_PID")
	[ "$rss" -lt 65536 ]
	# Each orphan's reset ends its session; afterwards both kinds of client are served.
	local i
	for ((i = 0; i < 100; i++)); do
		"$NCPV" get -q -b 1M "127.0.0.1:$SERVE_PORT" 2>/dev/null && break
		sleep 0.05
	done
	"$NCPV" get -q -b 1M "127.0.0.1:$SERVE_PORT"
	"$NCPV" get -R -q -b 1M "127.0.0.1:$SERVE_PORT"
}

@test "an idle control connection costs serve no CPU, whichever loop and stream it came from" {
	local threads ticks
	for threads in 1 2; do
		start_serve --threads "$threads"
		for _ in 1 2; do
			ticks=$("$BATS_TEST_DIRNAME/../lib/side_ctl_idle.py" "$SERVE_PORT" "$SERVE_PID")
			echo "--threads $threads: $ticks ticks in 1 s"
			[ "$ticks" -le 5 ]
		done
		stop_pid "$SERVE_PID"
	done
}

@test "an orphan control hello (no data connection) is dropped after 10 s" {
	start_serve --json
	python3 -c '
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"\0ncpv-side 1 ctl " + b"ab" * 16 + b" interval=0 streams=1\n")
end = time.time() + 14
s.settimeout(1)
while time.time() < end:
    try:
        if not s.recv(1 << 20): break
    except socket.timeout: pass
    except OSError: break
' "$SERVE_PORT"
	wait_for "$SERVE_LOG" 'no data connection within 10 s' 2
}

@test "sessions across serve --threads 1 to 4: the control and data connections meet whichever loop takes them" {
	# A session's connections are handed to the loops in turn; serve moves a hello to the loop
	# that holds every session. Generated: each N, several tests in a row (so that every
	# loop gets control and data connections), each byte count checked against serve's log.
	local n i up down
	make_file "$SCRATCH/up.bin" 1000003
	for n in 1 2 3 4; do
		start_serve --json --threads "$n"
		for i in 1 2 3 4 5; do
			"$NCPV" get -R -S "$SCRATCH/up.bin" -j "127.0.0.1:$SERVE_PORT" >"$SCRATCH/r.json" ||
				{ echo "threads $n, test $i: get -R failed"; cat "$SCRATCH/r.json"; false; }
			jq -e '.bytes == 1000003 and .server.received == 1000003' "$SCRATCH/r.json" >/dev/null ||
				{ echo "threads $n, test $i"; cat "$SCRATCH/r.json"; false; }
			"$NCPV" get --bidir -t 0.3 -j "127.0.0.1:$SERVE_PORT" >"$SCRATCH/b.json" ||
				{ echo "threads $n, test $i: get --bidir failed"; cat "$SCRATCH/b.json"; false; }
			down=$(jq '.streams[0].bytes' "$SCRATCH/b.json")
			up=$(jq '.streams[1].bytes' "$SCRATCH/b.json")
			[ "$down" -gt 0 ] && [ "$up" -gt 0 ] || { echo "threads $n, test $i: $down $up"; false; }
			[ "$(jq '.streams[1].server.received' "$SCRATCH/b.json")" = "$up" ] ||
				{ echo "threads $n, test $i"; cat "$SCRATCH/b.json"; false; }
			# Under ASan at a load of 4.5, once: the down stream stalled at 128000 B and serve's
			# end line never came; serve's log is shown if it happens again.
			[ "$(jq '.streams[0].server.sent // -1' "$SCRATCH/b.json")" -ge "$down" ] ||
				{ echo "threads $n, test $i"; cat "$SCRATCH/b.json"; tail -20 "$SERVE_LOG"; false; }
		done
		# Every session ended: as many control connections closed as tests made.
		for i in $(seq 100); do
			[ "$(grep -c '"side":"ctl"' "$SERVE_LOG")" -ge 10 ] && break
			sleep 0.05
		done
		[ "$(grep '"side":"ctl"' "$SERVE_LOG" | grep -c '"end":"completed"')" -eq 10 ] ||
			{ echo "threads $n"; grep '"side"' "$SERVE_LOG"; false; }
		# A plain download still works beside them.
		"$NCPV" get -q -b 1M "127.0.0.1:$SERVE_PORT"
		stop_pid "$SERVE_PID"
	done
}

@test "get -R against a server that cannot answer (serve --size 1K already closed): exit 1 with why" {
	start_serve --size 1K
	run "$NCPV" get -R -w 2 "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 1 ]
	[ "$output" = "ncpv get: 127.0.0.1:$SERVE_PORT closed without answering the side channel: it had sent everything before the hello came (ncpv serve answers while still sending: an endless stream, or more than the socket buffers hold)" ]
}

@test "get --server-view against a serve whose file its socket buffers hold: byte-exact, exit 0, says once there is no server view" {
	# serve sends from its accept: a transfer its kernel takes whole, FIN and all, before it reads
	# the hello gets no answer (it was exit 1 every time, 100 of 100, at each of these sizes).
	local n i rc answered fell out err deadline=$((SECONDS + 240))
	for n in 0 1 1024 65536 1048576; do
		make_file "$SCRATCH/src" "$n"
		start_serve -q --source "$SCRATCH/src"
		answered=0 fell=0
		for i in $(seq 20); do
			[ "$SECONDS" -lt "$deadline" ] || { echo "out of time at $n bytes, run $i"; return 1; }
			out=$SCRATCH/out.$n.$i err=$SCRATCH/err.$n.$i rc=0
			timeout 20 "$NCPV" get --server-view -w 5 -o "$out" "127.0.0.1:$SERVE_PORT" 2>"$err" || rc=$?
			[ "$rc" -eq 0 ] || { echo "$n bytes, run $i: exit $rc"; cat "$err"; return 1; }
			cmp "$SCRATCH/src" "$out" || { echo "$n bytes, run $i: not byte-exact"; return 1; }
			if grep -q '^server: sent ' "$err"; then
				answered=$((answered + 1))
				continue
			fi
			[ "$(grep -c "^ncpv get: 127.0.0.1:$SERVE_PORT closed before it read the side channel's hello (it had sent everything: a transfer its socket buffers held): no server view; downloading again without it$" "$err")" -eq 1 ] ||
				{ echo "$n bytes, run $i: no note, or more than one"; cat "$err"; return 1; }
			grep -qx "server: no figures (it closed before the side channel's hello)" "$err" ||
				{ echo "$n bytes, run $i:"; cat "$err"; return 1; }
			fell=$((fell + 1))
		done
		echo "$n bytes: $answered answered, $fell without the server's view" >&3
		rm -f "$SCRATCH"/out.* "$SCRATCH"/err.*
		stop_pid "$SERVE_PID"
	done
	# -q: no note; --json: the server's view is null, the bytes are the file's. The download
	# again is a plain one: no hello of a session that is gone ("unknown token" in serve's log).
	start_serve --size 1K
	run "$NCPV" get --server-view -q "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	"$NCPV" get --server-view -j "127.0.0.1:$SERVE_PORT" >"$SCRATCH/get.json" 2>/dev/null
	jq -e '.bytes == 1024 and (.server == null or .server.size == 1024)' "$SCRATCH/get.json"
	stop_pid "$SERVE_PID" # its log is whole once it has stopped
	run grep -c 'unknown token' "$SERVE_LOG"
	[ "$output" = 0 ] || { cat "$SERVE_LOG"; return 1; }
}

@test "--reverse, --bidir, --server-view: the options they do not combine with are refused (exit 2)" {
	local row opts
	while IFS='|' read -r opts; do
		run "$NCPV" get $opts 127.0.0.1:9
		echo "$opts -> $status $output"
		[ "$status" -eq 2 ]
		[[ $output == "ncpv get: "* ]]
	done <<-'ROWS'
		-R --send
		--bidir --send
		-R --bidir
		--bidir -R
		-R --count 2
		--server-view --count 2
		--bidir -P 2
		-R --tls --insecure
		-R -o out.bin
	ROWS
}

@test "a download client that never sends costs serve one read per file, its EOF's, as before the side channel (strace)" {
	command -v strace >/dev/null || skip "strace is not installed"
	[ -z "${NCPV_VALGRIND:-}" ] || skip "counts the plain binary's system calls"
	strace -f -qq -e trace=recvfrom,recvmsg,read -o "$SCRATCH/trace" "$NCPV" serve --size 1K 127.0.0.1:0 \
		2>"$SCRATCH/serve.log" &
	local tracer=$! serve port reads
	STARTED_PIDS+=("$tracer")
	wait_for "$SCRATCH/serve.log" 'listening on' 10
	port=$(sed -En 's/.*listening on .*:([0-9]+).*/\1/p' "$SCRATCH/serve.log" | head -1)
	"$NCPV" get -q --count 300 -P 4 "127.0.0.1:$port"
	serve=$(pgrep -P "$tracer")
	stop_pid "$serve"
	wait_gone "$tracer" 5
	# One recvfrom per connection finds its client's EOF; a second look would double it.
	reads=$(grep -c 'recvfrom(' "$SCRATCH/trace")
	echo "recvfrom calls: $reads for 300 transfers"
	[ "$reads" -ge 300 ]
	[ "$reads" -le 330 ]
}

@test "get --bidir against serve --discard: the download half has nothing to receive, and get says why" {
	start_serve --json --discard
	run "$NCPV" get --bidir -t 0.3 "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 1 ]
	[[ $output == *"download: "*"(serve --discard sends nothing: --bidir and --server-view need a serve that sends)"* ]]
	wait_for "$SERVE_LOG" 'serve --discard sends nothing' 5
}
