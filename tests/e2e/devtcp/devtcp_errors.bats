#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# devtcp_errors.bats - every way a device open or the command fails: a normal errno
# the program reports in its own words, and the command's shell-like exit codes.

bats_require_minimum_version 1.5.0
load ../lib/devtcp_helpers

setup() {
	devtcp_setup
}

teardown() {
	common_teardown
}

@test "a refused connection fails with ECONNREFUSED" {
	start_serve --source "$PAYLOAD"
	stop_pid "$SERVE_PID"
	run devtcp cat "/dev/tcp/127.0.0.1/$SERVE_PORT"
	[ "$status" -eq 1 ]
	[ "$output" = "cat: /dev/tcp/127.0.0.1/$SERVE_PORT: Connection refused" ]
}

@test "--verbose names the address that refused" {
	start_serve --source "$PAYLOAD"
	stop_pid "$SERVE_PID"
	run devtcp -v cat "/dev/tcp/127.0.0.1/$SERVE_PORT"
	[[ "$output" == *"ncpv devtcp: /dev/tcp/127.0.0.1/$SERVE_PORT: connect to 127.0.0.1:$SERVE_PORT: Connection refused"* ]]
}

@test "an unknown host fails with ENXIO (No such device or address)" {
	# In a private network namespace when we can, so the lookup never leaves the machine.
	local wrap=()
	unshare -rn true 2>/dev/null && wrap=(unshare -rn)
	run "${wrap[@]}" "$NCPV" devtcp cat /dev/tcp/no-such-host.invalid/80
	[ "$status" -eq 1 ]
	[ "$output" = "cat: /dev/tcp/no-such-host.invalid/80: No such device or address" ]
}

@test "a connect that gets no answer fails with ETIMEDOUT after --timeout" {
	[ -n "$PY" ] || skip "python3 not installed"
	# A listener whose accept queue (backlog 0) is already full drops further SYNs.
	"$PY" -c 'import socket, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(0)
print("port", s.getsockname()[1], flush=True)
time.sleep(30)' >"$SCRATCH/full.log" &
	STARTED_PIDS+=($!)
	wait_for "$SCRATCH/full.log" '^port [0-9]+' 5
	port=$(awk '{ print $2 }' "$SCRATCH/full.log")
	exec 5<>"/dev/tcp/127.0.0.1/$port"
	SECONDS=0
	run devtcp -t 0.4 cat "/dev/tcp/127.0.0.1/$port"
	exec 5<&-
	[ "$status" -eq 1 ]
	[ "$output" = "cat: /dev/tcp/127.0.0.1/$port: Connection timed out" ]
	[ "$SECONDS" -lt 10 ] # -t's doing: the kernel's own SYN retries would take minutes
}

@test "a port out of range fails with EINVAL" {
	run devtcp cat /dev/tcp/127.0.0.1/65536
	[ "$status" -eq 1 ]
	[ "$output" = "cat: /dev/tcp/127.0.0.1/65536: Invalid argument" ]
}

@test "port 0 cannot be connected to: EINVAL" {
	run devtcp cat /dev/udp/127.0.0.1/0
	[ "$output" = "cat: /dev/udp/127.0.0.1/0: Invalid argument" ]
}

@test "a path without the HOST/PORT shape is an ordinary missing file: ENOENT" {
	run devtcp cat /dev/tcp/127.0.0.1
	[ "$output" = "cat: /dev/tcp/127.0.0.1: No such file or directory" ]
	run devtcp cat /dev/tcp/127.0.0.1/80/extra
	[ "$output" = "cat: /dev/tcp/127.0.0.1/80/extra: No such file or directory" ]
	run devtcp cat /dev/tcp-listen/
	[ "$output" = "cat: /dev/tcp-listen/: No such file or directory" ]
}

@test "a malformed NCPV_DEVTCP_TIMEOUT fails the open with EINVAL" {
	run env NCPV_DEVTCP_TIMEOUT=soon "$NCPV" devtcp cat /dev/tcp/127.0.0.1/9
	[ "$status" -eq 1 ]
	[ "$output" = "cat: /dev/tcp/127.0.0.1/9: Invalid argument" ]
}

@test "devtcp without a command is a usage error (2)" {
	run "$NCPV" devtcp
	[ "$status" -eq 2 ]
	[ "$output" = "ncpv devtcp: missing COMMAND (try 'ncpv devtcp --help')" ]
}

@test "devtcp with a bad option or timeout is a usage error (2)" {
	run "$NCPV" devtcp --bogus true
	[ "$status" -eq 2 ]
	run "$NCPV" devtcp -t never true
	[ "$status" -eq 2 ]
	[[ "$output" == "ncpv devtcp: invalid timeout 'never': "* ]]
}

@test "devtcp -t takes 0 to 86400 seconds, 0 meaning no timeout, and refuses the rest as it says" {
	local t
	for t in 0 0.0 0.5 1 86400; do
		run "$NCPV" devtcp -t "$t" true
		[ "$status" -eq 0 ] || { echo "-t $t: status $status: $output"; return 1; }
	done
	for t in -1 -0.5 86400.5 86401 1e9; do
		run "$NCPV" devtcp -t "$t" true
		[ "$status" -eq 2 ] || { echo "-t $t: status $status"; return 1; }
		[ "$output" = "ncpv devtcp: invalid timeout '$t': expected seconds from 0 to 86400, such as 5 or 0.5" ]
	done
	# 0 is no timeout, not an instant one: a connect still gets its bytes.
	start_serve --source "$PAYLOAD"
	"$NCPV" devtcp -t 0 cat "/dev/tcp/127.0.0.1/$SERVE_PORT" >"$SCRATCH/got"
	[ "$(sha "$SCRATCH/got")" = "$(sha "$PAYLOAD")" ]
}

@test "devtcp --help names the three path forms and exits 0" {
	run "$NCPV" devtcp --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"/dev/tcp/HOST/PORT"*"/dev/udp/HOST/PORT"*"/dev/tcp-listen/[ADDR/]PORT"* ]]
}

@test "options after COMMAND are COMMAND's own" {
	run "$NCPV" devtcp echo -v --timeout
	[ "$status" -eq 0 ]
	[ "$output" = "-v --timeout" ]
}

@test "a command that does not exist exits 127, as in a shell" {
	run -127 "$NCPV" devtcp no-such-command-ncpv
	[ "$status" -eq 127 ]
	[ "$output" = "ncpv devtcp: no-such-command-ncpv: command not found" ]
}

@test "a command that is not executable exits 126, as in a shell" {
	printf '#!/bin/sh\n' >"$SCRATCH/script"
	chmod 644 "$SCRATCH/script"
	run -126 "$NCPV" devtcp "$SCRATCH/script"
	[ "$status" -eq 126 ]
	[ "$output" = "ncpv devtcp: $SCRATCH/script: Permission denied" ]
}

@test "a missing library exits 125 and names where to point it" {
	run env NCPV_DEVTCP_LIB="$SCRATCH/none.so" "$NCPV" devtcp true
	[ "$status" -eq 125 ]
	[ "$output" = "ncpv devtcp: NCPV_DEVTCP_LIB=$SCRATCH/none.so: No such file or directory" ]
	[ -e /usr/local/lib/ncpv/libncpv-devtcp.so ] && skip "a library is installed system-wide"
	[ -z "${NCPV_VALGRIND:-}" ] || skip "a copy of the valgrind wrapper still runs the build's ncpv"
	mkdir "$SCRATCH/bin"
	cp "$NCPV" "$SCRATCH/bin/ncpv"
	run "$SCRATCH/bin/ncpv" devtcp true
	[ "$status" -eq 125 ]
	[[ "$output" == "ncpv devtcp: cannot find libncpv-devtcp.so "*"set NCPV_DEVTCP_LIB)" ]]
}

@test "make install puts the library where the installed ncpv devtcp finds it" {
	local repo
	repo=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)
	[ -z "${NCPV_VALGRIND:-}" ] || skip "the valgrind wrapper would be installed, not ncpv"
	# A make of its own, not the calling one's (make asan passes BUILD and CFLAGS down), that
	# installs this test's binary and library: building them here would rebuild the user's tree.
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$repo" install NCPV_BIN="$NCPV" \
	    DEVTCP_LIB="$(dirname "$NCPV")/libncpv-devtcp.so" DESTDIR="$SCRATCH/root" PREFIX=/usr >/dev/null
	[ -f "$SCRATCH/root/usr/lib/ncpv/libncpv-devtcp.so" ]
	start_serve --source "$PAYLOAD"
	"$SCRATCH/root/usr/bin/ncpv" devtcp cat "/dev/tcp/127.0.0.1/$SERVE_PORT" >"$SCRATCH/got"
	[ "$(sha "$SCRATCH/got")" = "$(sha "$PAYLOAD")" ]
}

@test "a statically linked command is warned about, and still runs" {
	printf 'int main(void) { return 3; }\n' >"$SCRATCH/static.c"
	cc -static -o "$SCRATCH/static" "$SCRATCH/static.c" 2>/dev/null || skip "no static libc"
	run -3 "$NCPV" devtcp "$SCRATCH/static"
	[ "$output" = "ncpv devtcp: warning: $SCRATCH/static is statically linked: it cannot load the library; /dev/tcp paths will not work in it" ]
}

@test "a setuid command is warned about; an ordinary one is not" {
	cp "$(type -P true)" "$SCRATCH/suid-true"
	chmod u+s "$SCRATCH/suid-true"
	run "$NCPV" devtcp "$SCRATCH/suid-true"
	[[ "$output" == *"suid-true is setuid or setgid: the loader ignores LD_PRELOAD for it"* ]]
	run "$NCPV" devtcp true
	[ "$status" -eq 0 ]
	[ "$output" = "" ]
}

@test "devtcp: the command gets SIGPIPE back (yes | head ends quietly)" {
	run "$NCPV" devtcp sh -c 'yes | head -n 1'
	[ "$status" -eq 0 ]
	[ "$output" = "y" ]
}
