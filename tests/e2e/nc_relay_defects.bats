#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# nc_relay_defects.bats - the relay defects of issue 12, each as its reproduction: a heap overflow
# with -u -i (client and listener).
load nc_helpers

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
