#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# newcomer.bats - what a first-time user meets: help texts that agree with each other, and
# summaries that print no figure they did not measure.

load ../lib/helpers
bats_require_minimum_version 1.5.0

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
	grep -Fq "drop-in for $want" "$BATS_TEST_DIRNAME/../../../README.md"
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
	run ! grep -q 'p50 0.000' "$SCRATCH/get.err"
	grep -q 'interrupted after 0 of 4 transfers' "$SCRATCH/get.err"
}

@test "serve's summary explains 0 completed for an endless source only when clients came, and last" {
	start_serve
	kill -INT "$SERVE_PID"
	wait_gone "$SERVE_PID"
	cat "$SERVE_LOG"
	grep -q 'stopped after .*: 0 connections' "$SERVE_LOG"
	run ! grep -q 'endless' "$SERVE_LOG"

	start_serve
	"$NCPV" get -q -b 1M "127.0.0.1:$SERVE_PORT"
	wait_for "$SERVE_LOG" 'closed by peer'
	kill -INT "$SERVE_PID"
	wait_for "$SERVE_LOG" 'stopped after'
	cat "$SERVE_LOG"
	unwrapped "$SERVE_LOG" | grep -Eq 'received 0 B; 0 completed because the source is endless: .*client closes it$'
}

@test "get --json --count gives latency_ms null, not zeros, when no transfer finished" {
	start_serve --quiet
	run "$NCPV" get -q --json -n 2 -P 2 -t 0.5 "127.0.0.1:$SERVE_PORT"
	echo "$output"
	[ "$status" -eq 1 ]
	head -1 <<<"$output" | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
assert d["transfers"] == 0 and d["cut"] == 2, d
assert d["latency_ms"] is None, d'
}

@test "summaries give a count's IEC size only from 1 KiB on: no '0 B (0 B)'" {
	for size in 0 1 1023 1024 5000; do
		start_serve --size "$size"
		run "$NCPV" get "127.0.0.1:$SERVE_PORT"
		echo "$size: $output"
		[ "$status" -eq 0 ]
		if [ "$size" -lt 1024 ]; then
			[[ $output == "received $size B in "* ]]
		else
			[[ $output =~ ^received\ $size\ B\ \([0-9.]+KiB\)\ in\  ]]
		fi
		kill -INT "$SERVE_PID"
		wait_for "$SERVE_LOG" 'stopped after'
		grep -q "sent $size B[ ,;(]" "$SERVE_LOG"
		run ! grep -q '(0 B)' "$SERVE_LOG"
	done
}

# exit_codes TEXT: the exit codes a help text or manual section lists, one a line ("8-13" expanded).
exit_codes() {
	python3 -c '
import re, sys
t = sys.stdin.read()
out = set()
for a, b in re.findall(r"(?<![\w.-])(\d+)(?:-(\d+))?(?= )", t):
    out.update(range(int(a), int(b or a) + 1))
print("\n".join(map(str, sorted(out))))'
}

@test "get's and serve's --help list the exit codes of the manual's Exit status section" {
	for c in get serve; do
		run "$NCPV" "$c" --help
		help=$(sed -n '/^Exit status:/,$p' <<<"$output" | exit_codes)
		man=$(sed -n "/^\.SH \"NCPV ${c^^}\"/,/^\.SH /p" "$BATS_TEST_DIRNAME/../../../doc/ncpv.1" |
			sed -n '/^\.SS "Exit status"/,/^\.SS /p' | sed -n 's/^\.B \([0-9][0-9]*\)$/\1 /p' | exit_codes)
		echo "$c: help [$help] manual [$man]"
		[ -n "$help" ]
		[ "$help" = "$man" ]
	done
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
	[ "$output" = "ncpv: unknown command 'x\e[31my' (try 'ncpv --help')" ]
}

@test "ncpv --help puts its options under a heading, says where the manual is and its exit status" {
	run "$NCPV" --help
	[ "$status" -eq 0 ]
	grep -A1 '^Options:$' <<<"$output" | grep -q -- '^  -h, --help'
	grep -q 'man ./doc/ncpv.1' <<<"$output"
	grep -q '^Exit status: .*2 for an unknown command or option' <<<"$output"
	run "$NCPV" frob
	[ "$status" -eq 2 ]
	[ -f "$BATS_TEST_DIRNAME/../../../doc/ncpv.1" ]
}
