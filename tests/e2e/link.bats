#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# link.bats - ncpv link: options and exit codes, and the emulated link measured from
# inside its own namespaces: round trip = 2 x delay, a stream at the rate, loss within
# its binomial interval, the queue bound, order kept without jitter, nothing left behind.

load helpers
bats_require_minimum_version 1.5.0

PING=$BATS_TEST_DIRNAME/link_ping.py

setup() {
	common_setup
	# Namespaces and a TUN device are what the link is made of: say why when there are none.
	if ! "$NCPV" link -- true 2>"$SCRATCH/why"; then
		skip "ncpv link cannot run here: $(tail -1 "$SCRATCH/why")"
	fi
}
teardown() { common_teardown; }

# link ARGS... -- COMMAND: ncpv link bounded in time, stderr kept in $SCRATCH/err.
link() {
	timeout 120 "$NCPV" link "$@" 2>"$SCRATCH/err"
}

# rt COMMAND...: COMMAND (and so the delay line and the pinger) at a real-time priority where
# we may set one, so that round trips measure the line rather than a loaded machine's scheduler:
# under stress-ng and a load of 7 to 15, 200 ms round trips had lower quartiles up to 3 ms and
# medians 4 to 8 ms over, three tries in a row; under chrt -f, 0.2 ms and maxima 0.4 ms. Only for
# ping-pongs, which use little CPU; elsewhere (or where chrt is refused) it runs COMMAND as is.
rt() {
	if chrt -f 10 true 2>/dev/null; then
		chrt -f 10 "$@"
	else
		"$@"
	fi
}

# count DIRECTION FIELD: a counter from the -v summary ("ncpv link: up: offered N ...").
count() {
	local n
	n=$(sed -n "s/^ncpv link: $1:.* $2 \([0-9]*\).*/\1/p" "$SCRATCH/err")
	[ -n "$n" ] || { echo "no '$2' for $1 in:" >&2; cat "$SCRATCH/err" >&2; return 1; }
	echo "$n"
}

@test "bad values are refused with the option named and exit status 2" {
	local -a cases=(
		"--rate fast" "--rate 10mbit/" "--rate 999bit" "--delay -1ms" "--delay 61s"
		"--jitter 1/2/3" "--loss 101%" "--loss x" "--queue 0" "--queue ten"
		"--seed -1" "--near ''" "--mode slip" "--near-wait 2h" "--near-wait x"
	)
	for c in "${cases[@]}"; do
		eval "run \"\$NCPV\" link $c -- true"
		[ "$status" -eq 2 ] || { echo "$c: status $status"; return 1; }
		local opt=${c%% *}
		[[ "$output" == *"invalid ${opt#--} "* ]] || { echo "$c: $output"; return 1; }
	done
}

@test "a queue without a rate, no command, or an unknown option is a usage error" {
	run "$NCPV" link --queue 10 -- true
	[ "$status" -eq 2 ]
	[[ "$output" == *"--queue needs --rate"* ]]
	run "$NCPV" link --delay 1ms
	[ "$status" -eq 2 ]
	[[ "$output" == *"missing COMMAND"* ]]
	run "$NCPV" link --bogus -- true
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown option '--bogus'"* ]]
}

@test "COMMAND's exit status comes back; 127 when it is not found" {
	run "$NCPV" link -- sh -c 'exit 7'
	[ "$status" -eq 7 ]
	run "$NCPV" link -- sh -c 'kill -TERM $$'
	[ "$status" -eq 143 ]
	run -127 "$NCPV" link -- ncpv-no-such-command-here
	[[ "$output" == *"ncpv-no-such-command-here"* ]]
}

@test "COMMAND runs at the far address and learns the near one from its environment" {
	run "$NCPV" link -v -- sh -c 'echo "$NCPV_LINK_NEAR $NCPV_LINK_FAR"; ip -4 -o addr show dev ncpv-far'
	[ "$status" -eq 0 ]
	[[ "$output" == *"10.231.0.1 10.231.0.2"* ]]
	[[ "$output" == *"inet 10.231.0.2 peer 10.231.0.1"* ]]
	[[ "$output" == *"near end 10.231.0.1"* ]]
}

# rtt_is DELAY_MS ARGS...: ping-pong round trips are 2 x DELAY_MS: the fastest no less (the
# line never delivers early), the lower quartile within 0.5 ms of it. Scheduling delays of the
# pinger and the line on a loaded machine only add, and reach the median first (on this
# project's 2-core VM under a load of 15, medians were 0.6 to 1.3 ms over, lower quartiles
# 0.1 to 0.9; at 200 ms the median reached 204, and at 20 ms once 32): so the median is only
# held to 5 ms or 10%, whichever is more, against gross errors (a delay counted twice), a run
# gets up to three tries, and runs at a real-time priority where it may (rt). The pinger
# and the line share one CPU, and the pinger times each reply by the kernel's receive
# timestamp: on a VM, waking an idle second vCPU for the request, and waking the pinger for
# the reply, each cost 0.1 to 0.4 ms after 100 ms asleep (CI saw a lower quartile of 200.61
# for 200 without both), a cost of the host, not of the line.
rtt_is() {
	local want=$1 count=20 try cpu
	shift
	cpu=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
	for try in 1 2 3; do
		rt taskset -c "$cpu" timeout 120 "$NCPV" link "$@" -- python3 "$PING" pingpong 10.231.0.1 "$count" >"$SCRATCH/rtt" 2>"$SCRATCH/err"
		echo "want $((2 * want)) ms: $(cat "$SCRATCH/rtt")"
		# Early is a fault of the line, never of the machine: no second try.
		awk -v w="$((2 * want))" '{ exit !($4 >= w) }' "$SCRATCH/rtt" || { echo "faster than the delay"; return 1; }
		awk -v w="$((2 * want))" '{ m = w / 10 > 5 ? w / 10 : 5
			exit !($4 <= w + 0.5 && $10 <= w + 0.5 && $2 <= w + m && $8 == '"$count"') }' "$SCRATCH/rtt" && return 0
	done
	return 1
}

@test "a ping-pong's round trip is twice the delay within 0.5 ms, at 1, 20 and 100 ms" {
	rtt_is 1 --delay 1ms
	rtt_is 20 --delay 20ms
	rtt_is 100 --delay 100ms
}

@test "each direction has its own delay: 5ms down and 15ms up make a 20 ms round trip" {
	rtt_is 10 --delay 5ms/15ms
}

# flood RATE_BITS [QUEUE]: a UDP sender offers more than the link takes for 3 s; the rate the
# far end saw (the line's own count of bytes after the first over the first-to-last span)
# must be RATE_BITS within 3%, and never more than 1% above. A machine too loaded to let
# the line read in time loses capacity, never gains it: up to three tries.
flood() {
	local rate=$1 queue=${2:-1000} try got
	for try in 1 2 3; do
		link -v ${MODE:-} --rate "$rate" --queue "$queue" -- sh -c \
			'python3 "$1" flood 10.231.0.1 3 1400; sleep "$2"' _ "$PING" "$(awk -v r="$rate" -v q="$queue" 'BEGIN { print q * 1428 * 8 / r + 0.3 }')"
		got=$(count up rate)
		echo "try $try: $got bit/s at $rate bit/s"
		[ "$(count up max_queue)" -eq "$queue" ] # the sender kept the queue full
		awk -v g="$got" -v r="$rate" 'BEGIN { exit !(g <= 1.01 * r) }' || { echo "faster than the link"; return 1; }
		awk -v g="$got" -v r="$rate" 'BEGIN { exit !(g >= 0.97 * r) }' && return 0
	done
	return 1
}

@test "a flood goes through at 1, 10 and 100 Mbit/s within 3%, and never faster" {
	flood 1000000 100
	flood 10000000
	flood 100000000
}

# stream RATE_BITS: a TCP download for 5 s through --rate: never faster than the rate times
# what TCP carries of each 1500-byte packet (1448 bytes with timestamps), and at least 90%
# of it (TCP's own pauses on a loaded machine are not the link's): up to three tries.
stream() {
	local rate=$1 try got
	for try in 1 2 3; do
		link ${MODE:-} --rate "$rate" --delay 1ms --near "exec '$NCPV' serve -q 10.231.0.1:5001" -- sh -c '
			for i in $(seq 50); do "$1" get -q -j -t 5 10.231.0.1:5001 && exit; sleep 0.1; done; exit 1' \
			_ "$NCPV" >"$SCRATCH/get.json"
		got=$(jq .rate "$SCRATCH/get.json")
		echo "try $try: $got bytes/s at $rate bit/s"
		awk -v g="$got" -v r="$rate" 'BEGIN { w = r / 8 * 1448 / 1500; exit !(g <= 1.005 * w) }' ||
			{ echo "faster than the link"; return 1; }
		awk -v g="$got" -v r="$rate" 'BEGIN { w = r / 8 * 1448 / 1500; exit !(g >= 0.90 * w) }' && return 0
	done
	return 1
}

@test "a TCP download fills a 10 Mbit/s link and never exceeds it" {
	command -v jq >/dev/null || skip "jq is not installed"
	stream 10000000
}

@test "loss at 2%, 10% and 30% falls in the binomial interval of what was offered" {
	local p offered lost
	for p in 2 10 30; do
		link -v --loss "0/$p" --seed "$p" -- python3 "$PING" udp 10.231.0.1 4000 100
		offered=$(count up offered)
		lost=$(count up lost)
		echo "$p%: lost $lost of $offered"
		# The sender does not wait for the line: under load the TUN's queue overflows before
		# the line reads it (the soak saw 1972 of 4000), which is not the line's loss.
		[ "$offered" -ge 1000 ]
		# 4.5 standard deviations either side.
		awk -v n="$offered" -v k="$lost" -v p="$p" \
			'BEGIN { p /= 100; sd = sqrt(n * p * (1 - p)); d = k - n * p; if (d < 0) d = -d; exit !(d <= 4.5 * sd) }'
		[ "$(count down lost)" -eq 0 ]
	done
}

@test "the same seed drops the same packets" {
	# The sender waits before it exits, so the line has read every datagram by then.
	link -v --loss 20 --seed 12345 -- sh -c 'python3 "$1" udp 10.231.0.1 500 100; sleep 0.5' _ "$PING"
	first=$(count up lost)
	link -v --loss 20 --seed 12345 -- sh -c 'python3 "$1" udp 10.231.0.1 500 100; sleep 0.5' _ "$PING"
	[ "$(count up offered)" -eq 500 ] && [ "$first" -gt 50 ] && [ "$(count up lost)" -eq "$first" ]
}

@test "a burst into a queue of 10 packets keeps 10 and drops the rest" {
	link -v --rate 1mbit --queue 10 -- python3 "$PING" udp 10.231.0.1 100 1000
	[ "$(count up max_queue)" -eq 10 ]
	[ "$(count up overflow)" -ge 80 ]
}

@test "a queue of 5000 bytes holds four 1028-byte packets" {
	link -v --rate 1mbit --queue 5000B -- python3 "$PING" udp 10.231.0.1 100 1000
	[ "$(count up max_queue)" -eq 4 ]
}

@test "no packet is reordered without jitter, and jitter larger than the gaps reorders" {
	# 200 replies fit the ping socket's default receive buffer even if the pinger is slow.
	run timeout 60 "$NCPV" link --rate 50mbit --delay 10ms -- python3 "$PING" burst 10.231.0.1 200
	echo "$output"
	[[ "$output" == *"replies 200 reordered 0"* ]]
	run timeout 60 "$NCPV" link --rate 50mbit --delay 10ms --jitter 5ms -- python3 "$PING" burst 10.231.0.1 200
	echo "$output"
	[[ "$output" == *"replies 200 reordered "[1-9]* ]]
}

# leaves_nothing SIGNAL: COMMAND and --near are gone once ncpv link has that signal.
# (A background job starts with SIGINT ignored, which ncpv link respects: env resets it.)
leaves_nothing() {
	local mark=$RANDOM$RANDOM pid i
	env --default-signal=INT "$NCPV" link ${MODE:-} --near-wait 0 --near "exec sleep 3600.$mark" -- sleep "3601.$mark" 2>"$SCRATCH/err" &
	pid=$!
	STARTED_PIDS+=("$pid") # stopped by teardown if the test fails before it ends
	# Both sleeps, not ncpv link's own command line (which holds the same words).
	for i in $(seq 500); do
		pgrep -f "^sleep 3600\.$mark\$" >/dev/null && pgrep -f "^sleep 3601\.$mark\$" >/dev/null && break
		sleep 0.02
	done
	pgrep -f "^sleep 3600\.$mark\$" >/dev/null && pgrep -f "^sleep 3601\.$mark\$" >/dev/null
	kill -"$1" "$pid"
	wait_gone "$pid" 10 || { echo "ncpv link did not end on SIG$1"; kill -KILL "$pid"; return 1; }
	wait "$pid" || true
	for i in $(seq 250); do
		grep -lqs "360[01].$mark" /proc/[0-9]*/cmdline || return 0
		sleep 0.02
	done
	echo "still running after SIG$1:"
	grep -ls "360[01].$mark" /proc/[0-9]*/cmdline
	return 1
}

@test "nothing is left behind after SIGTERM, SIGINT or SIGKILL of ncpv link" {
	leaves_nothing TERM
	leaves_nothing INT
	leaves_nothing KILL
	MODE="--mode veth" leaves_nothing KILL
}

@test "killing the command's PID 1 ends ncpv link and everything it started" {
	local mark=$RANDOM$RANDOM pid init i
	"$NCPV" link --near-wait 0 --near "exec sleep 3600.$mark" -- sleep "3601.$mark" 2>"$SCRATCH/err" &
	pid=$!
	STARTED_PIDS+=("$pid") # stopped by teardown if the test fails before it ends
	# ncpv link's own command line holds the mark too: wait for the sleep itself.
	for i in $(seq 500); do
		pgrep -f "^sleep 3601\.$mark\$" >/dev/null && break
		sleep 0.02
	done
	init=$(pgrep -P "$pid")
	[ -n "$init" ]
	kill -KILL "$init"
	wait_gone "$pid" 10 || { echo "ncpv link did not end"; kill -KILL "$pid"; return 1; }
	wait "$pid" && return 1 || [ "$?" -eq 137 ]
	for i in $(seq 250); do
		grep -lqs "360[01].$mark" /proc/[0-9]*/cmdline || return 0
		sleep 0.02
	done
	return 1
}

@test "an ordinary user gets the link, as that user, with the delay" {
	[ "$(id -u)" -eq 0 ] || skip "runs as root to become an ordinary user"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	cp "$NCPV" "$SCRATCH/ncpv" && cp "$PING" "$SCRATCH/ping.py" && chmod 755 "$SCRATCH" "$SCRATCH/ncpv" "$SCRATCH/ping.py"
	run rt setpriv --reuid=65534 --regid=65534 --clear-groups "$SCRATCH/ncpv" link -v --delay 5ms -- \
		sh -c 'id -u; python3 "$1" pingpong 10.231.0.1 10' _ "$SCRATCH/ping.py"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx 65534 <<<"$output"
	awk '/^median/ { exit !($4 >= 10 && $10 <= 10.5 && $8 == 10) }' <<<"$output"
}

@test "the veth mode (packet sockets, no TUN) gives the same delay, rate and queue" {
	rtt_is 10 --mode veth --delay 10ms
	grep -q "(veth)" "$SCRATCH/err" || link -v --mode veth -- true
	grep -q "(veth)" "$SCRATCH/err"
	link -v --mode veth --rate 1mbit --queue 10 -- python3 "$PING" udp 10.231.0.1 100 1000
	[ "$(count up max_queue)" -eq 10 ]
	MODE="--mode veth" flood 10000000
}

# The issue's command: a server at the near end and a client that connects once, at once.
@test "the client starts once --near listens: 30 of 30 downloads, with and without loss" {
	local i fails=0 loss
	for i in $(seq 30); do
		loss=$([ $((i % 2)) -eq 0 ] && echo "--loss 1%" || echo "")
		# shellcheck disable=SC2086
		timeout 60 "$NCPV" link --rate 100mbit $loss --near "'$NCPV' serve -q --size 64K 10.231.0.1:6666" -- \
			"$NCPV" get -q -j 10.231.0.1 >"$SCRATCH/get.json" 2>"$SCRATCH/err" &&
			grep -q '"bytes":65536' "$SCRATCH/get.json" ||
			{ fails=$((fails + 1)); echo "run $i ($loss):"; cat "$SCRATCH/err"; }
	done
	[ "$fails" -eq 0 ]
}

# Random readiness orders: the near command listens after a random delay, ends without
# listening, or listens too late for --near-wait; COMMAND connects once, at once.
@test "generated: --near ready after a random delay, gone before it listened, or too late" {
	local seed=${LINK_READY_SEED:-$RANDOM} i d kind
	echo "seed $seed"
	RANDOM=$seed
	for i in $(seq 16); do
		d=$((RANDOM % 400))
		kind=$((RANDOM % 4))
		case $kind in
		0 | 1) # listens after d ms: the single connect must succeed
			run timeout 60 "$NCPV" link --near "sleep 0.$(printf %03d "$d"); exec '$NCPV' serve -q --size 4K 10.231.0.1:6666" -- \
				"$NCPV" get -q -j 10.231.0.1
			[ "$status" -eq 0 ] && [[ "$output" == *'"bytes":4096'* ]] ||
				{ echo "case $i: listen after ${d}ms: status $status: $output"; return 1; } ;;
		2) # exits after d ms without listening: 125 and why, COMMAND never runs
			run timeout 60 "$NCPV" link --near "sleep 0.$(printf %03d "$d"); exit 4" -- echo COMMAND-RAN
			[ "$status" -eq 125 ] && [[ "$output" == *"--near command exited with status 4 before it listened"* ]] &&
				[[ "$output" != *COMMAND-RAN* ]] ||
				{ echo "case $i: exit after ${d}ms: status $status: $output"; return 1; } ;;
		3) # listens only after --near-wait: 125 naming the wait and the option
			run timeout 60 "$NCPV" link --near-wait 0.$(printf %03d $((d + 50))) \
				--near "sleep 2; exec '$NCPV' serve -q 10.231.0.1:6666" -- echo COMMAND-RAN
			[ "$status" -eq 125 ] && [[ "$output" == *"did not listen on a TCP port within 0."*"--near-wait"* ]] &&
				[[ "$output" != *COMMAND-RAN* ]] ||
				{ echo "case $i: wait $((d + 50))ms: status $status: $output"; return 1; } ;;
		esac
	done
}

@test "--near-wait 0 starts COMMAND beside a near command that never listens; --near-wait needs --near" {
	run timeout 30 "$NCPV" link --near-wait 0 --near "exec sleep 30" -- echo started
	[ "$status" -eq 0 ]
	[ "$output" = started ]
	run "$NCPV" link --near-wait 1s -- true
	[ "$status" -eq 2 ]
	[[ "$output" == *"--near-wait needs --near"* ]]
}
