#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# progress_tty.bats - get's and nc --progress's status line on a real terminal (tmux): as wide
# as the pane, rewritten in place (no wrapped leftovers), and following a resize, as pv's does.

load ../lib/helpers
load ../lib/tty_helpers

setup() {
	common_setup
	tty_start 50
	# A slow endless stream (100 kB/s), so the line keeps refreshing at little CPU cost.
	mkfifo "$SCRATCH/fifo"
	"$NCPV" pv -q -L 100000 /dev/zero >"$SCRATCH/fifo" &
	STARTED_PIDS+=($!)
	start_serve --source "$SCRATCH/fifo"
	ln -s "$NCPV" "$SCRATCH/n"
	# A short command line: a long one would wrap in 50 columns itself.
	type_line "cd $SCRATCH; clear"
	pane_wait '^\$ ?$'
}

teardown() {
	tty_stop
	common_teardown
}

# Lines on the screen showing a status line's timer.
status_lines() {
	pane | grep -E '[0-9]:[0-9]{2}:[0-9]{2}'
}

# check_width CMD...: the line fills the 50 columns, stays on one screen line across
# refreshes, and widens to 100 columns after a resize.
check_width() {
	type_line "./n $* >/dev/null"
	pane_wait '0:00:0[2-9]' 10
	[ "$(status_lines | wc -l)" -eq 1 ] || { echo "wrapped:"; pane; return 1; }
	[ "$(status_lines | sed 's/ *$//' | wc -L)" -ge 45 ] || { pane; return 1; }
	tmux -L "$SOCK" resize-window -x 100
	pane_wait '[0-9]:[0-9]{2}:[0-9]{2}.{70,}' 10
	tmux -L "$SOCK" send-keys C-c
}

@test "get's status line fits a 50-column pane and follows a resize" {
	check_width get -i 0.2 127.0.0.1 "$SERVE_PORT"
}

@test "nc --progress's status line fits a 50-column pane and follows a resize" {
	check_width nc --progress 127.0.0.1 "$SERVE_PORT"
}

@test "no status line of get, nc --progress or pv is wider than its terminal, at any width" {
	# A table: each command and state (start, middle, last line; size known, unknown, huge)
	# on ptys from 1 to 200 columns. Items go from the right as pv 1.6 drops them.
	run "$BATS_TEST_DIRNAME/../lib/progress_width.py" "$NCPV"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *" runs, 0 failures" ]]
}

@test "after Ctrl-C, get's last status line is drawn over the echoed ^C, not after it (no wrap)" {
	# The terminal echoes "^C" where the cursor is, at the start of the status line; a last
	# line drawn from there would be two columns too wide and wrap.
	type_line "./n get -i 0.2 127.0.0.1 $SERVE_PORT >/dev/null"
	pane_wait '0:00:0[1-9]' 10
	tmux -L "$SOCK" send-keys C-c
	pane_wait '^received' 10
	local last
	last=$(pane | grep -B1 '^received' | head -1)
	[[ "$last" =~ ^\ *[0-9.]+[KMG]?i?B\ [0-9]:[0-9]{2}:[0-9]{2}\ .*\]\ *$ ]] || { pane; return 1; }
}
