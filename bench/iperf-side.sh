#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# iperf-side.sh - ncpv beside iperf3 and iperf2 in one run each, through `ncpv bench`:
# TCP with 1, 2 and 4 parallel streams (-T streams), and a UDP sweep at 64 and 1400 bytes
# (-T udp: 1M, 100M, 1G and as fast as possible). Each tool runs against its own server on
# loopback, interleaved and repeated; the load average is printed with each table, since
# the machine is shared. With LINK (RATE[,RTT], bench's --link: 1gbit,20ms is `ncpv link
# --rate 1gbit --delay 10ms`), the streams table runs across that emulated link instead,
# followed by the link's own ceiling (the same tools at 100gbit, no delay), and udp is not run.
# usage: bench/iperf-side.sh [SECONDS] [ROUNDS] [streams|udp|both] [LINK]
#        (defaults: 2 s, 3 rounds, both, loopback)
set -euo pipefail
export LC_ALL=C
NCPV=${NCPV:-$(cd "$(dirname "$0")/.." && pwd)/ncpv}
SECS=${1:-2}
ROUNDS=${2:-3}
WHAT=${3:-both}
LINK=${4:-}
for t in iperf3 iperf; do
	command -v "$t" >/dev/null || echo "iperf-side.sh: $t is not installed: its rows say skipped" >&2
done

load() { cut -d' ' -f1-3 /proc/loadavg; }

# table ARGS...: one bench run, its throughput section only, with the load before and after.
table() {
	echo "# $(date -u +%FT%TZ), $(nproc) cores, load $(load) before"
	echo "# ncpv bench -q --no-report $*"
	"$NCPV" bench -q --no-report "$@" | sed -n '/^streams test:\|^udp test:/,/^Environment:/p' | sed '$d'
	echo "# load $(load) after"
}

if [ -n "$LINK" ]; then
	[ "$WHAT" = udp ] && { echo "iperf-side.sh: udp runs on loopback only: drop LINK" >&2; exit 2; }
	table -T streams -d "$SECS" -r "$ROUNDS" --streams 1,2,4 --link "$LINK"
	table -T streams -d "$SECS" -r "$ROUNDS" --streams 1,4 --link 100gbit
	exit 0
fi
if [ "$WHAT" != udp ]; then
	table -T streams -d "$SECS" -r "$ROUNDS" --streams 1,2,4
fi
if [ "$WHAT" != streams ]; then
	table -T udp -d "$SECS" -r "$ROUNDS" --rates 1M,100M,1G,0 --lengths 64,1400
fi
