#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# serve_slots.bats - serve gives every connection's --max-conns slot back when the connection
# ends, whatever the client did (read all, half-close and close with data unread, reset, idle,
# slow) and on however many loops: generated rounds (lib/serve_slots.py, seed printed) and the
# issue 24 repro, where 30 half-closing clients locked a -c 20 server out for 10-20 s.

load ../lib/helpers

setup() {
	common_setup
}

teardown() {
	common_teardown
}

@test "serve --threads 2 -c 20 -s 200K: 30 clients that half-close and close with data unread, one after another, leave every slot free" {
	run python3 "$BATS_TEST_DIRNAME/../lib/serve_slots.py" "$NCPV" repro
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "serve's slots: 6 generated rounds (--threads 1-4, random --max-conns, --size and client behaviours) all end and free every slot" {
	run python3 "$BATS_TEST_DIRNAME/../lib/serve_slots.py" "$NCPV" 6
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "serve's slots: seed 505106250 (held slots on 2 and 3 loops before the fix)" {
	NCPV_SLOTS_SEED=505106250 run python3 "$BATS_TEST_DIRNAME/../lib/serve_slots.py" "$NCPV" 8
	echo "$output"
	[ "$status" -eq 0 ]
}
