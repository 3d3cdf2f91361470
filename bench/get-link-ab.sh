#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# get-link-ab.sh - two ncpv gets (BEFORE and AFTER a change) downloading through one `ncpv link`
# session, beside iperf2 and iperf3 downloading (-R), interleaved round after round at each -P:
# every client against its own server at the link's near end (AFTER's serve, iperf -s,
# iperf3 -s). Per run the client's rate (its own report) and its CPU (user+sys from
# /usr/bin/time) per GiB; then per tool and P the median, min and max. The clients' CPU is the
# point: through the link's TUN devices each segment comes alone, and the servers are the same
# for both gets. LINK options default to 1 Gbit/s and a 20 ms round trip.
# usage: bench/get-link-ab.sh BEFORE AFTER [SECONDS] [ROUNDS] [P,...] [-- LINK_OPTION...]
#        e.g. bench/get-link-ab.sh /tmp/ncpv-before build/ncpv 3 5 1,2,4
set -u
export LC_ALL=C
[ $# -ge 2 ] || { echo "usage: bench/get-link-ab.sh BEFORE AFTER [SECONDS] [ROUNDS] [P,...] [-- LINK_OPTION...]" >&2; exit 2; }
B=$(realpath "$1") A=$(realpath "$2") S=${3:-3} R=${4:-5} PS=${5:-1,2,4}
shift $(($# > 5 ? 5 : $#))
[ "${1:-}" = -- ] && shift
LINK=("$@")
[ ${#LINK[@]} -gt 0 ] || LINK=(--rate 1gbit --delay 10ms)
for t in iperf iperf3; do command -v $t >/dev/null || { echo "get-link-ab.sh: needs $t" >&2; exit 1; }; done
# The link's ends see the caller's files but not its /tmp: the scratch folder is under $PWD.
D=$(mktemp -d "$PWD/.get-link-ab.XXXXXX")
trap 'rm -rf "$D"' EXIT
near=10.231.0.1
cat >"$D/near.sh" <<NEAR
"$A" serve -q $near:6666 & iperf -s -B $near -p 5001 >/dev/null 2>&1 & iperf3 -s -B $near -p 5201 >/dev/null 2>&1 &
wait
NEAR
cat >"$D/far.sh" <<FAR
run() { local name=\$1 p=\$2 r=\$3; shift 3
	/usr/bin/time -o "$D/time" -f "%U %S" "\$@" >"$D/\$name.\$p.\$r.out" 2>&1
	echo "\$name \$p \$r \$(cat "$D/time")" >>"$D/cpu"; sleep 0.3; }
sleep 0.5 # every server listening, not only the first
for ((r = 1; r <= $R; r++)); do for p in ${PS//,/ }; do
	run before \$p \$r "$B" get -P \$p -t $S -q -j $near:6666
	run after \$p \$r "$A" get -P \$p -t $S -q -j $near:6666
	run iperf2 \$p \$r iperf -c $near -p 5001 -R -P \$p -t $S -f k
	run iperf3 \$p \$r iperf3 -c $near -p 5201 -R -P \$p -t $S -J
done; done
FAR
echo "# $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) before; ncpv link ${LINK[*]}; $S s runs x $R"
"$A" link -v "${LINK[@]}" --near "bash $D/near.sh" -- bash "$D/far.sh" 2>&1 | grep -E 'link: (down|up|delay)'
echo "# load $(cut -d' ' -f1-3 /proc/loadavg) after"
python3 - "$D" <<'PY'
import json, re, statistics as st, sys
d = sys.argv[1]
rows = {}
for line in open(d + "/cpu"):
    name, p, r, u, s = line.split()
    t = open(f"{d}/{name}.{p}.{r}.out").read()
    try:
        if name in ("before", "after"):
            j = [json.loads(x) for x in t.splitlines() if x.startswith("{")][-1]
            j = j.get("sum", j)
            nbytes, mbit = j["bytes"], j["bytes"] * 8 / j["seconds"] / 1e6
        elif name == "iperf3":
            e = json.loads(t)["end"]["sum_received"]
            nbytes, mbit = e["bytes"], e["bits_per_second"] / 1e6
        else:
            kb, kbps = re.findall(r"sec\s+([\d.]+) KBytes\s+([\d.]+) Kbits/sec", t)[-1]
            nbytes, mbit = float(kb) * 1024, float(kbps) / 1e3
    except (ValueError, IndexError, KeyError):
        print(f"# {name} P={p} round {r}: no figures", file=sys.stderr)
        continue
    rows.setdefault((int(p), name), []).append((mbit, (float(u) + float(s)) / (nbytes / 2**30)))
print(f"{'P':>2} {'client':8} {'Mbit/s':>7} {'min':>6} {'max':>6} {'cpu s/GiB':>10} {'min':>6} {'max':>6}  runs")
for (p, name), v in sorted(rows.items(), key=lambda kv: (kv[0][0], ["before", "after", "iperf2", "iperf3"].index(kv[0][1]))):
    m, c = [x[0] for x in v], [x[1] for x in v]
    print(f"{p:>2} {name:8} {st.median(m):7.0f} {min(m):6.0f} {max(m):6.0f} {st.median(c):10.2f} {min(c):6.2f} {max(c):6.2f}  {len(v)}")
PY
