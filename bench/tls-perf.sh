#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# tls-perf.sh - TLS on loopback, side by side in one run: stream throughput of serve --tls ->
# get --tls, openssl s_server -> s_client and ncat --ssl, against ncpv's plain stream and the
# single-core AES-GCM ceiling of `openssl speed`; then handshakes per second of
# get --tls --count (session resumption on) against openssl s_time (-new and -reuse).
#   bench/tls-perf.sh [ROUNDS] [SECS]        (needs ./ncpv built with TLS, openssl, ncat)
# Methods are interleaved, ROUNDS rounds of SECS seconds; medians with min-max, in MiB/s.
# Every sender sends zeros (no generator in the way); receivers that are pipelines (s_client,
# ncat) count with wc -c, as a user would run them.
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
SECS=${2:-3}
NCPV=${NCPV:-./ncpv}
"$NCPV" --version | grep -qw tls || { echo "tls-perf.sh: $NCPV has no TLS (make, not make static)" >&2; exit 2; }
for tool in openssl ncat python3; do
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

# Each method prints bytes per second received in SECS seconds.
m_ncpv_plain() {
	serve_start --source zero
	"$NCPV" get -q --json --time "$SECS" "127.0.0.1:$port" | sed -n 's/.*"rate":\([0-9]*\).*/\1/p'
	stop_last
}
m_ncpv_tls() {
	serve_start --tls --source zero
	"$NCPV" get -q --json --tls --insecure --time "$SECS" "127.0.0.1:$port" |
		sed -n 's/.*"rate":\([0-9]*\).*/\1/p'
	stop_last
}
m_openssl() {
	port=$(free_port)
	openssl s_server -nbio -quiet -naccept 1 -accept "127.0.0.1:$port" -cert "$work/cert.pem" \
		-key "$work/key.pem" </dev/zero >/dev/null 2>&1 &
	pids+=($!)
	wait_listen "$port"
	bytes=$( (timeout "$SECS" openssl s_client -quiet -connect "127.0.0.1:$port" </dev/null 2>/dev/null || true) | wc -c)
	echo $((bytes / SECS))
	stop_last
}
m_ncat() {
	port=$(free_port)
	ncat --ssl --ssl-cert "$work/cert.pem" --ssl-key "$work/key.pem" -l --send-only 127.0.0.1 "$port" \
		</dev/zero >/dev/null 2>&1 &
	pids+=($!)
	wait_listen "$port"
	bytes=$( (timeout "$SECS" ncat --ssl --recv-only 127.0.0.1 "$port" </dev/null 2>/dev/null || true) | wc -c)
	echo $((bytes / SECS))
	stop_last
}

methods=(ncpv_plain ncpv_tls openssl ncat)
for ((r = 1; r <= ROUNDS; r++)); do
	# Rotate the order each round, so that drift on a shared machine evens out.
	for ((i = 0; i < ${#methods[@]}; i++)); do
		m=${methods[$(((i + r) % ${#methods[@]}))]}
		echo "$m $("m_$m")" >>"$work/stream"
	done
done

# median min max (MiB/s) of one method's samples in FILE.
stats() {
	awk -v m="$2" '$1 == m { print $2 / 1048576 }' "$1" | sort -n |
		awk '{ v[NR] = $1 } END { if (!NR) { print "- - -"; exit }
			md = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.0f %.0f %.0f\n", md, v[1], v[NR] }'
}

# The ceiling: AES-GCM on 16 KiB blocks (TLS's record size), one core.
ceiling() {
	taskset -c 0 openssl speed -evp "$1" -seconds "$SECS" -bytes 16384 2>/dev/null |
		awk -v c="${1^^}" '$1 == c { sub("k", "", $2); printf "%.0f\n", $2 * 1000 / 1048576 }'
}
aes128=$(ceiling aes-128-gcm)
aes256=$(ceiling aes-256-gcm)

echo "TLS stream on loopback: $ROUNDS rounds of $SECS s, zeros, MiB/s (median, min-max)"
printf '%-34s %8s %15s\n' method median min-max
for m in "${methods[@]}"; do
	read -r md lo hi <<<"$(stats "$work/stream" "$m")"
	case $m in
	ncpv_plain) name="ncpv serve -> get (plain TCP)" ;;
	ncpv_tls) name="ncpv serve --tls -> get --tls" ;;
	openssl) name="openssl s_server -> s_client" ;;
	ncat) name="ncat --ssl -> ncat --ssl" ;;
	esac
	printf '%-34s %8s %15s\n' "$name" "$md" "$lo-$hi"
done
printf '%-34s %8s\n' "openssl speed aes-128-gcm, 1 core" "$aes128"
printf '%-34s %8s\n' "openssl speed aes-256-gcm, 1 core" "$aes256"

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
