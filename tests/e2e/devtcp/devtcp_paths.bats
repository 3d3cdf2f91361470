#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# devtcp_paths.bats - the less travelled ways in: UDP, freopen and fopen("a"), opens
# relative to /dev, stat and access without connecting, O_CLOEXEC, other preloads.

load ../lib/devtcp_helpers

setup_file() {
	cc -o "$BATS_FILE_TMPDIR/probe" "$BATS_TEST_DIRNAME/../lib/devtcp_stdio_probe.c"
}

setup() {
	devtcp_setup
	PROBE=$BATS_FILE_TMPDIR/probe
}

teardown() {
	common_teardown
}

# start_udp_echo: a python3 UDP peer on 127.0.0.1, port 0: it keeps the first
# datagram in $UDP_GOT and sends it back upper-cased. Sets UDP_PORT.
start_udp_echo() {
	[ -n "$PY" ] || skip "python3 not installed"
	UDP_GOT=$SCRATCH/udp.got
	"$PY" -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
print("port", s.getsockname()[1], flush=True)
s.settimeout(5)
data, peer = s.recvfrom(65536)
open(sys.argv[1], "wb").write(data)
s.sendto(data.upper(), peer)' "$UDP_GOT" >"$SCRATCH/udp.log" &
	STARTED_PIDS+=($!)
	wait_for "$SCRATCH/udp.log" '^port [0-9]+' 5
	UDP_PORT=$(awk '{ print $2 }' "$SCRATCH/udp.log")
}

@test "UDP: dash sends a datagram to /dev/udp/... and reads the reply" {
	start_udp_echo
	run devtcp dash -c 'exec 3<>/dev/udp/127.0.0.1/"$1"; printf ping >&3; dd bs=65536 count=1 status=none <&3' sh "$UDP_PORT"
	[ "$status" -eq 0 ]
	[ "$output" = PING ]
	[ "$(cat "$UDP_GOT")" = ping ]
}

@test "freopen(PATH, \"r\", stdin) reads from /dev/tcp/..." {
	start_serve --source "$PAYLOAD"
	devtcp "$PROBE" r "/dev/tcp/127.0.0.1/$SERVE_PORT" </dev/null >"$SCRATCH/got"
	[ "$(sha "$SCRATCH/got")" = "$(sha "$PAYLOAD")" ]
}

@test "freopen(PATH, \"w\", stdout) writes to /dev/tcp/..." {
	start_sink
	devtcp "$PROBE" w "/dev/tcp/127.0.0.1/$SINK_PORT" <"$PAYLOAD"
	[ "$(sink_received)" = "$(sha "$PAYLOAD")" ]
}

@test "fopen(PATH, \"a\") writes to /dev/tcp/..." {
	start_sink
	devtcp "$PROBE" a "/dev/tcp/127.0.0.1/$SINK_PORT" <"$PAYLOAD"
	[ "$(sink_received)" = "$(sha "$PAYLOAD")" ]
}

@test "a path relative to the working directory /dev opens: tcp/HOST/PORT" {
	start_serve --source "$PAYLOAD"
	(cd /dev && "$NCPV" devtcp cat "tcp/127.0.0.1/$SERVE_PORT") >"$SCRATCH/got"
	[ "$(sha "$SCRATCH/got")" = "$(sha "$PAYLOAD")" ]
}

@test "openat() relative to a descriptor for /dev opens: tcp/HOST/PORT" {
	[ -n "$PY" ] || skip "python3 not installed"
	start_serve --source "$PAYLOAD"
	devtcp "$PY" -c 'import os, sys
d = os.open("/dev", os.O_RDONLY | os.O_DIRECTORY)
fd = os.open("tcp/127.0.0.1/" + sys.argv[1], os.O_RDONLY, dir_fd=d)
with os.fdopen(fd, "rb") as f:
    sys.stdout.buffer.write(f.read())' "$SERVE_PORT" >"$SCRATCH/got"
	[ "$(sha "$SCRATCH/got")" = "$(sha "$PAYLOAD")" ]
}

@test "a file named tcp/... outside /dev is an ordinary file" {
	mkdir -p "$SCRATCH/tcp/127.0.0.1"
	echo plain >"$SCRATCH/tcp/127.0.0.1/1"
	run bash -c 'cd "$1" && "$2" devtcp cat tcp/127.0.0.1/1' sh "$SCRATCH" "$NCPV"
	[ "$status" -eq 0 ]
	[ "$output" = plain ]
}

@test "stat and test see a socket, readable and writable, without connecting" {
	start_sink
	run devtcp stat -c %F "/dev/tcp/127.0.0.1/$SINK_PORT"
	[ "$output" = socket ]
	devtcp dash -c 'p=/dev/tcp/127.0.0.1/$1; [ -e "$p" ] && [ -r "$p" ] && [ -w "$p" ] && [ ! -x "$p" ]' sh "$SINK_PORT"
	kill -0 "$SINK_PID" # the sink exits after one client: none came
}

@test "O_CLOEXEC is honoured: set when asked, clear when not" {
	[ -n "$PY" ] || skip "python3 not installed"
	start_serve --source "$PAYLOAD"
	run devtcp "$PY" -c 'import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_CLOEXEC)
print(fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC)' "/dev/tcp/127.0.0.1/$SERVE_PORT"
	[ "$output" = 1 ]
	# dash opens without O_CLOEXEC: the socket reaches a child as its fd 3.
	run devtcp dash -c 'exec 3</dev/tcp/127.0.0.1/"$1"; readlink /proc/self/fd/3' sh "$SERVE_PORT"
	[[ "$output" == socket:* ]]
}

@test "O_NONBLOCK is kept when asked; without it the socket blocks" {
	[ -n "$PY" ] || skip "python3 not installed"
	start_serve --source "$PAYLOAD"
	run devtcp "$PY" -c 'import os, sys
a = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
b = os.open(sys.argv[1], os.O_RDONLY)
print(os.get_blocking(a), os.get_blocking(b))' "/dev/tcp/127.0.0.1/$SERVE_PORT"
	[ "$output" = "False True" ]
}

@test "O_DIRECTORY on a device path fails with ENOTDIR, without connecting" {
	[ -n "$PY" ] || skip "python3 not installed"
	start_sink
	run devtcp "$PY" -c 'import os, sys
try:
    os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
except OSError as e:
    print(e.strerror)' "/dev/tcp/127.0.0.1/$SINK_PORT"
	[ "$output" = "Not a directory" ]
	kill -0 "$SINK_PID"
}

@test "an existing LD_PRELOAD is kept, after the library, and calls pass through both" {
	[ -z "${NCPV_VALGRIND:-}" ] || skip "the real ncpv finds its library beside itself, not the wrapper"
	cp "$(dirname "$NCPV")/libncpv-devtcp.so" "$SCRATCH/other.so"
	start_serve --source "$PAYLOAD"
	# The preload reaches ncpv itself too; an ASan build of ncpv must be told that is fine.
	export ASAN_OPTIONS=verify_asan_link_order=0
	run env LD_PRELOAD="$SCRATCH/other.so" "$NCPV" devtcp sh -c 'echo "$LD_PRELOAD"'
	[ "$output" = "$(cd "$(dirname "$NCPV")" && pwd -P)/libncpv-devtcp.so $SCRATCH/other.so" ]
	LD_PRELOAD="$SCRATCH/other.so" "$NCPV" devtcp cat "/dev/tcp/127.0.0.1/$SERVE_PORT" >"$SCRATCH/got"
	[ "$(sha "$SCRATCH/got")" = "$(sha "$PAYLOAD")" ]
}

@test "a host name resolves: /dev/tcp/localhost/PORT (lookups inside the library pass through)" {
	start_serve --source "$PAYLOAD"
	devtcp -v cat "/dev/tcp/localhost/$SERVE_PORT" >"$SCRATCH/got" 2>"$SCRATCH/log"
	[ "$(sha "$SCRATCH/got")" = "$(sha "$PAYLOAD")" ]
	grep -q "connected to 127.0.0.1:$SERVE_PORT" "$SCRATCH/log"
}
