#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# nc_nonblock_stdout.bats - nc whose stdout is a non-blocking pipe (O_NONBLOCK is shared by
# every descriptor of one open pipe, so a reader that set it sets it for nc too): a write
# that meets EAGAIN keeps its bytes, and nc keeps stdout open at the network's EOF until its
# buffer is written. Issue 28: closing stdout at EOF with bytes still buffered lost the tail
# (3,997,696 of 4,194,304 B) and still exited 0.
load ../lib/nc_helpers

setup() { common_setup; }
teardown() { common_teardown; }

# slow_nonblock_read NCPV SIZE CHUNK PAUSE [NC ARGS...]: a loopback server sends SIZE random
# bytes and closes; nc connects with its stdout the write end of a pipe set O_NONBLOCK, and
# its stdin /dev/null; the pipe is read CHUNK bytes at a time, PAUSE seconds apart. Prints
# "rc N got BYTES sha OK|BAD".
slow_nonblock_read() {
	python3 - "$@" <<'PY'
import fcntl, hashlib, os, select, socket, subprocess, sys, threading, time
ncpv, size, chunk, pause = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
data = os.urandom(size)
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(1)
def serve():
    c, _ = srv.accept()
    c.sendall(data)
    c.close()
threading.Thread(target=serve, daemon=True).start()
r, w = os.pipe()
fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)
p = subprocess.Popen([ncpv, "nc"] + sys.argv[5:] + ["127.0.0.1", str(srv.getsockname()[1])],
                     stdin=subprocess.DEVNULL, stdout=w, stderr=subprocess.DEVNULL)
os.close(w)
got, deadline = bytearray(), time.monotonic() + 60
while time.monotonic() < deadline:
    if not select.select([r], [], [], 5)[0]:
        continue
    b = os.read(r, chunk)
    if not b:
        break
    got += b
    time.sleep(pause)
try:
    rc = p.wait(10)
except subprocess.TimeoutExpired:
    p.kill()
    rc = "hung"
ok = hashlib.sha256(got).digest() == hashlib.sha256(data).digest()
print("rc", rc, "got", len(got), "sha", "OK" if ok else "BAD")
PY
}

@test "nc: 4 MiB to a slowly read non-blocking stdout arrive whole, exit 0" {
	run slow_nonblock_read "$NCPV" 4194304 65536 0.002
	[ "$output" = "rc 0 got 4194304 sha OK" ] || { echo "$output"; false; }
}

@test "nc: non-blocking stdout, generated sizes and read speeds, with and without -N/-q" {
	# Sizes at the pipe's and nc's buffer edges; chunk and pause change how often a write
	# meets a full pipe. The seed is printed; a failing one belongs in this list.
	local seed=${NC_NB_SEED:-$RANDOM} size chunk pause args i
	echo "seed $seed"
	RANDOM=$seed
	for i in 1 2 3 4; do
		size=$(((RANDOM % 4 + 1) * 65536 + RANDOM % 3 - 1))
		chunk=$((1 << (RANDOM % 6 + 10)))
		pause=0.00$((RANDOM % 3 + 1))
		args=$(echo "|-q 0|-N|-d" | cut -d'|' -f$((RANDOM % 4 + 1)))
		# shellcheck disable=SC2086
		run slow_nonblock_read "$NCPV" "$size" "$chunk" "$pause" $args
		[ "$output" = "rc 0 got $size sha OK" ] || { echo "size $size chunk $chunk pause $pause args '$args': $output"; false; }
	done
}
