#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# get_peer.py - a fake server for ncpv get that plays a schedule on every connection it accepts:
# silent, trickle, endless, closes early, resets, sends exactly N then FIN, reads slowly, in any
# chunking and with any delays. Used by get_robust.bats (one schedule named on the command line)
# and get_schedules.py (generated schedules, in-process). Loopback only; every wait is bounded.
"""Steps of a schedule (a list, played in order on each connection):
  ["send", N, CHUNK, DELAY]  send N bytes in CHUNK-byte pieces, DELAY seconds apart
  ["endless", CHUNK]         send for ever (until the client goes or LIMIT seconds pass)
  ["sleep", S]               stay silent S seconds
  ["fin"]                    close cleanly (FIN); the end of every schedule that reaches it
  ["reset"]                  close with a reset (SO_LINGER 0)
  ["hold"]                   stay silent, the connection open, until LIMIT seconds pass
  ["drain", CHUNK, DELAY]    read until the client's FIN, CHUNK bytes every DELAY seconds
The bytes sent are a deterministic stream (the byte at offset i is a function of i and the
connection's seed), so a client's output can be checked against expected()."""
import hashlib
import json
import os
import socket
import struct
import sys
import threading
import time

# No connection outlives this, whatever its schedule says, nor the server its last connection;
# a test that keeps the server for longer (errors.bats, slow under valgrind) sets GET_PEER_LIMIT.
LIMIT = float(os.environ.get("GET_PEER_LIMIT", "30"))


def stream_bytes(seed, offset, n):
    """n bytes of connection seed's stream from offset: blocks of sha256(seed, block)."""
    out = bytearray()
    block = offset // 32
    skip = offset % 32
    while len(out) < n + skip:
        out += hashlib.sha256(struct.pack("<QQ", seed, block)).digest()
        block += 1
    return bytes(out[skip:skip + n])


def sent_total(schedule):
    """Bytes a schedule sends before it ends (None: endless)."""
    total = 0
    for step in schedule:
        if step[0] == "send":
            total += step[1]
        elif step[0] == "endless":
            return None
        elif step[0] in ("fin", "reset", "hold"):
            break
    return total


def expected(seed, schedule):
    """The bytes a complete download of this schedule holds."""
    return stream_bytes(seed, 0, sent_total(schedule) or 0)


def play(conn, schedule, seed, report):
    start = time.monotonic()
    sent = received = 0
    end = "fin"
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 16)
    try:
        for step in schedule:
            kind = step[0]
            if kind == "send":
                n, chunk, delay = step[1], max(1, step[2]), step[3]
                while n > 0 and time.monotonic() - start < LIMIT:
                    k = min(n, chunk)
                    conn.sendall(stream_bytes(seed, sent, k))
                    sent += k
                    n -= k
                    if delay:
                        time.sleep(delay)
            elif kind == "endless":
                conn.settimeout(0.5)
                while time.monotonic() - start < LIMIT:
                    try:
                        conn.sendall(stream_bytes(seed, sent, step[1]))
                        sent += step[1]
                    except socket.timeout:
                        continue
                end = "limit"
                break
            elif kind == "sleep":
                time.sleep(step[1])
            elif kind == "hold":
                time.sleep(max(0.0, LIMIT - (time.monotonic() - start)))
                end = "hold"
                break
            elif kind == "drain":
                conn.settimeout(LIMIT)
                while True:
                    b = conn.recv(step[1])
                    if not b:
                        break
                    received += len(b)
                    if step[2]:
                        time.sleep(step[2])
            elif kind == "reset":
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                end = "reset"
                break
            elif kind == "fin":
                break
    except OSError as e:
        end = "error " + e.__class__.__name__
    finally:
        conn.close()
    report.append({"sent": sent, "received": received, "end": end})


class Server:
    """Accepts on 127.0.0.1:0 and plays schedule on each connection, in its own thread."""

    def __init__(self, schedule, seed=1):
        self.schedule, self.seed, self.report = schedule, seed, []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.stopping = False
        self.thread = threading.Thread(target=self.accept_loop, daemon=True)
        self.thread.start()

    def accept_loop(self):
        # LIMIT counts from the last connection, not the first: a --count case of many paced
        # transfers in a row outlasts it (seed 995913382: 20 x 2.6 s), and a listener that
        # stops accepting leaves the next client connected to nobody until -w fails it.
        deadline = time.monotonic() + LIMIT
        while not self.stopping and time.monotonic() < deadline:
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                break
            deadline = time.monotonic() + LIMIT
            threading.Thread(target=play, args=(conn, self.schedule, self.seed, self.report),
                             daemon=True).start()

    def stop(self):
        self.stopping = True
        self.sock.close()
        self.thread.join(1)


if __name__ == "__main__":
    # get_peer.py SCHEDULE_JSON: print the port, then serve until LIMIT or killed.
    server = Server(json.loads(sys.argv[1]))
    print(server.port, flush=True)
    server.thread.join()
