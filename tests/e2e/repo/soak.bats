#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# soak.bats - tests/soak's tally: with a stand-in bats whose failures are known per run, it
# reports each failing test with the number of runs it failed, and stops its load generator.

load ../lib/helpers
bats_require_minimum_version 1.5.0

ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)

setup() {
	common_setup
	BIN=$SCRATCH/bin
	mkdir "$BIN"
	# bats: run K (counted in a file) fails "flaky one" when K is odd, "every time" always.
	cat >"$BIN/bats" <<-EOB
	#!/bin/bash
	k=\$(( \$(cat "$SCRATCH/k" 2>/dev/null || echo 0) + 1 )); echo \$k >"$SCRATCH/k"
	echo "1..3"; echo "ok 1 steady in 5ms"
	if [ \$((k % 2)) -eq 1 ]; then echo "not ok 2 flaky one in 7ms"; else echo "ok 2 flaky one in 7ms"; fi
	echo "not ok 3 every time"
	EOB
	# stress-ng: stays until killed, and says so.
	printf '#!/bin/bash\necho $$ >"%s/load.pid"\nexec sleep 60\n' "$SCRATCH" >"$BIN/stress-ng"
	chmod +x "$BIN/bats" "$BIN/stress-ng"
}
teardown() { common_teardown; }

@test "soak counts, per test, the runs it failed, and stops the load it started" {
	local runs kept
	for runs in 1 2 3 4; do
		rm -f "$SCRATCH/k" "$SCRATCH/load.pid"
		run env PATH="$BIN:$PATH" "$ROOT/tests/soak" -n "$runs" -w 1
		[ "$status" -eq 1 ]
		[[ "$output" == *"soak: 0 of $runs runs passed"* ]]
		[[ "$output" == *"  $runs every time"* ]] || { echo "$output"; return 1; }
		[[ "$output" == *"  $(((runs + 1) / 2)) flaky one"* ]] || { echo "$output"; return 1; }
		[[ "$output" != *"steady"* ]]
		[ "$(grep -c '^soak: run ' <<<"$output")" -eq "$runs" ]
		# The failing runs' output is kept, and said where.
		kept=$(sed -n 's/^soak: each run.s TAP output .* is in \(.*\)\/run\.N$/\1/p' <<<"$output")
		[ -f "$kept/run.$runs" ]
		grep -q '^not ok 3 every time' "$kept/run.$runs"
		rm -rf "$kept"
		run ! kill -0 "$(cat "$SCRATCH/load.pid")"
	done
}

@test "soak refuses a run count that is not a count" {
	run "$ROOT/tests/soak" -n 0
	[ "$status" -eq 2 ]
	run "$ROOT/tests/soak" -n x
	[ "$status" -eq 2 ]
}
