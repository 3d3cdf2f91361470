#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# udp-rate.sh - how closely `ncpv get -u` holds --rate, step by step from 1 Mbit/s up, and the
# ceiling (--rate 0) this machine reaches on loopback: per step the rate sent and its error
# against the ask, the receiver's loss and RFC 3550 jitter (medians of ROUNDS runs).
# usage: bench/udp-rate.sh [ROUNDS] [SECONDS] [LEN]   (defaults: 3 rounds of 3 s, 1400 bytes)
set -euo pipefail
export LC_ALL=C
NCPV=${NCPV:-$(cd "$(dirname "$0")/.." && pwd)/ncpv}
ROUNDS=${1:-3}
SECS=${2:-3}
LEN=${3:-1400}
command -v jq >/dev/null || { echo "udp-rate.sh: needs jq" >&2; exit 1; }
log=$(mktemp)
trap 'kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -f "$log"' EXIT
"$NCPV" serve -u -q --max-rate 0 127.0.0.1:0 2>"$log" &
pid=$!
for _ in $(seq 100); do grep -q 'listening on' "$log" && break; sleep 0.05; done
port=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\) .*/\1/p' "$log")
echo "# $(date -u +%F) $ROUNDS rounds of $SECS s, $LEN-byte datagrams, loopback, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-12s %14s %9s %9s %10s %s\n' asked sent error loss jitter_ms path
for rate in 1M 10M 100M 1G 2G 5G 0; do
	for ((r = 0; r < ROUNDS; r++)); do
		"$NCPV" get -u -j -i 0 -t "$SECS" -l "$LEN" --rate "$rate" "127.0.0.1:$port" 2>/dev/null |
			jq -r 'select(.event == "summary") | "\(.rate_asked_bps) \(.sent_bps) \(.loss_percent) \(.jitter_ms) \(.send_path)"'
	done | sort -k2 -n | awk -v n="$ROUNDS" -v label="$rate" '
		{ a[NR] = $0 } END { split(a[int((n + 1) / 2)], m, " ")
		  err = m[1] > 0 ? sprintf("%+.3f%%", 100 * (m[2] / m[1] - 1)) : "-"
		  printf "%-12s %14.0f %9s %8.3f%% %10.4f %s\n", label, m[2], err, m[3], m[4], m[5] }'
done
