#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# manual.bats - doc/ncpv.1 documents exactly the commands and options that --help lists,
# and formats without a groff warning.

load ../lib/helpers
bats_require_minimum_version 1.5.0

ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)
MANUAL=$ROOT/doc/ncpv.1
OPTIONS=$ROOT/tools/options

setup() { common_setup; }
teardown() { common_teardown; }

# help_of CMD: the --help text of a command ("ncpv" for the global one); nc writes it on
# stderr, as OpenBSD nc does.
help_of() {
	if [ "$1" = ncpv ]; then "$NCPV" --help; else "$NCPV" "$1" --help; fi 2>&1
}

# compare CMD: the manual's and the help's "OPTION<TAB>ARG" lists for CMD, as a diff.
compare() {
	help_of "$1" | "$OPTIONS" help | cut -f1,2 | sort >"$SCRATCH/help.$1"
	"$OPTIONS" man "$1" <"$MANUAL" | sort >"$SCRATCH/man.$1"
	[ -s "$SCRATCH/help.$1" ] || { echo "no options parsed from 'ncpv $1 --help'"; return 1; }
	diff -u --label "ncpv $1 --help" --label "doc/ncpv.1 NCPV ${1^^}" "$SCRATCH/help.$1" "$SCRATCH/man.$1"
}

@test "ncpv --help lines every command's summary up in one column, within 80 columns" {
	local col
	help_of ncpv >"$SCRATCH/help"
	# The column where each summary starts: after the name and the run of spaces.
	col=$(awk '/^Commands:/ { on = 1; next } on && /^$/ { exit }
		on { match($0, /^  [a-z]+ +/); print RLENGTH }' "$SCRATCH/help" | sort -u)
	[ -n "$col" ] && [ "$(printf '%s\n' "$col" | wc -l)" -eq 1 ] || { echo "columns: $col"; cat "$SCRATCH/help"; return 1; }
	# At least two spaces between the longest name and its summary.
	[ "$(grep -cE '^  [a-z]+  +[a-z]' "$SCRATCH/help")" -eq "$("$OPTIONS" commands <"$SCRATCH/help" | wc -l)" ]
	! awk 'length > 80' "$SCRATCH/help" | grep .
}

@test "ncpv --help and the README say what \"the seed\" is" {
	help_of ncpv | grep -q '"The seed" is the blog post "TCP (Client) Networking in Pure Bash"'
	grep -qF 'Networking in Pure Bash" ("the seed"' "$ROOT/README.md"
}

@test "every command in ncpv --help has its own section in the manual" {
	run bash -c '"$1" --help | "$2" commands' _ "$NCPV" "$OPTIONS"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -ge 2 ]
	for cmd in "${lines[@]}"; do
		grep -qx "\.SH \"NCPV ${cmd^^}\"" "$MANUAL" || { echo "no section NCPV ${cmd^^}"; return 1; }
	done
}

@test "the manual has no command section that ncpv --help does not list" {
	"$NCPV" --help | "$OPTIONS" commands | tr a-z A-Z | sort >"$SCRATCH/commands"
	sed -n 's/^\.SH "NCPV \(.*\)"$/\1/p' "$MANUAL" | sort >"$SCRATCH/sections"
	diff -u "$SCRATCH/commands" "$SCRATCH/sections"
}

@test "the manual's global options are exactly those of ncpv --help" {
	compare ncpv
}

@test "every command's options and arguments in the manual match its --help, both ways" {
	local failed=0
	for cmd in $("$NCPV" --help | "$OPTIONS" commands); do
		compare "$cmd" || failed=1
	done
	[ "$failed" -eq 0 ]
}

@test "the options check notices an option missing from the manual" {
	# Proves the comparison can fail: drop one option line from a copy of the manual.
	sed '/^\\fB\\-d\\fR, \\fB\\-\\-discard\\fR$/d' "$MANUAL" >"$SCRATCH/broken.1"
	run ! cmp -s "$MANUAL" "$SCRATCH/broken.1"
	MANUAL=$SCRATCH/broken.1
	run compare serve
	[ "$status" -ne 0 ]
	[[ "$output" == *"--discard"* ]]
}

@test "groff formats the manual without a warning" {
	run bash -c 'groff -ww -man -Tutf8 "$1" 2>&1 >/dev/null' _ "$MANUAL"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "man ./doc/ncpv.1 renders every command's section" {
	command -v man >/dev/null || skip "man-db is not installed"
	cd "$ROOT"
	MANWIDTH=80 MANPAGER=cat PAGER=cat man ./doc/ncpv.1 >"$SCRATCH/page" 2>"$SCRATCH/err"
	[ ! -s "$SCRATCH/err" ] || { cat "$SCRATCH/err"; return 1; }
	grep -q '^NAME' "$SCRATCH/page"
	grep -q '^SEE ALSO' "$SCRATCH/page"
	for cmd in $("$NCPV" --help | "$OPTIONS" commands); do
		grep -q "^NCPV ${cmd^^}\$" "$SCRATCH/page" || { echo "no NCPV ${cmd^^} in the page"; return 1; }
	done
}

@test "the manual's header names the version ncpv --version reports" {
	version=$("$NCPV" --version | sed -n '1s/^ncpv //p')
	[ -n "$version" ]
	grep -q "^\.TH NCPV 1 [0-9-]* \"ncpv $version\"" "$MANUAL"
}
