#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# devtcp-overhead.sh - what the /dev/tcp preload costs calls on ordinary files:
# open+close, stat and fopen+fclose of a regular file, COUNT times per run, with and
# without the library, interleaved over ROUNDS rounds. Prints medians, min-max, ratios.
# Then, when valgrind is installed, the user-space instructions each call costs (callgrind
# counts, differenced between two loop lengths so start-up cancels out): a noise-free
# measure of the hooks themselves, which the timing spread of a shared VM hides.
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

command -v valgrind >/dev/null || exit 0
# instructions LOOPS VARIANT OP: total user-space instructions of one loop run.
instructions() {
	local pre=()
	[ "$2" = preload ] && pre=(env "LD_PRELOAD=$lib")
	"${pre[@]}" valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" \
		"$work/loop" "$3" "$1" "$work/file" 2>&1 >/dev/null |
		sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
echo
printf '%-7s %-24s %-24s %s\n' call "plain instructions/call" "preload instructions/call" "added"
for op in open stat fopen; do
	for v in plain preload; do
		a=$(instructions 20000 "$v" "$op")
		b=$(instructions 40000 "$v" "$op")
		eval "ins_$v=$(((b - a) / 20000))"
	done
	printf '%-7s %-24s %-24s %+d\n' "$op" "$ins_plain" "$ins_preload" $((ins_preload - ins_plain))
done
echo "(callgrind, user space only: the system call itself is not counted)"
