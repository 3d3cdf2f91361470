#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# TLS against a hostile peer (tls_peer.py): records split across TCP writes at random
# points, random pauses, and four ends (close_notify, cut, reset, kept open). Generated
# sizes at the record boundary; every byte checked by sha256; no spinning, no stalls.

load ../lib/helpers

setup_file() {
	"$NCPV" --version | grep -qw tls || skip "this build has no TLS"
	KEYS=$(mktemp -d "${BATS_TMPDIR:-/tmp}/ncpv-tls-attack.XXXXXX")
	export KEYS
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$KEYS/key.pem" \
		-out "$KEYS/cert.pem" -days 2 -subj /CN=localhost 2>/dev/null
}

teardown_file() {
	[ -n "${KEYS:-}" ] && rm -rf "$KEYS"
	return 0
}

setup() { common_setup; }
teardown() { common_teardown; }

PEER="$BATS_TEST_DIRNAME/../lib/tls_peer.py"

# start_peer ARGS...: run tls_peer.py in the background, PEER_LOG its output, PEER_PORT its port.
start_peer() {
	PEER_LOG=$SCRATCH/peer.$RANDOM.log
	python3 "$PEER" "$KEYS/cert.pem" "$KEYS/key.pem" "$@" >"$PEER_LOG" &
	STARTED_PIDS+=($!)
	wait_for "$PEER_LOG" '^[0-9]+$' 10
	PEER_PORT=$(head -1 "$PEER_LOG")
}

# expected SEED SIZE FILE: the bytes tls_peer.py sends for SEED and SIZE.
expected() {
	python3 -c 'import random, sys; sys.stdout.buffer.write(random.Random(int(sys.argv[1])).randbytes(int(sys.argv[2])))' \
		"$1" "$2" >"$3"
}

# syscalls PID: the read(2)-family calls PID has made so far (/proc/PID/io's syscr).
syscalls() { sed -n 's/^syscr: //p' "/proc/$1/io"; }

@test "nc --ssl does not spin while a TLS record is only partly received" {
	# The peer sends 10 bytes of a record and waits: OpenSSL's read-ahead buffer holds
	# them, but only the socket can complete the record, so nc must sleep in poll.
	start_peer partial "$SCRATCH/go"
	mkfifo "$SCRATCH/stdin" # opened read-write: an stdin that never ends, with no writer to stop
	"$NCPV" nc --ssl 127.0.0.1 "$PEER_PORT" <>"$SCRATCH/stdin" >"$SCRATCH/out" 2>"$SCRATCH/err" &
	nc_pid=$!
	STARTED_PIDS+=($nc_pid)
	wait_for "$PEER_LOG" '^paused$' 10
	sleep 0.5 # the handshake's last reads
	before=$(syscalls "$nc_pid")
	sleep 1
	after=$(syscalls "$nc_pid")
	touch "$SCRATCH/go"
	wait_for "$PEER_LOG" '^done$' 10
	for ((i = 0; i < 500; i++)); do
		[ "$(stat -c %s "$SCRATCH/out")" -ge 1000 ] && break
		sleep 0.02
	done
	stop_pid "$nc_pid"
	echo "reads in 1 s while waiting: $((after - before))" >&2
	# Spinning made some 40000 a second; sleeping in poll makes none.
	[ $((after - before)) -lt 100 ]
	[ "$(head -c 1000 /dev/zero | tr '\0' A)" = "$(cat "$SCRATCH/out")" ]
}

# get_case SEED SIZE END [--size]: get --tls from the peer; sha256 and the exit code.
get_case() {
	local seed=$1 size=$2 end=$3 want=0
	shift 3
	start_peer "$seed" "$size" "$end"
	expected "$seed" "$size" "$SCRATCH/want"
	status=0
	"$NCPV" get -q --tls --insecure -w 20 "$@" -o - "127.0.0.1:$PEER_PORT" \
		>"$SCRATCH/got" 2>"$SCRATCH/err" || status=$?
	[ "$end" = notify ] || want=1
	if [ "$status" -ne "$want" ]; then
		echo "seed $seed size $size end $end $*: exit $status, not $want: $(cat "$SCRATCH/err")" >&2
		return 1
	fi
	if [ "$end" = cut ] && ! grep -q 'truncated (no TLS close_notify)' "$SCRATCH/err"; then
		echo "seed $seed size $size: a cut stream not reported as truncated" >&2
		return 1
	fi
	# A failed get writes its stdout as it came: all of it must still be right.
	if [ "$end" != rst ] && [ "$(sha "$SCRATCH/want")" != "$(sha "$SCRATCH/got")" ]; then
		echo "seed $seed size $size end $end $*: bytes differ" >&2
		return 1
	fi
}

@test "get --tls: record-boundary sizes, split records and every kind of end, byte-exact" {
	local seed=$((RANDOM)) size end sized n=0 pids=() pid failed=0
	echo "seed $seed" >&2
	# The 30 cases run 3 at a time (the peer pauses at random: most of a case is waiting), each
	# in a directory of its own with its own peer, which it stops when it ends.
	for size in 0 1 16383 16384 16385 32768 49153 1048575 1048576 1048577; do
		for end in notify cut rst; do
			sized=()
			[ $(((seed + size) % 2)) -eq 0 ] || sized=(--size "$size")
			n=$((n + 1))
			mkdir "$SCRATCH/case$n"
			(
				SCRATCH=$SCRATCH/case$n STARTED_PIDS=()
				trap 'rc=$?; [ ${#STARTED_PIDS[@]} -eq 0 ] || kill "${STARTED_PIDS[@]}" 2>/dev/null || true; exit $rc' EXIT
				get_case "$((seed + size))" "$size" "$end" "${sized[@]}"
			) </dev/null &
			pids+=("$!")
			if [ "${#pids[@]}" -ge 3 ]; then
				wait "${pids[0]}" || failed=$((failed + 1))
				pids=("${pids[@]:1}")
			fi
		done
	done
	for pid in "${pids[@]}"; do
		wait "$pid" || failed=$((failed + 1))
	done
	[ "$failed" -eq 0 ]
}

# open_case SEED SIZE CMD...: CMD reads from the peer, which keeps the connection open
# after its last byte; every byte must reach CMD's stdout before the peer lets go.
open_case() {
	local seed=$1 size=$2 i pid
	shift 2
	start_peer "$seed" "$size" open "$SCRATCH/go"
	expected "$seed" "$size" "$SCRATCH/want"
	[ -p "$SCRATCH/stdin" ] || mkfifo "$SCRATCH/stdin"
	"$@" "$PEER_PORT" <>"$SCRATCH/stdin" >"$SCRATCH/got" 2>"$SCRATCH/err" &
	pid=$!
	STARTED_PIDS+=($pid)
	for ((i = 0; i < 1000; i++)); do
		[ "$(stat -c %s "$SCRATCH/got")" -ge "$size" ] && break
		sleep 0.02
	done
	touch "$SCRATCH/go"
	wait_for "$PEER_LOG" '^done$' 10
	stop_pid "$pid" # nc, like nc.openbsd, stays while its stdin is open
	rm -f "$SCRATCH/go"
	if [ "$(sha "$SCRATCH/want")" != "$(sha "$SCRATCH/got")" ] || [ "$i" -ge 1000 ]; then
		echo "seed $seed size $size $*: $(stat -c %s "$SCRATCH/got") bytes after 20 s" >&2
		return 1
	fi
}

@test "a peer that keeps the connection open still gets every byte to get's and nc's stdout" {
	local seed=$((RANDOM)) size
	echo "seed $seed" >&2
	for size in 1 16383 16384 16385 65537 1048577; do
		open_case "$((seed + size))" "$size" "$NCPV" get -q --tls --insecure -o - 127.0.0.1
		open_case "$((seed + size + 1))" "$size" "$NCPV" nc --ssl 127.0.0.1
	done
}
