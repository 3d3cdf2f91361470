#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# tls-perf.sh - TLS on loopback, side by side in one run: each tool as its own server and client
# (ncpv serve --tls -> get --tls, openssl s_server -> s_client, ncat --ssl, socat OPENSSL:), against
# ncpv's plain stream and the single-core AES-GCM ceiling of `openssl speed`; then handshakes per
# second of get --tls --count (session resumption on) against openssl s_time (-new and -reuse).
#   bench/tls-perf.sh [ROUNDS] [SECS]        (needs ./ncpv built with TLS, openssl, ncat, socat)
# Pairs are interleaved, ROUNDS rounds (default 5) of SECS seconds (default 3). Every server sends
# zeros (no generator in the way), every client writes to /dev/null. A pair runs 1 s to settle,
# then the kernel's count of bytes its client socket received (ss, tcpi_bytes_received: TLS
# records for TLS) is taken at the start and end of SECS seconds, with the CPU time (user + system)
# of the server's and the client's process over the same span. Printed: MiB/s as median and
# min-max, the ratio of medians to s_server -> s_client, and each side's CPU per byte (median).
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
SECS=${2:-3}
NCPV=${NCPV:-./ncpv}
"$NCPV" --version | grep -qw tls || { echo "tls-perf.sh: $NCPV has no TLS (make, not make static)" >&2; exit 2; }
for tool in openssl ncat socat python3 ss; do
	command -v "$tool" >/dev/null || { echo "tls-perf.sh: needs $tool" >&2; exit 2; }
done
work=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/key.pem" \
	-out "$work/cert.pem" -days 1 -subj /CN=localhost 2>/dev/null

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_listen() {
	local i
	for ((i = 0; i < 500; i++)); do
		ss -ltn | grep -q "127.0.0.1:$1 " && return 0
		sleep 0.02
	done
	echo "tls-perf.sh: nothing listens on $1" >&2
	return 1
}
stop_last() { kill "${pids[-1]}" 2>/dev/null || true; wait "${pids[-1]}" 2>/dev/null || true; unset 'pids[-1]'; }

# serve_start ARGS...: ncpv serve on a free port; sets port.
serve_start() {
	port=$(free_port)
	"$NCPV" serve -q "$@" "127.0.0.1:$port" 2>/dev/null &
	pids+=($!)
	wait_listen "$port"
}

# rx PORT: bytes the client sockets connected to 127.0.0.1:PORT have received.
rx() {
	ss -tinH state established "( dport = :$1 )" |
		awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^bytes_received:/) { sub(/.*:/, "", $i); n += $i } }
			END { printf "%.0f\n", n }'
}
# cpu PID: its user + system time so far, in clock ticks.
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# measure NAME SERVER_PID CLIENT_PID: after 1 s to settle, SECS seconds of bytes and CPU; appends
# "NAME bytes_per_s server_ns_per_B client_ns_per_B" to the samples, then stops both.
measure() {
	local b0 b1 s0 s1 c0 c1 t0 t1
	sleep 1
	b0=$(rx "$port") s0=$(cpu "$2") c0=$(cpu "$3") t0=$(date +%s.%N)
	sleep "$SECS"
	b1=$(rx "$port") s1=$(cpu "$2") c1=$(cpu "$3") t1=$(date +%s.%N)
	kill "$3" "$2" 2>/dev/null || true
	wait "$3" "$2" 2>/dev/null || true
	pids=()
	awk -v n="$1" -v b=$((b1 - b0)) -v t0="$t0" -v t1="$t1" -v s=$((s1 - s0)) -v c=$((c1 - c0)) \
		-v hz="$(getconf CLK_TCK)" 'BEGIN { if (b <= 0) b = 1
			printf "%s %.0f %.3f %.3f\n", n, b / (t1 - t0), s / hz * 1e9 / b, c / hz * 1e9 / b }' >>"$work/stream"
}

# Each pair: a server on a free port sending zeros, a client to /dev/null, both ours to stop.
# pair_start SERVER ARGS...: run it (on $port, chosen by the caller) with the caller's stdin
# (a background job would get /dev/null), and wait until it listens.
pair_start() {
	"$@" <&0 &
	pids=($!)
	wait_listen "$port"
}
p_ncpv_plain() {
	port=$(free_port)
	pair_start "$NCPV" serve -q --source zero "127.0.0.1:$port" 2>/dev/null
	"$NCPV" get -q "127.0.0.1:$port" &
	measure ncpv_plain "${pids[0]}" $!
}
p_ncpv_tls() {
	port=$(free_port)
	pair_start "$NCPV" serve -q --tls --source zero "127.0.0.1:$port" 2>/dev/null
	"$NCPV" get -q --tls --insecure "127.0.0.1:$port" &
	measure ncpv_tls "${pids[0]}" $!
}
p_openssl() {
	port=$(free_port)
	pair_start openssl s_server -nbio -quiet -naccept 1 -accept "127.0.0.1:$port" \
		-cert "$work/cert.pem" -key "$work/key.pem" </dev/zero >/dev/null 2>&1
	openssl s_client -quiet -connect "127.0.0.1:$port" </dev/null >/dev/null 2>&1 &
	measure openssl "${pids[0]}" $!
}
p_ncat() {
	port=$(free_port)
	pair_start ncat --ssl --ssl-cert "$work/cert.pem" --ssl-key "$work/key.pem" -l --send-only \
		127.0.0.1 "$port" </dev/zero >/dev/null 2>&1
	ncat --ssl --recv-only 127.0.0.1 "$port" </dev/null >/dev/null 2>&1 &
	measure ncat "${pids[0]}" $!
}
p_socat() {
	port=$(free_port)
	pair_start socat -u OPEN:/dev/zero \
		"OPENSSL-LISTEN:$port,bind=127.0.0.1,reuseaddr,cert=$work/cert.pem,key=$work/key.pem,verify=0" 2>/dev/null
	socat -u "OPENSSL:127.0.0.1:$port,verify=0" - >/dev/null 2>&1 &
	measure socat "${pids[0]}" $!
}

# What each pair negotiates (one short connection each, outside the timed runs).
suites() {
	local s
	port=$(free_port)
	pair_start "$NCPV" serve -q --tls --size 1 "127.0.0.1:$port" 2>/dev/null
	s=$("$NCPV" get -q --json --tls --insecure "127.0.0.1:$port" | sed -n 's/.*"cipher":"\([^"]*\)".*/\1/p')
	stop_last
	echo "ncpv_tls $s"
	port=$(free_port)
	pair_start openssl s_server -quiet -naccept 1 -accept "127.0.0.1:$port" -cert "$work/cert.pem" \
		-key "$work/key.pem" </dev/null >/dev/null 2>&1
	s=$(timeout 10 openssl s_client -connect "127.0.0.1:$port" </dev/null 2>/dev/null | sed -n 's/.*Cipher is //p' | head -1)
	stop_last
	for m in openssl ncat socat; do echo "$m $s (OpenSSL's default order; the client's first choice)"; done
}

methods=(ncpv_plain ncpv_tls openssl ncat socat)
suites >"$work/suites"
for ((r = 1; r <= ROUNDS; r++)); do
	# Rotate the order each round, so that drift on a shared machine evens out.
	for ((i = 0; i < ${#methods[@]}; i++)); do
		"p_${methods[$(((i + r) % ${#methods[@]}))]}"
	done
done

# median min max of column COL of one method's samples in FILE (MiB/s for column 2).
stats() {
	awk -v m="$2" -v c="${3:-2}" '$1 == m { print (c == 2 ? $c / 1048576 : $c) }' "$1" | sort -g |
		awk '{ v[NR] = $1 } END { if (!NR) { print "- - -"; exit }
			md = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.4g %.4g %.4g\n", md, v[1], v[NR] }'
}

# The ceiling: AES-GCM on 16 KiB blocks (TLS's record size), one core.
ceiling() {
	taskset -c 0 openssl speed -evp "$1" -seconds "$SECS" -bytes 16384 2>/dev/null |
		awk -v c="${1^^}" '$1 == c { sub("k", "", $2); printf "%.0f\n", $2 * 1000 / 1048576 }'
}
aes128=$(ceiling aes-128-gcm)
aes256=$(ceiling aes-256-gcm)

echo "TLS stream on loopback, each tool its own server and client: $ROUNDS rounds of $SECS s, zeros"
printf '%-34s %7s %13s %7s %9s %9s  %s\n' pair MiB/s min-max ratio "srv ns/B" "cli ns/B" suite
read -r base _ <<<"$(stats "$work/stream" openssl)"
for m in "${methods[@]}"; do
	read -r md lo hi <<<"$(stats "$work/stream" "$m")"
	read -r sns _ <<<"$(stats "$work/stream" "$m" 3)"
	read -r cns _ <<<"$(stats "$work/stream" "$m" 4)"
	case $m in
	ncpv_plain) name="ncpv serve -> get (plain TCP)" ;;
	ncpv_tls) name="ncpv serve --tls -> get --tls" ;;
	openssl) name="openssl s_server -> s_client" ;;
	ncat) name="ncat --ssl -> ncat --ssl" ;;
	socat) name="socat OPENSSL-LISTEN -> OPENSSL" ;;
	esac
	printf '%-34s %7.0f %13s %7.2f %9s %9s  %s\n' "$name" "$md" "$(printf '%.0f-%.0f' "$lo" "$hi")" \
		"$(awk -v a="$md" -v b="$base" 'BEGIN { print (b > 0 ? a / b : 0) }')" "$sns" "$cns" \
		"$(sed -n "s/^$m //p" "$work/suites")"
done
printf '%-34s %7s\n' "openssl speed aes-128-gcm, 1 core" "$aes128"
printf '%-34s %7s\n' "openssl speed aes-256-gcm, 1 core" "$aes256"

# ---- handshakes per second ----
N=${HANDSHAKES:-2000}
serve_start --tls --size 0
hs() { # P: get --tls --count N --parallel P, full handshake each time or resumed
	"$NCPV" get -q --json --tls --insecure -n "$N" -P "$1" "127.0.0.1:$port" |
		sed -n 's/.*"transfers_per_s":\([0-9.]*\).*"resumed":\([0-9]*\).*/\1 \2/p'
}
s_time() { # -new or -reuse: openssl s_time's connections per real second
	timeout $((SECS + 30)) openssl s_time -connect "127.0.0.1:$port" "$1" -time "$SECS" 2>/dev/null |
		awk '/connections in [0-9]+ real seconds/ { printf "%.0f\n", $1 / $4 }'
}
echo
echo "TLS handshakes per second against ncpv serve --tls --size 0 (TLS 1.3, P-256 certificate)"
for p in 1 4; do
	read -r rate resumed <<<"$(hs "$p")"
	printf '%-44s %8s/s  (%s of %s resumed)\n' "ncpv get --tls --count $N --parallel $p" "$rate" "$resumed" "$N"
done
printf '%-44s %8s/s\n' "openssl s_time -new (one at a time)" "$(s_time -new)"
printf '%-44s %8s/s\n' "openssl s_time -reuse (one at a time)" "$(s_time -reuse)"
stop_last
