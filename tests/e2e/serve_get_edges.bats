#!/usr/bin/env bats
# serve and get at the edges: sources that fail mid-transfer, signals while
# blocked, peers that reset after the last byte, sizes beyond 2^53.

load helpers

setup() { common_setup; }
teardown() { common_teardown; }

# slow_reader PORT OUT: read from PORT at about 5 MB/s; write "eof N" or "error N" to OUT.
slow_reader() {
	python3 -c '
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
n, end = 0, "eof"
try:
    while True:
        b = s.recv(65536)
        if not b:
            break
        n += len(b)
        time.sleep(0.01)
except OSError:
    end = "error"
open(sys.argv[2], "w").write("%s %d\n" % (end, n))' "$1" "$2"
}

@test "serve resets a connection whose source file shrank, instead of spinning" {
	truncate -s 100M "$SCRATCH/in" # sparse: zeros without the disk writes
	start_serve --source "$SCRATCH/in"
	timeout 30 bash -c "$(declare -f slow_reader); slow_reader $SERVE_PORT $SCRATCH/result" &
	STARTED_PIDS+=($!)
	for _ in $(seq 100); do [ "$(ss -tn state established "( sport = :$SERVE_PORT )" | tail -n +2 | wc -l)" -ge 1 ] && break; sleep 0.05; done
	truncate -s 0 "$SCRATCH/in"
	wait_for "$SERVE_LOG" 'source file shrank' 10
	wait_for "$SCRATCH/result" '^error ' 10
	kill -TERM "$SERVE_PID"
	wait_for "$SERVE_LOG" 'stopped after' 5
}

@test "serve resets a --size connection when a stream source ends early" {
	printf 'only 20 bytes here\n' >"$SCRATCH/short"
	mkfifo "$SCRATCH/fifo"
	cat "$SCRATCH/short" >"$SCRATCH/fifo" &
	start_serve --size 1M --source "$SCRATCH/fifo"
	run timeout 10 "$NCPV" get -q --json "127.0.0.1:$SERVE_PORT"
	# The reset may land during the connect (exit 4) or on a read (exit 1).
	[ "$status" -eq 1 ] || [ "$status" -eq 4 ]
	[[ "$output" == *"reset by peer"* ]]
	wait_for "$SERVE_LOG" 'source ended before --size' 5
}
