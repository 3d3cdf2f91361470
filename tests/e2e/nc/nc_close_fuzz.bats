#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# nc_close_fuzz.bats - random schedules around the end of an `nc -N` transfer (stdin closed while
# the relay's buffer is full, the peer reading late or slowly, data sent back before or after nc's
# FIN or trickled while nc sends, a non-blocking stdout, -N or -q 0/1): the peer gets every byte
# written to stdin and stdout every byte the peer sent (sha256), with exit 0. 10 s by default; NC_CLOSE_FUZZ_SECONDS=600 for a longer run,
# NC_CLOSE_FUZZ_SEED=N to replay one (the seed is printed).
load ../lib/nc_helpers

@test "nc -N loses nothing at either end, whatever the schedule of closes" {
	local secs=${NC_CLOSE_FUZZ_SECONDS:-10} seed=()
	[ -z "${NC_CLOSE_FUZZ_SEED:-}" ] || seed=(--seed "$NC_CLOSE_FUZZ_SEED")
	run timeout $((secs + 120)) python3 "$BATS_TEST_DIRNAME/../lib/nc_close_fuzz.py" "$NCPV" nc "${seed[@]}" --seconds "$secs"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" =~ [1-9][0-9]*\ runs,\ 0\ failed ]]
}

@test "nc -N: stdin's pipe closed full while the relay's buffer is full still delivers the pipe's 64 KiB" {
	run timeout 120 python3 "$BATS_TEST_DIRNAME/../lib/nc_close_fuzz.py" "$NCPV" nc --fixed stdin-closed-full --runs 2 --seconds 60
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"2 runs, 0 failed" ]]
}

@test "nc -N: the peer's FIN behind unread data, stdout non-blocking and full: the rest still reaches stdout" {
	run timeout 120 python3 "$BATS_TEST_DIRNAME/../lib/nc_close_fuzz.py" "$NCPV" nc --fixed stdout-full-at-fin --runs 3 --seconds 60
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"3 runs, 0 failed" ]]
}

@test "nc -l -q 0: a peer that keeps sending while it reads slowly still gets all 4 MiB, exit 0" {
	run timeout 120 python3 "$BATS_TEST_DIRNAME/../lib/nc_close_fuzz.py" "$NCPV" nc --fixed q0-listen-trickle --runs 3 --seconds 60
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"3 runs, 0 failed" ]]
}

@test "nc -N -w 2: a peer that never reads leaves bytes unacknowledged: exit 1, and says how many" {
	local dir
	dir=$(mktemp -d)
	head -c 4194304 /dev/urandom >"$dir/in"
	# The peer accepts, reads nothing, and closes only once nc has exited.
	run timeout 60 python3 - "$NCPV" "$dir/in" <<'PY'
import socket, subprocess, sys
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
ls.bind(("127.0.0.1", 0))
ls.listen(1)
with open(sys.argv[2], "rb") as f:
    p = subprocess.Popen([sys.argv[1], "nc", "-N", "-w", "2", "127.0.0.1", str(ls.getsockname()[1])],
                         stdin=f, stderr=subprocess.PIPE)
    conn = ls.accept()[0]
    err = p.stderr.read().decode()
    print("exit", p.wait(timeout=50), err)
conn.close()
PY
	rm -rf "$dir"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "exit 1 "*"bytes sent were never acknowledged by the peer"* ]]
}
