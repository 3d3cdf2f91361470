#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# zerocopy.bats - -Z (serve, and get's sending directions): a 4 MiB block of random data sent
# over and over with sendfile from a memfd, as iperf3 -Z. The data repeats with that period and
# only then, every count is exact on both ends, and -Z is refused where it cannot apply.

load ../lib/helpers
bats_require_minimum_version 1.5.0

BLOCK=4194304

setup() {
	common_setup
	export LC_ALL=C
}

teardown() {
	common_teardown
}

# window FILE OFFSET: the sha256 of FILE's BLOCK bytes from OFFSET.
window() {
	tail -c +"$(($2 + 1))" "$1" | head -c "$BLOCK" | sha256sum | cut -d' ' -f1
}

# repeats FILE: FILE's bytes repeat every BLOCK bytes, from any start, and not within a block.
repeats() {
	[ "$(window "$1" 0)" = "$(window "$1" "$BLOCK")" ]
	[ "$(window "$1" 12345)" = "$(window "$1" $((BLOCK + 12345)))" ]
	[ "$(window "$1" 0)" != "$(window "$1" 65536)" ]
	# Random, not a pattern: no compressor shrinks one block.
	[ "$(head -c "$BLOCK" "$1" | gzip -1 | wc -c)" -gt "$((BLOCK * 99 / 100))" ]
}

# sink PORTFILE OUT: a plain TCP sink on loopback that writes what it gets to OUT, then closes.
sink() {
	python3 -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1); s.settimeout(20)
print(s.getsockname()[1], flush=True)
c, _ = s.accept(); c.settimeout(20)
with open(sys.argv[1], "wb") as f:
    while True:
        d = c.recv(1 << 20)
        if not d:
            break
        f.write(d)
c.close()' "$2" >"$1"
}

@test "serve -Z: a download of 12 MiB + 1 repeats the block, byte counts exact on both ends" {
	start_serve --json -Z
	grep -q '"source":"random, a 4096 KiB block repeated (-Z)"' "$SERVE_LOG"
	"$NCPV" get -q -j -b $((3 * BLOCK + 1)) -o "$SCRATCH/out.bin" "127.0.0.1:$SERVE_PORT" >"$SCRATCH/get.json"
	[ "$(stat -c %s "$SCRATCH/out.bin")" -eq $((3 * BLOCK + 1)) ]
	jq -e --argjson n $((3 * BLOCK + 1)) '.bytes == $n' "$SCRATCH/get.json"
	repeats "$SCRATCH/out.bin"
	# Without -Z the same download never repeats.
	start_serve -q
	"$NCPV" get -q -b $((2 * BLOCK)) -o "$SCRATCH/fresh.bin" "127.0.0.1:$SERVE_PORT"
	[ "$(window "$SCRATCH/fresh.bin" 0)" != "$(window "$SCRATCH/fresh.bin" "$BLOCK")" ]
}

@test "serve -Z --size N and --threads 2: each connection exactly N bytes, many blocks past" {
	start_serve --json -Z --threads 2 --size 20000003
	local i
	for i in 1 2 3; do
		"$NCPV" get -q -j -s 20000003 "127.0.0.1:$SERVE_PORT" >"$SCRATCH/get.json"
		jq -e '.bytes == 20000003' "$SCRATCH/get.json"
	done
	wait_for "$SERVE_LOG" '"event":"close"' 5
	[ "$(grep -c '"sent":20000003' "$SERVE_LOG")" -eq 3 ]
}

@test "get --send -Z: the upload repeats the block, and serve --discard counts every byte" {
	sink "$SCRATCH/sink.port" "$SCRATCH/up.bin" &
	STARTED_PIDS+=("$!")
	wait_for "$SCRATCH/sink.port" '^[0-9]+$' 5
	"$NCPV" get -q --send -Z -b $((2 * BLOCK + 100000)) "127.0.0.1:$(cat "$SCRATCH/sink.port")"
	[ "$(stat -c %s "$SCRATCH/up.bin")" -eq $((2 * BLOCK + 100000)) ]
	repeats "$SCRATCH/up.bin"
	start_serve --json --discard
	"$NCPV" get -q -j --send -Z -b 30000001 "127.0.0.1:$SERVE_PORT" >"$SCRATCH/get.json"
	jq -e '.bytes == 30000001' "$SCRATCH/get.json"
	wait_for "$SERVE_LOG" '"received":30000001' 5
}

@test "get -R -Z and --bidir -Z: serve receives what get sent, to the byte" {
	start_serve --json
	"$NCPV" get -j -R -Z -t 0.5 "127.0.0.1:$SERVE_PORT" >"$SCRATCH/rev.json"
	jq -e '.bytes > 0 and .server.received == .bytes' "$SCRATCH/rev.json"
	"$NCPV" get -j --bidir -Z -t 0.5 "127.0.0.1:$SERVE_PORT" >"$SCRATCH/bidir.json"
	jq -e '.streams[1].direction == "send" and .streams[1].bytes > 0 and
		.streams[1].server.received == .streams[1].bytes' "$SCRATCH/bidir.json"
}

@test "-Z is refused where it cannot apply: a download, --discard, --source, --tls (exit 2)" {
	run "$NCPV" get -Z 127.0.0.1:1
	[ "$status" -eq 2 ]
	[[ "$output" == *"-Z does not combine with a download"*"run serve -Z"* ]]
	run "$NCPV" get --send -Z --tls 127.0.0.1:1
	[ "$status" -eq 2 ]
	[[ "$output" == *"-Z does not combine with --tls"* ]]
	run "$NCPV" get --send -Z -S zero 127.0.0.1:1
	[ "$status" -eq 2 ]
	[[ "$output" == *"-Z sends a random block of its own: it does not combine with --source zero" ]]
	run "$NCPV" serve -Z --discard 127.0.0.1:0
	[ "$status" -eq 2 ]
	[[ "$output" == *"-Z does not combine with --discard"* ]]
	run "$NCPV" serve -Z -S /etc/hostname 127.0.0.1:0
	[ "$status" -eq 2 ]
	[[ "$output" == *"(a FILE is sent with sendfile already)" ]]
	run "$NCPV" serve -Z --tls 127.0.0.1:0
	[ "$status" -eq 2 ]
	[[ "$output" == *"-Z does not combine with --tls"* ]]
}
