#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# devtcp.bats - real programs read from and write to /dev/tcp paths under `ncpv devtcp`, byte-exact.

load ../lib/devtcp_helpers

setup() {
	devtcp_setup
}

teardown() {
	common_teardown
}

# Downloads: `ncpv serve --source FILE` sends the payload once per connection.

@test "cat reads /dev/tcp/HOST/PORT byte-exact" {
	start_serve --source "$PAYLOAD"
	devtcp cat "/dev/tcp/127.0.0.1/$SERVE_PORT" >"$SCRATCH/got"
	[ "$(sha "$SCRATCH/got")" = "$(sha "$PAYLOAD")" ]
}

@test "pv reads /dev/tcp/... itself: the seed's test without bash" {
	command -v pv >/dev/null || skip "pv not installed"
	start_serve --source "$PAYLOAD"
	devtcp pv -q "/dev/tcp/127.0.0.1/$SERVE_PORT" >"$SCRATCH/got"
	[ "$(sha "$SCRATCH/got")" = "$(sha "$PAYLOAD")" ]
}

@test "dd reads if=/dev/tcp/... byte-exact" {
	start_serve --source "$PAYLOAD"
	devtcp dd if="/dev/tcp/127.0.0.1/$SERVE_PORT" of="$SCRATCH/got" bs=64k status=none
	[ "$(sha "$SCRATCH/got")" = "$(sha "$PAYLOAD")" ]
}

@test "cp copies from /dev/tcp/... (its stat-open-fstat identity check passes)" {
	start_serve --source "$PAYLOAD"
	devtcp cp "/dev/tcp/127.0.0.1/$SERVE_PORT" "$SCRATCH/got"
	[ "$(sha "$SCRATCH/got")" = "$(sha "$PAYLOAD")" ]
}

@test "tar extracts an archive read from -f /dev/tcp/..." {
	mkdir "$SCRATCH/tree" "$SCRATCH/out"
	cp "$PAYLOAD" "$SCRATCH/tree/a"
	make_file "$SCRATCH/tree/b" 12345
	tar -cf "$SCRATCH/tree.tar" -C "$SCRATCH/tree" .
	start_serve --source "$SCRATCH/tree.tar"
	devtcp tar -xf "/dev/tcp/127.0.0.1/$SERVE_PORT" -C "$SCRATCH/out"
	[ "$(sha "$SCRATCH/out/a")" = "$(sha "$SCRATCH/tree/a")" ]
	[ "$(sha "$SCRATCH/out/b")" = "$(sha "$SCRATCH/tree/b")" ]
}

@test "gzip -dc decompresses a stream read from /dev/tcp/..." {
	gzip -c "$PAYLOAD" >"$SCRATCH/payload.gz"
	start_serve --source "$SCRATCH/payload.gz"
	devtcp gzip -dc "/dev/tcp/127.0.0.1/$SERVE_PORT" >"$SCRATCH/got"
	[ "$(sha "$SCRATCH/got")" = "$(sha "$PAYLOAD")" ]
}

@test "gzip -t tests a stream (it tries /dev/tcp/HOST/ as a directory first)" {
	gzip -c "$PAYLOAD" >"$SCRATCH/payload.gz"
	start_serve --source "$SCRATCH/payload.gz"
	devtcp gzip -t "/dev/tcp/127.0.0.1/$SERVE_PORT"
	start_serve --source "$PAYLOAD"
	run devtcp gzip -t "/dev/tcp/127.0.0.1/$SERVE_PORT"
	[ "$status" -ne 0 ]
	[[ "$output" == *"not in gzip format"* ]]
}

@test "python3 open() reads /dev/tcp/..." {
	[ -n "$PY" ] || skip "python3 not installed"
	start_serve --source "$PAYLOAD"
	devtcp "$PY" -c 'import sys, shutil
shutil.copyfileobj(open(sys.argv[1], "rb"), sys.stdout.buffer)' "/dev/tcp/127.0.0.1/$SERVE_PORT" >"$SCRATCH/got"
	[ "$(sha "$SCRATCH/got")" = "$(sha "$PAYLOAD")" ]
}

@test "dash redirects stdin from /dev/tcp/..." {
	start_serve --source "$PAYLOAD"
	devtcp dash -c 'cat </dev/tcp/127.0.0.1/"$1"' sh "$SERVE_PORT" >"$SCRATCH/got"
	[ "$(sha "$SCRATCH/got")" = "$(sha "$PAYLOAD")" ]
}

@test "zsh redirects stdin from /dev/tcp/..." {
	command -v zsh >/dev/null || skip "zsh not installed"
	start_serve --source "$PAYLOAD"
	devtcp zsh -fc 'cat </dev/tcp/127.0.0.1/"$1"' sh "$SERVE_PORT" >"$SCRATCH/got"
	[ "$(sha "$SCRATCH/got")" = "$(sha "$PAYLOAD")" ]
}

@test "busybox sh redirects stdin from /dev/tcp/..." {
	command -v busybox >/dev/null || skip "busybox not installed"
	start_serve --source "$PAYLOAD"
	devtcp busybox sh -c 'cat </dev/tcp/127.0.0.1/"$1"' sh "$SERVE_PORT" >"$SCRATCH/got"
	[ "$(sha "$SCRATCH/got")" = "$(sha "$PAYLOAD")" ]
}

# Uploads: netcat-openbsd's listener writes what it receives to a file.

@test "tee writes to /dev/tcp/... (fopen)" {
	start_sink
	devtcp tee "/dev/tcp/127.0.0.1/$SINK_PORT" <"$PAYLOAD" >/dev/null
	[ "$(sink_received)" = "$(sha "$PAYLOAD")" ]
}

@test "dd writes of=/dev/tcp/..." {
	start_sink
	devtcp dd if="$PAYLOAD" of="/dev/tcp/127.0.0.1/$SINK_PORT" bs=64k status=none
	[ "$(sink_received)" = "$(sha "$PAYLOAD")" ]
}

@test "cp copies a file to /dev/tcp/..." {
	start_sink
	devtcp cp "$PAYLOAD" "/dev/tcp/127.0.0.1/$SINK_PORT"
	[ "$(sink_received)" = "$(sha "$PAYLOAD")" ]
}

@test "tar writes an archive to -f /dev/tcp/..." {
	mkdir "$SCRATCH/tree" "$SCRATCH/out"
	cp "$PAYLOAD" "$SCRATCH/tree/a"
	start_sink
	devtcp tar -cf "/dev/tcp/127.0.0.1/$SINK_PORT" -C "$SCRATCH/tree" a
	sink_received >/dev/null
	tar -xf "$SINK_OUT" -C "$SCRATCH/out"
	[ "$(sha "$SCRATCH/out/a")" = "$(sha "$PAYLOAD")" ]
}

@test "python3 open() writes to /dev/tcp/..." {
	[ -n "$PY" ] || skip "python3 not installed"
	start_sink
	devtcp "$PY" -c 'import sys
open(sys.argv[1], "wb").write(open(sys.argv[2], "rb").read())' "/dev/tcp/127.0.0.1/$SINK_PORT" "$PAYLOAD"
	[ "$(sink_received)" = "$(sha "$PAYLOAD")" ]
}

@test "dash redirects stdout to /dev/tcp/..." {
	start_sink
	devtcp dash -c 'cat "$2" >/dev/tcp/127.0.0.1/"$1"' sh "$SINK_PORT" "$PAYLOAD"
	[ "$(sink_received)" = "$(sha "$PAYLOAD")" ]
}

@test "zsh redirects stdout to /dev/tcp/..." {
	command -v zsh >/dev/null || skip "zsh not installed"
	start_sink
	devtcp zsh -fc 'cat "$2" >/dev/tcp/127.0.0.1/"$1"' sh "$SINK_PORT" "$PAYLOAD"
	[ "$(sink_received)" = "$(sha "$PAYLOAD")" ]
}

@test "busybox sh redirects stdout to /dev/tcp/..." {
	command -v busybox >/dev/null || skip "busybox not installed"
	start_sink
	devtcp busybox sh -c 'cat "$2" >/dev/tcp/127.0.0.1/"$1"' sh "$SINK_PORT" "$PAYLOAD"
	[ "$(sink_received)" = "$(sha "$PAYLOAD")" ]
}

@test "an upload to serve --discard is counted in full" {
	start_serve --discard
	devtcp dd if="$PAYLOAD" of="/dev/tcp/127.0.0.1/$SERVE_PORT" bs=64k status=none
	wait_for "$SERVE_LOG" 'received 300000 B' 5
}

@test "IPv6: cat reads /dev/tcp/::1/PORT" {
	start_serve --source "$PAYLOAD" '[::1]:0' || skip "no IPv6 loopback"
	devtcp cat "/dev/tcp/::1/$SERVE_PORT" >"$SCRATCH/got"
	[ "$(sha "$SCRATCH/got")" = "$(sha "$PAYLOAD")" ]
}
