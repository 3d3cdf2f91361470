#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# serve_close.py - a property test of serve's close path, driven by generated schedules on
# real loopback sockets. Each round starts `ncpv serve --json` with generated options (a file,
# random or zero source; --size, --max-bytes, --max-time, --max-conns around buffer edges),
# runs clients that behave in generated ways (read fast or slowly, stall, send garbage first,
# half-close, reset, close early, connect and close) and sometimes sends SIGTERM at a random
# moment. It checks that
#   - a client that read to the end got either every byte of its transfer and a clean EOF,
#     or a reset: never a clean EOF on a short transfer, never a byte too many;
#   - the bytes are the source's (sha256 of the file repeated, or zeros);
#   - serve logged as sent exactly what such a client received (at least what an early
#     closer received); for a reset, the client received between what serve logged as
#     acknowledged and as sent (handed to the kernel); its summary counts every connection once;
#   - serve never crashes or stalls: every reader finishes, SIGTERM ends it with status 0.
# Usage: serve_close.py NCPV [--seconds S] [--seed N | --base N --rounds K]
# (prints the seed of a failing round; the seeds in FIXED_SEEDS, which failed once, run first)
import argparse
import hashlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

EDGES = [0, 1, 4095, 4096, 4097, 65535, 65536, 65537, 262143, 262144, 262145, 1048577]
BEHAVIOURS = ["full", "slow", "chunks", "stall", "garbage", "halfclose", "reset", "early", "flash"]
# Behaviours that read until the server ends the connection.
TO_END = {"full", "slow", "chunks", "stall", "garbage", "halfclose"}
CLIENT_DEADLINE = 40.0  # seconds: a reader still going then means serve stalled it
ENDLESS_CAP = 3 * 1048576  # a reader of an endless stream without limits closes after this
# Seeds that once failed: each timed run replays them first.
#   302434404: a reset client got 389,932 B more than serve logged as sent, when the count
#   was taken before the log line and the close came after it (issue 28).
#   290000064: under stress-ng --cpu 2, serve was preempted between the count and the reset,
#   and the kernel sent 130,966 B more than the count (serve now yields before a reset, and
#   says everything it handed the kernel when it was preempted there all the same).
#   472866996: a CI rehearsal at load 13 (six helpers' builds beside it): three "chunks" clients
#   of a --source FILE --size 1048577 serve made no progress for 40 s, each with 70 to 125
#   retransmits on loopback; alone it passes. Kept to show whether it comes back.
FIXED_SEEDS = [302434404, 290000064, 472866996]
STATS = {"reset_exact": 0, "reset_in_flight": 0}


class Failure(Exception):
    pass


def client(port, behaviour, rng, out):
    """One client: out gets end ('eof', 'reset', 'closed'), n, sha256, port."""
    s = socket.socket()
    h, n = hashlib.sha256(), 0
    out.update(end="closed", n=0, sha=h.hexdigest(), port=0)
    try:
        if behaviour == "slow":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.settimeout(CLIENT_DEADLINE)
        s.connect(("127.0.0.1", port))
        out["port"] = s.getsockname()[1]
        if behaviour == "flash":
            s.close()
            return
        # A reset while sending still leaves what arrived to read; but the send took the
        # reset's error, so the reads that follow end in what looks like a clean EOF.
        reset_seen = False
        try:
            if behaviour == "garbage":
                s.sendall(os.urandom(rng.choice([1, 100, 65536, 300000])))
            if behaviour == "halfclose":
                s.sendall(b"GET / HTTP/1.0\r\n\r\n")
                s.shutdown(socket.SHUT_WR)
        except (ConnectionResetError, BrokenPipeError):
            reset_seen = True
        except OSError:
            pass
        if behaviour == "stall":
            time.sleep(rng.uniform(0.2, 2.0))
        stop_after = None
        if behaviour in ("reset", "early"):
            stop_after = rng.choice([0, 1, 4096, 100000, 1048576])
        elif behaviour not in TO_END:
            stop_after = 0
        deadline = time.monotonic() + CLIENT_DEADLINE
        while True:
            if stop_after is not None and n >= stop_after:
                break
            if n >= ENDLESS_CAP and out.get("endless_unlimited"):
                break
            if time.monotonic() > deadline:
                out["end"] = "stalled"
                return
            want = 65536
            if behaviour == "chunks":
                want = rng.choice([1, 7, 4096, 65536])
            if behaviour == "slow":
                want = 4096
                if rng.random() < 0.05:
                    time.sleep(0.01)
            try:
                b = s.recv(want)
            except socket.timeout:
                out["end"] = "stalled"
                return
            except OSError:
                out["end"] = "reset"
                break
            if not b:
                out["end"] = "reset" if reset_seen else "eof"
                break
            h.update(b)
            n += len(b)
        if behaviour == "reset":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    except OSError:
        out["end"] = "reset"
    finally:
        out["n"] = n
        out["sha"] = h.hexdigest()
        s.close()


def expected_sha(cfg, n):
    if cfg["source"] == "zero":
        return hashlib.sha256(bytes(n)).hexdigest()
    if cfg["source"] == "file":
        data = cfg["data"]
        if not data:
            return hashlib.sha256(b"").hexdigest()
        reps = n // len(data) + 1
        return hashlib.sha256((data * reps)[:n]).hexdigest()
    return None


def gen_config(rng, scratch):
    cfg = {"source": rng.choice(["file", "file", "random", "zero"])}
    args = []
    if cfg["source"] == "file":
        data = os.urandom(rng.choice(EDGES))
        path = os.path.join(scratch, "src")
        with open(path, "wb") as f:
            f.write(data)
        cfg["data"] = data
        args += ["--source", path]
    else:
        args += ["--source", cfg["source"]]
    cfg["size"] = None
    if rng.random() < 0.5 and not (cfg["source"] == "file" and not cfg["data"]):
        cfg["size"] = rng.choice(EDGES)
        args += ["--size", str(cfg["size"])]
    cfg["max_bytes"] = None
    if rng.random() < 0.3:
        cfg["max_bytes"] = rng.choice([e for e in EDGES if e > 0])
        args += ["--max-bytes", str(cfg["max_bytes"])]
    cfg["max_time"] = None
    if rng.random() < 0.2:
        cfg["max_time"] = rng.choice([0.3, 1.0, 2.0])
        args += ["--max-time", str(cfg["max_time"])]
    cfg["max_conns"] = None
    if rng.random() < 0.15:
        cfg["max_conns"] = rng.randint(1, 4)
        args += ["--max-conns", str(cfg["max_conns"])]
    cfg["length"] = cfg["size"] if cfg["size"] is not None else (
        len(cfg["data"]) if cfg["source"] == "file" else None)
    cfg["sigterm"] = rng.random() < 0.4
    cfg["args"] = args
    return cfg


def start_serve(ncpv, args, log):
    p = subprocess.Popen([ncpv, "serve", "--json"] + args + ["127.0.0.1:0"], stderr=log,
                         stdout=subprocess.DEVNULL)
    for _ in range(500):
        with open(log.name) as f:
            for line in f:
                if '"event":"listen"' in line:
                    return p, int(json.loads(line)["address"].rsplit(":", 1)[1])
        if p.poll() is not None:
            raise Failure("serve exited at start with %d" % p.returncode)
        time.sleep(0.01)
    raise Failure("serve did not listen")


def check(cfg, clients, events, rc):
    def port(e):  # a client gone before accept has no name
        tail = e["peer"].rsplit(":", 1)
        return int(tail[1]) if len(tail) == 2 and tail[1].isdigit() else None
    closes = {port(e): e for e in events if e["event"] == "close"}
    refused = {port(e) for e in events if e["event"] == "refuse"}
    summary = [e for e in events if e["event"] == "summary"]
    if rc != 0:
        raise Failure("serve exited with %s" % rc)
    if len(summary) != 1:
        raise Failure("no summary")
    s = summary[0]
    ends = sum(s.get(k, 0) for k in ("completed", "ended_by_client", "ended_by_limit", "reset", "cut"))
    if ends != s["connections"] or s["connections"] != sum(e["event"] == "close" for e in events):
        raise Failure("summary counts %d ends for %d connections, %d close lines" %
                      (ends, s["connections"], len(closes)))
    length = cfg["length"]
    limit = length
    if cfg["max_bytes"] is not None and (limit is None or cfg["max_bytes"] < limit):
        limit = cfg["max_bytes"]
    for beh, out in clients:
        who = "%s client (port %d): %s %d B" % (beh, out["port"], out["end"], out["n"])
        if out["end"] == "stalled":
            raise Failure(who + ": stalled")
        if limit is not None and out["n"] > limit:
            raise Failure(who + ": more than the %d B of its transfer" % limit)
        want = expected_sha(cfg, out["n"])
        if want is not None and out["sha"] != want:
            raise Failure(who + ": bytes differ from the source's")
        if out["end"] == "eof":
            # A clean end: every byte of the transfer (max-time may end an endless one anywhere).
            full = limit if limit is not None else out["n"]
            if length is not None and cfg["max_bytes"] is not None and cfg["max_bytes"] < length:
                raise Failure(who + ": clean EOF on a transfer --max-bytes cuts short")
            if limit is not None and out["n"] != full and not (length is None and cfg["max_time"]):
                raise Failure(who + ": clean EOF after %d of %d B" % (out["n"], full))
        if out["port"] in refused or out["port"] == 0:
            if out["n"] != 0 or out["end"] == "eof" and limit != 0:
                raise Failure(who + ": refused, yet got data or a clean end")
            continue
        e = closes.get(out["port"])
        if e is None and beh not in TO_END and out["n"] == 0:
            continue  # closed before serve could name it
        if e is None:
            raise Failure(who + ": no close line from serve")
        if beh in TO_END and out["end"] == "eof" and e["sent"] != out["n"]:
            raise Failure(who + ": serve logged %d B sent (%s, %s)" % (e["sent"], e["reason"], e.get("end")))
        if beh in TO_END and out["end"] == "reset" and not out.get("capped"):
            # The peer holds what it acknowledged, and can have no more than serve handed
            # to its kernel: whatever the speed, it received between the two.
            if not e["acked"] <= out["n"] <= e["sent"]:
                raise Failure(who + ": serve logged %d B acknowledged, %d B sent (%s, %s)" %
                              (e["acked"], e["sent"], e["reason"], e.get("end")))
            STATS["reset_exact" if e["wire"] == out["n"] else "reset_in_flight"] += 1
        elif e["sent"] < out["n"]:
            raise Failure(who + ": serve logged only %d B sent" % e["sent"])


def one_round(ncpv, seed, scratch):
    rng = random.Random(seed)
    cfg = gen_config(rng, scratch)
    endless_unlimited = cfg["length"] is None and cfg["max_bytes"] is None and cfg["max_time"] is None
    log = tempfile.NamedTemporaryFile("w+", dir=scratch, suffix=".log", delete=False)
    p, port = start_serve(ncpv, cfg["args"], log)
    try:
        clients, threads = [], []
        for _ in range(rng.randint(2, 8)):
            beh = rng.choice(BEHAVIOURS)
            out = {"endless_unlimited": endless_unlimited}
            t = threading.Thread(target=client, args=(port, beh, random.Random(rng.random()), out))
            clients.append((beh, out))
            threads.append(t)
            t.start()
            if rng.random() < 0.3:
                time.sleep(rng.uniform(0, 0.05))
        if cfg["sigterm"]:
            time.sleep(rng.uniform(0, 1.0))
            p.send_signal(signal.SIGTERM)
        for t in threads:
            t.join(CLIENT_DEADLINE + 10)
            if t.is_alive():
                raise Failure("a client thread never ended")
        for _, out in clients:
            out["capped"] = endless_unlimited and out["n"] >= ENDLESS_CAP
        if not cfg["sigterm"]:
            # Give serve a moment to log the clients that closed, then stop it.
            time.sleep(0.2)
            p.send_signal(signal.SIGTERM)
        try:
            rc = p.wait(15)
        except subprocess.TimeoutExpired:
            raise Failure("serve did not stop within 15 s of SIGTERM")
        with open(log.name) as f:
            events = [json.loads(line) for line in f if line.startswith("{")]
        check(cfg, clients, events, rc)
        return cfg
    except Failure as e:
        with open(log.name) as f:
            raise Failure("seed %d, serve %s: %s\n%s" % (seed, " ".join(cfg["args"]), e, f.read()))
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        os.unlink(log.name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ncpv")
    ap.add_argument("--seconds", type=float, default=50)
    ap.add_argument("--seed", type=int, default=None, help="run this one round only")
    ap.add_argument("--base", type=int, default=None, help="first seed (default: random)")
    ap.add_argument("--rounds", type=int, default=None, help="run this many rounds, not --seconds")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        if a.seed is not None:
            one_round(a.ncpv, a.seed, scratch)
            print("round %d ok" % a.seed)
            return 0
        for seed in FIXED_SEEDS if a.base is None else []:
            try:
                one_round(a.ncpv, seed, scratch)
            except Failure as e:
                print("FAIL on fixed seed: %s" % e, file=sys.stderr)
                return 1
        base = a.base if a.base is not None else random.SystemRandom().randrange(1 << 30)
        end = time.monotonic() + a.seconds
        rounds = 0
        while (rounds < a.rounds) if a.rounds is not None else (time.monotonic() < end):
            try:
                one_round(a.ncpv, base + rounds, scratch)
            except Failure as e:
                print("FAIL after %d rounds: %s" % (rounds, e), file=sys.stderr)
                return 1
            rounds += 1
        print("rounds %d (seeds %d to %d) ok; resets counted exactly: %d, with bytes in flight: %d" %
              (rounds, base, base + rounds - 1, STATS["reset_exact"], STATS["reset_in_flight"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
