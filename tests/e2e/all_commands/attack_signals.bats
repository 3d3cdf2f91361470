#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# attack_signals.bats - what an outside attack found: signals to get, and bench's $TMPDIR.

setup() {
	export LC_ALL=C
	SCRATCH=$(mktemp -d)
	PEER_PID=""
	GET_PID=""
}

teardown() {
	for p in $GET_PID $PEER_PID; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$SCRATCH"
}

# A loopback server on port 0 that sends a byte every 50 ms for at most 60 s:
# get is mid-transfer for as long as a test needs, and the disk barely fills.
start_trickle() {
	python3 -c '
import socket, sys, time
l = socket.socket()
l.bind(("127.0.0.1", 0))
l.listen(4)
print(l.getsockname()[1], flush=True)
c, _ = l.accept()
end = time.monotonic() + 60
try:
    while time.monotonic() < end:
        c.sendall(b"x")
        time.sleep(0.05)
except OSError:
    pass
' >"$SCRATCH/port" &
	PEER_PID=$!
	for _ in $(seq 100); do
		[ -s "$SCRATCH/port" ] && break
		sleep 0.1
	done
	PORT=$(cat "$SCRATCH/port")
	[ -n "$PORT" ]
}

# Wait (bounded) until get has written its hidden temporary file with some data.
wait_for_tmp() {
	for _ in $(seq 200); do
		compgen -G "$SCRATCH/.keep.ncpv-*" >/dev/null && [ -s "$(compgen -G "$SCRATCH/.keep.ncpv-*" | head -1)" ] && return 0
		sleep 0.05
	done
	return 1
}

@test "get -o FILE: SIGHUP mid-transfer leaves no .FILE.ncpv-XXXXXX behind" {
	for sig in HUP INT TERM; do
		echo old >"$SCRATCH/keep"
		start_trickle
		"$NCPV" get -q -w 30 -o "$SCRATCH/keep" 127.0.0.1:"$PORT" 2>"$SCRATCH/err" &
		GET_PID=$!
		wait_for_tmp
		kill -"$sig" "$GET_PID"
		rc=0
		wait "$GET_PID" || rc=$?
		GET_PID=""
		kill "$PEER_PID" 2>/dev/null || true
		wait "$PEER_PID" 2>/dev/null || true
		PEER_PID=""
		echo "SIG$sig: exit $rc, left: $(ls -A "$SCRATCH")"
		# Issue 22: a signal is not a whole transfer: exit 1, FILE as it was (it was "stopped as
		# asked", exit 0 with the partial data in FILE, until then).
		[ "$rc" -eq 1 ]
		! compgen -G "$SCRATCH/.keep.ncpv-*" || false
		[ "$(cat "$SCRATCH/keep")" = old ]
		grep -q "interrupted after [0-9]* bytes\{0,1\}: '$SCRATCH/keep' left as it was" "$SCRATCH/err"
		rm -f "$SCRATCH/keep" "$SCRATCH/port"
	done
}

@test "bench: a long \$TMPDIR works, and a missing one is named with its real errno" {
	long="$SCRATCH/$(printf 'd%.0s' $(seq 200))"
	mkdir "$long"
	run env TMPDIR="$long" "$NCPV" bench -q -T stream -d 0.2 -r 1 -M ncpv
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$(ls -A "$long")" ]
	run env TMPDIR="$SCRATCH/missing" "$NCPV" bench -q -T stream -d 0.2 -r 1 -M ncpv
	echo "$output"
	[ "$status" -eq 6 ]
	[ "$output" = "ncpv bench: cannot make a scratch directory in '$SCRATCH/missing': No such file or directory" ]
}
