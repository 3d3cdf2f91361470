#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# help_width.bats - every --help fits an 80-column terminal without wrapping (issue 27, 3).
# The list of helps is generated: every command of ncpv --help, every subcommand its usage
# lines show ("ncpv bench compare ..."), every other help a help points to ("see 'ncpv get
# -u --help'"), and the helps of the names ncpv also runs as (nc, netcat, pv).

load ../lib/helpers

ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)
OPTIONS=$ROOT/tools/options

setup() { common_setup; }
teardown() { common_teardown; }

# help_forms: one line per help to check, as the arguments before --help ("" for ncpv's own;
# "@NAME" for ncpv run through a symlink called NAME).
help_forms() {
	local cmd
	echo ""
	for cmd in $("$NCPV" --help | "$OPTIONS" commands); do
		echo "$cmd"
		# Subcommands in the usage block: "ncpv CMD WORD" with WORD lower case, not an option.
		"$NCPV" "$cmd" --help 2>&1 | sed -n "s/^\(Usage:\|  or:\)\{0,1\} *ncpv $cmd \([a-z][a-z-]*\)\( .*\)\{0,1\}$/$cmd \2/p"
	done
	# Helps that a help points to: "'ncpv get -u --help'" (but not "'ncpv COMMAND --help'").
	{
		"$NCPV" --help
		for cmd in $("$NCPV" --help | "$OPTIONS" commands); do "$NCPV" "$cmd" --help; done
	} 2>&1 | grep -o "'ncpv [a-z][^']* --help'" | sed "s/^'ncpv //; s/ --help'\$//"
	printf '%s\n' @nc @netcat @pv
}

# help_of FORM: that help's text (nc writes its own on stderr, as OpenBSD nc does); fails
# if the help does not exit 0, so that a form the generator gets wrong is noticed.
help_of() {
	local -a words
	if [[ $1 == @* ]]; then
		ln -sf "$NCPV" "$SCRATCH/${1#@}"
		"$SCRATCH/${1#@}" -h 2>&1 # nc's -h; pv's -h is --help
		return
	fi
	read -ra words <<<"$1"
	"$NCPV" "${words[@]}" --help 2>&1
}

@test "the list of helps covers every command, the -u forms and bench compare" {
	help_forms >"$SCRATCH/forms"
	sed "s/^/form: [/; s/\$/]/" "$SCRATCH/forms"
	for want in "" serve get nc pv devtcp link bench "get -u" "serve -u" "bench compare" @nc @pv; do
		grep -qxF -- "$want" "$SCRATCH/forms" || { echo "missing: '$want'"; return 1; }
	done
}

@test "every --help line fits in 80 columns (tabs expanded)" {
	local form what bad=0
	help_forms | sort -u >"$SCRATCH/forms"
	while IFS= read -r form; do
		if [[ $form == @* ]]; then what="${form#@} -h"; else what="ncpv${form:+ $form} --help"; fi
		help_of "$form" >"$SCRATCH/help" || { echo "$what failed"; bad=1; continue; }
		[ -s "$SCRATCH/help" ] || { echo "$what printed nothing"; bad=1; continue; }
		expand "$SCRATCH/help" | awk -v what="$what" 'length > 80 {
			printf "%s: %d columns: %s\n", what, length, $0; bad = 1 }
			END { exit bad }' || bad=1
	done <"$SCRATCH/forms"
	[ "$bad" -eq 0 ]
}
