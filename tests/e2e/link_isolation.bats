#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# link_isolation.bats - a command under ncpv link cannot reach the host's addresses: --help
# says so and points to --near, and a quick failure without --near gets a hint (issue 27, 5).

load helpers
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
