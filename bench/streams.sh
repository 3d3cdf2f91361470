#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# streams.sh - parallel TCP streams on loopback: `ncpv get -P N -t S` against `ncpv serve`,
# `iperf3 -R -P N` against `iperf3 -s` and `iperf -R -P N` (iperf2) against `iperf -s`, all
# downloads (the server sends), N = 1, 2, 4; the rate each client reports and the client's CPU
# seconds (user + system, from /usr/bin/time) per GiB received.
# usage: bench/streams.sh [SECONDS] [ROUNDS]      (defaults: 3 s, 1 round)
set -euo pipefail
export LC_ALL=C
NCPV=${NCPV:-$(cd "$(dirname "$0")/.." && pwd)/ncpv}
SECS=${1:-3}
ROUNDS=${2:-1}
for t in iperf3 iperf jq /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "streams.sh: needs $t" >&2; exit 1; }
done
dir=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$dir"' EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

"$NCPV" serve -q 127.0.0.1:0 2>"$dir/serve.log" &
pids+=($!)
for _ in $(seq 100); do grep -q 'listening on' "$dir/serve.log" && break; sleep 0.05; done
nport=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\) .*/\1/p' "$dir/serve.log")
p3=$(free_port)
iperf3 -s -B 127.0.0.1 -p "$p3" >/dev/null 2>&1 &
pids+=($!)
p2=$(free_port)
iperf -s -B 127.0.0.1 -p "$p2" >/dev/null 2>&1 &
pids+=($!)
sleep 0.5 # iperf3 and iperf print no readiness line this script could wait for

# run LABEL CMD...: the client under /usr/bin/time; prints "rate_bps cpu_seconds".
measure() {
	/usr/bin/time -f '%U %S' -o "$dir/time" "$@" >"$dir/out" 2>/dev/null || true
	awk '{ print $1 + $2 }' "$dir/time"
}
echo "# $(date -u +%F) $SECS s per run, $ROUNDS round(s), loopback, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-8s %3s %12s %10s %12s\n' method P Mbit/s cpu_s cpu_s/GiB
for ((r = 0; r < ROUNDS; r++)); do
	for n in 1 2 4; do
		cpu=$(measure "$NCPV" get -q -j -P "$n" -t "$SECS" "127.0.0.1:$nport")
		bytes=$(jq .bytes "$dir/out"); secs=$(jq .seconds "$dir/out")
		awk -v m=ncpv -v n="$n" -v b="$bytes" -v s="$secs" -v c="$cpu" \
			'BEGIN { printf "%-8s %3s %12.0f %10.2f %12.3f\n", m, n, b * 8 / s / 1e6, c, c / (b / 1073741824) }'
		cpu=$(measure iperf3 -c 127.0.0.1 -p "$p3" -R -P "$n" -t "$SECS" -J)
		bytes=$(jq .end.sum_received.bytes "$dir/out"); secs=$(jq .end.sum_received.seconds "$dir/out")
		awk -v m=iperf3 -v n="$n" -v b="$bytes" -v s="$secs" -v c="$cpu" \
			'BEGIN { printf "%-8s %3s %12.0f %10.2f %12.3f\n", m, n, b * 8 / s / 1e6, c, c / (b / 1073741824) }'
		cpu=$(measure iperf -c 127.0.0.1 -p "$p2" -R -P "$n" -t "$SECS" -f b -y C)
		# iperf2 CSV: the last line is the sum (or the only stream); field 8 bytes, 9 bits/s.
		tail -1 "$dir/out" | awk -F, -v n="$n" -v c="$cpu" \
			'{ printf "%-8s %3s %12.0f %10.2f %12.3f\n", "iperf", n, $9 / 1e6, c, c / ($8 / 1073741824) }'
	done
done
