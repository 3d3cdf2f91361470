#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# pv-perf.sh - Debian's pv (and PV2, e.g. a pv 1.10.5 build) against `ncpv pv`, side by side and
# interleaved, in five set-ups: /dev/zero -> /dev/null, dd | X | dd through pipes, a TCP socket ->
# pipe, and line mode on a file of text lines (-l) and on a file of NUL bytes (-0, a line per byte).
# Usage: [PV=pv] [PV2=/path/to/pv-1.10.5] bench/pv-perf.sh [ROUNDS] [MIB] [LINE_MIB]
#   (defaults 7 rounds of 2048 MiB; /dev/zero -> /dev/null moves 8 times as much, being that much
#   faster; the line-mode files are LINE_MIB, default 512, MiB)
# Prints, per set-up and tool: median wall seconds (min-max), MiB/s, CPU seconds per GiB,
# and the ratio ncpv/pv of the median throughputs (>= 1.0: ncpv is at least as fast).
set -euo pipefail
export LC_ALL=C
NCPV=${NCPV:-$(cd "$(dirname "$0")/.." && pwd)/ncpv}
PV=${PV:-pv}
PV2=${PV2:-}
ROUNDS=${1:-7}
MIB=${2:-2048}
LINE_MIB=${3:-512}
BYTES=$((MIB * 1048576))
work=$(mktemp -d)
serve_pid=
trap '[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT

"$NCPV" serve --quiet --source zero --size "$BYTES" 127.0.0.1:0 2>"$work/serve.log" &
serve_pid=$!
for _ in $(seq 100); do grep -q 'listening on' "$work/serve.log" && break; sleep 0.05; done
port=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\) .*/\1/p' "$work/serve.log")
[ -n "$port" ] || { cat "$work/serve.log" >&2; exit 1; }

# The line-mode inputs: text lines (seq's, repeated) and NUL bytes.
seq 1 2000000 >"$work/seq"
: >"$work/lines"
while [ "$(stat -c %s "$work/lines")" -lt $((LINE_MIB * 1048576)) ]; do
	cat "$work/seq" >>"$work/lines"
done
truncate -s $((LINE_MIB * 1048576)) "$work/lines"
head -c $((LINE_MIB * 1048576)) /dev/zero >"$work/nul"

# run SETUP TOOL: one timed run; appends "wall user+sys" to $work/SETUP.TOOL.
run() {
	local setup=$1 tool=$2 cmd t
	case $tool in
	pv) cmd=("$PV") ;;
	pv2) cmd=("$PV2") ;;
	*) cmd=("$NCPV" pv) ;;
	esac
	t=$work/time
	case $setup in
	zero-null)
		/usr/bin/time -o "$t" -f '%e %U %S' "${cmd[@]}" -q -S -s "$((BYTES * 8))" /dev/zero >/dev/null ;;
	dd-pipe-dd)
		dd if=/dev/zero bs=1M count="$MIB" status=none |
			/usr/bin/time -o "$t" -f '%e %U %S' "${cmd[@]}" -q |
			dd of=/dev/null bs=1M status=none ;;
	socket-pipe)
		/usr/bin/time -o "$t" -f '%e %U %S' "${cmd[@]}" -q </dev/tcp/127.0.0.1/"$port" |
			dd of=/dev/null bs=1M status=none ;;
	lines)
		/usr/bin/time -o "$t" -f '%e %U %S' "${cmd[@]}" -q -l "$work/lines" >/dev/null ;;
	nul)
		/usr/bin/time -o "$t" -f '%e %U %S' "${cmd[@]}" -q -0 "$work/nul" >/dev/null ;;
	esac
	awk '{ print $1, $2 + $3 }' "$t" >>"$work/$setup.$tool"
}

setups=(zero-null dd-pipe-dd socket-pipe lines nul)
tools=(pv ncpv)
[ -n "$PV2" ] && tools=(pv pv2 ncpv)
for ((r = 1; r <= ROUNDS; r++)); do
	for s in "${setups[@]}"; do
		# Rotate who goes first, so no tool always gets the warmer cache.
		for ((i = 0; i < ${#tools[@]}; i++)); do
			run "$s" "${tools[$(((i + r) % ${#tools[@]}))]}"
		done
	done
done

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "# $ROUNDS rounds of $MIB MiB each (line modes: $LINE_MIB MiB); $(nproc) CPUs; $(uname -r); pv $($PV --version | head -1 | cut -d' ' -f2)${PV2:+; pv2 $($PV2 --version | head -1 | cut -d' ' -f2)}"
printf '%-12s %-5s %10s %17s %9s %10s\n' setup tool wall_s min-max MiB/s cpu_s/GiB
for s in "${setups[@]}"; do
	declare -A med=()
	for tool in "${tools[@]}"; do
		f=$work/$s.$tool
		m=$MIB
		[ "$s" = zero-null ] && m=$((MIB * 8))
		[ "$s" = lines ] || [ "$s" = nul ] && m=$LINE_MIB
		w=$(cut -d' ' -f1 "$f" | median)
		c=$(cut -d' ' -f2 "$f" | median)
		lo=$(cut -d' ' -f1 "$f" | sort -n | head -1)
		hi=$(cut -d' ' -f1 "$f" | sort -n | tail -1)
		med[$tool]=$w
		awk -v s="$s" -v t="$tool" -v w="$w" -v lo="$lo" -v hi="$hi" -v c="$c" -v m="$m" \
			'BEGIN { printf "%-12s %-5s %10.3f %8.3f-%-8.3f %9.0f %10.3f\n", s, t, w, lo, hi, (w > 0 ? m / w : 0), c * 1024 / m }'
	done
	awk -v s="$s" -v a="${med[pv]}" -v b="${med[ncpv]}" 'BEGIN { printf "%-12s ratio ncpv/pv throughput = %.2f\n", s, (b > 0 ? a / b : 0) }'
	[ -n "$PV2" ] && awk -v s="$s" -v a="${med[pv2]}" -v b="${med[ncpv]}" 'BEGIN { printf "%-12s ratio ncpv/pv2 throughput = %.2f\n", s, (b > 0 ? a / b : 0) }'
	unset med
done
