#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# readme_start.bats - README opens with what a newcomer needs first: the two set-up lines,
# a three-line try-it, and a table of contents whose every link lands on a heading (issue 27, 7).

load helpers

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

setup() { common_setup; }
teardown() { common_teardown; }

# blocks: "START_LINE<TAB>LINE_COUNT" of each fenced code block of README.md.
blocks() {
	awk '/^```/ { if (on) { print start "\t" NR - start - 1; on = 0 } else { on = 1; start = NR } }' \
		"$ROOT/README.md"
}

@test "README's first block is the two set-up lines, then a three-line try-it, both near the top" {
	first=$(blocks | sed -n 1p)
	second=$(blocks | sed -n 2p)
	echo "first $first, second $second"
	[ "${first%%$'\t'*}" -le 10 ]
	[ "${first##*$'\t'}" -eq 2 ]
	[ "${second%%$'\t'*}" -le 20 ]
	[ "${second##*$'\t'}" -eq 3 ]
	[ "$("$ROOT/tools/readme-setup" | wc -l)" -eq 2 ]
}

@test "the try-it lines are commands ncpv takes as written" {
	local line n=0
	while read -r line; do
		line=${line%%#*}
		line=${line%&*}
		case $line in
		make*) continue ;;
		./ncpv*) ;;
		*) echo "unexpected try-it line: $line"; return 1 ;;
		esac
		# shellcheck disable=SC2086
		set -- ${line#./ncpv }
		run "$NCPV" "$@" --help
		[ "$status" -eq 0 ] || { echo "$line: $status"; return 1; }
		n=$((n + 1))
	done < <(awk '/^```/ { n++; next } n == 3' "$ROOT/README.md")
	[ "$n" -eq 2 ]
}

@test "every #link in README's contents lands on one of its headings" {
	local anchor n=0
	sed -n 's/^#\{1,6\} //p' "$ROOT/README.md" |
		tr 'A-Z' 'a-z' | sed 's/[^a-z0-9 _-]//g; s/ /-/g' >"$SCRATCH/anchors"
	for anchor in $(grep -o '](#[^)]*)' "$ROOT/README.md" | sed 's/](#\(.*\))/\1/'); do
		grep -qx -- "$anchor" "$SCRATCH/anchors" || { echo "no heading for #$anchor"; return 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 10 ]
}
