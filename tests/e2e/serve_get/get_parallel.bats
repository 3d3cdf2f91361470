#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# get_parallel.bats - get -P N without --count: N streams at once to one serve, a line per
# stream and a SUM line (iperf3 -P); the streams' figures add up to the sum, and to what serve
# counted; -b is their total.

load ../lib/helpers

setup() {
	common_setup
}

teardown() {
	common_teardown
}

@test "get -P 4 against serve --size 10M: four streams of 10M, a SUM of 40M, four completed at serve" {
	start_serve --json --size 10M
	"$NCPV" get -j -P 4 "127.0.0.1:$SERVE_PORT" >"$SCRATCH/get.json" 2>"$SCRATCH/get.err"
	jq -e '.bytes == 41943040 and (.streams | length) == 4 and ([.streams[].bytes] | add) == .bytes
		and all(.streams[]; .bytes == 10485760)' "$SCRATCH/get.json"
	[ "$(grep -c '^\[  [1-4]\] received 10485760 B ' "$SCRATCH/get.err")" -eq 4 ]
	grep -q '^\[SUM\] received 41943040 B ' "$SCRATCH/get.err"
	local i
	for ((i = 0; i < 250; i++)); do
		[ "$(grep -c '"reason":"done","end":"completed"' "$SERVE_LOG")" -eq 4 ] && break
		sleep 0.02
	done
	[ "$(grep -c '"reason":"done","end":"completed","sent":10485760,' "$SERVE_LOG")" -eq 4 ]
}

@test "get -P N -b B: the streams' shares add up to exactly B (B, N from a table)" {
	start_serve -q
	local b n want
	for b in 3 1000 1M 100000007; do
		for n in 1 2 3 7; do
			want=$(numfmt --from=iec "$b")
			[ "$n" -gt "$want" ] && continue
			"$NCPV" get -q -j -P "$n" -b "$b" "127.0.0.1:$SERVE_PORT" >"$SCRATCH/get.json"
			jq -e --argjson b "$want" --argjson n "$n" '.bytes == $b and
				(if $n > 1 then (.streams | length) == $n and ([.streams[].bytes] | add) == $b
				 else .streams == null end)' \
				"$SCRATCH/get.json" || { echo "-b $b -P $n"; cat "$SCRATCH/get.json"; false; }
		done
	done
}

@test "get --send -P 3 -b 30M to serve --discard: serve received 30M in three uploads" {
	start_serve --json --discard
	"$NCPV" get -q --send -P 3 -b 30M "127.0.0.1:$SERVE_PORT"
	local i
	for ((i = 0; i < 250; i++)); do
		[ "$(grep -c '"event":"close"' "$SERVE_LOG")" -eq 3 ] && break
		sleep 0.02
	done
	grep '"event":"close"' "$SERVE_LOG" | jq -s -e '(map(.received) | add) == 31457280 and length == 3'
}

@test "get -P without --count refuses what streams cannot share" {
	run "$NCPV" get -P 4 -o "$SCRATCH/x" 127.0.0.1:1
	[ "$status" -eq 2 ]
	[ "$output" = "ncpv get: --parallel without --count makes 4 streams: they cannot share --output" ]
	run "$NCPV" get -P 4 -b 3 127.0.0.1:1
	[ "$status" -eq 2 ]
	[ "$output" = "ncpv get: --bytes 3 is shared by 4 streams: give each at least one byte" ]
	run "$NCPV" get -P 2 --cport 40000 127.0.0.1:1
	[ "$status" -eq 2 ]
	[ "$output" = "ncpv get: --parallel 2: the streams cannot all connect from one --cport" ]
}
