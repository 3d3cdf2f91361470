#!/usr/bin/env bash
# devtcp-overhead.sh - what the /dev/tcp preload costs calls on ordinary files:
# open+close, stat and fopen+fclose of a regular file, COUNT times per run, with and
# without the library, interleaved over ROUNDS rounds. Prints medians, min-max, ratios.
# Usage: bench/devtcp-overhead.sh [COUNT] [ROUNDS]   (from the repository root, after make)
set -euo pipefail
export LC_ALL=C
count=${1:-1000000}
rounds=${2:-9}
cd "$(dirname "$0")/.."
lib=$PWD/libncpv-devtcp.so
[ -f "$lib" ] || { echo "build first: make" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/loop" bench/devtcp_open_loop.c
echo data >"$work/file"

for ((r = 0; r < rounds; r++)); do
	for op in open stat fopen; do
		# Alternate which variant goes first, so drift does not favour one.
		if ((r % 2)); then order="preload plain"; else order="plain preload"; fi
		for v in $order; do
			if [ "$v" = preload ]; then
				ns=$(LD_PRELOAD=$lib "$work/loop" "$op" "$count" "$work/file")
			else
				ns=$("$work/loop" "$op" "$count" "$work/file")
			fi
			echo "$op $v $ns" >>"$work/results"
		done
	done
done

printf '%-7s %-22s %-22s %s\n' call "plain ns/call (min-max)" "preload ns/call (min-max)" "ratio of medians"
for op in open stat fopen; do
	stats() { awk -v o="$op" -v v="$1" '$1 == o && $2 == v { print $3 }' "$work/results" | sort -g |
		awk '{ a[NR] = $1 } END { m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2;
			printf "%.1f %.1f %.1f\n", m, a[1], a[NR] }'; }
	read -r pm plo phi <<<"$(stats plain)"
	read -r lm llo lhi <<<"$(stats preload)"
	printf '%-7s %-22s %-22s %.3f\n' "$op" "$pm ($plo-$phi)" "$lm ($llo-$lhi)" \
		"$(awk -v a="$lm" -v b="$pm" 'BEGIN { print a / b }')"
done
echo "($rounds rounds of $count calls each, interleaved; $(nproc) cores, $(uname -r))"
