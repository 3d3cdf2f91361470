# SPDX-License-Identifier: ISC
# tty_helpers.bash - a real terminal for the tests that draw status lines: a tmux server of the
# test's own (its socket named after the test), a shell in a pane of COLUMNS x 12, and bounded
# polls of what the screen shows.

# tty_start COLUMNS: a detached session running an interactive bash with a plain prompt.
tty_start() {
	command -v tmux >/dev/null || skip "tmux is not installed"
	SOCK="ncpv-tty-$$-$RANDOM"
	tmux -L "$SOCK" -f /dev/null new-session -d -x "$1" -y 12 "env PS1='$ ' bash --norc --noprofile -i"
}

tty_stop() {
	[ -z "${SOCK:-}" ] || tmux -L "$SOCK" kill-server 2>/dev/null || true
}

pane() {
	tmux -L "$SOCK" capture-pane -p
}

# pane_wait REGEX [SECONDS]: poll the screen until REGEX shows, at most SECONDS (default 5).
pane_wait() {
	local i
	for ((i = 0; i < ${2:-5} * 20; i++)); do
		pane | grep -Eq -- "$1" && return 0
		sleep 0.05
	done
	echo "screen never showed /$1/:" >&2
	pane >&2
	return 1
}

type_line() {
	tmux -L "$SOCK" send-keys "$1" Enter
}
