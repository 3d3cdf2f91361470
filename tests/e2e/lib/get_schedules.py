#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# get_schedules.py - property test of get's waits and receive paths: generated server schedules
# (silent, trickle, endless, closes early, resets, exactly N then FIN, random chunkings and delays)
# against single-stream, -o FILE, --send and --count/--parallel runs. For every case: get ends
# within its bound (-w idle timeout, --time), its exit status says whether every byte arrived,
# and -o FILE is byte-exact or still holds its old contents. Never a hang.
# Usage: get_schedules.py NCPV [BUDGET_SECONDS]; NCPV_SCHEDULE_SEED=N replays a run.
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import get_peer  # noqa: E402

NCPV = sys.argv[1]
BUDGET = float(sys.argv[2]) if len(sys.argv) > 2 else 45.0
SEED = int(os.environ.get("NCPV_SCHEDULE_SEED", random.randrange(1 << 30)))
rng = random.Random(SEED)
W = 1.0          # get -w: the idle bound every case runs under
SHORT = 0.15     # a pause well inside W
LONG = 2.5       # a pause well past W
SLACK = 12.0 if os.environ.get("NCPV_VALGRIND") else 4.0  # start-up, a loaded machine, valgrind


def chunked_send(n):
    """A send step of n bytes in random pieces with short random gaps."""
    chunk = rng.choice([1, 7, 512, 4096, 65536, 1 << 20])
    chunk = max(chunk, n // 2000)  # the fake server is Python: keep its own pace out of the bound
    steps = max(1, n // chunk)
    delay = 0 if steps > 20 else rng.choice([0, 0, 0.01, SHORT])
    return ["send", n, chunk, delay]


def schedule():
    """(name, steps, expect) where expect is 'whole', 'timeout', 'reset' or 'endless'."""
    n = rng.choice([0, 1, 4095, 4096, 65537, 1 << 20, 3000001])
    kind = rng.choice(["whole", "whole", "gap", "silent", "reset", "trickle", "endless"])
    if kind == "whole":
        return kind, [chunked_send(n), ["fin"]], "whole"
    if kind == "trickle":
        return kind, [["send", 5, 1, SHORT], ["fin"]], "whole"
    if kind == "gap":
        return kind, [chunked_send(n), ["sleep", LONG], ["send", 10, 10, 0], ["fin"]], "timeout"
    if kind == "silent":
        return kind, [["hold"]], "timeout"
    if kind == "reset":
        return kind, [chunked_send(max(n, 1)), ["sleep", 0.3], ["reset"]], "reset"
    return kind, [["endless", rng.choice([1, 4096, 65536])]], "endless"


def run(args, bound):
    t0 = time.monotonic()
    try:
        p = subprocess.run([NCPV, "get"] + args, capture_output=True, timeout=bound + 10)
    except subprocess.TimeoutExpired:
        return None, b"", b"", time.monotonic() - t0
    return p.returncode, p.stdout, p.stderr, time.monotonic() - t0


def summary(out):
    for line in out.decode(errors="replace").splitlines():
        if line.startswith("{"):
            return json.loads(line)
    return {}


def check_single(case, mode, fail):
    name, steps, expect = schedule()
    server = get_peer.Server(steps, seed=case)
    want = get_peer.expected(case, steps)
    tdir = scratch()
    out = os.path.join(tdir, "out")
    args = ["-q", "--json", "-w", str(W)]
    duration = None
    if expect == "endless" or rng.random() < 0.15:
        duration = rng.choice([0.3, 0.8])
        args += ["-t", str(duration)]
    if mode == "file":
        with open(out, "wb") as f:
            f.write(b"old contents\n")
        args += ["-o", out]
    bound = (duration if duration else 0) + W + SLACK
    bound += sum(s[1] for s in steps if s[0] == "sleep")
    bound += sum(s[3] * max(1, s[1] // s[2]) for s in steps if s[0] == "send")
    rc, so, se, took = run(args + ["127.0.0.1:%d" % server.port], bound)
    server.stop()
    what = "case %d (%s, %s, %s)" % (case, mode, name, " ".join(args))
    if rc is None:
        return fail("%s: get hung (> %.1f s)" % (what, bound + 10))
    if took > bound:
        fail("%s: took %.1f s, bound %.1f s" % (what, took, bound))
    s = summary(so)
    if duration and rc == 0 and s.get("ended") == "time":
        got = s["bytes"]
        if mode == "file" and open(out, "rb").read() != get_peer.stream_bytes(case, 0, got):
            fail("%s: -o is not the %d bytes get reported" % (what, got))
        return
    if expect == "whole":
        if rc != 0 or s.get("bytes") != len(want):
            return fail("%s: exit %s, %s bytes of %d: %s" % (what, rc, s.get("bytes"), len(want), se))
        if mode == "file" and hashlib.sha256(open(out, "rb").read()).digest() != hashlib.sha256(want).digest():
            fail("%s: -o output differs from what was sent" % what)
        return
    code = {"timeout": 5, "reset": 1, "endless": 0}[expect]
    if rc != code:
        fail("%s: exit %s, expected %d: %s" % (what, rc, code, se))
    if mode == "file" and open(out, "rb").read() != b"old contents\n":
        fail("%s: a failed transfer changed -o FILE" % what)
    if mode == "file" and [f for f in os.listdir(tdir) if f != "out"]:
        fail("%s: a temporary file was left behind" % what)


def check_send(case, fail):
    size = rng.choice([0, 1, 65537, 1 << 20, 5000000])
    kind = rng.choice(["drain", "drain", "slow", "hold", "reset"])
    steps = {"drain": [["drain", rng.choice([1024, 65536]), 0]],
             "slow": [["drain", 65536, 0.002]],
             "hold": [["hold"]],
             "reset": [["sleep", 0.2], ["reset"]]}[kind]
    server = get_peer.Server(steps)
    tdir = scratch()
    src = os.path.join(tdir, "src")
    with open(src, "wb") as f:
        f.write(os.urandom(size))
    args = ["-q", "--json", "-w", str(W), "--send", "--source", src]
    bound = W + SLACK + (size / 65536 * 0.002 * 3 if kind == "slow" else 0)
    rc, so, se, took = run(args + ["127.0.0.1:%d" % server.port], bound)
    time.sleep(0.05)
    server.stop()
    what = "case %d (send %s, %d bytes)" % (case, kind, size)
    if rc is None:
        return fail("%s: get hung" % what)
    if took > bound:
        fail("%s: took %.1f s, bound %.1f s" % (what, took, bound))
    got = summary(so).get("bytes")
    if kind in ("drain", "slow"):
        received = server.report[0]["received"] if server.report else None
        if rc != 0 or got != size or received != size:
            fail("%s: exit %s, get says %s, server read %s: %s" % (what, rc, got, received, se))
    elif kind == "hold" and rc != 5:
        fail("%s: exit %s, expected 5" % (what, rc))
    elif rc == 0 and kind == "reset" and size > 0:
        fail("%s: exit 0 although the server reset before reading" % what)


def check_count(case, fail):
    n, par = rng.choice([1, 3, 20]), rng.choice([1, 2, 8])
    name, steps, expect = rng.choice([
        ("whole", [chunked_send(rng.choice([0, 100, 4096, 70000])), ["fin"]], "whole"),
        ("silent", [["hold"]], "timeout"),
        ("reset", [["send", 1000, 1000, 0], ["sleep", 0.2], ["reset"]], "reset"),
        ("endless", [["endless", 65536]], "endless")])
    if expect in ("timeout", "reset"):
        n = min(n, par)  # one round: its time is the bound
    server = get_peer.Server(steps)
    args = ["-q", "--json", "-w", str(W), "-n", str(n), "-P", str(par)]
    rounds = -(-n // par)
    paced = sum(st[3] * max(1, st[1] // st[2]) for st in steps if st[0] == "send")
    bound = W + SLACK + 0.2 * n + rounds * paced
    if expect == "endless":
        args += ["-t", "0.5"]
        bound += 0.5
    rc, so, se, took = run(args + ["127.0.0.1:%d" % server.port], bound)
    server.stop()
    what = "case %d (count %s, %s)" % (case, name, " ".join(args))
    if rc is None:
        return fail("%s: get hung" % what)
    if took > bound:
        fail("%s: took %.1f s, bound %.1f s" % (what, took, bound))
    s = summary(so)
    size = get_peer.sent_total(steps) or 0
    if expect == "whole":
        if rc != 0 or s.get("transfers") != n or s.get("bytes") != n * size:
            fail("%s: exit %s, %s: %s" % (what, rc, s, se))
    elif rc != 1:
        fail("%s: exit %s, expected 1 (not every transfer whole): %s" % (what, rc, se))


def scratch():
    d = tempfile.mkdtemp(prefix="ncpv-sched.")
    SCRATCH.append(d)
    return d


SCRATCH = []


def main():
    failures = []
    start, case = time.monotonic(), 0
    print("seed %d (NCPV_SCHEDULE_SEED=%d replays it)" % (SEED, SEED), file=sys.stderr)
    while time.monotonic() - start < BUDGET and len(failures) < 5:
        case += 1
        pick = rng.choice(["discard", "file", "file", "send", "count"])
        if pick in ("discard", "file"):
            check_single(case, pick, failures.append)
        elif pick == "send":
            check_send(case, failures.append)
        else:
            check_count(case, failures.append)
    for d in SCRATCH:
        shutil.rmtree(d, ignore_errors=True)
    for f in failures:
        print(f, file=sys.stderr)
    print("%d cases in %.1f s, %d failed" % (case, time.monotonic() - start, len(failures)),
          file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
