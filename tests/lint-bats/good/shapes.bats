# SPDX-License-Identifier: ISC
# Every shape here can fail its test under bats 1.8.2.
helper_last() {
	! grep -q x "$1"
}
@test "negated as the last command" {
	true
	! grep -q secret f
}
@test "negated rescued by || false, in a loop" {
	for i in 1 2; do
		! [ "$i" = 1 ] || false
		! pane | grep -q KiB || false
	done
}
@test "run ! and run -N check the status" {
	run ! false
	run -1 false
	( ! true ) || true
	[[ "$x" == ${c#*|} ]]
}
@test "conditions are not assertions" {
	if ! grep -q x f; then true; fi
	while ! [ -e f ]; do break; done
	[ -s f ] && break
	[ -n "$a" ] && ! awk 'x' f && echo "$p"
	[ "$status" -eq 4 ] || [ "$status" -eq 1 ]
	[[ $a == b ]] || { echo "$a"; return 1; }
	[ "$a" = b ] && [ "$c" = d ] || { echo bad; false; }
}
@test "run checked, also through a pipe and after if/else" {
	if true; then
		run ncpv a
	else
		run ncpv b
	fi
	echo "$output" | jq -e .ok
	python3 -c '
! this is python, not shell
' <<'PY'
! not shell either
PY
	# lint-bats: status not checked: only the file it writes matters
	run ncpv c
	[ -f out ]
}
@test "the last assertions joined by &&" {
	[ -e a ] && [ -e b ]
}
