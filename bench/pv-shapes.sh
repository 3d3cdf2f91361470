#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# pv-shapes.sh - `ncpv pv -q` against pv 1.10.5 (PV2) and Debian's pv (PV), side by side and
# interleaved, in every input/output shape: input from a file, a pipe or a TCP socket; output to
# a file, a pipe, /dev/null or a TCP socket.
# Usage: PV2=/path/to/pv-1.10.5 [PV=/usr/bin/pv] [SHAPES="pipe>null socket>null"] bench/pv-shapes.sh [ROUNDS] [MIB]
#   (defaults 5 rounds of 512 MiB per run, every shape; a tool that is not there is left out)
# Each round runs every shape with every tool in turn (the tools' order rotates per round), so
# load from elsewhere falls on all of them alike. Prints per shape and tool: median wall seconds,
# the spread (min-max), the pv process's median CPU seconds (user+sys), and the ratios
# pv-1.10.5/ncpv of the median wall time and of the median CPU time (>= 1.00: ncpv at least as fast).
set -euo pipefail
export LC_ALL=C
NCPV=${NCPV:-$(cd "$(dirname "$0")/.." && pwd)/build/ncpv}
PV=${PV:-/usr/bin/pv}
PV2=${PV2:-}
ROUNDS=${1:-5}
MIB=${2:-512}
BYTES=$((MIB * 1048576))
work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$work"' EXIT

tools=(ncpv)
[ -n "$PV2" ] && [ -x "$PV2" ] && tools+=(pv110)
[ -x "$PV" ] && tools+=(pv16)

# start_server NAME ARGS...: an ncpv serve on 127.0.0.1:0; its port into $port.
start_server() {
	local name=$1
	shift
	"$NCPV" serve --quiet "$@" 127.0.0.1:0 >/dev/null 2>"$work/$name.log" &
	pids+=($!)
	for _ in $(seq 200); do grep -q 'listening on' "$work/$name.log" && break; sleep 0.05; done
	port=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\) .*/\1/p' "$work/$name.log")
	[ -n "$port" ] || { cat "$work/$name.log" >&2; exit 1; }
}
start_server source --source zero --size "$BYTES"
src_port=$port
start_server sink --discard
sink_port=$port
head -c "$BYTES" /dev/zero >"$work/in"

INS=(file pipe socket)
OUTS=(file pipe null socket)
SHAPES=${SHAPES:-}
# wanted IN OUT: whether SHAPES (space-separated IN>OUT) asks for this shape (empty: all).
wanted() { [ -z "$SHAPES" ] || [[ " $SHAPES " == *" $1>$2 "* ]]; }

# run TOOL IN OUT: one timed run; appends "wall cpu" to $work/IN-OUT.TOOL.
run() {
	local tool=$1 in=$2 out=$3 cmd t s e
	case $tool in
	ncpv) cmd=("$NCPV" pv -q) ;;
	pv110) cmd=("$PV2" -q) ;;
	pv16) cmd=("$PV" -q) ;;
	esac
	t=$work/time
	# The input on fd 3, the output on fd 4, set up before the clock starts where they can be.
	case $in in
	file) exec 3<"$work/in" ;;
	socket) exec 3<>/dev/tcp/127.0.0.1/"$src_port" ;;
	esac
	case $out in
	# A fresh file, the last one's dirty pages written out first: otherwise the write-back of
	# one run's 256 MiB lands on the next run, whichever tool that is (spreads of 10x).
	file) rm -f "$work/out"; sync -f "$work"; exec 4>"$work/out" ;;
	null) exec 4>/dev/null ;;
	socket) exec 4<>/dev/tcp/127.0.0.1/"$sink_port" ;;
	esac
	s=$(date +%s%N)
	case $in-$out in
	pipe-pipe) cat "$work/in" | /usr/bin/time -o "$t" -f '%U %S' "${cmd[@]}" | cat >/dev/null ;;
	pipe-*) cat "$work/in" | /usr/bin/time -o "$t" -f '%U %S' "${cmd[@]}" >&4 ;;
	*-pipe) /usr/bin/time -o "$t" -f '%U %S' "${cmd[@]}" <&3 | cat >/dev/null ;;
	*) /usr/bin/time -o "$t" -f '%U %S' "${cmd[@]}" <&3 >&4 ;;
	esac
	e=$(date +%s%N)
	exec 3<&- 4>&-
	awk -v w="$(( (e - s) / 1000 ))" '{ printf "%.3f %.3f\n", w / 1e6, $1 + $2 }' "$t" >>"$work/$in-$out.$tool"
}

echo "# $ROUNDS rounds of $MIB MiB; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg); $(uname -r)"
echo "# ncpv: $("$NCPV" pv --version | head -1); pv110: ${PV2:-none}; pv16: $([ -x "$PV" ] && "$PV" --version | head -1)"
for r in $(seq "$ROUNDS"); do
	for in in "${INS[@]}"; do
		for out in "${OUTS[@]}"; do
			wanted "$in" "$out" || continue
			n=${#tools[@]}
			for k in $(seq 0 $((n - 1))); do
				run "${tools[$(((k + r) % n))]}" "$in" "$out"
			done
		done
	done
done

# median FILE COLUMN
median() { cut -d' ' -f"$2" "$1" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
spread() { cut -d' ' -f"$2" "$1" | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo, hi }'; }

printf '%-14s %-6s %8s %12s %8s   %s\n' shape tool wall spread cpu "pv110/ncpv wall, cpu"
for in in "${INS[@]}"; do
	for out in "${OUTS[@]}"; do
		wanted "$in" "$out" || continue
		f=$work/$in-$out
		for tool in "${tools[@]}"; do
			ratio=
			if [ "$tool" = pv110 ]; then
				ratio=$(awk -v a="$(median "$f.pv110" 1)" -v b="$(median "$f.ncpv" 1)" \
					-v c="$(median "$f.pv110" 2)" -v d="$(median "$f.ncpv" 2)" \
					'BEGIN { printf "%.2f, %.2f", a / b, (d > 0 ? c / d : 0) }')
			fi
			printf '%-14s %-6s %8.2f %12s %8.2f   %s\n' "$in>$out" "$tool" "$(median "$f.$tool" 1)" \
				"$(spread "$f.$tool" 1)" "$(median "$f.$tool" 2)" "$ratio"
		done
	done
done
