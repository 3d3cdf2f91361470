#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# serve_threads.bats - serve --threads N: N event loops, the first accepting and handing
# connections round them; the summary's per-loop shares add up, --max-conns holds across loops,
# nothing else can join the port (an SO_REUSEPORT design let nc -l take a share), a stream
# source stays on one loop, and stalled clients on every loop do not hold up other transfers.

load ../lib/helpers

setup() {
	common_setup
}

teardown() {
	common_teardown
}

# summary_json: the summary object serve wrote on SIGTERM (after stopping it).
stop_serve_summary() {
	kill -TERM "$SERVE_PID"
	wait_for "$SERVE_LOG" '"event":"summary"' 5
	grep '"event":"summary"' "$SERVE_LOG"
}

@test "serve --threads 2: 40 clients spread evenly over both loops, their shares add up to the summary's" {
	start_serve --json --threads 2 --size 4K
	grep -q '"event":"listen".*"threads":2' "$SERVE_LOG"
	"$NCPV" get -q --count 40 -P 4 "127.0.0.1:$SERVE_PORT"
	local i
	for ((i = 0; i < 250; i++)); do
		[ "$(grep -c '"event":"close"' "$SERVE_LOG")" -eq 40 ] && break
		sleep 0.02
	done
	stop_serve_summary >"$SCRATCH/summary"
	run python3 -c '
import json, sys
s = json.loads(open(sys.argv[1]).read())
loops = s["loops"]
assert len(loops) == 2, loops
assert sum(l["connections"] for l in loops) == s["connections"] == 40, s
assert sum(l["sent"] for l in loops) == s["sent"] == 40 * 4096, s
# Handed round in turn: 20 each.
assert [l["connections"] for l in loops] == [20, 20], loops
assert abs(sum(l["cpu_seconds"] for l in loops) - s["cpu_seconds"]) < 0.01, s
assert all(l["cpu_seconds"] >= 0 for l in loops), loops
' "$SCRATCH/summary"
	[ "$status" -eq 0 ] || { echo "$output"; cat "$SERVE_LOG"; false; }
}

@test "serve --threads 2 text summary names each loop's connections and CPU" {
	start_serve --threads 2 --size 1K
	"$NCPV" get -q --count 8 -P 2 "127.0.0.1:$SERVE_PORT"
	kill -TERM "$SERVE_PID"
	wait_for "$SERVE_LOG" 'stopped after' 5
	unwrapped "$SERVE_LOG" | grep -Eq 'stopped after .* 8 connections .*server\), on 2 loops \(connections [0-9]+/[0-9]+, cpu [0-9.]+/[0-9.]+ s\), sent '
}

@test "serve --threads 2 --max-conns 3: the limit holds across loops (3 of 6 held clients refused)" {
	start_serve --json --threads 2 --max-conns 3
	# Six clients that connect and never read: each stays open, stalled.
	python3 -c '
import socket, sys, time
held = []
for _ in range(6):
    c = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    held.append(c)
    time.sleep(0.05)
print("held", flush=True)
time.sleep(30)' "$SERVE_PORT" >"$SCRATCH/held" &
	STARTED_PIDS+=($!)
	wait_for "$SCRATCH/held" held 10
	local i
	for ((i = 0; i < 250; i++)); do
		[ "$(grep -c '"event":"refuse"' "$SERVE_LOG")" -ge 3 ] && break
		sleep 0.02
	done
	[ "$(grep -c '"event":"refuse".*max-conns reached' "$SERVE_LOG")" -eq 3 ] || { cat "$SERVE_LOG"; false; }
	stop_serve_summary | grep -q '"connections":3,"completed":0,"refused":3'
}

@test "serve --threads 2's port cannot be joined by another serve --threads 2 or by nc -l (SO_REUSEPORT)" {
	start_serve --threads 2
	local first=$SERVE_PID port=$SERVE_PORT
	# Bounded: a program that wrongly joined the port would run until killed (exit 124).
	run timeout 10 "$NCPV" serve --threads 2 "127.0.0.1:$port"
	[ "$status" -eq 7 ]
	[[ "$output" == *"Address already in use"* ]]
	# OpenBSD nc sets SO_REUSEPORT on its listener, and so does ncpv nc as its drop-in.
	run timeout 10 "$NCPV" nc -l 127.0.0.1 "$port"
	[ "$status" -eq 1 ]
	[[ "$output" == *"Address already in use"* ]]
	kill -0 "$first"
}

@test "serve --threads: a FIFO source is one stream: refused with --threads 2, one loop by default" {
	mkfifo "$SCRATCH/fifo"
	# A writer that holds the FIFO open, so that serve's open does not wait for one.
	sleep 30 >"$SCRATCH/fifo" &
	STARTED_PIDS+=($!)
	run "$NCPV" serve --threads 2 --source "$SCRATCH/fifo" 127.0.0.1:0
	[ "$status" -eq 2 ]
	[[ "$output" == *"--threads 2: source '$SCRATCH/fifo' is one stream of bytes and cannot be split between loops; use --threads 1"* ]]
	# Default: serve takes it on one loop.
	start_serve --json --source "$SCRATCH/fifo"
	grep -q '"event":"listen".*"threads":1' "$SERVE_LOG"
}

@test "serve --threads rejects 0, 257 and words (exit 2, naming the value)" {
	local v
	for v in 0 257 two -1; do
		run "$NCPV" serve --threads "$v" 127.0.0.1:0
		[ "$status" -eq 2 ] || { echo "--threads $v: exit $status"; false; }
		[[ "$output" == *"threads"*"$v"*"expected a number from 1 to 256"* ]] || { echo "$output"; false; }
	done
}

@test "serve --threads 2: clients stalled on every loop do not hold up 10 downloads" {
	start_serve --threads 2 --size 64M
	# Stalled readers: they connect and never read, leaving full socket buffers on both loops.
	python3 -c '
import socket, sys, time
held = [socket.create_connection(("127.0.0.1", int(sys.argv[1]))) for _ in range(16)]
print("held", flush=True)
time.sleep(30)' "$SERVE_PORT" >"$SCRATCH/held" &
	STARTED_PIDS+=($!)
	wait_for "$SCRATCH/held" held 10
	local start end i
	start=$(date +%s%N)
	for ((i = 0; i < 10; i++)); do
		"$NCPV" get -q -w 5 -b 64K "127.0.0.1:$SERVE_PORT"
	done
	end=$(date +%s%N)
	# Bounded generously for a loaded 2-core machine: a loop blocked on a stalled client
	# would instead run into get's 5 s timeout.
	[ $(((end - start) / 1000000)) -lt 4000 ]
}
