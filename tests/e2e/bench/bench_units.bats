#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# bench_units.bats - every number in `ncpv bench`'s JSON and CSV names its unit in its key
# (schema 4: _s, _bytes, _bytes_per_s, ...; counts and ratios have none), checked over a real
# run by lib/bench_units.py's table; and `bench compare` still reads runs saved by schemas 1-3.

load ../lib/helpers

setup() {
	common_setup
	command -v jq >/dev/null || skip "jq is not installed"
	cd "$SCRATCH"
}

teardown() {
	common_teardown
}

units() {
	"$BATS_TEST_DIRNAME/../lib/bench_units.py" "$@"
}

# Issue 27: rtt_ms was in milliseconds beside latencies in seconds, "value" was B/s or
# transfers/s by test, "seconds", "cpu", "duration" and "size" named no unit at all.
@test "every number of a real run's JSON and CSV names its unit in its key" {
	"$NCPV" bench -q -T stream,files -d 0.2 -n 5 -s 1K -r 1 -M ncpv,bash-read --html "$SCRATCH/r.html" \
		--csv-runs >"$SCRATCH/runs.csv"
	"$NCPV" bench -q --no-report -T stream,files -d 0.2 -n 5 -s 1K -r 1 -M ncpv --csv >"$SCRATCH/methods.csv"
	jq -e '.schema_version == 4' "$SCRATCH/r.json"
	run units "$SCRATCH/r.json" "$SCRATCH/runs.csv" "$SCRATCH/methods.csv"
	echo "$output"
	[ "$status" -eq 0 ]
	# Not a vacuous pass: the run's keys and columns were there to check.
	[ "${output%% *}" -ge 40 ]
	# One unit per column: a stream row leaves the files' rate column empty, and the reverse.
	awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next }
		$1 == "stream" && ($c["bytes_per_s"] <= 0 || $c["transfers_per_s"] != "") { exit 1 }
		$1 == "files" && ($c["transfers_per_s"] <= 0 || $c["bytes_per_s"] != "") { exit 1 }' "$SCRATCH/runs.csv"
	# The table's check refuses a key without its unit, as the old ones were.
	local edit
	for edit in '.tests[0].methods[0].runs[0].rtt_ms = 20' '.tests[0].duration = 0.2' \
		'.tests[1].methods[0].runs[0].value = 5' '.tests[0].methods[0].latency_under_load.idle.p50 = 0.001'; do
		jq "$edit" "$SCRATCH/r.json" >"$SCRATCH/bad.json"
		run units "$SCRATCH/bad.json"
		echo "$edit: $output"
		[ "$status" -eq 1 ]
	done
	sed '1s/,elapsed_s,/,seconds,/' "$SCRATCH/runs.csv" >"$SCRATCH/bad.csv"
	run units "$SCRATCH/r.json" "$SCRATCH/bad.csv"
	[ "$status" -eq 1 ]
	[[ "$output" == *"column seconds"* ]]
}

# tests/bench/saved-v3.json: a run saved by ncpv before schema 4 (same settings as below).
@test "bench compare reads runs saved by schemas 1, 2 and 3 beside one of 4" {
	local v3=$BATS_TEST_DIRNAME/../../bench/saved-v3.json
	jq -e '.schema_version == 3 and .tests[0].duration == 0.2 and .tests[1].size == 256 and
		(.tests[0].methods[0].runs[0] | has("value") and has("seconds"))' "$v3"
	"$NCPV" bench -q --no-report --json -T stream,files -d 0.2 -n 3 -s 256 -r 2 -M ncpv,bash-read >"$SCRATCH/v4.json"
	# Schema 2 had rtt_ms; the first had no schema_version.
	jq '.schema_version = 2 | (.. | objects | select(has("rtt_s"))) |= (.rtt_ms = .rtt_s * 1000 | del(.rtt_s))' \
		"$v3" >"$SCRATCH/v2.json"
	jq 'del(.schema_version)' "$SCRATCH/v2.json" >"$SCRATCH/v1.json"
	local old
	for old in "$v3" "$SCRATCH/v2.json" "$SCRATCH/v1.json"; do
		run "$NCPV" bench compare "$old" "$SCRATCH/v4.json"
		echo "$output"
		[ "$status" -eq 0 ]
		# Every method in both, each with a rate on each side, and the same settings read
		# from duration and duration_s, size and size_bytes.
		[ "$(grep -cE '^(stream|files) +(ncpv|bash-read) +[0-9.]+[kMG]?(iB)?/s +[0-9.]+[kMG]?(iB)?/s +[0-9.]+x ' <<<"$output")" -eq 4 ]
		[[ "$output" != *"only in"* ]]
		[[ "$output" != *"Not like for like"* ]]
	done
	# Each old file's medians are its own runs' values: against itself, 1.000x.
	run "$NCPV" bench compare "$v3" "$SCRATCH/v1.json"
	[ "$(grep -c ' 1\.000x ' <<<"$output")" -eq 4 ]
	# And the settings are read on both sides: a longer duration in 4 is named.
	jq '.tests[0].duration_s = 0.5 | .tests[1].size_bytes = 1024' "$SCRATCH/v4.json" >"$SCRATCH/v4b.json"
	run "$NCPV" bench compare "$v3" "$SCRATCH/v4b.json"
	[[ "$output" == *"Not like for like (stream duration 0.2 in A, 0.5 in B; files size 256 in A, 1024 in B)"* ]]
}
