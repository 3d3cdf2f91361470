#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# perf.sh - the foundation's speed targets, side by side in one run on loopback:
# single stream (ncpv vs iperf3 x3 vs the seed's pipelines), many small files
# (ncpv get --count vs shell loops), the random source vs /dev/urandom, get's peak RSS.
# Usage: bench/perf.sh [-d SECONDS] [-r REPEATS] [-n FILES]   (make perf)
set -euo pipefail
export LC_ALL=C
NCPV=${NCPV:-$(cd "$(dirname "$0")/.." && pwd)/ncpv}
DUR=3 REPEAT=3 FILES=20000 LOOP_FILES=300
while getopts d:r:n: opt; do
	case $opt in
	d) DUR=$OPTARG ;;
	r) REPEAT=$OPTARG ;;
	n) FILES=$OPTARG ;;
	*) echo "usage: $0 [-d SECONDS] [-r REPEATS] [-n FILES]" >&2; exit 2 ;;
	esac
done
TMP=$(mktemp -d)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$TMP"
}
trap cleanup EXIT
have() { command -v "$1" >/dev/null 2>&1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 200); do ss -ltn | grep -q ":$1 " && return 0; sleep 0.02; done; return 1; }

start_ncpv() { # start_ncpv NAME ARGS... -> port in $NAME_PORT
	local name=$1; shift
	"$NCPV" serve --quiet "$@" 127.0.0.1:0 2>"$TMP/$name.log" &
	PIDS+=($!)
	for _ in $(seq 200); do grep -q listening "$TMP/$name.log" && break; sleep 0.02; done
	printf -v "${name}_PORT" '%s' "$(sed -n 's/.*:\([0-9]*\) (.*/\1/p' "$TMP/$name.log")"
}

# Results: one line per run: "test method value" (value in bytes/s or transfers/s).
RES=$TMP/results
: >"$RES"
record() { echo "$1 $2 $3" >>"$RES"; printf '  %-10s %-22s %s\n' "$1" "$2" "$(fmt "$1" "$3")" >&2; }
fmt() { if [ "$1" = files ]; then printf '%.0f files/s' "$2"; else awk -v v="$2" 'BEGIN{printf "%.1f MiB/s", v/1048576}'; fi; }

# --- single stream --------------------------------------------------------
start_ncpv stream
IPERF_PORT=$(free_port)
if have iperf3; then iperf3 -s -p "$IPERF_PORT" >/dev/null 2>&1 & PIDS+=($!); wait_port "$IPERF_PORT"; fi
SEED_PORT=$(free_port)
if have nc && have pv; then
	# The seed's server, exactly: one nc per client, reading /dev/urandom.
	bash -c "while true; do nc -l 127.0.0.1 $SEED_PORT </dev/urandom; done" >/dev/null 2>&1 &
	PIDS+=($!)
	wait_port "$SEED_PORT"
fi

m_ncpv() { "$NCPV" get -q --json --time "$DUR" "127.0.0.1:$stream_PORT" | sed 's/.*"rate":\([0-9]*\).*/\1/'; }
m_iperf() { iperf3 -c 127.0.0.1 -p "$IPERF_PORT" -t "$DUR" -J "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/8)'; }
# The seed read pv's display; pv -n -t -b prints "seconds bytes" per update instead, and the
# last update before timeout ends the run gives the rate (pv itself is killed in the bash form).
pv_rate() { awk 'NF == 2 && $1 > 0 { t = $1; b = $2 } END { print (t > 0 ? b / t : 0) }' "$1"; }
m_seed_nc() {
	wait_port "$SEED_PORT"
	{ timeout "$DUR" nc 127.0.0.1 "$SEED_PORT" | pv -n -t -b -f -i 0.25 >/dev/null; } 2>"$TMP/pv.out" || true
	pv_rate "$TMP/pv.out"
}
m_seed_bash() {
	wait_port "$SEED_PORT"
	timeout "$DUR" bash -c "pv -n -t -b -f -i 0.25 >/dev/null </dev/tcp/127.0.0.1/$SEED_PORT" 2>"$TMP/pv.out" || true
	pv_rate "$TMP/pv.out"
}

echo "single stream, $DUR s per run, $REPEAT interleaved repeats" >&2
for r in $(seq "$REPEAT"); do
	record stream ncpv "$(m_ncpv)"
	if have iperf3; then
		record stream iperf3 "$(m_iperf)"
		record stream "iperf3 -l 1M" "$(m_iperf -l 1M)"
		record stream "iperf3 -Z" "$(m_iperf -Z)"
	fi
	if have nc && have pv; then
		record stream "seed nc|pv" "$(m_seed_nc)"
		record stream "seed bash /dev/tcp" "$(m_seed_bash)"
	fi
done

# --- random source vs /dev/urandom (serve -> get, same path) ---------------
start_ncpv urand --source urandom
for r in $(seq "$REPEAT"); do
	record source random "$("$NCPV" get -q --json --time "$DUR" "127.0.0.1:$stream_PORT" | sed 's/.*"rate":\([0-9]*\).*/\1/')"
	record source urandom "$("$NCPV" get -q --json --time "$DUR" "127.0.0.1:$urand_PORT" | sed 's/.*"rate":\([0-9]*\).*/\1/')"
done

# --- the generator alone, without TCP (make perf builds source-speed) -------
SOURCE_SPEED=${SOURCE_SPEED:-$(dirname "$NCPV")/build/bench/source-speed}
if [ -x "$SOURCE_SPEED" ]; then
	for r in $(seq "$REPEAT"); do
		read -r _ gen _ dev < <("$SOURCE_SPEED" 2048)
		record generator random "$gen"
		record generator /dev/urandom "$dev"
	done
else
	echo "  (no $SOURCE_SPEED: run 'make perf' to measure the generator alone)" >&2
fi

# --- many small files -----------------------------------------------------
start_ncpv files --size 4K
files_ncpv() {
	"$NCPV" get -q --json --count "$FILES" --parallel 16 "127.0.0.1:$files_PORT" |
		sed 's/.*"transfers_per_s":\([0-9.]*\).*/\1/'
}
loop_rate() { # loop_rate COMMAND-WITH-$P: run LOOP_FILES times, print files/s
	local start end
	start=$(date +%s.%N)
	P=$files_PORT N=$LOOP_FILES bash -c "for ((i = 0; i < N; i++)); do $1; done"
	end=$(date +%s.%N)
	awk -v n="$LOOP_FILES" -v a="$start" -v b="$end" 'BEGIN{print n/(b-a)}'
}
echo "small files: 4 KiB each; ncpv $FILES per run, shell loops $LOOP_FILES per run" >&2
for r in $(seq "$REPEAT"); do
	record files "ncpv --parallel 16" "$(files_ncpv)"
	have nc && record files "nc loop" "$(loop_rate 'nc 127.0.0.1 $P >/dev/null')"
	record files "bash cat </dev/tcp" "$(loop_rate 'cat </dev/tcp/127.0.0.1/$P >/dev/null')"
	record files "bash read </dev/tcp" "$(loop_rate 'exec 3</dev/tcp/127.0.0.1/$P; while IFS= read -r -d "" -u 3 x; do :; done; exec 3<&-')"
done

# --- get's peak RSS --------------------------------------------------------
# VmHWM polled from /proc while get runs (a forking wrapper would count its own pre-exec pages).
peak_rss() {
	local pid hwm=0 v
	"$@" & pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		v=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null) && [ -n "$v" ] && hwm=$v
		sleep 0.02
	done
	wait "$pid" || true
	echo "$hwm"
}
rss=$(peak_rss "$NCPV" get -q --time 2 "127.0.0.1:$stream_PORT")
rss_files=$(peak_rss "$NCPV" get -q --count 100000 --parallel 16 "127.0.0.1:$files_PORT")

# --- report ------------------------------------------------------------------
python3 - "$RES" "$rss" "$rss_files" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    test, rest = line.split(" ", 1)
    method, value = rest.rsplit(" ", 1)
    runs.setdefault(test, {}).setdefault(method, []).append(float(value))

def unit(test, v):
    return f"{v:,.0f} files/s" if test == "files" else f"{v / 1048576:,.1f} MiB/s"

for test, methods in runs.items():
    print(f"\n{test}:")
    print(f"| method | median | min | max | ncpv / method |")
    print(f"|---|---|---|---|---|")
    ref = [m for m in methods if m.startswith("ncpv") or m == "random"][0]
    refmed = statistics.median(methods[ref])
    for m, vals in methods.items():
        med = statistics.median(vals)
        print(f"| {m} | {unit(test, med)} | {unit(test, min(vals))} | {unit(test, max(vals))} | {refmed / med:.2f}x |")
print(f"\nget peak RSS: {int(sys.argv[2]) / 1024:.1f} MiB (one stream), {int(sys.argv[3]) / 1024:.1f} MiB (--count 100000 --parallel 16)")
PY
