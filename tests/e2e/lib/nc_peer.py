#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""nc_peer.py - a scripted TCP peer for the nc half-close tests: sends, half-closes or closes on cue
and reports what it received, when it saw EOF (seconds after the connection's start) and when the
connection started (t0, seconds since the epoch), as one JSON line on stdout.

usage: nc_peer.py listen PORTFILE SPEC   (binds 127.0.0.1:0, writes the port to PORTFILE)
       nc_peer.py connect PORT SPEC
SPEC: comma-separated steps run in order from the connection's start:
  send:TEXT  sendhex:HEX  sleep:SECS  shut (shutdown write side)  close  wait-eof  linger:SECS (stop after SECS)
Every wait is bounded (10 s at most)."""
import json, socket, sys, threading, time

def main():
    mode, where, spec = sys.argv[1], sys.argv[2], sys.argv[3]
    if mode == "listen":
        ls = socket.socket()
        ls.bind(("127.0.0.1", 0))
        ls.listen(1)
        with open(where + ".tmp", "w") as f:
            f.write(str(ls.getsockname()[1]))
        import os
        os.rename(where + ".tmp", where)
        ls.settimeout(10)
        s, _ = ls.accept()
    else:
        deadline = time.time() + 10
        while True:
            try:
                s = socket.create_connection(("127.0.0.1", int(where)), timeout=1)
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.02)
    t0 = time.time()
    got = bytearray()
    eof = {"at": None}
    def reader():
        s.settimeout(10)
        try:
            while True:
                b = s.recv(65536)
                if not b:
                    eof["at"] = round(time.time() - t0, 1)
                    return
                got.extend(b)
        except OSError:
            return
    th = threading.Thread(target=reader, daemon=True)
    th.start()
    closed = False
    for step in spec.split(","):
        op, _, arg = step.partition(":")
        if op == "send":
            try:
                s.sendall(arg.encode())
            except OSError:
                pass
        elif op == "sendhex":
            try:
                s.sendall(bytes.fromhex(arg))
            except OSError:
                pass
        elif op == "sleep":
            time.sleep(float(arg))
        elif op == "shut":
            s.shutdown(socket.SHUT_WR)
        elif op == "close":
            th.join(0.2)
            # shutdown first: close() alone waits for the reader thread's recv() to return
            # before the kernel sends FIN, which would make the timing depend on the thread.
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            th.join(1)
            s.close()
            closed = True
        elif op == "wait-eof":
            th.join(10)
        elif op == "linger":
            th.join(float(arg))
    if not closed:
        th.join(0.3)
        s.close()
    print(json.dumps({"got": got.decode(errors="replace"), "eof_at": eof["at"], "t0": t0}))

main()
