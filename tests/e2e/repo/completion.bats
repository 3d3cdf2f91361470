#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# completion.bats - the bash and zsh completions offer exactly the commands and options
# that --help lists, and are what tools/gen-completions makes from this binary.

load ../lib/helpers
bats_require_minimum_version 1.5.0

ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)
OPTIONS=$ROOT/tools/options

setup() { common_setup; }
teardown() { common_teardown; }

# help_names CMD: the option names of ncpv CMD --help ("ncpv": the global ones), sorted
# (nc writes its help on stderr, as OpenBSD nc does).
help_names() {
	if [ "$1" = ncpv ]; then "$NCPV" --help; else "$NCPV" "$1" --help; fi 2>&1 |
		"$OPTIONS" help | cut -f1 | sort
}

# bash_complete WORD...: what the bash completion offers for "ncpv WORD..." (the last
# word is the one being completed), sorted, one per line.
bash_complete() {
	(
		# shellcheck source=/dev/null
		source "$ROOT/completions/ncpv.bash"
		COMP_WORDS=(ncpv "$@")
		COMP_CWORD=$#
		_ncpv
		printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort
	)
}

# zsh_specs FUNCTION: the _arguments specs (or _describe entries) a zsh completion function
# passes on, captured by stubs in place of the zsh completion system.
zsh_specs() {
	zsh -f -c '
		_arguments() { local s seen=0; for s in "$@"; do
			if (( seen )); then print -r -- "$s"; elif [[ $s == : ]]; then seen=1; fi; done; return 1; }
		_describe() { print -rl -- "${(@P)4}"; }
		_message() { :; }
		source "$1" >/dev/null
		$2' _ "$ROOT/completions/_ncpv" "$1"
}

# spec_names: option names from _arguments specs on stdin, sorted.
spec_names() {
	sed -e 's/^([^)]*)//' -e 's/^\*//' | grep -oE '^--?[A-Za-z0-9][A-Za-z0-9-]*' | sort
}

commands() { "$NCPV" --help | "$OPTIONS" commands; }

@test "the committed completions are what tools/gen-completions makes from this ncpv" {
	"$ROOT/tools/gen-completions" "$NCPV" "$SCRATCH/gen"
	diff -u "$ROOT/completions/ncpv.bash" "$SCRATCH/gen/ncpv.bash" || { echo "run: make completions"; return 1; }
	diff -u "$ROOT/completions/_ncpv" "$SCRATCH/gen/_ncpv" || { echo "run: make completions"; return 1; }
}

@test "bash registers a completion for ncpv" {
	run bash -c 'source "$1" && complete -p ncpv' _ "$ROOT/completions/ncpv.bash"
	[ "$status" -eq 0 ]
	[[ "$output" == *"-F _ncpv ncpv"* ]]
}

@test "bash completes exactly the commands of ncpv --help" {
	diff -u <(commands | sort) <(bash_complete '')
}

@test "bash completes exactly the global options of ncpv --help" {
	diff -u <(help_names ncpv) <(bash_complete -)
}

@test "bash offers exactly each command's --help options" {
	local failed=0 cmd
	for cmd in $(commands); do
		diff -u --label "ncpv $cmd --help" --label "bash: ncpv $cmd -<TAB>" \
			<(help_names "$cmd") <(bash_complete "$cmd" -) || failed=1
	done
	[ "$failed" -eq 0 ]
}

@test "bash completes a prefix to the matching options only" {
	run bash_complete serve --max-
	[ "$status" -eq 0 ]
	[ "$output" = "$(help_names serve | grep -- '^--max-')" ]
}

@test "bash completes serve --source with the source keywords and files" {
	touch "$SCRATCH/random.bin"
	cd "$SCRATCH"
	run bash_complete serve --source ra
	[ "$output" = "$(printf 'random\nrandom.bin')" ]
}

@test "bash completes get -o with file names" {
	touch "$SCRATCH/out-one" "$SCRATCH/out-two"
	cd "$SCRATCH"
	run bash_complete get -o out-
	[ "$output" = "$(printf 'out-one\nout-two')" ]
}

@test "bash offers nothing for an option that takes a number" {
	run bash_complete get --size ''
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "the completion check notices an option that --help does not list" {
	# Proves the comparison can fail: a copy with one extra option offered for serve.
	sed "s/^\(\tserve) echo '\)/\1--bogus /" "$ROOT/completions/ncpv.bash" >"$SCRATCH/broken.bash"
	run ! cmp -s "$ROOT/completions/ncpv.bash" "$SCRATCH/broken.bash"
	ROOT=$SCRATCH/root
	mkdir -p "$ROOT/completions"
	cp "$SCRATCH/broken.bash" "$ROOT/completions/ncpv.bash"
	run diff <(help_names serve) <(bash_complete serve -)
	[ "$status" -ne 0 ]
	[[ "$output" == *"--bogus"* ]]
}

@test "zsh parses the completion" {
	command -v zsh >/dev/null || skip "zsh is not installed"
	zsh -n "$ROOT/completions/_ncpv"
	head -1 "$ROOT/completions/_ncpv" | grep -qx '#compdef ncpv'
}

@test "zsh lists exactly the commands of ncpv --help" {
	command -v zsh >/dev/null || skip "zsh is not installed"
	diff -u <(commands | sort) <(zsh_specs _ncpv_commands | sed 's/:.*//' | sort)
}

@test "zsh offers exactly the global options and each command's --help options" {
	command -v zsh >/dev/null || skip "zsh is not installed"
	local failed=0 cmd
	diff -u <(help_names ncpv) <(zsh_specs _ncpv | spec_names) || failed=1
	for cmd in $(commands); do
		diff -u --label "ncpv $cmd --help" --label "zsh: _ncpv_$cmd" \
			<(help_names "$cmd") <(zsh_specs "_ncpv_$cmd" | spec_names) || failed=1
	done
	[ "$failed" -eq 0 ]
}
