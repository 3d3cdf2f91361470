#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# busy-poll.sh - what --busy-poll buys: serve -> get on loopback with the default
# window and with --busy-poll 0 on both sides, interleaved, same binary.
# Usage: bench/busy-poll.sh [-d SECONDS] [-r REPEATS] [-n FILES]
set -euo pipefail
export LC_ALL=C
NCPV=${NCPV:-$(cd "$(dirname "$0")/.." && pwd)/ncpv}
DUR=3 REPEAT=5 FILES=20000
while getopts d:r:n: opt; do
	case $opt in
	d) DUR=$OPTARG ;;
	r) REPEAT=$OPTARG ;;
	n) FILES=$OPTARG ;;
	*) echo "usage: $0 [-d SECONDS] [-r REPEATS] [-n FILES]" >&2; exit 2 ;;
	esac
done
TMP=$(mktemp -d)
SERVE=
trap '[ -z "$SERVE" ] || kill "$SERVE" 2>/dev/null; rm -rf "$TMP"' EXIT

serve() { # serve ARGS...: start a server, its port in PORT
	"$NCPV" serve --quiet "$@" 127.0.0.1:0 2>"$TMP/serve.log" &
	SERVE=$!
	for _ in $(seq 200); do grep -q listening "$TMP/serve.log" && break; sleep 0.02; done
	PORT=$(sed -n 's/.*:\([0-9]*\) (.*/\1/p' "$TMP/serve.log")
}
unserve() { kill "$SERVE"; wait "$SERVE" 2>/dev/null || true; SERVE=; }
field() { sed "s/.*\"$1\":\([0-9.]*\).*/\1/"; }

: >"$TMP/res"
for _ in $(seq "$REPEAT"); do
	for mode in 50 0; do
		serve --busy-poll "$mode"
		v=$("$NCPV" get -q --json --busy-poll "$mode" --time "$DUR" "127.0.0.1:$PORT" | field rate)
		echo "stream $mode $v" | tee -a "$TMP/res" >&2
		unserve
		serve --busy-poll "$mode" --size 4K
		v=$("$NCPV" get -q --json --busy-poll "$mode" --count "$FILES" --parallel 16 "127.0.0.1:$PORT" |
			field transfers_per_s)
		echo "files $mode $v" | tee -a "$TMP/res" >&2
		unserve
	done
done
python3 - "$TMP/res" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    test, mode, v = line.split()
    runs.setdefault((test, mode), []).append(float(v))
print("| test | --busy-poll 50 (default) | --busy-poll 0 | ratio of medians | pairs won |")
print("|---|---|---|---|---|")
for test, unit, scale in (("stream", "MiB/s", 1 / 1048576), ("files", "files/s", 1)):
    on, off = runs[(test, "50")], runs[(test, "0")]
    def cell(v):
        med, lo, hi = (f"{x * scale:,.0f}" for x in (statistics.median(v), min(v), max(v)))
        return f"{med} {unit} ({lo}-{hi})"
    won = sum(a > b for a, b in zip(on, off))
    print(f"| {test} | {cell(on)} | {cell(off)} | {statistics.median(on) / statistics.median(off):.2f}x | {won} of {len(on)} |")
PY
