#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# updown-link.sh - two ncpv binaries (BEFORE and AFTER a change) through `ncpv link`, interleaved:
# a download (serve -> get), an upload (get --send -> serve --discard), iperf2 uploading to each
# serve --discard (serve's receiving alone), and iperf2 against its own server as the reference.
# Each line: the rate and the server's CPU seconds (user+sys, from bench/cpuwrap.py), and the
# delay line's CPU seconds. LINK options default to a 1 Gbit/s, 20 ms round-trip link.
# usage: bench/updown-link.sh BEFORE AFTER [SECONDS] [ROUNDS] [-- LINK_OPTION...]
#        e.g. bench/updown-link.sh /tmp/ncpv-before build/ncpv 4 3
set -u
export LC_ALL=C
[ $# -ge 2 ] || { echo "usage: bench/updown-link.sh BEFORE AFTER [SECONDS] [ROUNDS] [-- LINK_OPTION...]" >&2; exit 2; }
B=$1 A=$2 S=${3:-4} R=${4:-3}
shift $(($# > 4 ? 4 : $#))
[ "${1:-}" = -- ] && shift
LINK=("$@")
[ ${#LINK[@]} -gt 0 ] || LINK=(--rate 1gbit --delay 10ms)
command -v iperf >/dev/null || { echo "updown-link.sh: needs iperf (iperf2)" >&2; exit 1; }
near=10.231.0.1
out=$(mktemp)
# The near end's mount namespace sees the caller's files, not its /tmp: the CPU figure goes here.
tm=$PWD/.updown-cpu.$$
trap 'rm -f "$out" "$tm"' EXIT
wrap() { echo "$(cd "$(dirname "$0")" && pwd)/cpuwrap.py $tm $1"; }

# one LABEL BIN MODE: a run through the link; prints its line.
one() {
	local lab=$1 bin=$2 mode=$3 srv cli rate
	case $mode in
	down) srv="$(wrap "$bin serve -q $near:6666")" cli="$bin get -q -j -t $S $near:6666" ;;
	up) srv="$(wrap "$bin serve -q --discard $near:6666")" cli="$bin get --send -q -j -t $S $near:6666" ;;
	iperf2-in) srv="$(wrap "$bin serve -q --discard $near:6666")" cli="iperf -c $near -p 6666 -t $S -y C" ;;
	iperf2) srv="$(wrap "iperf -s -B $near -p 6666")" cli="iperf -c $near -p 6666 -t $S -y C" ;;
	esac
	: >"$tm"
	# shellcheck disable=SC2086
	"$B" link -v "${LINK[@]}" --near "$srv" -- $cli >"$out" 2>&1
	case $mode in
	iperf2*) rate=$(grep -E '^[0-9]{14},' "$out" | tail -1 | cut -d, -f9 | awk '{ print $1 / 1e6 }') ;;
	*) rate=$(grep -o '"rate":[0-9.e+]*' "$out" | head -1 | cut -d: -f2 | awk '{ print $1 * 8 / 1e6 }') ;;
	esac
	sleep 0.3 # the near end's last words (cpuwrap.py writes after its server ended)
	printf '%-7s %-9s %6.0f Mbit/s  server cpu %5s s  line cpu %5s s\n' "$lab" "$mode" "${rate:-0}" \
		"$(cat "$tm" 2>/dev/null || echo ?)" "$(grep 'delay line cpu' "$out" | awk '{ print $6 + $8 }')"
}

echo "# $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); ncpv link ${LINK[*]}; $S s runs x $R"
for ((r = 0; r < R; r++)); do
	for mode in down up iperf2-in; do
		one before "$B" "$mode"
		one after "$A" "$mode"
	done
	one iperf2 "$A" iperf2
done
