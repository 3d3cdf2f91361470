#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# nc_modes.bats - UDP, Unix-domain sockets, -z scans, -k, the -v wording and exit codes next to
# nc.openbsd's, bad input, the meter, and running through a symlink named nc.
load nc_helpers

setup() { common_setup; }
teardown() { common_teardown; }

# start_nc_listener ARGS...: ncpv nc -lv ARGS in the background, stdin from /dev/null, output in
# $SCRATCH/l.out; sets L_PID and NC_PORT (read back from -v).
start_nc_listener() {
	"$NCPV" nc -lv "$@" >"$SCRATCH/l.out" 2>"$SCRATCH/l.log" </dev/null &
	L_PID=$!
	STARTED_PIDS+=($L_PID)
	wait_listening "$SCRATCH/l.log"
}

@test "UDP: a datagram from a client reaches the listener, which names its peer with -v" {
	start_nc_listener -u 127.0.0.1 0
	printf 'dgram\n' | timeout 5 "$NCPV" nc -u -q 0 127.0.0.1 "$NC_PORT"
	wait_for "$SCRATCH/l.out" '^dgram$' 5
	grep -q '^Connection received on ' "$SCRATCH/l.log"
}

@test "UDP: the listener answers the first peer (both ways)" {
	(printf 'pong\n'; sleep 2) | timeout 5 "$NCPV" nc -luv -W 1 127.0.0.1 0 >"$SCRATCH/l.out" 2>"$SCRATCH/l.log" &
	STARTED_PIDS+=($!)
	wait_listening "$SCRATCH/l.log"
	printf 'ping\n' | timeout 3 nc.openbsd -u -W 1 127.0.0.1 "$NC_PORT" >"$SCRATCH/c.out"
	[ "$(cat "$SCRATCH/c.out")" = pong ]
	wait_for "$SCRATCH/l.out" '^ping$' 5
}

@test "Unix socket: nc.openbsd -U sends to ncpv nc -lU; the socket file says Bound/Listening" {
	"$NCPV" nc -lvU "$SCRATCH/sock" >"$SCRATCH/l.out" 2>"$SCRATCH/l.log" </dev/null &
	L_PID=$!
	STARTED_PIDS+=($L_PID)
	wait_for "$SCRATCH/l.log" "^Listening on $SCRATCH/sock\$" 5
	grep -q "^Bound on $SCRATCH/sock\$" "$SCRATCH/l.log"
	echo unix-hello | timeout 5 nc.openbsd -NU "$SCRATCH/sock"
	wait "$L_PID"
	[ "$(cat "$SCRATCH/l.out")" = unix-hello ]
}

@test "Unix socket: Linux abstract names with a leading @ work with nc.openbsd" {
	name="@ncpv-test-$$-$RANDOM"
	"$NCPV" nc -lvU "$name" >"$SCRATCH/l.out" 2>"$SCRATCH/l.log" </dev/null &
	L_PID=$!
	STARTED_PIDS+=($L_PID)
	wait_for "$SCRATCH/l.log" "^Listening on $name\$" 5
	[ ! -e "$name" ]
	echo abstract | timeout 5 nc.openbsd -NU "$name"
	wait "$L_PID"
	[ "$(cat "$SCRATCH/l.out")" = abstract ]
}

@test "Unix datagram socket: -uU client to -luU listener, temporary socket removed" {
	"$NCPV" nc -lvuU "$SCRATCH/dsock" >"$SCRATCH/l.out" 2>"$SCRATCH/l.log" </dev/null &
	STARTED_PIDS+=($!)
	wait_for "$SCRATCH/l.log" "^Bound on " 5
	echo dgram-unix | timeout 5 "$NCPV" nc -uU -q 0 -s "$SCRATCH/csock" "$SCRATCH/dsock"
	wait_for "$SCRATCH/l.out" '^dgram-unix$' 5
}

@test "Unix socket: connecting to a missing path names it, exit 1 like nc.openbsd" {
	run "$NCPV" nc -U "$SCRATCH/nothere"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$SCRATCH/nothere: No such file or directory"* ]]
	run nc.openbsd -U "$SCRATCH/nothere"
	[ "$status" -eq 1 ]
}

@test "-zv on an open port prints nc's success line, word for word like nc.openbsd" {
	start_serve
	ours=$("$NCPV" nc -zv 127.0.0.1 "$SERVE_PORT" 2>&1)
	ref=$(nc.openbsd -zv 127.0.0.1 "$SERVE_PORT" 2>&1)
	[ "$ours" = "Connection to 127.0.0.1 $SERVE_PORT port [tcp/*] succeeded!" ]
	[ "$ours" = "$ref" ]
	ours=$("$NCPV" nc -zv localhost "$SERVE_PORT" 2>&1)
	ref=$(nc.openbsd -zv localhost "$SERVE_PORT" 2>&1)
	[ "${ours}" = "${ref}" ]
}

@test "-zv over a range: open and closed ports reported, exit 0 when any is open (as nc.openbsd)" {
	start_serve
	lo=$((SERVE_PORT - 1)) hi=$((SERVE_PORT + 1))
	run "$NCPV" nc -zv 127.0.0.1 "$lo-$hi"
	[ "$status" -eq 0 ]
	[[ "${lines[1]}" == "Connection to 127.0.0.1 $SERVE_PORT port [tcp/*] succeeded!" ]]
	[[ "$output" == *"connect to 127.0.0.1 port $lo (tcp) failed: Connection refused"* ]]
	run nc.openbsd -zv 127.0.0.1 "$lo-$hi"
	[ "$status" -eq 0 ]
}

@test "-z on a closed port exits 1, silent without -v (as nc.openbsd)" {
	port=$(free_port)
	run "$NCPV" nc -z 127.0.0.1 "$port"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	run nc.openbsd -z 127.0.0.1 "$port"
	[ "$status" -eq 1 ]
}

@test "-k: one client after another, each served in turn" {
	start_nc_listener -k 127.0.0.1 0
	for i in 1 2 3 4; do
		echo "client$i" | timeout 5 nc.openbsd -N 127.0.0.1 "$NC_PORT"
	done
	wait_for "$SCRATCH/l.out" '^client4$' 5
	[ "$(cat "$SCRATCH/l.out")" = "$(printf 'client1\nclient2\nclient3\nclient4')" ]
	[ "$(grep -c '^Connection received on ' "$SCRATCH/l.log")" -eq 4 ]
	kill -0 "$L_PID"
}

@test "-v listener lines match nc.openbsd's: Listening on / Connection received on" {
	start_nc_listener 127.0.0.1 0
	echo hi | timeout 5 nc.openbsd -N 127.0.0.1 "$NC_PORT"
	wait "$L_PID"
	[ "$(head -1 "$SCRATCH/l.log")" = "Listening on localhost $NC_PORT" ]
	grep -Eq '^Connection received on localhost [0-9]+$' "$SCRATCH/l.log"
	"$NCPV" nc -lvn 127.0.0.1 0 >/dev/null 2>"$SCRATCH/n.log" </dev/null &
	STARTED_PIDS+=($!)
	wait_for "$SCRATCH/n.log" '^Listening on 127\.0\.0\.1 [0-9]+$' 5
}

@test "-C turns LF into CRLF on the way out, leaves CRLF alone" {
	start_nc_listener 127.0.0.1 0
	printf 'a\nb\r\nc' | timeout 5 "$NCPV" nc -N -C 127.0.0.1 "$NC_PORT"
	wait "$L_PID"
	[ "$(od -An -c "$SCRATCH/l.out" | tr -s ' ')" = " a \r \n b \r \n c" ]
}

# The peer sends "two" only if nc has not closed 3 s after "one" (a second packet nc must not
# take): an event, not a 0.3 s gap that a loaded machine filled before nc's first read.
@test "-W 1 stops after one packet from the network" {
	python3 "$NC_PEER" listen "$SCRATCH/port" "send:one,linger:3,send:two,linger:2" >"$SCRATCH/peer" &
	STARTED_PIDS+=($!)
	for ((i = 0; i < 250; i++)); do [ -s "$SCRATCH/port" ] && break; sleep 0.02; done
	run timeout 10 "$NCPV" nc -d -W 1 127.0.0.1 "$(cat "$SCRATCH/port")"
	[ "$status" -eq 0 ]
	[ "$output" = one ]
}

# The peer would hold the idle connection open 10 s; ending within 5 s is -w 1's doing (a
# bound with room for a loaded machine's start-up).
@test "-w 1: an idle connection ends after a second, exit 0 as nc.openbsd" {
	port=$(free_port)
	(sleep 10) | timeout 12 nc.openbsd -l 127.0.0.1 "$port" >/dev/null &
	STARTED_PIDS+=($!)
	wait_port_quiet "$port"
	start=$EPOCHREALTIME
	run timeout 12 "$NCPV" nc -d -w 1 127.0.0.1 "$port"
	[ "$status" -eq 0 ]
	(( $(echo "$EPOCHREALTIME - $start < 5" | bc) ))
}

@test "--progress draws a pv-style line on stderr counting both directions, --json sums up" {
	start_serve --max-bytes 3M 127.0.0.1:0
	run bash -c "'$NCPV' nc -d --progress --json 127.0.0.1 $SERVE_PORT 2>'$SCRATCH/err' | wc -c"
	[ "$output" -eq 3145728 ]
	grep -q '3.00MiB' "$SCRATCH/err"
	grep -q '"received":3145728' "$SCRATCH/err"
	grep -q '"sent":0' "$SCRATCH/err"
}

@test "--json counts what nc sent, to the byte" {
	start_serve --discard 127.0.0.1:0
	head -c 1000003 /dev/zero >"$SCRATCH/in"
	run timeout 20 "$NCPV" nc -N --json 127.0.0.1 "$SERVE_PORT" <"$SCRATCH/in"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '"sent":1000003,' <<<"$output"
	grep -q '"received":0,' <<<"$output"
}

@test "a symlink named nc runs ncpv as nc" {
	ln -s "$NCPV" "$SCRATCH/nc"
	start_serve
	run "$SCRATCH/nc" -zv 127.0.0.1 "$SERVE_PORT"
	[ "$status" -eq 0 ]
	[ "$output" = "Connection to 127.0.0.1 $SERVE_PORT port [tcp/*] succeeded!" ]
}

@test "bad port range is an error naming it, exit 1 like nc.openbsd" {
	run "$NCPV" nc -z 127.0.0.1 10-99999
	[ "$status" -eq 1 ]
	[[ "$output" == *"port number too large: 99999"* ]]
	run nc.openbsd -z 127.0.0.1 10-99999
	[ "$status" -eq 1 ]
	run "$NCPV" nc -z 127.0.0.1 0
	[[ "$output" == *"port number too small: 0"* ]]
	run "$NCPV" nc -z 127.0.0.1 x-y
	[ "$status" -eq 1 ]
}

@test "unknown option: nc's message and usage, exit 1 like nc.openbsd" {
	run "$NCPV" nc -y 127.0.0.1 1
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == *"invalid option -- 'y'"* ]]
	[[ "${lines[1]}" == usage:* ]]
	run nc.openbsd -y 127.0.0.1 1
	[ "$status" -eq 1 ]
}

@test "options ncpv leaves out (-S, -V, -Z) are refused by name" {
	for opt in -S "-V 1" -Z; do
		run "$NCPV" nc $opt 127.0.0.1 1
		[ "$status" -eq 1 ]
		[[ "$output" == *"option ${opt%% *} ("*"is not supported by ncpv nc"* ]]
	done
}

@test "conflicting options are refused up front, as nc.openbsd does" {
	run "$NCPV" nc -l -z 1
	[ "$status" -eq 1 ]
	[[ "$output" == *"cannot use -z and -l"* ]]
	run "$NCPV" nc -k 127.0.0.1 1
	[[ "$output" == *"must use -l with -k"* ]]
	run "$NCPV" nc -u -x 127.0.0.1:1 h 1
	[[ "$output" == *"no proxy support for UDP mode"* ]]
	run "$NCPV" nc -w abc 127.0.0.1 1
	[[ "$output" == *"timeout invalid: abc"* ]]
}

@test "an unknown host is a getaddrinfo error in nc's words, exit 1" {
	run "$NCPV" nc -z nonexistent.invalid 1
	[ "$status" -eq 1 ]
	[[ "$output" == *'getaddrinfo for host "nonexistent.invalid" port 1: '* ]]
}

@test "-F passes the connected socket over stdout; the receiver reads the stream from it" {
	start_serve --max-bytes 1M 127.0.0.1:0
	run timeout 10 python3 -c '
import socket, subprocess, sys
parent, child = socket.socketpair()
p = subprocess.Popen([sys.argv[1], "nc", "-F", "127.0.0.1", sys.argv[2]], stdout=child)
child.close()
msg, fds, flags, addr = socket.recv_fds(parent, 1, 1)
s = socket.socket(fileno=fds[0])
s.setblocking(True)  # it comes non-blocking, as from Debian nc; a receiver (ssh) sets its own flags
n = 0
while True:
    b = s.recv(65536)
    if not b:
        break
    n += len(b)
print(p.wait(), n)' "$NCPV" "$SERVE_PORT"
	[ "$output" = "0 1048576" ]
	run "$NCPV" nc -F -U /x
	[ "$status" -eq 1 ]
	[[ "$output" == *"cannot use -F and -U"* ]]
}

# Issue 19: Debian's nc takes -F with -l (ncpv refused "cannot use -F and -l") and, listening,
# passes nothing: it is a plain listener. Both tools in the same run, both directions, sha256.
@test "-F -l is a listener as in Debian's nc: both directions byte-exact, exit 0, like nc.openbsd" {
	head -c 3000007 /dev/urandom >"$SCRATCH/up"
	head -c 100003 /dev/urandom >"$SCRATCH/down"
	local tool port pid rc
	for tool in nc.openbsd "$NCPV nc"; do
		port=$(free_port)
		$tool -F -l 127.0.0.1 "$port" <"$SCRATCH/down" >"$SCRATCH/got.up" 2>"$SCRATCH/err" &
		pid=$!
		wait_port_quiet "$port"
		timeout 20 nc.openbsd -N 127.0.0.1 "$port" <"$SCRATCH/up" >"$SCRATCH/got.down"
		rc=0
		wait "$pid" || rc=$?
		echo "$tool: exit $rc, stderr: $(cat "$SCRATCH/err")"
		[ "$rc" -eq 0 ]
		[ ! -s "$SCRATCH/err" ]
		[ "$(sha "$SCRATCH/got.up")" = "$(sha "$SCRATCH/up")" ]
		[ "$(sha "$SCRATCH/got.down")" = "$(sha "$SCRATCH/down")" ]
	done
}

@test "IPv6: ncpv nc -6 listener on ::1 receives from nc.openbsd -6" {
	"$NCPV" nc -6 -lvn ::1 0 >"$SCRATCH/l.out" 2>"$SCRATCH/l.log" </dev/null &
	L_PID=$!
	STARTED_PIDS+=($L_PID)
	wait_listening "$SCRATCH/l.log"
	grep -q '^Listening on ::1 ' "$SCRATCH/l.log"
	echo six | timeout 5 nc.openbsd -6 -N ::1 "$NC_PORT"
	wait "$L_PID"
	[ "$(cat "$SCRATCH/l.out")" = six ]
}

@test "-s and -p choose the source address and port the listener sees" {
	start_nc_listener -n 127.0.0.1 0
	sport=$(free_port)
	echo src | timeout 5 "$NCPV" nc -N -s 127.0.0.2 -p "$sport" -T lowdelay -M 9 127.0.0.1 "$NC_PORT"
	wait "$L_PID"
	grep -q "^Connection received on 127.0.0.2 $sport\$" "$SCRATCH/l.log"
}

@test "-i paces lines sent: three lines at 0.3 s take at least 0.6 s" {
	start_nc_listener 127.0.0.1 0
	start=$EPOCHREALTIME
	printf 'a\nb\nc\n' | timeout 5 "$NCPV" nc -N -i 0.3 127.0.0.1 "$NC_PORT"
	wait "$L_PID"
	(( $(echo "$EPOCHREALTIME - $start >= 0.6" | bc) ))
	[ "$(cat "$SCRATCH/l.out")" = "$(printf 'a\nb\nc')" ]
}

@test "-t answers telnet DO/WILL with WONT/DONT" {
	port_file=$SCRATCH/tport
	timeout 10 python3 -c '
import os, socket, sys
ls = socket.socket(); ls.bind(("127.0.0.1", 0)); ls.listen(1)
open(sys.argv[1] + ".tmp", "w").write(str(ls.getsockname()[1])); os.rename(sys.argv[1] + ".tmp", sys.argv[1])
c, _ = ls.accept(); c.settimeout(5)
c.sendall(bytes([255, 253, 1, 255, 251, 3]))
got = b""
while len(got) < 6:
    got += c.recv(64)
print(got.hex())' "$port_file" >"$SCRATCH/telnet.out" &
	pid=$!
	for ((i = 0; i < 250; i++)); do [ -s "$port_file" ] && break; sleep 0.02; done
	timeout 5 "$NCPV" nc -d -t -w 1 127.0.0.1 "$(cat "$port_file")" >/dev/null
	wait "$pid"
	[ "$(cat "$SCRATCH/telnet.out")" = fffc01fffe03 ]
}

@test "socket options -I -O -b -m -T are applied, out-of-range ones refused by name" {
	start_nc_listener 127.0.0.1 0
	echo opts | timeout 5 "$NCPV" nc -N -I 65536 -O 65536 -b -m 1 -T af41 127.0.0.1 "$NC_PORT"
	wait "$L_PID"
	[ "$(cat "$SCRATCH/l.out")" = opts ]
	run "$NCPV" nc -M 999 127.0.0.1 1
	[ "$status" -eq 1 ]
	[[ "$output" == *"ttl too large: 999"* ]]
	run "$NCPV" nc -I 0 127.0.0.1 1
	[[ "$output" == *"TCP receive window too small: 0"* ]]
}
