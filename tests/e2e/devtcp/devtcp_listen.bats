#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# devtcp_listen.bats - /dev/tcp-listen/[ADDR/]PORT waits for one client and returns its
# connection, in shells and programs; bash (which keeps /dev/tcp/ for itself) included.

load ../lib/devtcp_helpers

setup() {
	devtcp_setup
}

teardown() {
	common_teardown
}

@test "a pure-shell dash server on /dev/tcp-listen answers a bash /dev/tcp client" {
	start_listener dash -c '
		exec 3<>/dev/tcp-listen/127.0.0.1/0
		while IFS= read -r line <&3; do
			[ "$line" = quit ] && break
			printf "you said: %s\n" "$line" >&3
		done
		printf "bye\n" >&3'
	exec 4<>"/dev/tcp/127.0.0.1/$LISTEN_PORT"
	printf 'hello\n' >&4
	IFS= read -r -t 5 first <&4
	printf 'second line\nquit\n' >&4
	IFS= read -r -t 5 second <&4
	IFS= read -r -t 5 third <&4
	exec 4<&-
	[ "$first" = "you said: hello" ]
	[ "$second" = "you said: second line" ]
	[ "$third" = "bye" ]
	wait_gone "$LISTEN_PID" 5
}

@test "a dash server sends a file byte-exact to a bash /dev/tcp client" {
	start_listener dash -c 'cat "$1" >/dev/tcp-listen/127.0.0.1/0' sh "$PAYLOAD"
	cat <"/dev/tcp/127.0.0.1/$LISTEN_PORT" >"$SCRATCH/got"
	[ "$(sha "$SCRATCH/got")" = "$(sha "$PAYLOAD")" ]
}

@test "bash itself listens with the /dev/tcp-listen path and receives an upload" {
	start_listener bash -c 'cat </dev/tcp-listen/127.0.0.1/0 >"$1"' sh "$SCRATCH/got"
	cat "$PAYLOAD" >"/dev/tcp/127.0.0.1/$LISTEN_PORT"
	wait_gone "$LISTEN_PID" 5
	[ "$(sha "$SCRATCH/got")" = "$(sha "$PAYLOAD")" ]
}

@test "a listening cat receives from netcat-openbsd, and the log names the client" {
	start_listener cat /dev/tcp-listen/127.0.0.1/0
	nc -N 127.0.0.1 "$LISTEN_PORT" <"$PAYLOAD" >/dev/null
	wait_gone "$LISTEN_PID" 5
	grep -q 'connection from 127.0.0.1:' "$LISTEN_LOG"
	[ "$(sha "$LISTEN_OUT")" = "$(sha "$PAYLOAD")" ]
}

@test "the short form /dev/tcp-listen/PORT listens on every address (in a private netns)" {
	unshare -rn true 2>/dev/null && command -v ip >/dev/null || skip "needs unshare -rn and ip"
	# Every address of a new network namespace is its loopback alone.
	run unshare -rn bash -c '
		ip link set lo up || exit 90
		"$1" devtcp -v -t 5 dash -c "cat \"\$1\" >/dev/tcp-listen/0" sh "$2" 2>"$3" &
		for ((i = 0; i < 250; i++)); do
			port=$(sed -n "s/.*listening on .*:\([0-9][0-9]*\)\$/\1/p" "$3")
			[ -n "$port" ] && break
			sleep 0.02
		done
		[ -n "$port" ] || exit 91
		cat <"/dev/tcp/127.0.0.1/$port" >"$4"
		wait' sh "$NCPV" "$PAYLOAD" "$SCRATCH/log" "$SCRATCH/got"
	[ "$status" -eq 0 ]
	grep -Eq 'listening on (0\.0\.0\.0|\[::\]):' "$SCRATCH/log"
	[ "$(sha "$SCRATCH/got")" = "$(sha "$PAYLOAD")" ]
}

@test "waiting for a client ends with ETIMEDOUT after --timeout" {
	run devtcp -t 0.3 cat /dev/tcp-listen/127.0.0.1/0
	[ "$status" -eq 1 ]
	[[ "$output" == *"/dev/tcp-listen/127.0.0.1/0: Connection timed out"* ]]
}

@test "a port already in use fails with EADDRINUSE" {
	start_sink
	run devtcp cat "/dev/tcp-listen/127.0.0.1/$SINK_PORT"
	[ "$status" -eq 1 ]
	[[ "$output" == *"Address already in use"* ]]
}
