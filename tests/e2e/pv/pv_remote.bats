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
	run "$NCPV" pv -R 2147483646 -L 1M
	[ "$status" -eq 1 ]
	[ "$output" = "pv: 2147483646: No such process" ]
	bash -c 'trap "" USR2; echo $$ >"$1"; exec sleep 30' _ "$SCRATCH/deaf" &
	STARTED_PIDS+=("$!")
	wait_for "$SCRATCH/deaf" '^[0-9]+$' 5
	run "$NCPV" pv -R "$(cat "$SCRATCH/deaf")" -L 1M
	[ "$status" -eq 1 ]
	[ "$output" = "pv: $(cat "$SCRATCH/deaf"): message not received" ]
	run "$NCPV" pv -R 1 "$SCRATCH/in"
	[ "$status" -eq 64 ]
	[ "$output" = "pv: -R: files cannot be specified with this option" ]
}
