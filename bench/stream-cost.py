#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# stream-cost.py - one TCP stream on loopback, where its CPU goes: each tool's rate (its own
# report) with the sender's and the receiver's CPU seconds per GiB apart, in interleaved
# rounds, medians and spread (max - min over the median). The variants separate what each
# tool sends and which way: ncpv serve's fresh random bytes, its zeros (-S zero) and a file
# (sendfile, repeated up to -s 1T), iperf3 and iperf2 uploading one buffer written again and again (their default),
# and iperf3 -R, which downloads as ncpv get does.
# usage: bench/stream-cost.py [SECONDS] [ROUNDS] [P]   (defaults: 3 s, 3 rounds, 1 stream)
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
NCPV = os.environ.get("NCPV", os.path.join(HERE, "..", "ncpv"))
SECS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
P = sys.argv[3] if len(sys.argv) > 3 else "1"
TICK = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proc_cpu(pid):
    """User + system seconds of pid (fields 14 and 15 of /proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def wait_listening(port, proc, bound=5.0):
    """Until something listens on 127.0.0.1:port (a connect succeeds), at most bound seconds."""
    until = time.monotonic() + bound
    while time.monotonic() < until and proc.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.02)
    sys.exit(f"stream-cost.py: the server on port {port} did not start")


def ncpv_bytes(out):
    doc = json.loads(out.splitlines()[-1])
    return doc["bytes"], doc["seconds"]


def iperf3_bytes(out):
    end = json.loads(out)["end"]["sum_received"]
    return end["bytes"], end["seconds"]


def iperf2_bytes(out):
    last = out.strip().splitlines()[-1].split(",")  # the sum line, or the only stream's
    start, stop = (float(x) for x in last[6].split("-"))
    return int(last[7]), stop - start


def main():
    scratch = tempfile.mkdtemp(prefix="stream-cost.")
    blob = os.path.join(scratch, "blob")
    with open(blob, "wb") as f:
        f.write(os.urandom(4 << 20))
    # name: (server argv, client argv, parser, which end sends)
    ports = {k: free_port() for k in ("random", "zero", "file", "iperf3", "iperf2")}
    n = lambda k: [NCPV, "serve", "-q", "127.0.0.1:%d" % ports[k]]
    get = lambda k: [NCPV, "get", "-q", "-j", "-P", P, "-t", str(SECS), "127.0.0.1:%d" % ports[k]]
    i3 = ["iperf3", "-c", "127.0.0.1", "-p", str(ports["iperf3"]), "-P", P, "-t", str(SECS), "-J"]
    variants = {
        "ncpv (random)": (n("random"), get("random"), ncpv_bytes, "server"),
        "ncpv -S zero": (n("zero") + ["-S", "zero"], get("zero"), ncpv_bytes, "server"),
        "ncpv -S file": (n("file") + ["-S", blob, "-s", "1T"], get("file"), ncpv_bytes, "server"),
        "iperf3": (["iperf3", "-s", "-B", "127.0.0.1", "-p", str(ports["iperf3"])], i3, iperf3_bytes, "client"),
        "iperf3 -R": (None, i3 + ["-R"], iperf3_bytes, "server"),
        "iperf2": (["iperf", "-s", "-B", "127.0.0.1", "-p", str(ports["iperf2"])],
                   ["iperf", "-c", "127.0.0.1", "-p", str(ports["iperf2"]), "-P", P, "-t", str(SECS), "-y", "C"],
                   iperf2_bytes, "client"),
    }
    servers = {}
    try:
        for name, (srv, _, _, _) in variants.items():
            if srv is None:
                continue
            if shutil.which(srv[0]) is None:
                sys.exit(f"stream-cost.py: needs {srv[0]}")
            servers[name] = subprocess.Popen(srv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            port = int(srv[srv.index("-p") + 1]) if srv[0] != NCPV else int(srv[3].rsplit(":", 1)[1])
            wait_listening(port, servers[name])
        servers["iperf3 -R"] = servers["iperf3"]
        rows = {name: [] for name in variants}
        load0 = open("/proc/loadavg").read().split()[:3]
        for _ in range(ROUNDS):
            for name, (_, cli, parse, sender) in variants.items():
                spid = servers[name].pid
                s0 = proc_cpu(spid)
                c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                out = subprocess.run(cli, capture_output=True, text=True, check=True).stdout
                c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                s1 = proc_cpu(spid)
                nbytes, secs = parse(out)
                gib = nbytes / (1 << 30)
                ccpu = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
                scpu = s1 - s0
                snd, rcv = (scpu, ccpu) if sender == "server" else (ccpu, scpu)
                rows[name].append((nbytes * 8 / secs / 1e9, snd / gib, rcv / gib))
        load1 = open("/proc/loadavg").read().split()[:3]
        print(f"# {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}, {os.cpu_count()} cores, P={P}, "
              f"{SECS} s runs x {ROUNDS} interleaved, load {' '.join(load0)} before, {' '.join(load1)} after")
        print(f"{'variant':<15} {'Gbit/s':>7} {'spread':>7} {'send s/GiB':>10} {'recv s/GiB':>10} {'sum':>6}")
        for name, runs in rows.items():
            rate = [r[0] for r in runs]
            med = statistics.median(rate)
            snd = statistics.median(r[1] for r in runs)
            rcv = statistics.median(r[2] for r in runs)
            print(f"{name:<15} {med:7.2f} {(max(rate) - min(rate)) / med * 100:6.0f}% {snd:10.3f} {rcv:10.3f} "
                  f"{snd + rcv:6.3f}")
    finally:
        for p in set(servers.values()):
            p.terminate()
            p.wait()
        shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
