#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# udp-perf.sh - UDP tests on loopback, side by side and interleaved: `ncpv get -u` (with UDP_SEGMENT
# where the kernel has it, and with --no-gso: plain sendmmsg) against `iperf3 -u` and `iperf -u`
# (iperf2). Two parts:
#   pps:  as fast as possible (--rate 0, iperf3 -b 0, iperf -b 10G) at 64 and 1400 bytes:
#         datagrams per second sent and received;
#   rate: a sweep of asked rates (1M 10M 100M 1G at 1400 bytes, or RATES="1000000 ..." in bit/s):
#         the rate each sent by its own count over its own time (ncpv: over the test's span of
#         whole datagram slots, docs/UDP.md), its error against the ask: median, min .. max.
# Each line prints the median over ROUNDS and the min-max; the order of the tools rotates each round.
# usage: bench/udp-perf.sh [ROUNDS] [SECONDS] [PART]   (defaults: 5 rounds of 3 s, both parts)
set -euo pipefail
export LC_ALL=C
NCPV=${NCPV:-$(cd "$(dirname "$0")/.." && pwd)/ncpv}
ROUNDS=${1:-5}
SECS=${2:-3}
PART=${3:-all}
for tool in iperf3 iperf python3 jq; do
	command -v "$tool" >/dev/null || { echo "udp-perf.sh: needs $tool" >&2; exit 1; }
done
dir=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$dir"' EXIT

"$NCPV" serve -u -q --max-rate 0 127.0.0.1:0 2>"$dir/ncpv.log" &
pids+=($!)
for _ in $(seq 100); do grep -q 'listening on' "$dir/ncpv.log" && break; sleep 0.05; done
nport=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\) .*/\1/p' "$dir/ncpv.log")
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
i3port=$(free_port)
iperf3 -s -B 127.0.0.1 -p "$i3port" >/dev/null 2>&1 &
pids+=($!)
i2port=$(free_port)
iperf -s -u -B 127.0.0.1 -p "$i2port" >/dev/null 2>&1 &
pids+=($!)
sleep 0.5

# Each run prints: sent_pps received_pps sent_bps jitter_ms
run_ncpv() { # LEN RATE [--no-gso]
	"$NCPV" get -u -j -i 0 -t "$SECS" -l "$1" --rate "$2" ${3:-} "127.0.0.1:$nport" 2>/dev/null |
		jq -r 'select(.event == "summary") | "\(.sent_pps) \(.received_pps) \(.sent_bps) \(.jitter_ms)"'
}
run_iperf3() { # LEN RATE
	iperf3 -c 127.0.0.1 -p "$i3port" -u -b "$2" -l "$1" -t "$SECS" -J 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)["end"]; n = int(sys.argv[1])
s, r = d["sum_sent"], d["sum_received"]
print(s["bytes"] / n / s["seconds"], r["bytes"] / n / s["seconds"], s["bits_per_second"], d["sum"].get("jitter_ms", 0))' "$1"
}
run_iperf() { # LEN RATE
	iperf -c 127.0.0.1 -p "$i2port" -u -b "$2" -l "$1" -t "$SECS" -e 2>/dev/null | python3 -c '
import re, sys
t = sys.stdin.read(); n = int(sys.argv[1])
m = re.search(r"\] ([\d.]+)-([\d.]+) sec .*?([\d.]+) ([KMG]?)bits/sec", t)
secs = float(m.group(2)) - float(m.group(1))
sent = int(re.search(r"Sent (\d+) datagrams", t).group(1))
bps = sent * n * 8 / secs  # from the count: its printed rate has only three digits
rep = re.findall(r"([\d.]+) ms +(\d+)/ *(\d+)", t)
jit, lost, total = (float(rep[-1][0]), int(rep[-1][1]), int(rep[-1][2])) if rep else (0, 0, 0)
print(sent / secs, (total - lost) / secs, bps, jit)' "$1"
}

# summarize FILE LABEL COLUMN [ASKED]: median and min-max of a column (with ASKED: the error in %).
summarize() {
	python3 - "$@" <<'PY'
import statistics, sys
path, label, col = sys.argv[1], sys.argv[2], int(sys.argv[3])
asked = float(sys.argv[4]) if len(sys.argv) > 4 else None
vals = [float(l.split()[col]) for l in open(path) if l.strip()]
if not vals:
    print("%-28s (no result)" % label); sys.exit()
if asked:
    errs = [100 * (v / asked - 1) for v in vals]
    print("%-28s sent %10.4g bit/s  error median %+7.3f%%  (%+.3f%% .. %+.3f%%)  |max| %6.3f%%  n=%d" % (label,
          statistics.median(vals), statistics.median(errs), min(errs), max(errs), max(abs(e) for e in errs), len(errs)))
else:
    print("%-28s %12.0f  (%.0f - %.0f)" % (label, statistics.median(vals), min(vals), max(vals)))
PY
}

echo "# $(date -u +%FT%TZ) $ROUNDS rounds of $SECS s, loopback, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) before; $(iperf3 --version | head -1); $(iperf -v 2>&1)"
tools=(ncpv ncpv_sendmmsg iperf3 iperf2)
one() { # TOOL LEN RATE
	case $1 in
	ncpv) run_ncpv "$2" "$3" ;;
	ncpv_sendmmsg) run_ncpv "$2" "$3" --no-gso ;;
	iperf3) run_iperf3 "$2" "$3" ;;
	iperf2) run_iperf "$2" "$3" ;;
	esac
}
max_rate() { case $1 in iperf2) echo 10G ;; *) echo 0 ;; esac; }

if [ "$PART" = all ] || [ "$PART" = pps ]; then
	for ((r = 0; r < ROUNDS; r++)); do
		for len in 64 1400; do
			for ((k = 0; k < ${#tools[@]}; k++)); do
				t=${tools[$(((r + k) % ${#tools[@]}))]}
				one "$t" "$len" "$(max_rate "$t")" >>"$dir/pps.$t.$len" || true
			done
		done
	done
	echo "## datagrams per second, as fast as possible: sent, then received (median, min - max)"
	for len in 64 1400; do
		for t in "${tools[@]}"; do
			summarize "$dir/pps.$t.$len" "$t $len B sent" 0
			summarize "$dir/pps.$t.$len" "$t $len B received" 1
		done
	done
fi
if [ "$PART" = all ] || [ "$PART" = rate ]; then
	read -ra rates <<<"${RATES:-1000000 10000000 100000000 1000000000}"
	for ((r = 0; r < ROUNDS; r++)); do
		for rate in "${rates[@]}"; do
			for ((k = 0; k < 3; k++)); do
				t=${tools[$(((r + k) % 3 == 1 ? 2 : (r + k) % 3 == 2 ? 3 : 0))]}
				one "$t" 1400 "$rate" >>"$dir/rate.$t.$rate" || true
			done
		done
	done
	echo "## asked rate vs sent (1400 B): median error (min .. max) and the largest"
	for rate in "${rates[@]}"; do
		for t in ncpv iperf3 iperf2; do
			summarize "$dir/rate.$t.$rate" "$t at $rate" 2 "$rate"
		done
	done
fi
echo "# $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg) after"
