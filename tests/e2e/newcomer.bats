#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# newcomer.bats - what a first-time user meets: help texts that agree with each other, and
# summaries that print no figure they did not measure.

load helpers

setup() { common_setup; }
teardown() { common_teardown; }

@test "ncpv --help names the same pv version as ncpv pv --help and the README" {
	run "$NCPV" pv --help
	[ "$status" -eq 0 ]
	want=$(grep -o 'pv [0-9][0-9.]*[0-9]' <<<"$output" | head -1)
	[ -n "$want" ]
	run "$NCPV" --help
	[ "$status" -eq 0 ]
	row=$(grep -E '^  pv ' <<<"$output")
	echo "pv --help: $want; ncpv --help: $row"
	[[ $row == *"$want"* ]]
	grep -Fq "drop-in for $want" "$BATS_TEST_DIRNAME/../../README.md"
}

# established_to PORT: succeed once a client socket to 127.0.0.1:PORT is established.
established_to() {
	ss -Htn state established "dst 127.0.0.1:$1" | grep -q .
}

@test "an interrupted get --count prints no latency it did not measure" {
	# Transfers of 1 GiB each: on loopback none finishes before the signal (else the test skips).
	start_serve --size 1G
	"$NCPV" get -n 4 -P 2 "127.0.0.1:$SERVE_PORT" 2>"$SCRATCH/get.err" &
	gpid=$!
	STARTED_PIDS+=("$gpid")
	for ((i = 0; i < 500; i++)); do
		established_to "$SERVE_PORT" && break
		sleep 0.02
	done
	established_to "$SERVE_PORT"
	kill -INT "$gpid"
	rc=0
	wait "$gpid" || rc=$?
	cat "$SCRATCH/get.err"
	[ "$rc" -eq 1 ]
	grep -q '^0 transfers ' "$SCRATCH/get.err" || skip "a 1 GiB transfer finished before the signal"
	grep -q 'no latency: no transfer finished' "$SCRATCH/get.err"
	! grep -q 'p50 0.000' "$SCRATCH/get.err"
	grep -q 'interrupted after 0 of 4 transfers' "$SCRATCH/get.err"
}

@test "serve's summary explains 0 completed for an endless source only when clients came, and last" {
	start_serve
	kill -INT "$SERVE_PID"
	wait_gone "$SERVE_PID"
	cat "$SERVE_LOG"
	grep -q 'stopped after .*: 0 connections' "$SERVE_LOG"
	! grep -q 'endless' "$SERVE_LOG"

	start_serve
	"$NCPV" get -q -b 1M "127.0.0.1:$SERVE_PORT"
	wait_for "$SERVE_LOG" 'closed by peer'
	kill -INT "$SERVE_PID"
	wait_for "$SERVE_LOG" 'stopped after'
	cat "$SERVE_LOG"
	grep -Eq 'received 0 B \(0 B\); 0 completed because the source is endless: .*client closes it$' "$SERVE_LOG"
}

@test "a link delay or jitter without its unit is refused (mm-delay reads 20 as ms, tc as us)" {
	for opt in --delay --jitter; do
		for v in 20 0.5 20ms/5 1/1ms; do
			run "$NCPV" link "$opt" "$v" -- true
			echo "$opt $v: $status $output"
			[ "$status" -eq 2 ]
			[[ $output == "ncpv link: invalid ${opt#--} '$v': "*"with its unit"* ]]
		done
		for v in 0 20ms 0/1ms 1s; do
			run "$NCPV" link "$opt" "$v" --help
			[ "$status" -eq 0 ]
		done
	done
	run "$NCPV" bench --link 94mbit,20 --no-report
	echo "$output"
	[ "$status" -eq 2 ]
	[[ $output == *"delay '20': "*"with its unit"* ]]
}

@test "--help says 'the seed' only for the blog post, never for a random seed" {
	for c in serve get nc pv devtcp link bench; do
		run "$NCPV" "$c" --help
		# "the seed" / "the seed's" is defined by ncpv --help as the blog post.
		if grep -nE "the seed( is|,|\)| for| first)" <<<"$output"; then
			echo "$c --help uses 'the seed' for a random seed"
			return 1
		fi
		if grep -nE "^ +--seed .*  seed for" <<<"$output"; then
			echo "$c --help: say 'random seed'"
			return 1
		fi
	done
}

@test "ncpv with an unknown option or a control character says which, in one clean line" {
	run "$NCPV" -v
	[ "$status" -eq 2 ]
	[ "$output" = "ncpv: unknown option '-v' (try 'ncpv --help')" ]
	run "$NCPV" $'x\e[31my'
	[ "$status" -eq 2 ]
	[ "$output" = "ncpv: unknown command 'x?[31my' (try 'ncpv --help')" ]
}
