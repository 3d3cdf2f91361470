#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# serve-threads.sh - serve --threads 1 against --threads 2 under C endless streaming clients
# (get --count C -P C -t SECONDS against one serve): the aggregate rate serve sent and each
# loop's CPU seconds, the balance. On a 2-core machine the clients share the cores with the
# server, so the aggregate cannot show scaling; the per-loop CPU and bytes per CPU second can.
# new_conn_ms: while the streams run, 20 fresh `get -b 1K` one after another, the median time
# each took from start to exit: what a newcomer waits while every loop is busy (with --threads 2
# only the first loop accepts, so a busy first loop would show here).
# usage: bench/serve-threads.sh [SECONDS] [CLIENTS...]   (defaults: 5 s; 100 and 1000 clients)
set -euo pipefail
export LC_ALL=C
NCPV=${NCPV:-$(cd "$(dirname "$0")/.." && pwd)/ncpv}
SECS=${1:-5}
shift || true
CLIENTS=("${@:-100}")
[ $# -gt 0 ] || CLIENTS=(100 1000)
command -v jq >/dev/null || { echo "serve-threads.sh: needs jq" >&2; exit 1; }
log=$(mktemp)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -f "$log"' EXIT
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
echo "# $(date -u +%F) $SECS s per run, loopback, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-8s %8s %12s %10s %22s %14s %12s\n' threads clients rate_MiB/s cpu_s per_loop_cpu_s MiB/cpu_s new_conn_ms
for c in "${CLIENTS[@]}"; do
	for t in 1 2; do
		"$NCPV" serve -q --json --threads "$t" --max-conns 100000 127.0.0.1:0 2>"$log" &
		pid=$!
		for _ in $(seq 100); do grep -q '"event":"listen"' "$log" && break; sleep 0.05; done
		port=$(jq -r 'select(.event == "listen") | .address' "$log" | sed 's/.*://')
		"$NCPV" get -q --count "$c" -P "$c" -t "$SECS" "127.0.0.1:$port" >/dev/null 2>&1 &
		gpid=$!
		sleep 1 # the streams under way (a measurement's pause, not a synchronisation)
		newconn=$(for _ in $(seq 20); do
			t0=$(date +%s%N)
			"$NCPV" get -q -w 5 -b 1K "127.0.0.1:$port" >/dev/null 2>&1 || echo fail
			echo $((($(date +%s%N) - t0) / 1000))
		done | sort -n | awk '/fail/ { bad++; next } { v[n++] = $1 } END { if (bad) print "fail" bad; else printf "%.1f", v[int(n / 2)] / 1000 }')
		wait "$gpid" || true
		kill -TERM "$pid"
		wait "$pid" || true
		pid=
		jq -r --arg t "$t" --arg c "$c" 'select(.event == "summary") |
			(if .loops then [.loops[].cpu_seconds] else [.cpu_seconds] end) as $l |
			(($l | add) // 0) as $cpu |
			"\($t) \($c) \(.sent / 1048576 / .seconds) \($cpu) \($l | map(tostring) | join("/")) \(if $cpu > 0 then .sent / 1048576 / $cpu else 0 end)"' "$log" |
			awk -v nc="$newconn" '{ printf "%-8s %8s %12.0f %10.2f %22s %14.0f %12s\n", $1, $2, $3, $4, ($5 == "" ? "-" : $5), $6, nc }'
	done
done
