#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# help_durations.bats - every --help that takes a SEC (link: T) says a unit works, and every
# such option, found in the help itself, takes 500ms, 30s, 1m and 2.5 (issue 27, 7).

load helpers

setup() { common_setup; }
teardown() { common_teardown; }

# sec_options CMD WORD: the long options CMD's --help shows with the argument WORD.
sec_options() {
	"$NCPV" "$1" --help | sed -n "s/^ *\(-[a-z], \)\{0,1\}\(--[a-z-]*\) $2\b.*/\2/p"
}

@test "each --help that shows SEC or T says a unit works, as units_parse_seconds reads it" {
	local cmd word n=0
	for cmd in get serve devtcp bench link; do
		word=SEC
		[ "$cmd" = link ] && word=T
		[ -n "$(sec_options "$cmd" "$word")" ] || { echo "$cmd: no $word option found"; return 1; }
		"$NCPV" "$cmd" --help | grep -qx "$word is in seconds (2.5), or takes a unit: 500ms, 30s, 1m.*" ||
			{ echo "$cmd --help does not say $word takes a unit"; return 1; }
		n=$((n + 1))
	done
	[ "$n" -eq 5 ]
}

@test "every SEC or T option of every command takes 500ms, 30s, 1m and 2.5, and refuses 5x" {
	local cmd word opt v n=0
	for cmd in get serve devtcp bench link; do
		word=SEC
		[ "$cmd" = link ] && word=T
		for opt in $(sec_options "$cmd" "$word"); do
			for v in 500ms 30s 1m 2.5; do
				run "$NCPV" "$cmd" "$opt" "$v" --help
				[ "$status" -eq 0 ] || { echo "$cmd $opt $v: $status $output"; return 1; }
				n=$((n + 1))
			done
			run "$NCPV" "$cmd" "$opt" 5x --help
			[ "$status" -eq 2 ] || { echo "$cmd $opt 5x: $status"; return 1; }
		done
	done
	echo "$n pairs"
	[ "$n" -ge 32 ]
}
