#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# pv_remote.bats - `ncpv pv -R PID` changes a running ncpv pv's options, `-Q PID` shows its progress.
load ../lib/helpers

setup() {
	common_setup
	make_file "$SCRATCH/in" 2000000
}

teardown() {
	common_teardown
}

# target ARGS...: a running ncpv pv copying in to out; TARGET is its pid.
target() {
	"$NCPV" pv -f -i 0.2 -P "$SCRATCH/pid" "$@" "$SCRATCH/in" >"$SCRATCH/out" 2>"$SCRATCH/err" &
	TARGET=$!
	STARTED_PIDS+=("$TARGET")
	wait_for "$SCRATCH/pid" '^[0-9]+$' 5
}

@test "-R changes a running pv's rate limit and name" {
	local start end
	target -L 100k -N before
	start=$(date +%s)
	run "$NCPV" pv -R "$TARGET" -L 100M -N after
	[ "$status" -eq 0 ]
	# At 100 KiB/s the copy would take 20 s; lifted, it ends at once.
	wait "$TARGET"
	end=$(date +%s)
	[ $((end - start)) -lt 10 ]
	grep -q 'after:' "$SCRATCH/err"
	[ "$(sha "$SCRATCH/in")" = "$(sha "$SCRATCH/out")" ]
}

@test "-Q shows a running pv's progress until it ends" {
	local first last
	target -L 1M -q
	run timeout 20 "$NCPV" pv -Q "$TARGET" -f -n -b -i 0.2
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -ge 3 ]
	first=${lines[0]}
	last=${lines[${#lines[@]} - 1]}
	[ "$first" -lt "$last" ]
	[ "$last" -le 2000000 ]
}

@test "-R names a process that is not there, or does not answer, with pv's status 1" {
	local deaf i
	run "$NCPV" pv -R 2147483646 -L 1M
	[ "$status" -eq 1 ]
	[ "$output" = "pv: 2147483646: No such process" ]
	# A pv that does not answer: stopped (a process that is not a pv is refused, below).
	"$NCPV" pv -q -L 1 /dev/zero >/dev/null &
	deaf=$!
	STARTED_PIDS+=("$deaf")
	for ((i = 0; i < 100; i++)); do
		[ "$(readlink "/proc/$deaf/exe")" = "$(readlink -f "$NCPV")" ] && break
		sleep 0.02
	done
	kill -STOP "$deaf"
	run "$NCPV" pv -R "$deaf" -L 1M
	kill -CONT "$deaf"
	[ "$status" -eq 1 ]
	[ "$output" = "pv: $deaf: message not received" ]
	run "$NCPV" pv -R 1 "$SCRATCH/in"
	[ "$status" -eq 64 ]
	[ "$output" = "pv: -R: files cannot be specified with this option" ]
}

# The outside attack of issue 22's round: SIGUSR2 ends a program that does not catch it, so
# -R and -Q to a process that is not ncpv pv must refuse and leave it running.
@test "-R and -Q to a process that is not a pv refuse and leave it running" {
	local sig pid
	for sig in -R -Q; do
		sleep 30 &
		pid=$!
		STARTED_PIDS+=("$pid")
		if [ "$sig" = -R ]; then
			run "$NCPV" pv -R "$pid" -L 1M
		else
			run "$NCPV" pv -Q "$pid"
		fi
		[ "$status" -eq 1 ]
		[ "$output" = "pv: $pid: not a pv process (only ncpv pv answers -R and -Q)" ]
		kill -0 "$pid"
		kill "$pid"
		wait "$pid" || true
	done
}
