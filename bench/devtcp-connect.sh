#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# devtcp-connect.sh - what one connection costs when a shell opens /dev/tcp/HOST/PORT:
# bash's built-in redirection; the same bash loop through the library (from /dev, the
# relative name tcp/HOST/PORT is one bash does not handle itself, so open() gets it); dash
# under `ncpv devtcp`; and a netcat process per connection (the seed's traditional way).
# Each makes COUNT connect+close to `ncpv serve --discard` on loopback, interleaved over
# ROUNDS rounds. Prints medians, min-max, ratios to bash's own.
# Usage: bench/devtcp-connect.sh [COUNT] [ROUNDS]   (from the repository root, after make)
set -euo pipefail
export LC_ALL=C
count=${1:-2000}
rounds=${2:-7}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
./ncpv serve --discard --quiet 127.0.0.1:0 2>"$work/serve.log" &
serve=$!
trap 'kill "$serve"; wait "$serve" 2>/dev/null; rm -rf "$work"' EXIT
for ((i = 0; i < 250; i++)); do
	port=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\) .*/\1/p' "$work/serve.log")
	[ -n "$port" ] && break
	sleep 0.02
done
[ -n "$port" ] || { echo "serve did not start" >&2; exit 1; }

loop='i=0; while [ $i -lt $1 ]; do exec 3<>$3/127.0.0.1/$2; exec 3<&-; i=$((i + 1)); done'
run_variant() {
	case $1 in
	bash) bash -c "$loop" sh "$count" "$port" /dev/tcp ;;
	bash-devtcp) (cd /dev && "$ncpv" devtcp bash -c "$loop" sh "$count" "$port" tcp) ;;
	dash-devtcp) ./ncpv devtcp dash -c "$loop" sh "$count" "$port" /dev/tcp ;;
	nc-process) bash -c 'i=0; while [ $i -lt $1 ]; do nc -z 127.0.0.1 $2; i=$((i + 1)); done' sh "$count" "$port" ;;
	esac
}
ncpv=$PWD/ncpv
variants=(bash bash-devtcp dash-devtcp nc-process)
for ((r = 0; r < rounds; r++)); do
	for ((k = 0; k < ${#variants[@]}; k++)); do
		v=${variants[(k + r) % ${#variants[@]}]} # rotate the order each round
		t0=$(date +%s%N)
		run_variant "$v"
		t1=$(date +%s%N)
		echo "$v $(((t1 - t0) / count))" >>"$work/results"
	done
done

printf '%-12s %-26s %s\n' way "us/connection, median (min-max)" "ratio to bash"
base=
for v in "${variants[@]}"; do
	read -r m lo hi <<<"$(awk -v v="$v" '$1 == v { print $2 / 1000 }' "$work/results" | sort -g |
		awk '{ a[NR] = $1 } END { m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2;
			printf "%.1f %.1f %.1f\n", m, a[1], a[NR] }')"
	base=${base:-$m}
	printf '%-12s %-26s %.2f\n' "$v" "$m ($lo-$hi)" "$(awk -v a="$m" -v b="$base" 'BEGIN { print a / b }')"
done
echo "($rounds rounds of $count connections each, rotated order; $(nproc) cores, $(uname -r))"
