#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# get_paced.bats - get --rate on a download: ncpv serve paces it, asked through the side
# channel (docs/SIDECHANNEL.md, rate=). The rate reached at several values and per -P stream,
# byte-exact files, a paced client that holds up no other on serve's loop, the hold on new
# connections while a paced one is awaited, and every server that cannot pace refused with
# exit 1 before a byte is downloaded.

load ../lib/helpers
bats_require_minimum_version 1.5.0

setup() {
	common_setup
	export LC_ALL=C
}

teardown() {
	common_teardown
}

peer() {
	"$BATS_TEST_DIRNAME/../lib/side_peer.py" "$@"
}

# within FILE BITS PCT: FILE's --json summary says BITS bit/s, give or take PCT percent, per
# stream (-P: each stream's, as iperf3's -b) and asked as such.
within() {
	jq -s -e --argjson b "$2" --argjson pct "$3" '.[-1] as $s |
		($s.streams // [$s]) as $st | ($st | length) as $n |
		$s.rate_asked_bps == $b and
		all($st[]; (.bytes * 8 / .seconds) as $r | $r > $b * (1 - $pct / 100) and $r < $b * (1 + $pct / 100)) and
		($s.bytes * 8 / $s.seconds) < $b * $n * (1 + $pct / 100)' "$1" ||
		{ echo "asked $2 bit/s:"; cat "$1"; return 1; }
}

@test "get --rate RATE -t 2 downloads at RATE, within 5%, at 2M, 20M and 200M" {
	start_serve -q
	local r bits
	for r in 2M 20M 200M; do
		bits=$(numfmt --from=si "$r")
		"$NCPV" get -j --rate "$r" -t 2 "127.0.0.1:$SERVE_PORT" >"$SCRATCH/get.json"
		within "$SCRATCH/get.json" "$bits" 5
	done
	# Unpaced, the same download is far faster: the bound above is the pacing's. Twice the
	# fastest paced rate, not a figure of this machine's (ASan under CI's load: 680 Mbit/s).
	"$NCPV" get -j -t 0.5 "127.0.0.1:$SERVE_PORT" >"$SCRATCH/free.json"
	jq -e '.bytes * 8 / .seconds > 2 * 200e6' "$SCRATCH/free.json" || { cat "$SCRATCH/free.json"; false; }
}

@test "get --rate 10M -P 3: each stream at 10M (per stream, as iperf3 -b), the sum at 30M" {
	start_serve -q --threads 1
	"$NCPV" get -j --rate 10M -P 3 -t 2 "127.0.0.1:$SERVE_PORT" >"$SCRATCH/get.json"
	within "$SCRATCH/get.json" 10000000 5
	jq -e '(.streams | length) == 3 and .bytes * 8 / .seconds > 28.5e6' "$SCRATCH/get.json"
}

@test "get --rate -o FILE: byte-exact, and as long as the file's size at the rate" {
	# Large enough that serve is still sending it on the control connection when the hello
	# comes (a file of a few MiB can be handed over whole first: docs/SIDECHANNEL.md).
	make_file "$SCRATCH/src.bin" 64000017
	start_serve --json --source "$SCRATCH/src.bin"
	"$NCPV" get -j --rate 400M -o "$SCRATCH/out.bin" "127.0.0.1:$SERVE_PORT" >"$SCRATCH/get.json"
	[ "$(sha "$SCRATCH/out.bin")" = "$(sha "$SCRATCH/src.bin")" ]
	# 64000017 bytes at 400 Mbit/s: 1.28 s.
	jq -e '.bytes == 64000017 and .seconds > 1.2 and .seconds < 1.45' "$SCRATCH/get.json" ||
		{ cat "$SCRATCH/get.json"; return 1; }
	wait_for "$SERVE_LOG" '"side":"down"' 5
	[ "$(grep '"side":"down"' "$SERVE_LOG" | jq -r '.sent')" = 64000017 ]
}

@test "get --rate without -s: serve's size is the progress total, with a percentage and an ETA" {
	start_serve --size 16M
	# 16 MiB at 64 Mbit/s: 2.1 s, so the line is drawn at 1 s and 2 s with the size known.
	"$NCPV" get -f --rate 64M "127.0.0.1:$SERVE_PORT" 2>"$SCRATCH/get.err"
	tr '\r' '\n' <"$SCRATCH/get.err" | grep -Eq '\] +[1-9][0-9]?% ETA [0-9]+:[0-9]{2}:[0-9]{2}' ||
		{ cat -v "$SCRATCH/get.err"; return 1; }
	tr '\r' '\n' <"$SCRATCH/get.err" | grep -Eq '\] +100%'
}

@test "one paced client on serve's only loop holds up no other: a plain download beside it runs free" {
	start_serve -q --threads 1
	"$NCPV" get -j --rate 4M -t 3 "127.0.0.1:$SERVE_PORT" >"$SCRATCH/paced.json" &
	local paced=$!
	STARTED_PIDS+=("$paced")
	"$NCPV" get -j -t 1 "127.0.0.1:$SERVE_PORT" >"$SCRATCH/free.json"
	wait "$paced"
	jq -e '.bytes * 8 / .seconds > 500e6' "$SCRATCH/free.json" || { cat "$SCRATCH/free.json"; return 1; }
	within "$SCRATCH/paced.json" 4000000 5
}

@test "a plain client that connects while a paced session waits for its download is held 0.5 s at most" {
	start_serve -q --threads 1
	peer paced-ctl "$SERVE_PORT" 4 >"$SCRATCH/ctl.out" &
	STARTED_PIDS+=("$!")
	wait_for "$SCRATCH/ctl.out" 'ok [0-9a-f]{32} rate=1000000' 5
	# Its data connection never comes: a raw download must still get its bytes, after the hold.
	"$NCPV" get -j -w 3 -b 10M "127.0.0.1:$SERVE_PORT" >"$SCRATCH/get.json"
	jq -e '.bytes == 10485760 and .seconds < 1.5' "$SCRATCH/get.json" || { cat "$SCRATCH/get.json"; return 1; }
}

@test "get --rate against a serve that cannot pace: exit 1 with the reason, and no byte downloaded" {
	# serve --discard sends nothing to pace.
	start_serve -q --discard
	run "$NCPV" get --rate 10M -t 1 "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 1 ]
	[[ "$output" == *"--rate on a download needs ncpv serve to pace it: 127.0.0.1:$SERVE_PORT refused the side channel: it runs serve --discard"* ]]
	[ "${#lines[@]}" -eq 1 ]
	# A serve from before rate= answers a bare ok: no data connection may follow.
	peer old-serve >"$SCRATCH/old.out" &
	STARTED_PIDS+=("$!")
	wait_for "$SCRATCH/old.out" '^[0-9]+$' 5
	local port
	port=$(head -1 "$SCRATCH/old.out")
	run "$NCPV" get -j --rate 10M -t 1 "127.0.0.1:$port"
	[ "$status" -eq 1 ]
	[[ "$output" == *"127.0.0.1:$port does not pace downloads (get --rate): it is an ncpv serve older than that"* ]]
	[[ "$output" != *'"bytes"'* ]]
	grep -qx 'data ctl' "$SCRATCH/old.out"
	run ! grep -q 'data down\|data raw' "$SCRATCH/old.out"
}

@test "get --rate against a server without the side channel (a silent one, or one that closes): exit 1 in -w" {
	python3 "$BATS_TEST_DIRNAME/../lib/get_peer.py" '[["hold"]]' >"$SCRATCH/silent.port" &
	STARTED_PIDS+=("$!")
	wait_for "$SCRATCH/silent.port" '^[0-9]+$' 5
	run timeout 10 "$NCPV" get --rate 10M -w 1 "127.0.0.1:$(cat "$SCRATCH/silent.port")"
	[ "$status" -eq 1 ]
	[[ "$output" == *"needs ncpv serve to pace it"*"did not answer the side channel within 1 s"* ]]
	start_serve -q --size 1000
	run "$NCPV" get --rate 10M -w 2 "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 1 ]
	[ "$output" = "ncpv get: --rate on a download needs ncpv serve to pace it: 127.0.0.1:$SERVE_PORT closed without answering the side channel: it had sent everything before the hello came (ncpv serve answers while still sending: an endless stream, or more than the socket buffers hold)" ]
}

@test "get --rate on a download: usage errors with --tls and the side channel's other modes" {
	run "$NCPV" get --tls --rate 10M 127.0.0.1:1
	[ "$status" -eq 2 ]
	[[ "$output" == *"--rate 10M on a download does not combine with --tls"* ]]
	run "$NCPV" get --server-view --rate 10M 127.0.0.1:1
	[ "$status" -eq 2 ]
	[[ "$output" == *"does not combine with --server-view yet"* ]]
	# --rate 0 is as fast as possible: no side channel asked for, a plain download.
	start_serve -q --size 1000
	run "$NCPV" get -q --rate 0 "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 0 ]
}

@test "get --rate on a download below a kilobyte a second is refused, with the floor named; at it, asked" {
	start_serve -q
	local r n=0
	# Generated: the values just below the floor, in each unit get takes, with one stream and two.
	for r in 1 8 999 7999 7.999K 0.0079M 7999.9; do
		for p in 1 2; do
			run "$NCPV" get -q -P "$p" --rate "$r" -b 100 "127.0.0.1:$SERVE_PORT"
			[ "$status" -eq 2 ] || { echo "-P $p --rate $r: exit $status: $output"; return 1; }
			[ "$output" = "ncpv get: invalid rate '$r': below a kilobyte a second per stream (8000 bit/s), the least serve paces a download to; ask for more, or 0 for no pacing" ] ||
				{ echo "-P $p --rate $r: $output"; return 1; }
			n=$((n + 1))
		done
	done
	# At the floor, in each unit: asked, answered, and 100 bytes downloaded.
	for r in 8000 8K 0.008M; do
		run timeout 20 "$NCPV" get -q --rate "$r" -b 100 "127.0.0.1:$SERVE_PORT"
		[ "$status" -eq 0 ] || { echo "--rate $r: exit $status: $output"; return 1; }
		n=$((n + 1))
	done
	[ "$n" -eq 17 ]
	# serve's parser has the same floor: 8000 is answered and said back.
	peer answer "$SERVE_PORT" rate=8000 >"$SCRATCH/ans"
	grep -Eq 'ok [0-9a-f]{32} rate=8000$' "$SCRATCH/ans" || { cat -v "$SCRATCH/ans"; return 1; }
	# An upload's --rate is get's own pacing, not serve's: no floor (nothing listens at port 1).
	run "$NCPV" get -q --send --rate 8 127.0.0.1:1
	[ "$status" -eq 4 ]
}
