#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# static.sh - what the static musl binary costs against the dynamic glibc one: serve's
# fresh random data (musl has no avx2 clone) and get's receive path, side by side,
# interleaved, ROUNDS rounds of SECS seconds each; medians, min-max and ratios.
#   bench/static.sh [ROUNDS] [SECS]      (needs ./ncpv and ./ncpv-static: make && make static)
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
SECS=${2:-2}
DYN=./ncpv
STA=./ncpv-static
[ -x "$DYN" ] && [ -x "$STA" ] || { echo "static.sh: build ./ncpv and ./ncpv-static first" >&2; exit 2; }
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT

# serve_start BIN ARGS...: start a server on a free loopback port; sets pid and port.
serve_start() {
	local bin=$1
	shift
	: >"$work/serve.log"
	"$bin" serve --quiet "$@" 127.0.0.1:0 2>>"$work/serve.log" &
	pid=$!
	for _ in $(seq 200); do grep -q 'listening on' "$work/serve.log" && break; sleep 0.02; done
	port=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\) .*/\1/p' "$work/serve.log")
	[ -n "$port" ] || { cat "$work/serve.log" >&2; exit 1; }
}
serve_stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=; }

# rate BIN: bytes/s that `BIN get` measured from the running server.
rate() {
	"$1" get -q --json --time "$SECS" "127.0.0.1:$port" | sed -n 's/.*"rate":\([0-9]*\).*/\1/p'
}

for ((r = 1; r <= ROUNDS; r++)); do
	# Alternate which binary goes first, so that drift on the shared machine evens out.
	if ((r % 2)); then order="dyn sta"; else order="sta dyn"; fi
	for which in $order; do
		bin=$DYN; [ "$which" = sta ] && bin=$STA
		serve_start "$bin"                 # serve's random data, received by the dynamic get
		echo "serve-random $which $(rate "$DYN")" >>"$work/results"
		serve_stop
		serve_start "$DYN" --source zero   # get's receive path, from the dynamic serve
		echo "get-receive $which $(rate "$bin")" >>"$work/results"
		serve_stop
	done
done

echo "$ROUNDS rounds of $SECS s each, loopback, shared 2-core machine; MiB/s"
printf '%-14s %22s %22s %8s\n' case "dynamic glibc (min-max)" "static musl (min-max)" "sta/dyn"
for test in serve-random get-receive; do
	stats() { # median min max of one column, in MiB/s
		awk -v t="$test" -v w="$1" '$1 == t && $2 == w { print $3 / 1048576 }' "$work/results" | sort -n |
			awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
				printf "%.0f %.0f %.0f\n", m, v[1], v[NR] }'
	}
	read -r dm dlo dhi <<<"$(stats dyn)"
	read -r sm slo shi <<<"$(stats sta)"
	printf '%-14s %8s (%5s-%5s) %8s (%5s-%5s) %8.2f\n' "$test" "$dm" "$dlo" "$dhi" "$sm" "$slo" "$shi" \
		"$(awk -v a="$sm" -v b="$dm" 'BEGIN { print (b > 0 ? a / b : 0) }')"
done
