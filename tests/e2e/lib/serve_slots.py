#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# serve_slots.py - property test of serve's connection slots: for generated rounds (--threads
# 1..4, a random --max-conns and --size, a random crowd of clients that read all, half-close and
# then close with data unread, reset, sit idle, or read slowly), every connection ends within a
# bound well below serve's 10 s drain wait, after which --max-conns clients at once are all taken
# (no slot held), and serve's summary counts every connection once.
# Usage: serve_slots.py NCPV ROUNDS; NCPV_SLOTS_SEED=N replays a run. Prints the seed.
# Fixed case (the issue 24 repro): serve_slots.py NCPV repro.
import json
import os
import random
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

NCPV = sys.argv[1]
MODE = sys.argv[2] if len(sys.argv) > 2 else "3"
SEED = int(os.environ.get("NCPV_SLOTS_SEED", random.randrange(1 << 30)))
ENDS_WITHIN = 4.0  # seconds after the last client; serve's drain wait is 10 s
SIZES = [4096, 65536, 200 * 1024, 1 << 20]
BEHAVIOURS = ["read_all", "half_close_unread", "reset", "idle", "slow_reader"]


def log_events(path):
    events = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    events.append(json.loads(line))
                except ValueError:
                    pass  # a line still being written
    return events


def start_serve(threads, max_conns, size, log):
    proc = subprocess.Popen([NCPV, "serve", "--json", "--threads", str(threads), "--max-conns",
                             str(max_conns), "--size", str(size), "127.0.0.1:0"],
                            stderr=open(log, "w"), env=dict(os.environ, LC_ALL="C"))
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        for e in log_events(log):
            if e.get("event") == "listen":
                return proc, int(e["address"].rsplit(":", 1)[1])
        if proc.poll() is not None:
            break
        time.sleep(0.02)
    proc.kill()
    sys.exit("serve did not start: " + open(log).read())


def client(port, behaviour, rng_seed):
    """One client; refused ones (reset by serve) and resets are part of the game."""
    rng = random.Random(rng_seed)
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
    except OSError:
        return
    try:
        if behaviour == "read_all":
            while s.recv(65536):
                pass
        elif behaviour == "half_close_unread":
            s.shutdown(socket.SHUT_WR)
            s.recv(1000)
        elif behaviour == "reset":
            s.recv(rng.choice([1, 1000, 65536]))
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        elif behaviour == "idle":
            time.sleep(rng.uniform(0, 0.3))
        elif behaviour == "slow_reader":
            for _ in range(rng.randrange(1, 30)):
                if not s.recv(4096):
                    break
                time.sleep(0.01)
    except OSError:
        pass
    finally:
        s.close()


def run_round(threads, max_conns, size, plan, tmp):
    """plan: [(behaviour, start_delay)]. Returns a failure message or None."""
    log = os.path.join(tmp, "serve.log")
    proc, port = start_serve(threads, max_conns, size, log)
    try:
        workers = []
        for i, (behaviour, delay) in enumerate(plan):
            t = threading.Timer(delay, client, (port, behaviour, i))
            workers.append(t)
            t.start()
        for t in workers:
            t.join(30)
        # Every client's connection ends (close) or was turned away (refuse), within the bound.
        deadline = time.monotonic() + ENDS_WITHIN
        while True:
            ev = log_events(log)
            ends = sum(1 for e in ev if e.get("event") in ("close", "refuse"))
            if ends >= len(plan) or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        if ends != len(plan):
            return "%d of %d clients' connections ended within %.0f s" % (ends, len(plan), ENDS_WITHIN)
        refused_before = sum(1 for e in ev if e.get("event") == "refuse")
        # Every slot is free: --max-conns downloads at once are all taken and complete.
        fresh = subprocess.run([NCPV, "get", "-q", "-w", "5", "--count", str(max_conns), "-P",
                                str(max_conns), "127.0.0.1:%d" % port], capture_output=True, text=True,
                               timeout=60)
        if fresh.returncode != 0:
            return "get --count %d -P %d after the clients: exit %d: %s" % (
                max_conns, max_conns, fresh.returncode, fresh.stderr.strip())
    finally:
        proc.terminate()
        proc.wait(10)
    ev = log_events(log)
    summary = [e for e in ev if e.get("event") == "summary"]
    if len(summary) != 1:
        return "no summary"
    s = summary[0]
    closes = sum(1 for e in ev if e.get("event") == "close")
    refuses = sum(1 for e in ev if e.get("event") == "refuse")
    ended = s["completed"] + s["ended_by_client"] + s["ended_by_limit"] + s["reset"] + s["cut"]
    checks = [
        (refuses == refused_before, "%d refused among the fresh downloads" % (refuses - refused_before)),
        (s["connections"] + s["refused"] == len(plan) + max_conns,
         "summary: %d connections + %d refused != %d clients + %d fresh" % (
             s["connections"], s["refused"], len(plan), max_conns)),
        (s["connections"] == closes and s["refused"] == refuses,
         "summary %s against %d close and %d refuse lines" % (s, closes, refuses)),
        (ended == s["connections"], "summary's ends add to %d, not %d" % (ended, s["connections"])),
        (sum(lp["connections"] for lp in s.get("loops", [s])) == s["connections"], "loops' shares: %s" % s.get("loops")),
    ]
    for ok, why in checks:
        if not ok:
            return why
    return None


def main():
    tmp = tempfile.mkdtemp(prefix="serve_slots.")
    if MODE == "repro":
        rounds = [(2, 20, 200 * 1024, [("half_close_unread", 0.0)] * 30, "repro, sequential")]
    else:
        rng = random.Random(SEED)
        rounds = []
        for _ in range(int(MODE)):
            max_conns = rng.randrange(2, 25)
            n = rng.randrange(max(1, max_conns // 2), 2 * max_conns + 6)
            spread = rng.choice([0.0, 0.2, 1.0])
            plan = [(rng.choice(BEHAVIOURS), rng.uniform(0, spread)) for _ in range(n)]
            rounds.append((rng.randrange(1, 5), max_conns, rng.choice(SIZES), plan, "spread %.1f s" % spread))
    print("seed %d" % SEED)
    failed = 0
    for threads, max_conns, size, plan, note in rounds:
        if note.startswith("repro"):
            # One client after another, as the repro did.
            log = os.path.join(tmp, "serve.log")
            why = run_sequential(threads, max_conns, size, len(plan), log)
        else:
            why = run_round(threads, max_conns, size, plan, tmp)
        counts = {b: sum(1 for p in plan if p[0] == b) for b in BEHAVIOURS}
        print("--threads %d --max-conns %d --size %d, %d clients (%s; %s): %s" % (
            threads, max_conns, size, len(plan), note,
            " ".join("%s=%d" % kv for kv in counts.items() if kv[1]), why or "ok"), flush=True)
        failed += why is not None
    return 1 if failed else 0


def run_sequential(threads, max_conns, size, n, log):
    """The repro: n clients one after another, each half-closing and closing with data unread."""
    proc, port = start_serve(threads, max_conns, size, log)
    try:
        for i in range(n):
            client(port, "half_close_unread", i)
        deadline = time.monotonic() + ENDS_WITHIN
        while True:
            ends = sum(1 for e in log_events(log) if e.get("event") in ("close", "refuse"))
            if ends >= n or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        if ends != n:
            return "%d of %d clients' connections ended within %.0f s" % (ends, n, ENDS_WITHIN)
        fresh = subprocess.run([NCPV, "get", "-q", "-w", "5", "-b", "1K", "127.0.0.1:%d" % port],
                               capture_output=True, text=True, timeout=30)
        if fresh.returncode != 0:
            return "get -b 1K after %d clients: exit %d: %s" % (n, fresh.returncode, fresh.stderr.strip())
    finally:
        proc.terminate()
        proc.wait(10)
    s = [e for e in log_events(log) if e.get("event") == "summary"][0]
    # One client at a time never needs a second slot: none is refused, none is left to cut.
    if s["connections"] != n + 1 or s["refused"] != 0 or s["cut"] != 0:
        return "summary: %s" % s
    return None


if __name__ == "__main__":
    sys.exit(main())
