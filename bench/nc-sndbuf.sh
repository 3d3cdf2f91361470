#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# nc-sndbuf.sh - a client with a small fixed send buffer (-O) sending a file on loopback:
# `ncpv nc -N -O LEN` against `nc.openbsd -N -O LEN` (and an older ncpv with OLD=path), each
# into the same `ncpv nc -l` receiver, interleaved. Time = client start to receiver exit with
# every byte counted. Prints per-contender median, min, max and the ratio of the medians.
# usage: bench/nc-sndbuf.sh [ROUNDS] [MBYTES] [LEN]   (defaults: 5 rounds, 40 MB, -O 8192)
set -euo pipefail
export LC_ALL=C
NCPV=${NCPV:-$(cd "$(dirname "$0")/.." && pwd)/ncpv}
ROUNDS=${1:-5}
MBYTES=${2:-40}
LEN=${3:-8192}
command -v nc.openbsd >/dev/null || { echo "nc-sndbuf.sh: needs nc.openbsd" >&2; exit 1; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
head -c "$((MBYTES * 1000000))" /dev/urandom >"$dir/data"
contenders=(ncpv nc)
[ -n "${OLD:-}" ] && contenders+=(old)
client_of() { case $1 in ncpv) echo "$NCPV nc" ;; old) echo "$OLD nc" ;; nc) echo nc.openbsd ;; esac; }

one_run() {
	local c=$1 log=$dir/log port start end got
	: >"$log"
	"$NCPV" nc -lv 127.0.0.1 0 2>"$log" | wc -c >"$dir/count" &
	local rpid=$!
	for _ in $(seq 200); do grep -q '^Listening on' "$log" && break; sleep 0.05; done
	port=$(sed -n 's/^Listening on [^ ]* \([0-9]*\)$/\1/p' "$log")
	start=$EPOCHREALTIME
	# shellcheck disable=SC2046 # the client command is two words for ncpv
	$(client_of "$c") -N -O "$LEN" 127.0.0.1 "$port" <"$dir/data"
	wait "$rpid"
	end=$EPOCHREALTIME
	got=$(cat "$dir/count")
	[ "$got" = "$((MBYTES * 1000000))" ] || { echo "nc-sndbuf.sh: $c delivered $got bytes" >&2; exit 1; }
	echo "$c $start $end" >>"$dir/results"
}

echo "# $ROUNDS rounds, $MBYTES MB, client -N -O $LEN, receiver ncpv nc -l; $(nproc) cores, shared machine"
for ((r = 0; r < ROUNDS; r++)); do
	for ((k = 0; k < ${#contenders[@]}; k++)); do
		one_run "${contenders[$(((r + k) % ${#contenders[@]}))]}"
	done
done
python3 - "$dir/results" <<'PY'
import statistics, sys
secs = {}
for line in open(sys.argv[1]):
    c, a, b = line.split()
    secs.setdefault(c, []).append(float(b) - float(a))
med = {c: statistics.median(v) for c, v in secs.items()}
print("%-6s %9s %9s %9s %5s" % ("client", "median", "min", "max", "runs"))
for c, v in secs.items():
    print("%-6s %8.3fs %8.3fs %8.3fs %5d" % (c, med[c], min(v), max(v), len(v)))
for c in med:
    if c != "nc":
        print("ratio %s / nc = %.2f" % (c, med[c] / med["nc"]))
PY
