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

@test "get -P N -s S: S is the total, each stream checked against its share; a miss says which" {
	# serve sends F bytes to each connection; N streams expect S in all. The run succeeds
	# exactly when each stream's share of S is F, i.e. S = N * F; otherwise exit 1 and one
	# line naming the stream, its share and what came (the attack found a silent exit 1).
	local f n s want rc
	for f in 1000 65536 1048577; do
		start_serve -q --size "$f"
		for n in 1 2 3; do
			for s in $((n * f)) $((n * f + 1)) $((n * f - 1)) "$f"; do
				[ "$s" -ge "$n" ] || continue
				rc=0
				"$NCPV" get -q -P "$n" -s "$s" "127.0.0.1:$SERVE_PORT" 2>"$SCRATCH/err" || rc=$?
				if [ "$s" -eq $((n * f)) ]; then
					want=0
				else
					want=1
				fi
				[ "$rc" -eq "$want" ] || { echo "F=$f -P $n -s $s: exit $rc"; cat "$SCRATCH/err"; false; }
				if [ "$want" -eq 0 ]; then
					[ ! -s "$SCRATCH/err" ] || { cat "$SCRATCH/err"; false; }
				else
					# One line, naming a stream (or the server's extra bytes) and the size.
					[ "$(wc -l <"$SCRATCH/err")" -eq 1 ] || { echo "F=$f -P $n -s $s"; cat "$SCRATCH/err"; false; }
					grep -Eq '^ncpv get: (stream [0-9]+ of [0-9]+: expected [0-9]+ bytes? \(its share of -s '"$s"'\), received [0-9]+|expected '"$s"' bytes?, received [0-9]+|(stream [0-9]+: )?receive from .*: the server sent more than --size \([0-9]+ bytes?\)( \(after [0-9]+ bytes?\))?)$' \
						"$SCRATCH/err" || { echo "F=$f -P $n -s $s"; cat "$SCRATCH/err"; false; }
				fi
			done
		done
		stop_pid "$SERVE_PID"
	done
}
