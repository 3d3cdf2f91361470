#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# stress.sh - `make stress`: ncpv serve under load and faults on loopback, bounded in time.
#  1. 5,000 downloads held at once, with 500 clients that stop reading, 1,000 that reset
#     mid-stream and 1,000 that connect and close at once; every download checked byte by
#     byte against the source file; then the same downloads with nobody stalled, to compare.
#  2. fd exhaustion: serve limited to FDLIMIT descriptors and given 3x more clients: the
#     ones it accepted are served in full, the rest are refused, and it recovers.
# Prints the figures (docs/RELIABILITY.md quotes them) and fails on any broken promise.
# Sizes can be lowered for a quick run: GOOD=300 STALL=50 RESET=50 FLASH=50 tests/stress/stress.sh
set -euo pipefail
export LC_ALL=C
NCPV=${NCPV:-$(pwd)/ncpv}
STRESSOR=${STRESSOR:-$(pwd)/build/tests/stressor}
GOOD=${GOOD:-5000} STALL=${STALL:-500} RESET=${RESET:-1000} FLASH=${FLASH:-1000}
SIZE=${SIZE:-262144} FDLIMIT=${FDLIMIT:-64} TIMEOUT=${TIMEOUT:-120}

scratch=$(mktemp -d "${TMPDIR:-/tmp}/ncpv-stress.XXXXXX")
serve_pid=
cleanup() {
	if [ -n "$serve_pid" ] && kill -0 "$serve_pid" 2>/dev/null; then
		kill -TERM "$serve_pid"
		wait "$serve_pid" 2>/dev/null || true
	fi
	rm -rf "$scratch"
}
trap cleanup EXIT
# 100,000 bytes does not divide SIZE: each client checks the wrap-around of the source too.
head -c 100000 /dev/urandom >"$scratch/source"

# start_serve FDS: serve with at most FDS descriptors (soft and hard), on port 0.
start_serve() {
	local fds=$1 i
	: >"$scratch/serve.log"
	(ulimit -n "$fds" && exec "$NCPV" serve --quiet --max-conns 10000 --source "$scratch/source" \
		--size "$SIZE" 127.0.0.1:0) 2>"$scratch/serve.log" &
	serve_pid=$!
	for ((i = 0; i < 250; i++)); do
		grep -q 'listening on' "$scratch/serve.log" && break
		sleep 0.02
	done
	port=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\) .*/\1/p' "$scratch/serve.log")
	[ -n "$port" ] || { echo "stress: serve did not start" >&2; cat "$scratch/serve.log" >&2; exit 1; }
}

stop_serve() {
	kill -TERM "$serve_pid"
	local rc=0
	wait "$serve_pid" || rc=$?
	serve_pid=
	[ "$rc" -eq 0 ] || { echo "stress: serve exited $rc on SIGTERM" >&2; exit 1; }
	tail -1 "$scratch/serve.log"
}

value() { sed -n "s/^$1 //p" "$scratch/out"; }

# check NAME CONDITION: print and record a verdict; CONDITION is an awk expression.
failed=0
check() {
	if awk "BEGIN { exit !($2) }" </dev/null; then echo "PASS $1"; else echo "FAIL $1"; failed=1; fi
}

hard=$(ulimit -Hn)
need=$((GOOD + STALL + RESET + 200))
if [ "$hard" != unlimited ] && [ "$hard" -lt "$need" ]; then
	echo "stress: needs $need descriptors, the hard limit is $hard" >&2
	exit 1
fi
ulimit -n "$need"

echo "== load: $GOOD downloads of $SIZE B, $STALL stalled, $RESET resets, $FLASH connect-and-close"
start_serve "$need"
t0=$(date +%s.%N)
"$STRESSOR" load --pid "$serve_pid" --expect "$scratch/source" --size "$SIZE" --good "$GOOD" \
	--stall "$STALL" --reset "$RESET" --flash "$FLASH" --timeout "$TIMEOUT" "$port" >"$scratch/out" || true
cat "$scratch/out"
echo "wall_seconds $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
check "every download byte-exact, stalls and resets present" "$(value mixed_good_ok) == $GOOD && $(value mixed_good_failed) == 0"
check "every download byte-exact, nobody stalled" "$(value alone_good_ok) == $GOOD && $(value alone_good_failed) == 0"
check "serve held all clients at once" "$(value clients_held) == $GOOD + $STALL + $RESET"
check "stalled readers do not slow the rest (max time within 2x + 1 s)" \
	"$(value mixed_max_s) <= 2 * $(value alone_max_s) + 1"
check "no busy loop: serve CPU < 20 ms/s with every client stalled" \
	"$(value serve_cpu_ms_per_s_all_stalled) < 20"
check "memory per held connection < 4 KiB" "$(value serve_rss_per_conn_bytes) < 4096"
check "memory bounded: RSS after the load < 64 MiB" "$(value serve_hwm_kb) < 65536"
check "serve alive after the load" "$(value serve_alive) == 1"
stop_serve

echo "== fd exhaustion: serve with $FDLIMIT descriptors, $((FDLIMIT * 3)) clients"
start_serve "$FDLIMIT"
"$STRESSOR" fdlimit --pid "$serve_pid" --expect "$scratch/source" --size "$SIZE" \
	--good $((FDLIMIT * 3)) --timeout 60 "$port" >"$scratch/out" || true
cat "$scratch/out"
check "out of fds: the clients it accepted are served in full" \
	"$(value exhausted_served_ok) > 0 && $(value exhausted_failed) == 0"
check "out of fds: the rest are refused, not left hanging" \
	"$(value exhausted_served_ok) + $(value exhausted_refused) == $FDLIMIT * 3"
check "out of fds: no busy loop (CPU < 20 ms/s)" "$(value serve_cpu_ms_per_s_exhausted) < 20"
check "out of fds: recovers when fds free up" "$(value recovered_ok) == 10"
stop_serve
exit $failed
