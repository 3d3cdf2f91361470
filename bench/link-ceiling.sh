#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# link-ceiling.sh - what `ncpv link` itself carries and costs: one TCP stream through it with
# ncpv (serve at the near end, get at the far end), iperf3 and iperf2 as the traffic, in
# interleaved rounds; each tool's own rate, and the delay line's CPU seconds (from `ncpv link
# -v`) over the run. Without LINK options the link has no rate and no delay: its ceiling.
# usage: bench/link-ceiling.sh [SECONDS] [ROUNDS] [-- LINK_OPTION...]
#        e.g. bench/link-ceiling.sh 3 3 -- --rate 1gbit --delay 10ms
set -euo pipefail
export LC_ALL=C
NCPV=${NCPV:-$(cd "$(dirname "$0")/.." && pwd)/ncpv}
SECS=${1:-3}
ROUNDS=${2:-3}
shift $(($# > 2 ? 2 : $#))
[ "${1:-}" = -- ] && shift
for t in iperf3 iperf python3; do
	command -v "$t" >/dev/null || { echo "link-ceiling.sh: needs $t" >&2; exit 1; }
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
near=10.231.0.1

# one TOOL: a run through the link; prints "TOOL Mbit/s line_cpu_s".
one() {
	local tool=$1 srv cli rate
	shift
	case $tool in
	ncpv) srv="$NCPV serve -q $near:6666" cli="$NCPV get -q -j -t $SECS $near:6666" ;;
	iperf3) srv="iperf3 -s -B $near -p 6666" cli="iperf3 -c $near -p 6666 -t $SECS -J" ;;
	iperf2) srv="iperf -s -B $near -p 6666" cli="iperf -c $near -p 6666 -t $SECS -y C" ;;
	esac
	# The servers are started by ncpv link at the near end and stopped when the client ends.
	# shellcheck disable=SC2086
	"$NCPV" link -v "$@" --near "$srv" -- $cli >"$out" 2>&1 || true
	case $tool in
	ncpv) rate=$(grep -o '"rate":[0-9.e+]*' "$out" | head -1 | cut -d: -f2) ;;
	iperf3) rate=$(python3 -c 'import json, sys
t = open(sys.argv[1]).read()
print(json.loads(t[t.index("{"):t.rindex("}") + 1])["end"]["sum_received"]["bits_per_second"] / 8)' "$out") ;;
	iperf2) rate=$(grep -E '^[0-9]{14},' "$out" | tail -1 | cut -d, -f9 | awk '{ print $1 / 8 }') ;;
	esac
	awk -v t="$tool" -v r="${rate:-0}" -v l="$(grep 'delay line cpu' "$out" | awk '{ print $6 + $8 }')" \
		'BEGIN { printf "%-7s %8.0f %8.2f\n", t, r * 8 / 1e6, l }'
}

echo "# $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) before; ncpv link ${*:-(no rate, no delay)}; $SECS s runs x $ROUNDS"
runs=$(for ((r = 0; r < ROUNDS; r++)); do for t in ncpv iperf3 iperf2; do one "$t" "$@"; done; done)
printf '# run: %s\n' "${runs//$'\n'/$'\n'# run: }"
# Median, min and max of each tool's rate, and the median of the line's CPU per second.
echo "$runs" | python3 -c 'import statistics, sys
secs, rows = float(sys.argv[1]), {}
for line in sys.stdin:
    t, r, l = line.split()
    rows.setdefault(t, []).append((float(r), float(l)))
print("%-7s %8s %8s %8s %14s" % ("tool", "Mbit/s", "min", "max", "line cpu s/s"))
for t, v in rows.items():
    r = [x[0] for x in v]
    print("%-7s %8.0f %8.0f %8.0f %14.2f" % (t, statistics.median(r), min(r), max(r),
                                              statistics.median(x[1] for x in v) / secs))' "$SECS"
echo "# load $(cut -d' ' -f1-3 /proc/loadavg) after"
