#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# pv_tty.bats - `ncpv pv` on a real terminal (tmux): width and resizes, background and foreground.
load helpers
load tty_helpers

setup() {
	common_setup
	tty_start 60
}

teardown() {
	tty_stop
	common_teardown
}

@test "the line fills the terminal width and follows a resize" {
	type_line "$NCPV pv -i 0.1 -L 4000 -s 1000000 /dev/zero >/dev/null"
	pane_wait '^[0-9.]+KiB .*ETA'
	[ "$(pane | grep -E 'ETA' | tail -1 | sed 's/ *$//' | wc -L)" -eq 60 ]
	tmux -L "$SOCK" resize-window -x 100
	pane_wait '^[0-9.]+KiB .{80,}ETA'
	tmux -L "$SOCK" send-keys C-c
}

@test "in the background it neither stops nor writes, and resumes in the foreground" {
	[ -z "${NCPV_VALGRIND:-}" ] || skip "job control reaches valgrind, not pv (make valgrind)"
	type_line "stty tostop; $NCPV pv -i 0.1 -L 4000 -s 1000000 /dev/zero >/dev/null"
	pane_wait 'ETA'
	tmux -L "$SOCK" send-keys C-z
	pane_wait 'Stopped'
	type_line "bg; clear"
	pane_wait '^\$ ?$'
	# A second of 0.1 s updates: the screen stays clean and the job keeps running.
	for ((i = 0; i < 10; i++)); do
		! pane | grep -q 'KiB' || false
		sleep 0.1
	done
	type_line "jobs"
	pane_wait 'Running'
	type_line "fg"
	pane_wait '^[0-9.]+KiB .*ETA'
	tmux -L "$SOCK" send-keys C-c
}

@test "when the terminal goes away under nohup the copy finishes quietly" {
	local out=$SCRATCH/out rc=$SCRATCH/rc i
	type_line "sh -c 'trap \"\" HUP; $NCPV pv -i 0.1 -L 100K -s 200K -S /dev/zero >$out; echo \$? >$rc' "
	pane_wait 'KiB'
	tmux -L "$SOCK" kill-server
	for ((i = 0; i < 400; i++)); do # 2 s of copy; the rest is room for a loaded machine
		[ -s "$rc" ] && break
		sleep 0.05
	done
	[ "$(cat "$rc")" = 0 ]
	[ "$(stat -c %s "$out")" -eq 204800 ]
}

# rows: "ROW NAME" for each -N line on the screen.
rows() {
	pane | grep -nE '^ *(aa|bb|cc): ' | sed -E 's/^([0-9]+): *(aa|bb|cc):.*/\1 \2/'
}

@test "-c: three pv in one pipeline draw three stable lines, one each" {
	local first
	make_file "$SCRATCH/in" 3000000
	type_line "clear; $NCPV pv -c -i 0.1 -N aa -L 1M $SCRATCH/in | $NCPV pv -c -i 0.1 -N bb | $NCPV pv -c -i 0.1 -N cc >$SCRATCH/out; echo END"
	pane_wait 'aa: .*%' && pane_wait 'bb: ' && pane_wait 'cc: '
	first=$(rows | sort)
	[ "$(echo "$first" | wc -l)" -eq 3 ]
	[ "$(echo "$first" | cut -d' ' -f1 | sort -u | wc -l)" -eq 3 ]
	pane_wait 'aa: .* [5-9][0-9]%' 10
	[ "$(rows | sort)" = "$first" ]
	pane_wait '^END' 20
	[ "$(rows | sort)" = "$first" ]
	pane | grep -q 'aa: .* 100%'
	[ "$(sha "$SCRATCH/in")" = "$(sha "$SCRATCH/out")" ]
}

@test "-c without a terminal draws the usual line" {
	head -c 1000 /dev/zero >"$SCRATCH/in"
	run bash -c '"$1" pv -c -f -b "$2" 2>&1 >/dev/null' _ "$NCPV" "$SCRATCH/in"
	[ "$output" = $'1000  B\r' ]
}
