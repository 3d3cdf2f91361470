#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# readme.bats - what README.md tells a newcomer to type works, and it quotes no figure that
# the suite would make stale.

load ../lib/helpers

ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)

setup() { common_setup; }
teardown() { common_teardown; }

@test "README's ~/bin/pv line works with ncpv installed or only built, and ~/bin missing" {
	local line installed
	line=$(grep -F '~/bin/pv' "$ROOT/README.md")
	[ "$(printf '%s\n' "$line" | wc -l)" -eq 1 ]
	line=${line%%#*}
	mkdir "$SCRATCH/tree" "$SCRATCH/installed"
	ln -s "$NCPV" "$SCRATCH/tree/ncpv"
	ln -s "$NCPV" "$SCRATCH/installed/ncpv"
	for installed in no yes; do
		rm -rf "$SCRATCH/home"
		mkdir "$SCRATCH/home"
		# Run from the tree, as the README's commands are, with ncpv on PATH or not.
		(cd "$SCRATCH/tree" && HOME=$SCRATCH/home \
		    PATH="$([ $installed = no ] || echo "$SCRATCH/installed:")/usr/bin:/bin" bash -euc "$line") ||
			{ echo "installed=$installed: $line failed"; return 1; }
		run bash -c 'printf abc | "$1" -q' pv "$SCRATCH/home/bin/pv"
		[ "$status" -eq 0 ] && [ "$output" = abc ] || { echo "installed=$installed: $output"; return 1; }
	done
}

@test "README quotes no count of tests, which the suite would make stale" {
	# Counts belong to a run (the command and its date), not to the README.
	! grep -nE '[0-9]+ of [0-9]+ (tests )?pass|[0-9]+ tests? (pass|fail)|[0-9]+ (bats|unit|end-to-end) tests' \
	    "$ROOT/README.md"
}
