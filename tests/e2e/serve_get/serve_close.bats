#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# serve_close.bats - how serve ends a connection: a limit delivers what it sends and
# ends cleanly, a transfer cut short is reset, the log counts only what arrived, a file
# source is sized per connection, and the summary says how each connection ended.

load ../lib/helpers

setup() {
	common_setup
}

teardown() {
	common_teardown
}

# fetch PORT [REQUEST] [DELAY] [RCVBUF]: connect, send REQUEST, wait DELAY seconds
# without reading (a small RCVBUF keeps most bytes queued at the server), then read
# to the end. Prints "eof N SHA256" or "reset N SHA256".
fetch() {
	python3 -c '
import hashlib, socket, sys, time
port, req, delay, rcvbuf = int(sys.argv[1]), sys.argv[2].encode(), float(sys.argv[3]), int(sys.argv[4])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
s.connect(("127.0.0.1", port))
if req:
    s.sendall(req)
time.sleep(delay)
h, n, end = hashlib.sha256(), 0, "eof"
try:
    while True:
        b = s.recv(65536)
        if not b:
            break
        h.update(b)
        n += len(b)
except OSError:
    end = "reset"
print(end, n, h.hexdigest())' "$1" "${2:-}" "${3:-0}" "${4:-16384}"
}

# close_events: the --json close events of SERVE_LOG as "reason end wire" lines (wire: what had
# left for the wire at the close; sent, handed to the kernel, is checked to be no less).
close_events() {
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e["event"] == "close":
        assert e["acked"] <= e["wire"] <= e["sent"], e
        print(e["reason"], e["end"], e["wire"])' "$SERVE_LOG"
}

# cut_brackets GOT...: the --json cut events of SERVE_LOG, paired in order with the bytes each
# client got (both sorted), bracket them: acknowledged <= got <= sent (handed to the kernel).
cut_brackets() {
	python3 -c '
import json, sys
cuts = sorted((e["acked"], e["sent"]) for e in map(json.loads, open(sys.argv[1]))
              if e["event"] == "close" and e["end"] == "cut")
got = sorted(int(g) for g in sys.argv[2:])
ok = len(cuts) == len(got) and all(a <= g <= s for (a, s), g in zip(cuts, got))
print("ok" if ok else "cuts (acked, sent) %s against got %s" % (cuts, got))' "$SERVE_LOG" "$@"
}

stop_serve() {
	kill -TERM "$SERVE_PID"
	wait_for "$SERVE_LOG" '"event":"summary"|stopped after' 5
}

@test "serve --max-bytes delivers exactly N to a client that sent a request, and ends it cleanly" {
	# Issue 12 defect 5: the close with the request unread reset the connection and
	# lost the bytes still queued, while the log claimed all of them.
	for n in 1 4095 4096 65537 1048576 3000000; do
		start_serve --json --max-bytes "$n"
		run fetch "$SERVE_PORT" $'GET / HTTP/1.0\r\n\r\n' 0.3
		[[ "$output" == "eof $n "* ]] || { echo "max-bytes $n: $output"; false; }
		wait_for "$SERVE_LOG" '"event":"close"' 5
		[ "$(close_events)" = "max-bytes limit $n" ] || { close_events; false; }
		stop_serve
	done
}

@test "serve --max-bytes below --size cuts the transfer: a reset, and the log counts what arrived" {
	make_file "$SCRATCH/src" 3000000
	start_serve --json --source "$SCRATCH/src" --max-bytes 2M
	run fetch "$SERVE_PORT" "" 0.3
	[[ "$output" == reset* ]]
	got=$(echo "$output" | cut -d' ' -f2)
	wait_for "$SERVE_LOG" '"event":"close"' 5
	# The client stopped reading: what had left for the wire is exactly what it got.
	[ "$(close_events)" = "max-bytes cut $got" ] || { close_events; echo "client got $got"; false; }
	run cut_brackets "$got"
	[ "$output" = ok ] || { echo "$output"; false; }
}

@test "SIGTERM resets unfinished --size transfers; the log counts what arrived, the summary counts the cut" {
	# Issue 12 defect 6: they ended with a clean EOF, as if complete.
	start_serve --json --size 1G
	fetch "$SERVE_PORT" "" 1.5 >"$SCRATCH/a" &
	a=$!
	fetch "$SERVE_PORT" "" 1.5 >"$SCRATCH/b" &
	b=$!
	for _ in $(seq 100); do [ "$(ss -tn state established "( sport = :$SERVE_PORT )" | tail -n +2 | wc -l)" -ge 2 ] && break; sleep 0.05; done
	sleep 0.3
	kill -TERM "$SERVE_PID"
	wait "$a" "$b"
	grep -q '^reset ' "$SCRATCH/a"
	grep -q '^reset ' "$SCRATCH/b"
	run cut_brackets $(cat "$SCRATCH/a" "$SCRATCH/b" | cut -d' ' -f2)
	[ "$output" = ok ] || { echo "$output"; close_events; false; }
	# Both clients had stopped reading: the wire counts are exactly what they got.
	got=$(cat "$SCRATCH/a" "$SCRATCH/b" | cut -d' ' -f2 | sort -n | tr '\n' ' ')
	logged=$(close_events | awk '$1 == "server" { print $4 }' | sort -n | tr '\n' ' ')
	[ "$got" = "$logged" ] || { echo "client got: $got; serve logged: $logged"; close_events; false; }
	grep -q '"event":"summary".*"completed":0,.*"cut":2' "$SERVE_LOG"
}

# cut_reader PORT TLS MODE: read a --size transfer over plain TCP (TLS=0) or TLS (1), fast
# or in small slow reads, until serve ends it. Prints "reset N" or "eof N" once it ends,
# after "reading" once connected (and the handshake done).
cut_reader() {
	python3 -c '
import socket, ssl, sys, time
port, tls, mode = int(sys.argv[1]), sys.argv[2] == "1", sys.argv[3]
s = socket.create_connection(("127.0.0.1", port))
if tls:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    s = ctx.wrap_socket(s, suppress_ragged_eofs=False)
print("reading", flush=True)
n, end = 0, "eof"
try:
    while True:
        b = s.recv(65536 if mode == "fast" else 4096)
        if not b:
            break
        n += len(b)
        if mode == "slow":
            time.sleep(0.001)
except (OSError, ssl.SSLError):
    end = "reset"
print(end, n, flush=True)' "$@"
}

@test "a cut transfer's log brackets what the client got: acked <= received <= sent, over TCP and TLS" {
	# Issue 28: sent was read before the log line was written and the socket closed after
	# it; the kernel sent on meanwhile, so a reset client could hold more than was logged.
	# Now acked and sent are read just before the reset, and the client's count, whatever
	# the speed, falls between them (over TLS: whole records of plaintext).
	local seed=${CUT_SEED:-$RANDOM} tls mode delay got
	echo "seed $seed"
	RANDOM=$seed
	for tls in 0 1; do
		for mode in fast slow; do
			delay=0.$((RANDOM % 5 + 1))
			start_serve --json $([ "$tls" = 1 ] && echo --tls) --size 1G
			# A file of its own: the last round's "reading" must not pass for this one's.
			got=$SCRATCH/got.$tls.$mode
			cut_reader "$SERVE_PORT" "$tls" "$mode" >"$got" &
			wait_for "$got" '^reading' 10
			sleep "$delay" # not a synchronisation: how long the transfer runs before the cut
			kill -TERM "$SERVE_PID"
			wait_for "$got" '^(eof|reset) ' 10
			wait_for "$SERVE_LOG" '"event":"summary"' 5
			run python3 -c '
import json, sys
got = open(sys.argv[1]).read().split()
end, n = got[-2], int(got[-1])
e = [json.loads(l) for l in open(sys.argv[2]) if "\"close\"" in l][0]
ok = end == "reset" and e["end"] == "cut" and e["acked"] <= n <= e["sent"]
print("ok" if ok else "bad", end, n, "acked", e["acked"], "sent", e["sent"])' "$got" "$SERVE_LOG"
			[[ "$output" == ok* ]] || { echo "tls $tls $mode after $delay s: $output"; false; }
		done
	done
}

@test "SIGTERM: the text summary says how many transfers were cut short" {
	start_serve --size 1G
	fetch "$SERVE_PORT" "" 1 >"$SCRATCH/a" &
	a=$!
	for _ in $(seq 100); do [ "$(ss -tn state established "( sport = :$SERVE_PORT )" | tail -n +2 | wc -l)" -ge 1 ] && break; sleep 0.05; done
	kill -TERM "$SERVE_PID"
	wait "$a"
	grep -q '^reset ' "$SCRATCH/a"
	unwrapped "$SERVE_LOG" | grep -q 'stopped after .* 1 connection (0 completed, 0 refused; 0 ended by the client, 0 by a limit, 0 reset or failed, 1 cut short by the server),'
}

@test "serve --size sends everything to a client that sent a lot and half-closed, then reads slowly" {
	for size in 0 1 4096 1048577; do
		start_serve --json --size "$size"
		run python3 -c '
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8192)
s.connect(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"x" * 6000000)
s.shutdown(socket.SHUT_WR)
time.sleep(0.3)
n = 0
try:
    while True:
        b = s.recv(4096)
        if not b:
            break
        n += len(b)
    print("eof", n)
except OSError:
    print("reset", n)' "$SERVE_PORT"
		[ "$output" = "eof $size" ] || { echo "size $size: $output"; false; }
		wait_for "$SERVE_LOG" '"event":"close"' 5
		[ "$(close_events)" = "done completed $size" ] || { close_events; false; }
		stop_serve
	done
}

@test "serve --source FILE: each connection gets the file as it is when it connects" {
	# Issue 12 defect 10: serve kept the size it read at start.
	make_file "$SCRATCH/src" 1000
	start_serve --json --source "$SCRATCH/src"
	run fetch "$SERVE_PORT"
	[ "$output" = "eof 1000 $(sha "$SCRATCH/src")" ]
	make_file "$SCRATCH/more" 5000
	cat "$SCRATCH/more" >>"$SCRATCH/src"
	run fetch "$SERVE_PORT"
	[ "$output" = "eof 6000 $(sha "$SCRATCH/src")" ]
	# --size repeats the file as it is at the connection's start.
	stop_serve
	start_serve --json --source "$SCRATCH/src" --size 15000
	run fetch "$SERVE_PORT"
	[ "$output" = "eof 15000 $(python3 -c '
import hashlib, sys
d = open(sys.argv[1], "rb").read()
print(hashlib.sha256((d * 3)[:15000]).hexdigest())' "$SCRATCH/src")" ]
}

@test "serve --source FILE --size N: a small file repeats byte-exact, sent in large writes, over TCP and TLS" {
	# A 1-byte file took 1-byte sendfile calls: 13 KB/s a client, and a CI run's clients
	# stalled 40 s (serve_close.py seed 472866996). Generated over file sizes at the small-file
	# boundary and sizes of N: the bytes are the file repeated, and serve writes in calls of
	# at least 4 KiB on average (strace counts them).
	command -v strace >/dev/null || skip "strace is not installed"
	local f n tls want calls bytes
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$SCRATCH/key.pem" \
		-out "$SCRATCH/cert.pem" -days 2 -subj /CN=localhost 2>/dev/null
	for f in 1 3 4095 65535 65536 65537; do
		make_file "$SCRATCH/src" "$f"
		for n in $((f * 2 + 1)) 1048577; do
			for tls in 0 1; do
				# One loop: strace's lines of one thread are whole (no "<unfinished ...>").
				local args=(--threads 1 --source "$SCRATCH/src" --size "$n")
				[ "$tls" -eq 1 ] && args+=(--tls --cert "$SCRATCH/cert.pem" --key "$SCRATCH/key.pem")
				SERVE_LOG=$SCRATCH/serve.log
				strace -f -qq -e trace=sendfile,sendto,write -o "$SCRATCH/trace" \
					"$NCPV" serve --json "${args[@]}" 127.0.0.1:0 2>"$SERVE_LOG" &
				local tracer=$!
				STARTED_PIDS+=("$tracer")
				wait_for "$SERVE_LOG" '"event":"listen"' 10
				# serve listens, but /proc may not show strace's child yet (ASan, three files at once).
				SERVE_PID=
				for _ in $(seq 100); do
					SERVE_PID=$(pgrep -P "$tracer") && break
					sleep 0.05
				done
				[ -n "$SERVE_PID" ] || { ps -ef --forest >&2; false; }
				STARTED_PIDS+=("$SERVE_PID")
				SERVE_PORT=$(sed -En 's/.*"address":".*:([0-9]+)".*/\1/p' "$SERVE_LOG" | head -1)
				local get_tls=()
				[ "$tls" -eq 1 ] && get_tls=(--tls --insecure)
				timeout 60 "$NCPV" get -q "${get_tls[@]}" -o "$SCRATCH/out" "127.0.0.1:$SERVE_PORT"
				want=$(python3 -c '
import hashlib, sys
d = open(sys.argv[1], "rb").read(); n = int(sys.argv[2])
print(hashlib.sha256((d * (n // len(d) + 1))[:n]).hexdigest())' "$SCRATCH/src" "$n")
				[ "$(sha "$SCRATCH/out")" = "$want" ] || { echo "file $f size $n tls $tls: bytes differ"; false; }
				kill -TERM "$SERVE_PID"
				wait "$tracer" || true
				# The calls that carried the data to the client's socket (not the log's writes
				# to fd 2): few, large ones.
				read -r calls bytes < <(awk '/^[0-9]+ +(sendfile|sendto|write)\([^2]/ {
					n = $NF; if (n > 0) { c++; b += n } } END { print c + 0, b + 0 }' "$SCRATCH/trace")
				echo "file $f size $n tls $tls: $calls calls, $bytes bytes" >&2
				[ "$calls" -gt 0 ]
				[ "$((bytes / calls))" -ge 4096 ] || [ "$n" -lt 65536 ] ||
					{ echo "file $f size $n tls $tls: $calls calls for $bytes bytes"; false; }
			done
		done
	done
}

@test "serve --source FILE: a file that grows during a transfer is sent at the size it had" {
	make_file "$SCRATCH/src" 3000000
	cp "$SCRATCH/src" "$SCRATCH/orig"
	start_serve --json --source "$SCRATCH/src"
	fetch "$SERVE_PORT" "" 1 8192 >"$SCRATCH/a" &
	a=$!
	for _ in $(seq 100); do [ "$(ss -tn state established "( sport = :$SERVE_PORT )" | tail -n +2 | wc -l)" -ge 1 ] && break; sleep 0.05; done
	head -c 100000 /dev/urandom >>"$SCRATCH/src"
	wait "$a"
	[ "$(cat "$SCRATCH/a")" = "eof 3000000 $(sha "$SCRATCH/orig")" ]
}

@test "serve --source FILE: a file emptied before a --size connection resets it" {
	make_file "$SCRATCH/src" 100
	start_serve --json --source "$SCRATCH/src" --size 1000
	: >"$SCRATCH/src"
	run fetch "$SERVE_PORT"
	[[ "$output" == "reset 0 "* ]]
	wait_for "$SERVE_LOG" 'source file is empty' 5
}

@test "an endless server's summary counts clients that ended it apart from resets and cuts" {
	# Issue 13 item 8: "8 connections (0 completed ...)" puzzled its reader.
	start_serve --json
	for _ in 1 2 3; do
		python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
n = 0
while n < 100000:
    n += len(s.recv(65536))
s.close()' "$SERVE_PORT"
	done
	fetch "$SERVE_PORT" "" 2 >"$SCRATCH/a" &
	a=$!
	wait_for "$SERVE_LOG" '"end":"client".*' 5
	for _ in $(seq 100); do [ "$(grep -c '"event":"close"' "$SERVE_LOG")" -ge 3 ] && break; sleep 0.05; done
	for _ in $(seq 100); do [ "$(ss -tn state established "( sport = :$SERVE_PORT )" | tail -n +2 | wc -l)" -ge 1 ] && break; sleep 0.05; done
	stop_serve
	wait "$a"
	grep -q '"event":"summary","connections":4,"completed":0,"refused":0,.*"endless":true,"ended_by_client":3,"ended_by_limit":0,"reset":0,"cut":1' "$SERVE_LOG"
}

@test "an endless server's text summary says why none completes" {
	start_serve
	run "$NCPV" get -q --bytes 10000 "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 0 ]
	wait_for "$SERVE_LOG" 'closed by peer' 5
	kill -TERM "$SERVE_PID"
	wait_for "$SERVE_LOG" 'stopped after' 5
	unwrapped "$SERVE_LOG" | grep -q '1 connection (0 completed, 0 refused; 1 ended by the client, .*; 0 completed because the source is endless: a transfer ends only when its client closes it$'
}

@test "serve's close path holds under generated clients, options and SIGTERM (tests/stress/serve_close.py)" {
	# Random behaviours (slow, stalled, garbage first, half-closed, reset, early close,
	# connect-and-close), sizes at buffer edges, --max-bytes/--max-time/--max-conns and SIGTERM
	# at random moments; `make fuzz-serve FUZZ_SECONDS=600` runs it for longer.
	[ -z "${NCPV_VALGRIND:-}" ] || skip "timing-driven schedules (make asan covers it)"
	run timeout 200 "$BATS_TEST_DIRNAME/../../stress/serve_close.py" "$NCPV" --seconds "${SERVE_CLOSE_SECONDS:-45}"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" ok;"* ]]
}
