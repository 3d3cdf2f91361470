#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# paced-get.sh - get --rate on a download (serve paces it through the side channel): the rate
# asked against the rate get measured, at several rates, one stream and -P 2 (RATE per
# stream, as iperf3's -b), interleaved over ROUNDS rounds against one ordinary serve on
# loopback; the median and the spread (min-max) of each, as a Markdown table.
# usage: bench/paced-get.sh [SECONDS] [ROUNDS]   (defaults: 2 s, 3 rounds)
set -euo pipefail
export LC_ALL=C
NCPV=${NCPV:-$(cd "$(dirname "$0")/.." && pwd)/ncpv}
SECS=${1:-2}
ROUNDS=${2:-3}
RATES=${RATES:-1M 10M 100M 1G}
scratch=$(mktemp -d)
serve_pid=
cleanup() {
	[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
	rm -rf "$scratch"
}
trap cleanup EXIT

"$NCPV" serve -q 127.0.0.1:0 2>"$scratch/serve.log" &
serve_pid=$!
for _ in $(seq 100); do
	grep -q 'listening on' "$scratch/serve.log" && break
	sleep 0.05
done
port=$(sed -En 's/.*listening on .*:([0-9]+).*/\1/p' "$scratch/serve.log" | head -1)
[ -n "$port" ] || { cat "$scratch/serve.log" >&2; exit 1; }

echo "# $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) before"
echo "# ncpv get -j --rate RATE [-P 2] -t $SECS 127.0.0.1:PORT against ncpv serve, $ROUNDS rounds"
for round in $(seq "$ROUNDS"); do
	for r in $RATES; do
		for p in 1 2; do
			"$NCPV" get -j --rate "$r" -P "$p" -t "$SECS" "127.0.0.1:$port" |
				jq -r --arg r "$r" --arg p "$p" '"\($r) \($p) \(.rate_asked_bps) \(.bytes * 8 / .seconds / ($p | tonumber))"' \
					>>"$scratch/runs"
		done
	done
	echo "# round $round done" >&2
done
echo "| asked (per stream) | streams | achieved per stream, median | spread (min-max) | median off by |"
echo "|---|---|---|---|---|"
for r in $RATES; do
	for p in 1 2; do
		awk -v r="$r" -v p="$p" '$1 == r && $2 == p { print $3, $4 }' "$scratch/runs" | sort -k2 -g |
			awk -v r="$r" -v p="$p" '{ a[NR] = $2; asked = $1 }
				END { m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
				      printf "| %s | %d | %.4g Mbit/s | %.4g-%.4g | %+.2f%% |\n", r, p, m / 1e6,
					a[1] / 1e6, a[NR] / 1e6, (m / asked - 1) * 100 }'
	done
done
echo "# load $(cut -d' ' -f1-3 /proc/loadavg) after"
