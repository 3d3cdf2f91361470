#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# serve and get at the edges: sources that fail mid-transfer, signals while
# blocked, peers that reset after the last byte, sizes beyond 2^53.

load ../lib/helpers

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
	# The reset follows the handshake: the transfer's failure (exit 1), wherever it lands.
	[ "$status" -eq 1 ]
	[[ "$output" == *"reset by peer"* ]]
	wait_for "$SERVE_LOG" 'source ended before --size' 5
}

# idle_server: a listener that accepts and then sends nothing; sets IDLE_PORT.
idle_server() {
	python3 -c '
import socket, time
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(8)
print(l.getsockname()[1], flush=True)
held = [l.accept()[0] for _ in range(1)]
time.sleep(30)' >"$SCRATCH/idle.port" &
	STARTED_PIDS+=($!)
	wait_for "$SCRATCH/idle.port" '^[0-9]+$' 5
	IDLE_PORT=$(cat "$SCRATCH/idle.port")
}

@test "get stops on SIGINT while the server sends nothing" {
	idle_server
	"$NCPV" get "127.0.0.1:$IDLE_PORT" 2>"$SCRATCH/err" &
	pid=$!
	STARTED_PIDS+=($pid)
	for _ in $(seq 100); do [ "$(ss -tn state established "( dport = :$IDLE_PORT )" | tail -n +2 | wc -l)" -ge 1 ] && break; sleep 0.05; done
	kill -INT "$pid"
	wait_gone "$pid" 3
	wait "$pid" || status=$?
	[ "${status:-0}" -eq 0 ]
	grep -q 'received 0 B' "$SCRATCH/err"
}

@test "get --send stops on SIGTERM while the server reads nothing" {
	idle_server
	"$NCPV" get --send --source zero "127.0.0.1:$IDLE_PORT" 2>"$SCRATCH/err" &
	pid=$!
	STARTED_PIDS+=($pid)
	for _ in $(seq 100); do [ "$(ss -tn state established "( dport = :$IDLE_PORT )" | tail -n +2 | wc -l)" -ge 1 ] && break; sleep 0.05; done
	# Wait until the send queue is full, so that get is waiting for room.
	for _ in $(seq 100); do
		q=$(ss -tnH state established "( dport = :$IDLE_PORT )" | awk '{print $2}')
		[ "${q:-0}" -gt 0 ] && [ "$q" = "$(sleep 0.05; ss -tnH state established "( dport = :$IDLE_PORT )" | awk '{print $2}')" ] && break
	done
	kill -TERM "$pid"
	wait_gone "$pid" 3
}

@test "get stops on SIGTERM while its output (a socket nobody reads) is full" {
	start_serve --source zero
	python3 - "$NCPV" "$SERVE_PORT" <<'PY'
import os, signal, socket, subprocess, sys, time
ours, theirs = socket.socketpair()
p = subprocess.Popen([sys.argv[1], "get", "-q", "-o", "-", "127.0.0.1:" + sys.argv[2]],
                     stdout=theirs.fileno())
theirs.close()
import fcntl, struct, termios
def queued():
    return struct.unpack("i", fcntl.ioctl(ours.fileno(), termios.FIONREAD, b"\0" * 4))[0]
# Wait (bounded) until the pair is full: bytes queued and no longer growing.
last = -1
for _ in range(100):
    now = queued()
    if now > 0 and now == last:
        break
    last = now
    time.sleep(0.05)
assert p.poll() is None, "get ended early"
p.send_signal(signal.SIGTERM)
try:
    p.wait(timeout=3)
except subprocess.TimeoutExpired:
    p.kill()
    sys.exit("get did not stop on SIGTERM while its output was blocked")
PY
}

@test "get stops on SIGINT while connecting with no timeout" {
	full_listener
	port=$FULL_PORT
	syn_sent() { ss -tnH state syn-sent "( dport = :$port )" | wc -l; }
	for _ in $(seq 100); do [ "$(syn_sent)" -ge 3 ] && break; sleep 0.05; done
	before=$(syn_sent)
	"$NCPV" get -w 0 "127.0.0.1:$port" 2>"$SCRATCH/err" &
	pid=$!
	STARTED_PIDS+=($pid)
	for _ in $(seq 100); do [ "$(syn_sent)" -gt "$before" ] && break; sleep 0.05; done
	kill -INT "$pid"
	wait_gone "$pid" 3
	wait "$pid" || status=$?
	[ "${status:-0}" -eq 1 ]
	grep -q 'interrupted' "$SCRATCH/err"
}

@test "get --send fails when the server resets after the last byte, unread" {
	start_serve --discard --max-bytes 100K
	run "$NCPV" get -q --send --source zero --bytes 200K "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 1 ]
	[[ "$output" == *"reset"* ]]
	wait_for "$SERVE_LOG" 'max-bytes' 5
}

@test "get -u is a UDP test (udp.bats), never a quiet TCP upload; -u inside a cluster is refused" {
	run timeout 20 "$NCPV" get -u -t 1 127.0.0.1:1
	[ "$status" -eq 4 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"nothing listens on that UDP port"* ]]
	run "$NCPV" get -qu 127.0.0.1:1
	[ "$status" -eq 2 ]
	[[ "$output" == *"-u must be a word of its own"* ]]
}

@test "get takes a bracketed IPv6 host and a separate port, as well as a bare one" {
	python3 -c 'import socket; s=socket.socket(socket.AF_INET6); s.bind(("::1",0))' 2>/dev/null || skip "no IPv6 loopback"
	start_serve --size 4K '[::1]:0'
	run "$NCPV" get -q --json '[::1]' "$SERVE_PORT"
	[ "$status" -eq 0 ]
	[[ "$output" == *'"bytes":4096'* ]]
	run "$NCPV" get -q --json ::1 "$SERVE_PORT"
	[ "$status" -eq 0 ]
	[[ "$output" == *'"bytes":4096'* ]]
}

@test "serve listens on loopback unless an all-interfaces address is asked for" {
	start_serve --size 1 ':0'
	grep -q 'listening on 127\.0\.0\.1:' "$SERVE_LOG"
	stop_pid "$SERVE_PID"
	start_serve --size 1 '0.0.0.0:0'
	grep -q 'listening on 0\.0\.0\.0:' "$SERVE_LOG"
	run "$NCPV" get -q --json "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 0 ]
	[[ "$output" == *'"bytes":1'* ]]
}

@test "serve -6 with only a port listens on IPv6 loopback" {
	python3 -c 'import socket; s=socket.socket(socket.AF_INET6); s.bind(("::1",0))' 2>/dev/null || skip "no IPv6 loopback"
	start_serve -6 --size 1 ':0'
	grep -q 'listening on \[::1\]:' "$SERVE_LOG"
	run "$NCPV" get -q --json "[::1]:$SERVE_PORT"
	[ "$status" -eq 0 ]
}

@test "serve --json escapes a source path with quotes and backslashes" {
	printf 'x' >"$SCRATCH/a \"quoted\" \\ name"
	start_serve --json --size 1 --source "$SCRATCH/a \"quoted\" \\ name"
	head -1 "$SERVE_LOG" | python3 -c 'import json, sys; e = json.loads(sys.stdin.read()); assert e["source"].endswith("a \"quoted\" \\ name"), e'
}

@test "a source file past 2 GiB is served whole, its last bytes from offsets above 2^31" {
	truncate -s 2147483648 "$SCRATCH/big" # sparse: no disk writes
	printf 'TAIL-MARKER-1234' >>"$SCRATCH/big"
	start_serve --source "$SCRATCH/big"
	tail=$(timeout 60 "$NCPV" get -q -o - "127.0.0.1:$SERVE_PORT" | tail -c 16)
	[ "$tail" = TAIL-MARKER-1234 ]
}

# silent_writer FIFO: hold FIFO open for writing (for at most 30 s) and write nothing.
# Start it before `serve --source FIFO`, whose open waits for a writer.
silent_writer() {
	sleep 30 3>"$1" &
	STARTED_PIDS+=($!)
}

# wait_connected N: wait (at most 5 s) until serve has N connections (a half-closed one counts).
wait_connected() {
	local i
	for ((i = 0; i < 100; i++)); do
		[ "$(ss -tnH state connected "( sport = :$SERVE_PORT )" | wc -l)" -ge "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

# serve_silent_fifo: serve a FIFO whose writer stays silent, and start one
# `ncpv get` client (WAITING_PID) that waits for its data.
serve_silent_fifo() {
	mkfifo "$SCRATCH/fifo"
	silent_writer "$SCRATCH/fifo"
	start_serve --source "$SCRATCH/fifo"
	timeout 20 "$NCPV" get -q "127.0.0.1:$SERVE_PORT" &
	WAITING_PID=$!
	STARTED_PIDS+=($!)
}

# reset_client PORT: connect, then close with a reset (SO_LINGER 0).
reset_client() {
	python3 -c '
import socket, struct, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
s.close()' "$1"
}

@test "serve accepts and serves a second client while a FIFO source is silent" {
	serve_silent_fifo
	wait_connected 1
	reset_client "$SERVE_PORT"
	# Only a server that is not stuck in read() sees the reset and logs it.
	wait_for "$SERVE_LOG" 'closed by peer' 3
	kill -0 "$WAITING_PID" # the first client still waits for data
}

@test "serve stops on SIGINT at once while a client waits on a silent FIFO" {
	serve_silent_fifo
	wait_connected 1
	sleep 0.2 # let serve reach its wait for the source (an early signal would pass as well)
	kill -INT "$SERVE_PID"
	wait_gone "$SERVE_PID" 2
	wait "$SERVE_PID" || status=$?
	[ "${status:-0}" -eq 0 ]
	grep -q 'server stopped' "$SERVE_LOG"
	grep -q 'stopped after .* 1 connection ' "$SERVE_LOG"
}

@test "clients waiting on a silent FIFO cost serve no CPU and do not block it" {
	serve_silent_fifo
	# A second client half-closes at once, as `nc -N </dev/null` does, and keeps reading:
	# its EOF must not wake serve over and over either.
	python3 -c '
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.shutdown(socket.SHUT_WR)
time.sleep(20)' "$SERVE_PORT" &
	STARTED_PIDS+=($!)
	wait_connected 2
	sleep 0.2
	t0=$(awk '{ print $14 + $15 }' "/proc/$SERVE_PID/stat")
	sleep 1
	t1=$(awk '{ print $14 + $15 }' "/proc/$SERVE_PID/stat")
	# A connection polling EPOLLOUT (or its peer's EOF) would burn a whole CPU second.
	[ $((t1 - t0)) -lt 10 ]
	reset_client "$SERVE_PORT"
	wait_for "$SERVE_LOG" 'closed by peer' 3
}

# slow_fifo_writer FILE FIFO GATE: write FILE's first half to FIFO in 4 KiB chunks with
# pauses, wait (at most 10 s) until the file GATE exists, then write the rest the same way.
slow_fifo_writer() {
	python3 -c '
import os, sys, time
data = open(sys.argv[1], "rb").read()
half = len(data) // 2
with open(sys.argv[2], "wb", buffering=0) as f:
    for part in (data[:half], data[half:]):
        for i in range(0, len(part), 4096):
            f.write(part[i:i + 4096])
            time.sleep(0.005)
        for _ in range(200):
            if os.path.exists(sys.argv[3]):
                break
            time.sleep(0.05)' "$1" "$2" "$3" &
	STARTED_PIDS+=($!)
}

@test "a FIFO fed slowly reaches its client byte-exact while serve keeps serving others" {
	make_file "$SCRATCH/in" 204800
	mkfifo "$SCRATCH/fifo"
	slow_fifo_writer "$SCRATCH/in" "$SCRATCH/fifo" "$SCRATCH/gate"
	start_serve --source "$SCRATCH/fifo"
	timeout 30 "$NCPV" get -q -o "$SCRATCH/out" "127.0.0.1:$SERVE_PORT" &
	getpid=$!
	STARTED_PIDS+=($getpid)
	# The first half is all out and the writer pauses: a client that comes and
	# resets now takes nothing from the stream, and serve must see it go.
	# (get -o writes a temporary file beside out and renames it at the end.)
	for _ in $(seq 200); do [ "$(cat "$SCRATCH"/.out.ncpv-* 2>/dev/null | wc -c)" -ge 102400 ] && break; sleep 0.05; done
	reset_client "$SERVE_PORT"
	wait_for "$SERVE_LOG" 'closed by peer' 3
	touch "$SCRATCH/gate"
	wait "$getpid"
	[ "$(sha "$SCRATCH/in")" = "$(sha "$SCRATCH/out")" ]
}

@test "get --send from a FIFO fed slowly uploads every byte" {
	make_file "$SCRATCH/in" 204800
	mkfifo "$SCRATCH/fifo"
	touch "$SCRATCH/gate" # no pause in the middle: just small writes with gaps
	slow_fifo_writer "$SCRATCH/in" "$SCRATCH/fifo" "$SCRATCH/gate"
	start_serve --discard --json
	run timeout 30 "$NCPV" get -q --json --send --source "$SCRATCH/fifo" "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 0 ]
	[[ "$output" == *'"bytes":204800,'* ]]
	wait_for "$SERVE_LOG" '"event":"close".*"received":204800,' 5
}

@test "get --send stops on SIGINT while its FIFO source is silent" {
	mkfifo "$SCRATCH/fifo"
	silent_writer "$SCRATCH/fifo"
	start_serve --discard
	"$NCPV" get --send --source "$SCRATCH/fifo" "127.0.0.1:$SERVE_PORT" 2>"$SCRATCH/err" &
	pid=$!
	STARTED_PIDS+=($pid)
	wait_connected 1
	kill -INT "$pid"
	wait_gone "$pid" 3
	wait "$pid" || status=$?
	[ "${status:-0}" -eq 0 ]
	grep -q 'sent 0 B' "$SCRATCH/err"
}

# close_ends LOG: "END REASON" of each close in serve's --json LOG.
close_ends() {
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e["event"] == "close":
        print(e["end"], e["reason"])' "$1"
}

@test "a reader that stopped with bytes undelivered is cut after the drain time, and logged as cut" {
	local end
	start_serve --json --size 100K
	# It reads nothing through a small window: the 100 KiB sit in serve's send buffer.
	python3 -c '
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect(("127.0.0.1", int(sys.argv[1])))
time.sleep(30)' "$SERVE_PORT" &
	STARTED_PIDS+=($!)
	# serve waits 10 s (DRAIN_SECONDS) for progress before it gives up.
	wait_for "$SERVE_LOG" '"reason":"peer stopped reading"' 20
	end=$(close_ends "$SERVE_LOG")
	echo "$end"
	[ "$end" = "cut peer stopped reading" ]
}

# serve stopped while a connection's bytes are all handed to the kernel but not all delivered:
# a reader that reads nothing through a small window, before and after its FIN (serve draining,
# then settling). Its log must say cut, never the "done" of a whole transfer.
@test "serve stopped with a connection's bytes not all delivered logs it cut, draining or settling" {
	local fin end
	for fin in 0 1; do
		start_serve --json --size 100K
		python3 -c '
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect(("127.0.0.1", int(sys.argv[1])))
if sys.argv[2] == "1":
    s.shutdown(socket.SHUT_WR)
time.sleep(30)' "$SERVE_PORT" "$fin" &
		STARTED_PIDS+=($!)
		# All 100 KiB in serve's send buffer: the connection is past sending (well under the 10 s
		# drain time; a moment for the FIN to be read).
		for _ in $(seq 100); do
			[ -n "$(ss -tnH state established "( sport = :$SERVE_PORT )")" ] && break
			sleep 0.02
		done
		sleep 0.5
		kill -TERM "$SERVE_PID"
		wait_gone "$SERVE_PID" 10
		end=$(close_ends "$SERVE_LOG")
		echo "fin $fin: $end"
		[ "$end" = "cut server stopped" ]
	done
}
