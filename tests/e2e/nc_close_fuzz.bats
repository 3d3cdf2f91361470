#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# nc_close_fuzz.bats - random schedules around the end of an `nc -N` transfer (stdin closed while
# the relay's buffer is full, the peer reading late or slowly, data sent back before or after nc's
# FIN, a non-blocking stdout): the peer gets every byte written to stdin and stdout every byte the
# peer sent (sha256), with exit 0. 10 s by default; NC_CLOSE_FUZZ_SECONDS=600 for a longer run,
# NC_CLOSE_FUZZ_SEED=N to replay one (the seed is printed).
load nc_helpers

@test "nc -N loses nothing at either end, whatever the schedule of closes" {
	local secs=${NC_CLOSE_FUZZ_SECONDS:-10} seed=()
	[ -z "${NC_CLOSE_FUZZ_SEED:-}" ] || seed=(--seed "$NC_CLOSE_FUZZ_SEED")
	run timeout $((secs + 120)) python3 "$BATS_TEST_DIRNAME/nc_close_fuzz.py" "$NCPV" nc "${seed[@]}" --seconds "$secs"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" =~ [1-9][0-9]*\ runs,\ 0\ failed ]]
}

@test "nc -N: stdin's pipe closed full while the relay's buffer is full still delivers the pipe's 64 KiB" {
	run timeout 120 python3 "$BATS_TEST_DIRNAME/nc_close_fuzz.py" "$NCPV" nc --fixed stdin-closed-full --runs 2 --seconds 60
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"2 runs, 0 failed" ]]
}

@test "nc -N: the peer's FIN behind unread data, stdout non-blocking and full: the rest still reaches stdout" {
	run timeout 120 python3 "$BATS_TEST_DIRNAME/nc_close_fuzz.py" "$NCPV" nc --fixed stdout-full-at-fin --runs 3 --seconds 60
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"3 runs, 0 failed" ]]
}
