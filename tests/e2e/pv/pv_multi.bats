#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# pv_multi.bats - pv over several files: without -s, the size is the sum of every input's
# size, so the percent ends at 100 (never above it) and -b's count at the sum, in byte and
# line mode. Issue 28: `total += end` turned `total = end` kept only the last file's size,
# and `pv -n a b` (100 kB, 300 kB) ended at 133.

load ../lib/helpers

setup() {
	common_setup
}

teardown() {
	common_teardown
}

# numbers FILE: pv -n's lines in FILE, space-separated.
numbers() {
	tr '\n' ' ' <"$1" | sed 's/ $//'
}

@test "pv -n a b (100 kB, 300 kB): the percent climbs to 100 and ends there; -b ends at 400000" {
	make_file "$SCRATCH/a" 100000
	make_file "$SCRATCH/b" 300000
	# A rate limit makes several updates, so that each can be checked, not only the last.
	"$NCPV" pv -n -i 0.1 -L 1M "$SCRATCH/a" "$SCRATCH/b" 2>"$SCRATCH/pct" >"$SCRATCH/out"
	[ "$(sha "$SCRATCH/out")" = "$(cat "$SCRATCH/a" "$SCRATCH/b" | sha -)" ]
	run python3 -c '
import sys
v = [int(x) for x in sys.argv[1].split()]
ok = len(v) >= 2 and v[-1] == 100 and all(0 <= x <= 100 for x in v) and v == sorted(v)
print("ok" if ok else "bad %s" % v)' "$(numbers "$SCRATCH/pct")"
	[ "$output" = ok ] || { echo "$output"; false; }
	"$NCPV" pv -n -b "$SCRATCH/a" "$SCRATCH/b" 2>"$SCRATCH/bytes" >/dev/null
	[ "$(tail -n 1 "$SCRATCH/bytes")" = 400000 ]
}

@test "pv over 1 to 4 generated files (sizes at edges, an empty one): -n ends at 100, -b and -l at the sums" {
	local seed=${PV_MULTI_SEED:-$RANDOM} round n i size files total nlines
	echo "seed $seed"
	RANDOM=$seed
	for round in 1 2 3 4 5 6; do
		n=$((RANDOM % 4 + 1))
		files=() total=0
		for ((i = 0; i < n; i++)); do
			size=$(echo "0 1 4095 65536 131073 300000" | cut -d' ' -f$((RANDOM % 6 + 1)))
			# Text with lines, so that line mode has something to count.
			python3 -c 'import random, sys
r = random.Random(int(sys.argv[2]))
n = int(sys.argv[1])
sys.stdout.write("".join(r.choices("abc\n", k=n)))' "$size" "$RANDOM" >"$SCRATCH/f$i"
			files+=("$SCRATCH/f$i")
			total=$((total + size))
		done
		nlines=$(cat "${files[@]}" | tr -cd '\n' | wc -c)
		"$NCPV" pv -n "${files[@]}" 2>"$SCRATCH/pct" >/dev/null
		"$NCPV" pv -n -b "${files[@]}" 2>"$SCRATCH/bytes" >/dev/null
		"$NCPV" pv -n -l "${files[@]}" 2>"$SCRATCH/lines" >/dev/null
		if [ "$total" -gt 0 ]; then
			[ "$(tail -n 1 "$SCRATCH/pct")" = 100 ] || { echo "round $round sizes $total: $(numbers "$SCRATCH/pct")"; false; }
			run python3 -c 'import sys; print(all(0 <= int(x) <= 100 for x in sys.argv[1].split()))' "$(numbers "$SCRATCH/pct")"
			[ "$output" = True ] || { echo "round $round: $(numbers "$SCRATCH/pct")"; false; }
		fi
		[ "$(tail -n 1 "$SCRATCH/bytes")" = "$total" ] || { echo "round $round: -b $(numbers "$SCRATCH/bytes") of $total"; false; }
		[ "$nlines" -eq 0 ] || [ "$(tail -n 1 "$SCRATCH/lines")" = 100 ] ||
			{ echo "round $round: -l $(numbers "$SCRATCH/lines") over $nlines lines"; false; }
	done
}
