#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# stress.bats - a few hundred clients of every kind against serve, in seconds: the fast
# version of `make stress` (tests/stress/stress.sh). tests/stress/stressor.c is the client.

load ../lib/helpers

setup() {
	# Under valgrind the figures would be valgrind's own memory and CPU time.
	[ -z "${NCPV_VALGRIND:-}" ] || skip "measures the native process (make stress covers it)"
	common_setup
	STRESSOR=${STRESSOR:-$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)/build/tests/stressor}
	[ -x "$STRESSOR" ] || { echo "build the load generator first: make build/tests/stressor" >&2; return 1; }
	head -c 100000 /dev/urandom >"$SCRATCH/source"
	SIZE=65536
}

teardown() {
	common_teardown
}

# stress MODE ARGS...: run the stressor against SERVE_PORT; its "key value" lines land in $SCRATCH/out.
stress() {
	local mode=$1
	shift
	run "$STRESSOR" "$mode" --pid "$SERVE_PID" --expect "$SCRATCH/source" --size "$SIZE" --timeout 30 "$@" "$SERVE_PORT"
	printf '%s\n' "$output" >"$SCRATCH/out"
	echo "$output"
}

value() {
	sed -n "s/^$1 //p" "$SCRATCH/out"
}

@test "serve gives byte-exact data to 300 downloads beside stalled, resetting and vanishing clients" {
	start_serve --quiet --source "$SCRATCH/source" --size "$SIZE" 127.0.0.1:0
	stress load --good 300 --stall 50 --reset 100 --flash 100
	[ "$status" -eq 0 ]
	[ "$(value clients_held)" -eq 450 ]
	[ "$(value mixed_good_ok)" -eq 300 ]
	[ "$(value alone_good_ok)" -eq 300 ]
	[ "$(value reset_done)" -eq 100 ]
	kill -0 "$SERVE_PID"
}

@test "serve stalled readers do not slow the other downloads" {
	start_serve --quiet --source "$SCRATCH/source" --size 1M 127.0.0.1:0
	SIZE=1048576
	stress load --good 100 --stall 100
	[ "$status" -eq 0 ]
	awk -v m="$(value mixed_max_s)" -v a="$(value alone_max_s)" 'BEGIN { exit !(m <= 2 * a + 1) }'
}

@test "serve uses no CPU while every client is stalled" {
	start_serve --quiet --source "$SCRATCH/source" --size 1M 127.0.0.1:0
	SIZE=1048576
	stress load --good 50 --stall 200
	[ "$status" -eq 0 ]
	awk -v c="$(value serve_cpu_ms_per_s_all_stalled)" 'BEGIN { exit !(c < 20) }'
	awk -v c="$(value serve_cpu_ms_per_s_stalled_only)" 'BEGIN { exit !(c < 20) }'
}

@test "serve memory per held connection stays under 4 KiB" {
	start_serve --quiet --source "$SCRATCH/source" --size 1M 127.0.0.1:0
	SIZE=1048576
	stress load --good 200 --stall 300
	[ "$status" -eq 0 ]
	[ "$(value serve_rss_per_conn_bytes)" -lt 4096 ]
}

@test "serve out of descriptors keeps serving its clients and recovers" {
	start_serve --quiet --source "$SCRATCH/source" --size "$SIZE" 127.0.0.1:0
	prlimit --pid "$SERVE_PID" --nofile=40:40
	stress fdlimit --good 120
	[ "$status" -eq 0 ]
	[ "$(value exhausted_served_ok)" -gt 0 ]
	[ "$(value exhausted_refused)" -gt 0 ]
	[ "$(value exhausted_failed)" -eq 0 ]
	[ "$(value recovered_ok)" -eq 10 ]
	awk -v c="$(value serve_cpu_ms_per_s_exhausted)" 'BEGIN { exit !(c < 20) }'
}
