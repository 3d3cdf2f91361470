#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# link_isolation.bats - a command under ncpv link cannot reach the host's addresses: --help
# says so and points to --near, and a quick failure without --near gets a hint (issue 27, 5).

load ../lib/helpers
bats_require_minimum_version 1.5.0

setup() {
	common_setup
	if ! "$NCPV" link -- true 2>"$SCRATCH/why"; then
		skip "ncpv link cannot run here: $(tail -1 "$SCRATCH/why")"
	fi
}
teardown() { common_teardown; }

HINT="cannot reach the host's addresses (127.0.0.1 is the namespace's own loopback); run the server with --near CMD and connect to 10.231.0.1"

@test "link --help says COMMAND cannot reach the host's addresses and shows --near" {
	run "$NCPV" link --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"COMMAND cannot reach the host's addresses: 127.0.0.1 there is the namespace's"* ]]
	[[ "$output" == *"ncpv link --near 'ncpv serve 10.231.0.1:6666' -- ncpv get 10.231.0.1"* ]]
}

@test "get under link to a server on the host's 127.0.0.1 fails with its own status and link's hint" {
	start_serve --size 1000
	run timeout 60 "$NCPV" link -- "$NCPV" get -q "127.0.0.1:$SERVE_PORT"
	echo "$output"
	[ "$status" -eq 4 ]
	[ "${lines[0]}" = "ncpv get: connect to 127.0.0.1:$SERVE_PORT: Connection refused" ]
	[[ "${lines[1]}" == "ncpv link: $NCPV exited with status 4 after "*" s; if it could not connect: under link it $HINT (\$NCPV_LINK_NEAR)" ]]
	[ "${#lines[@]}" -eq 2 ]
}

@test "no hint when COMMAND succeeds, when --near was given, or for link's own failures" {
	run timeout 60 "$NCPV" link -- true
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	run timeout 60 "$NCPV" link --near-wait 0 --near true -- sh -c 'exit 4'
	[ "$status" -eq 4 ]
	[[ "$output" != *"--near CMD"* ]]
	run -127 timeout 60 "$NCPV" link -- ncpv-no-such-command-here
	[[ "$output" != *"--near CMD"* ]]
	# nc's refusal is status 1: the hint too.
	run timeout 60 "$NCPV" link -- sh -c 'exit 1'
	[ "$status" -eq 1 ]
	[[ "$output" == *"$HINT"* ]]
}

@test "--near: a server on the near end's loopback is out of COMMAND's reach; link says so when --near-wait is out" {
	# Generated over where the near server listens: only addresses COMMAND can reach count as
	# "listening"; a loopback-only server gets link's error once --near-wait is out (not
	# "did not listen"), exit 125, and COMMAND never runs. A server that opens a loopback port
	# first and its reachable one a second later is ready then (the attack's case).
	local at want
	# (IPv6 is not set up in link's namespace: [::1] cannot even be bound there.)
	for at in 127.0.0.1:6666 127.0.0.9:6666 10.231.0.1:6666 0.0.0.0:6666; do
		case $at in
		127.*) want=125 ;;
		*) want=0 ;;
		esac
		SECONDS=0
		run timeout 60 "$NCPV" link --near-wait 2 --near "$NCPV serve -q $at" -- "$NCPV" get -q -b 1K 10.231.0.1:6666
		echo "$at: status $status in ${SECONDS}s: $output"
		[ "$status" -eq "$want" ]
		if [ "$want" -eq 125 ]; then
			[ "$SECONDS" -le 8 ]
			[[ "$output" == *"ncpv link: the --near command listens on loopback only (port 6666), which COMMAND cannot reach: listen on 10.231.0.1 (NCPV_LINK_NEAR) or 0.0.0.0"* ]]
			[[ "$output" != *"ncpv get"* ]]
		fi
	done
	# (Under ASan, LeakSanitizer cannot read /proc of a process backgrounded in link's
	# namespaces and fails it: leak checks off for this one, as get_interval.bats does.)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		run timeout 60 "$NCPV" link --near-wait 5 --near "$NCPV serve -q 127.0.0.1:7000 & sleep 1.5; exec $NCPV serve -q 10.231.0.1:6666" \
		-- "$NCPV" get -q -b 1K 10.231.0.1:6666
	echo "loopback first, then reachable: status $status: $output"
	[ "$status" -eq 0 ]
}
