#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# nc_relay_defects.bats - the relay defects of issue 12, each as its reproduction: a heap overflow
# with -u -i (client and listener), and -C truncating silently in front of a slow reader.
load ../lib/nc_helpers

setup() { common_setup; }
teardown() { common_teardown; }

# dgram_sink PATH: a Unix datagram socket at PATH that prints "BYTES SHA256" once PATH.want bytes
# arrived (or after 10 s of silence). Unix datagrams are never dropped, so every byte counts.
dgram_sink() {
	python3 -c 'import hashlib, os, socket, sys
p = sys.argv[1]; want = int(open(p + ".want").read())
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(p); s.settimeout(10)
open(p + ".ready", "w").close()
h = hashlib.sha256(); n = 0
try:
    while n < want:
        d = s.recv(70000); h.update(d); n += len(d)
except socket.timeout:
    pass
print(n, h.hexdigest())' "$1"
}

# Line by line (-i) the datagrams start further and further into the buffer; the read that fills
# it ignored that offset and wrote past its end (ASan: heap-buffer-overflow; release: abort, 134).
@test "nc -uU -i: 60000 lines arrive intact, no overflow" {
	python3 -c 'print("1234567890\n" * 60000, end="")' >"$SCRATCH/lines"
	wc -c <"$SCRATCH/lines" >"$SCRATCH/sock.want"
	dgram_sink "$SCRATCH/sock" >"$SCRATCH/got" &
	local sink=$!
	for ((i = 0; i < 250; i++)); do [ -e "$SCRATCH/sock.ready" ] && break; sleep 0.02; done
	run timeout 60 "$NCPV" nc -q 0 -uU -i 0.000001 "$SCRATCH/sock" <"$SCRATCH/lines"
	wait "$sink"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cat "$SCRATCH/got")" = "660000 $(sha "$SCRATCH/lines")" ]
}

@test "nc -lu -i: a listener sends 60000 lines intact, no overflow" {
	python3 -c 'print("1234567890\n" * 60000, end="")' >"$SCRATCH/lines"
	timeout 60 "$NCPV" nc -v -q 0 -luU -i 0.000001 "$SCRATCH/srv" <"$SCRATCH/lines" 2>"$SCRATCH/log" &
	local nc=$!
	wait_for "$SCRATCH/log" '^Bound on ' 5
	run timeout 30 python3 -c 'import hashlib, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[2]); s.connect(sys.argv[1])
s.send(b"go"); s.settimeout(10)
h = hashlib.sha256(); n = 0
try:
    while n < 660000:
        d = s.recv(70000); h.update(d); n += len(d)
except socket.timeout:
    pass
print(n, h.hexdigest())' "$SCRATCH/srv" "$SCRATCH/cli"
	wait "$nc"
	local rc=$?
	echo "$output"
	[ "$rc" -eq 0 ]
	[ "$output" = "660000 $(sha "$SCRATCH/lines")" ]
}

# burst_reader PORTFILE CHUNK EVERY PAUSE: a TCP listener that reads CHUNK bytes at a time, pauses
# PAUSE seconds after every EVERY reads, and prints "BYTES SHA256" at EOF.
burst_reader() {
	python3 -c 'import hashlib, os, socket, sys, time
ls = socket.socket(); ls.bind(("127.0.0.1", 0)); ls.listen(1); ls.settimeout(30)
open(sys.argv[1] + ".tmp", "w").write(str(ls.getsockname()[1])); os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s, _ = ls.accept(); s.settimeout(30)
chunk, every, pause = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
h = hashlib.sha256(); n = i = 0
while True:
    d = s.recv(chunk)
    if not d: break
    h.update(d); n += len(d); i += 1
    if i % every == 0: time.sleep(pause)
print(n, h.hexdigest())' "$@"
}

# The buffer compacted only when its data ended exactly at its end; in front of a slow reader the
# tail shrank until -C asked read(2) for 0 bytes and took the 0 for end of input (exit 0, bytes lost).
@test "nc -C: 40 MB to slow readers arrive complete, as nc.openbsd -C sends them" {
	head -c 40000000 /dev/urandom >"$SCRATCH/in"
	burst_reader "$SCRATCH/ref.port" 65536 1 0 >"$SCRATCH/ref" &
	local pid=$!
	for ((i = 0; i < 250; i++)); do [ -s "$SCRATCH/ref.port" ] && break; sleep 0.02; done
	timeout 60 nc.openbsd -C -N 127.0.0.1 "$(cat "$SCRATCH/ref.port")" <"$SCRATCH/in"
	wait "$pid"
	echo "nc.openbsd -C: $(cat "$SCRATCH/ref")"
	local shape n=0
	for shape in "16384 100 0.005" "65536 50 0.01" "4096 1000 0.01" "7777 10 0.002"; do
		n=$((n + 1))
		# shellcheck disable=SC2086 # shape is three words
		burst_reader "$SCRATCH/p$n" $shape >"$SCRATCH/got$n" &
		pid=$!
		for ((i = 0; i < 250; i++)); do [ -s "$SCRATCH/p$n" ] && break; sleep 0.02; done
		run timeout 60 "$NCPV" nc -C -N 127.0.0.1 "$(cat "$SCRATCH/p$n")" <"$SCRATCH/in"
		wait "$pid"
		echo "reader $shape: exit $status, $(cat "$SCRATCH/got$n")"
		[ "$status" -eq 0 ]
		[ "$(cat "$SCRATCH/got$n")" = "$(cat "$SCRATCH/ref")" ]
	done
}

# A small send buffer (-O) makes nearly every send short: the old code lost data here every time.
@test "nc -C -O 32768: 4 MB arrive complete, as nc.openbsd -C -O 32768 sends them" {
	head -c 4000000 /dev/urandom >"$SCRATCH/in"
	local nc n=0 pid
	for nc in nc.openbsd "$NCPV nc"; do
		n=$((n + 1))
		burst_reader "$SCRATCH/p$n" 65536 1 0 >"$SCRATCH/got$n" &
		pid=$!
		for ((i = 0; i < 250; i++)); do [ -s "$SCRATCH/p$n" ] && break; sleep 0.02; done
		run timeout 60 $nc -O 32768 -C -N 127.0.0.1 "$(cat "$SCRATCH/p$n")" <"$SCRATCH/in"
		wait "$pid"
		echo "$nc: exit $status, $(cat "$SCRATCH/got$n")"
		[ "$status" -eq 0 ]
	done
	[ "$(cat "$SCRATCH/got2")" = "$(cat "$SCRATCH/got1")" ]
}
