#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# build_untouched.bats - the tests that run make (found by grepping tests/e2e) leave the tree's
# own build as it was: make check must not turn the next plain `make` into a rebuild.

load ../lib/helpers

ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)

setup() { common_setup; unset MAKEFLAGS MFLAGS MAKELEVEL; }
teardown() { common_teardown; }

@test "the tests that run make in the tree leave build/ and its LIBDIR stamp unchanged" {
	local files
	[ -z "${NCPV_VALGRIND:-}" ] || skip "runs other test files; make valgrind runs them itself"
	# Every test file that calls make, this one aside, and their tests named "make ...".
	mapfile -t files < <(grep -lE '(^|[[:space:];(])make (-s|-C|install)' "$ROOT"/tests/e2e/*/*.bats |
		grep -v '/build_untouched\.bats$')
	[ ${#files[@]} -ge 2 ] || { echo "found only: ${files[*]}"; return 1; }
	"$ROOT/tests/build-stamps" >"$SCRATCH/before"
	NCPV=$NCPV bats -f '^make ' "${files[@]}" >"$SCRATCH/bats.out" 2>&1 ||
		{ cat "$SCRATCH/bats.out"; return 1; }
	grep -q '^ok ' "$SCRATCH/bats.out"
	"$ROOT/tests/build-stamps" >"$SCRATCH/after"
	diff -u "$SCRATCH/before" "$SCRATCH/after"
}
