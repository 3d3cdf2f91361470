#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# pv_golden.bats - `ncpv pv` against pv 1.10.5's recorded behaviour (tests/pv/golden), case by case.
# The cases come from tests/pv/gen-cases; tests/pv/run-cases runs and compares them.
load ../lib/helpers

setup() {
	common_setup
}

teardown() {
	common_teardown
}

@test "ncpv pv, run as pv, matches pv 1.10.5 on every generated case" {
	run "$BATS_TEST_DIRNAME/../../pv/run-cases" check "$NCPV" "$BATS_TEST_DIRNAME/../../pv/golden/pv-1.10.5.jsonl" \
		--known "$BATS_TEST_DIRNAME/../../pv/known-diffs"
	printf '%s\n' "$output" >&2
	[ "$status" -eq 0 ]
}

@test "Debian's pv matches the golden records on the cases marked as shared" {
	[ -x /usr/bin/pv ] || skip "Debian's pv is not installed"
	run "$BATS_TEST_DIRNAME/../../pv/run-cases" check /usr/bin/pv "$BATS_TEST_DIRNAME/../../pv/golden/pv-1.10.5.jsonl" \
		--debian-only
	printf '%s\n' "$output" >&2
	[ "$status" -eq 0 ]
}
