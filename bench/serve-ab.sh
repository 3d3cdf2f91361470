#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# serve-ab.sh - two serve binaries side by side: perf.sh's single-stream and small-files
# commands against `A serve` and `B serve`, interleaved round by round (get is B's), so that
# a loaded machine's drift hits both alike. Prints "test a|b value" lines (bytes/s, files/s).
# Usage: bench/serve-ab.sh A_NCPV B_NCPV [ROUNDS] [SECONDS] [FILES]
set -euo pipefail
export LC_ALL=C
A=$1 B=$2 R=${3:-7} DUR=${4:-3} FILES=${5:-20000}
TMP=$(mktemp -d); PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$TMP"' EXIT
start() { # start NAME BIN ARGS -> port in $port_NAME
	local name=$1 bin=$2; shift 2
	"$bin" serve --quiet "$@" 127.0.0.1:0 2>"$TMP/$name.log" & PIDS+=($!)
	for _ in $(seq 200); do grep -q listening "$TMP/$name.log" && break; sleep 0.02; done
	printf -v "port_$name" '%s' "$(sed -n 's/.*:\([0-9]*\) (.*/\1/p' "$TMP/$name.log")"
}
start sa "$A"; start sb "$B"; start fa "$A" --size 4K; start fb "$B" --size 4K
for r in $(seq "$R"); do
	for v in a b; do
		p=port_s$v; echo "stream $v $("$B" get -q --json --time "$DUR" "127.0.0.1:${!p}" | sed 's/.*"rate":\([0-9]*\).*/\1/')"
		p=port_f$v; echo "files $v $("$B" get -q --json --count "$FILES" --parallel 16 "127.0.0.1:${!p}" | sed 's/.*"transfers_per_s":\([0-9.]*\).*/\1/')"
	done
done
