#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# zerocopy.sh - -Z (a random block sent over and over with sendfile, as iperf3 -Z) against the
# default (fresh random data, copied into the socket), on loopback and through a veth pair into
# a network namespace this script makes (root only; skipped otherwise), both ways: serve -Z
# sending a download (`serve --threads 1 [-Z]`, `get -t SECONDS`; the sender's CPU is serve's
# user + system time from /proc/PID/stat over the download) and get --send -Z uploading to
# `serve --discard` (get's own CPU, from time(1)). Each round runs both modes back to back, in
# alternating order; CPU is per GiB sent. Prints the medians and spreads (min-max).
# usage: bench/zerocopy.sh [SECONDS] [ROUNDS]   (defaults: 2 s, 5 rounds)
set -euo pipefail
export LC_ALL=C
NCPV=${NCPV:-$(cd "$(dirname "$0")/.." && pwd)/ncpv}
SECS=${1:-2}
ROUNDS=${2:-5}
NS=ncpv-zc-$$
HZ=$(getconf CLK_TCK)
scratch=$(mktemp -d)
serve_pid=
cleanup() {
	[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
	ip netns del "$NS" 2>/dev/null || true
	rm -rf "$scratch"
}
trap cleanup EXIT

# one PATH DIR MODE: one download (DIR down: serve sends) or upload (up: get --send) with a fresh
# serve (MODE: default or -Z); appends "PATH-DIR MODE Gbit/s sender_cpu_s_per_GiB" to the runs.
one() {
	local path=$1 dir=$2 mode=$3 addr=127.0.0.1 exec=() port t0 t1 out
	if [ "$path" = veth ]; then
		addr=10.213.57.2
		exec=(ip netns exec "$NS")
	fi
	local flags=() getflags=()
	[ "$mode" = -Z ] && [ "$dir" = down ] && flags=(-Z)
	[ "$dir" = up ] && flags=(--discard) getflags=(--send)
	[ "$mode" = -Z ] && [ "$dir" = up ] && getflags+=(-Z)
	# A fresh log, or the last serve's line could be read before this one's redirection.
	rm -f "$scratch/serve.log"
	"${exec[@]}" "$NCPV" serve -q --threads 1 "${flags[@]}" "$addr:0" 2>"$scratch/serve.log" &
	serve_pid=$!
	for _ in $(seq 200); do
		grep -q 'listening on' "$scratch/serve.log" 2>/dev/null && break
		sleep 0.02
	done
	port=$(sed -En 's/.*listening on .*:([0-9]+).*/\1/p' "$scratch/serve.log" | head -1)
	t0=$(awk '{ print $14 + $15 }' "/proc/$serve_pid/stat")
	out=$(/usr/bin/time -f '%U %S' -o "$scratch/time" "$NCPV" get -q -j -t "$SECS" "${getflags[@]}" "$addr:$port")
	t1=$(awk '{ print $14 + $15 }' "/proc/$serve_pid/stat")
	kill "$serve_pid"
	wait "$serve_pid" 2>/dev/null || true
	serve_pid=
	# The sender's CPU seconds: serve's for a download, get's for an upload.
	local cpu
	if [ "$dir" = down ]; then
		cpu=$(awk -v t="$((t1 - t0))" -v hz="$HZ" 'BEGIN { print t / hz }')
	else
		cpu=$(awk '{ print $1 + $2 }' "$scratch/time")
	fi
	echo "$out" | jq -r --arg p "$path-$dir" --arg m "$mode" --argjson c "$cpu" \
		'"\($p) \($m) \(.bytes * 8 / .seconds / 1e9) \($c / (.bytes / 1073741824))"' >>"$scratch/runs"
}

paths=(loopback)
if [ "$(id -u)" = 0 ] && ip netns add "$NS" 2>/dev/null; then
	ip link add zc0 type veth peer name zc1 netns "$NS"
	ip addr add 10.213.57.1/30 dev zc0
	ip link set zc0 up
	ip netns exec "$NS" ip addr add 10.213.57.2/30 dev zc1
	ip netns exec "$NS" ip link set zc1 up
	ip netns exec "$NS" ip link set lo up
	paths+=(veth)
else
	echo "# not root (or no netns): the veth rows are skipped" >&2
fi

echo "# $(date -u +%FT%TZ), $(nproc) cores, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg) before"
echo "# down: serve --threads 1 [-Z] ADDR:0, ncpv get -q -j -t $SECS ADDR:PORT (serve's CPU)"
echo "# up: serve --threads 1 --discard ADDR:0, ncpv get -q -j -t $SECS --send [-Z] ADDR:PORT (get's CPU)"
echo "# $ROUNDS rounds, the two modes' order alternating"
for round in $(seq "$ROUNDS"); do
	for path in "${paths[@]}"; do
		for dir in down up; do
			if [ $((round % 2)) = 1 ]; then
				one "$path" "$dir" default
				one "$path" "$dir" -Z
			else
				one "$path" "$dir" -Z
				one "$path" "$dir" default
			fi
		done
	done
	echo "# round $round done" >&2
done
# spread COL PATH MODE FORMAT: column COL of the runs of PATH and MODE: "median (min-max)".
spread() {
	awk -v p="$2" -v m="$3" -v k="$1" '$1 == p && $2 == m { print $k }' "$scratch/runs" | sort -g |
		awk -v f="$4" '{ a[NR] = $1 } END { m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
			printf f " (" f "-" f ")", m, a[1], a[NR] }'
}
echo "| path | direction | sender | rate Gbit/s, median (min-max) | sender CPU s per GiB, median (min-max) |"
echo "|---|---|---|---|---|"
for path in "${paths[@]}"; do
	for dir in down up; do
		for mode in default -Z; do
			echo "| $path | $dir | $([ "$dir" = down ] && echo serve || echo get --send) $mode |" \
				"$(spread 3 "$path-$dir" "$mode" %.1f) | $(spread 4 "$path-$dir" "$mode" %.3f) |"
		done
	done
done
echo "# load $(cut -d' ' -f1-3 /proc/loadavg) after"
