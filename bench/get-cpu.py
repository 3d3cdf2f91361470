#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# get-cpu.py - CPU seconds (user + system) that builds of `ncpv get` spend on fixed jobs, one per
# sink path and the upload, in interleaved rounds; steadier than throughput on a loaded machine.
# Usage: bench/get-cpu.py ROUNDS BEFORE AFTER   (the servers come from BEFORE; loopback only)
import math
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def mann_whitney_p(a, b):
    """Two-sided p of the Mann-Whitney U test, normal approximation with mid-ranks."""
    pooled = sorted((v, i) for i, v in enumerate(a + b))
    ranks = [0.0] * len(pooled)
    i = 0
    while i < len(pooled):
        j = i
        while j + 1 < len(pooled) and pooled[j + 1][0] == pooled[i][0]:
            j += 1
        for k in range(i, j + 1):
            ranks[pooled[k][1]] = (i + j) / 2 + 1
        i = j + 1
    n1, n2 = len(a), len(b)
    u = sum(ranks[:n1]) - n1 * (n1 + 1) / 2
    sd = math.sqrt(n1 * n2 * (n1 + n2 + 1) / 12)
    return math.erfc(abs(u - n1 * n2 / 2) / sd / math.sqrt(2)) if sd else 1.0


def main():
    rounds, bins = int(sys.argv[1]), sys.argv[2:4]
    tmp = tempfile.mkdtemp(prefix="ncpv-get-cpu.")
    servers = []

    def serve(*args):
        log = open(os.path.join(tmp, "serve%d" % len(servers)), "w+")
        servers.append(subprocess.Popen([bins[0], "serve", "--quiet", *args, "127.0.0.1:0"], stderr=log))
        for _ in range(250):
            log.seek(0)
            m = re.search(r":(\d+) \(", log.read())
            if m:
                return "127.0.0.1:" + m.group(1)
            time.sleep(0.02)
        sys.exit("serve did not start")

    endless, files, sink = serve(), serve("--size", "4K"), serve("--discard")
    out = os.path.join(tmp, "out")
    jobs = {
        "discard 2 GiB": ["-b", "2G", endless],
        "copy 1 GiB to /dev/null": ["-b", "1G", "-o", "-", endless],
        "splice 1 GiB into a pipe": ["-b", "1G", "-o", "-", endless],
        "piped splice 512 MiB to a file": ["-b", "512M", "-o", out, endless],
        "upload 1 GiB of zeros": ["--send", "--source", "zero", "-b", "1G", sink],
        "20000 files, 16 at a time": ["--count", "20000", "--parallel", "16", files],
    }
    cpu = {(j, b): [] for j in jobs for b in bins}
    try:
        for _ in range(rounds):
            for job, args in jobs.items():
                for b in bins:
                    before = resource.getrusage(resource.RUSAGE_CHILDREN)
                    if job.startswith("splice"):
                        get = subprocess.Popen([b, "get", "-q", *args], stdout=subprocess.PIPE)
                        cat = subprocess.Popen(["cat"], stdin=get.stdout, stdout=subprocess.DEVNULL)
                        get.stdout.close()
                        get.wait()
                        after = resource.getrusage(resource.RUSAGE_CHILDREN)
                        cat.wait()
                    else:
                        subprocess.run([b, "get", "-q", *args], stdout=subprocess.DEVNULL, check=True)
                        after = resource.getrusage(resource.RUSAGE_CHILDREN)
                    cpu[(job, b)].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
                    if os.path.exists(out):
                        os.unlink(out)
    finally:
        for s in servers:
            s.terminate()
            s.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print("| job | before (s) | after (s) | after/before | Mann-Whitney p |")
    print("|---|---|---|---|---|")
    for job in jobs:
        a, b = cpu[(job, bins[0])], cpu[(job, bins[1])]
        ma, mb = statistics.median(a), statistics.median(b)
        print("| %s | %.3f | %.3f | %.3f | %.2f |" % (job, ma, mb, mb / ma, mann_whitney_p(a, b)))


if __name__ == "__main__":
    main()
