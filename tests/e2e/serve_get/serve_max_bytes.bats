#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# serve_max_bytes.bats - serve --size S --max-bytes M around S = M: a limit at or above the
# transfer's length lets it complete (get exits 0 with every byte), one below it cuts the
# transfer with a reset (get fails and keeps no output file). Issue 28: no test set the two
# equal, and `<` turned `<=` in the max-bytes check made a complete transfer end in a reset.

load ../lib/helpers

setup() {
	common_setup
}

teardown() {
	common_teardown
}

# expect_sha FILE N: the sha256 of FILE repeated to N bytes (serve's --size over a file).
expect_sha() {
	python3 -c '
import hashlib, sys
d = open(sys.argv[1], "rb").read()
n = int(sys.argv[2])
print(hashlib.sha256((d * (n // len(d) + 1))[:n]).hexdigest())' "$1" "$2"
}

@test "serve --size S --max-bytes M, S = M-1, M, M+1 at M = 1, 4096, 65536, 1M: complete up to M, cut above it" {
	make_file "$SCRATCH/src" 100003
	local m delta size out rc
	for m in 1 4096 65536 1048576; do
		for delta in -1 0 1; do
			size=$((m + delta))
			out=$SCRATCH/out.$m.$size
			start_serve --json --source "$SCRATCH/src" --size "$size" --max-bytes "$m"
			rc=0
			"$NCPV" get -q -w 10 -o "$out" "127.0.0.1:$SERVE_PORT" 2>"$SCRATCH/get.err" || rc=$?
			wait_for "$SERVE_LOG" '"event":"close"' 5
			if [ "$size" -le "$m" ]; then
				# A limit at or above the length: the whole transfer, a clean end.
				[ "$rc" -eq 0 ] || { echo "size $size max-bytes $m: get exited $rc"; cat "$SCRATCH/get.err"; false; }
				[ "$(sha "$out")" = "$(expect_sha "$SCRATCH/src" "$size")" ] || { echo "size $size max-bytes $m: bytes differ"; false; }
				grep -q '"reason":"done","end":"completed","sent":'"$size"',' "$SERVE_LOG" || { echo "size $size max-bytes $m"; cat "$SERVE_LOG"; false; }
			else
				# Below it: a reset, never a clean end; no more than M bytes; no output file.
				# get exits 1 ("reset by peer (after N bytes)"), also when the reset came
				# with its connect's completion (it said "connect to ...", exit 4, before).
				[ "$rc" -eq 1 ] && grep -q 'reset by peer (after [0-9]* bytes\{0,1\})' "$SCRATCH/get.err" ||
					{ echo "size $size max-bytes $m: get exited $rc"; cat "$SCRATCH/get.err"; false; }
				[ ! -e "$out" ] || { echo "size $size max-bytes $m: a cut transfer left $out"; false; }
				# serve logs a cut that sent no more than M (what it handed to the kernel),
				# and a client that read it got between acked and sent.
				run python3 -c '
import json, re, sys
e = [json.loads(l) for l in open(sys.argv[1]) if "\"close\"" in l][0]
m = int(sys.argv[3])
got = re.search(r"after (\d+) bytes", open(sys.argv[2]).read())
ok = e["reason"] == "max-bytes" and e["end"] == "cut" and e["acked"] <= e["sent"] <= m
ok = ok and (got is None or e["acked"] <= int(got.group(1)) <= e["sent"])
print("ok" if ok else "bad %s %s" % (e, got and got.group(0)))' "$SERVE_LOG" "$SCRATCH/get.err" "$m"
				[ "$output" = ok ] || { echo "size $size max-bytes $m: $output"; false; }
			fi
			kill -TERM "$SERVE_PID"
			wait_for "$SERVE_LOG" '"event":"summary"' 5
		done
	done
}
