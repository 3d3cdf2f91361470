#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# nc-perf.sh - single-stream download from `ncpv serve` on loopback: `ncpv nc --progress` against
# the seed's `nc HOST PORT | pv` (nc.openbsd) and against socat, side by side, interleaved.
# Prints per-contender medians, min-max and the ratio of ncpv's median to each other median.
# usage: bench/nc-perf.sh [ROUNDS] [SIZE]   (defaults: 9 rounds of 2G each)
set -euo pipefail
export LC_ALL=C
NCPV=${NCPV:-$(cd "$(dirname "$0")/.." && pwd)/ncpv}
ROUNDS=${1:-9}
SIZE=${2:-2G}
for tool in nc.openbsd pv socat python3; do
	command -v "$tool" >/dev/null || { echo "nc-perf.sh: needs $tool" >&2; exit 1; }
done

log=$(mktemp)
results=$(mktemp)
trap 'kill "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null; rm -f "$log" "$results"' EXIT
# Zeros cost the server nothing to produce, so the clients are what is measured.
"$NCPV" serve --quiet --source zero --size "$SIZE" 127.0.0.1:0 2>"$log" &
serve_pid=$!
for _ in $(seq 200); do grep -q 'listening on' "$log" && break; sleep 0.05; done
port=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\) .*/\1/p' "$log")
[ -n "$port" ] || { cat "$log" >&2; exit 1; }

run_ncpv() { "$NCPV" nc -d --progress 127.0.0.1 "$port" >/dev/null 2>/dev/null; }
run_ncpv_pv() { nc.openbsd -d 127.0.0.1 "$port" | pv -f >/dev/null 2>/dev/null; }
run_socat() { socat -u "TCP:127.0.0.1:$port" - >/dev/null; }
contenders=(ncpv nc_pv socat)
fn_of() { case $1 in ncpv) echo run_ncpv ;; nc_pv) echo run_ncpv_pv ;; socat) echo run_socat ;; esac; }

bytes=$(python3 -c 'import sys
s=sys.argv[1]; m={"K":1<<10,"M":1<<20,"G":1<<30}
print(int(float(s[:-1])*m[s[-1]]) if s[-1] in m else int(s))' "$SIZE")
echo "# $ROUNDS rounds, $SIZE per download, loopback, from ncpv serve --source zero; $(nproc) cores, shared machine"
for ((r = 0; r < ROUNDS; r++)); do
	# Rotate the order each round so that no contender always runs first (or hot).
	for ((k = 0; k < ${#contenders[@]}; k++)); do
		c=${contenders[$(((r + k) % ${#contenders[@]}))]}
		start=$EPOCHREALTIME
		$(fn_of "$c")
		end=$EPOCHREALTIME
		echo "$c $start $end" >>"$results"
	done
done
python3 - "$results" "$bytes" <<'PY'
import statistics, sys
rates = {}
for line in open(sys.argv[1]):
    c, a, b = line.split()
    rates.setdefault(c, []).append(int(sys.argv[2]) / (float(b) - float(a)) / 1e6)
med = {c: statistics.median(v) for c, v in rates.items()}
print("%-8s %10s %10s %10s %6s" % ("client", "median", "min", "max", "runs"))
for c in ("ncpv", "nc_pv", "socat"):
    v = rates[c]
    print("%-8s %7.0f MB/s %5.0f MB/s %5.0f MB/s %6d" % (c, med[c], min(v), max(v), len(v)))
for c in ("nc_pv", "socat"):
    print("ratio ncpv / %-6s = %.2f" % (c, med["ncpv"] / med[c]))
PY
