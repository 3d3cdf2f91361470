#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# progress_width.py - get, nc --progress and pv on pseudo-terminals of many widths: no status
# line they draw may take more columns than the terminal has (a wider one wraps, and every
# refresh then leaves a copy behind). Loopback only; every wait is bounded.
"""usage: progress_width.py NCPV [SEED]

Runs every command in a table of cases (size known, unknown, huge; pv with every field and a
name) on a pty of each width from a generated list (the edges 1, 2, 3, 29..31, 79..81, 200
and random ones from SEED), each run going through the start (no data yet), the middle and
the last line. Prints one line per failure and exits 1 if any."""
import fcntl
import os
import pty
import random
import re
import select
import socket
import struct
import subprocess
import sys
import termios
import threading
import time
import tty
import unicodedata
from concurrent.futures import ThreadPoolExecutor

RUN_LIMIT = 20.0  # seconds a single run may take, whatever happens
TOTAL = 400_000   # bytes each run moves, in CHUNK pieces DELAY apart after a silent start
CHUNK = 40_000
DELAY = 0.06
SILENT = 0.3      # the start: connected (or started), no data yet
WIDE_NAME = "\u65e5\u672c\u8a9e\u306e\u540d\u524d\U0001f680e\u0301"  # 日本語の名前🚀é
CSI = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]")


def columns(draw):
    """Columns a draw takes on a UTF-8 terminal: escape sequences none, a wide (East Asian
    wide or fullwidth) character two, a combining one none, any other character one."""
    text = CSI.sub(b"", draw).decode("utf-8", "replace")
    return sum(0 if unicodedata.combining(c) else
               2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def trickle(send, delay=DELAY):
    """The data schedule every case plays: silence, then TOTAL bytes in CHUNK pieces."""
    time.sleep(SILENT)
    for _ in range(TOTAL // CHUNK):
        send(b"\0" * CHUNK)
        time.sleep(delay)


def serve_once(delay):
    """A listener on a loopback port that plays the schedule to one client, then closes."""
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(1)
    ls.settimeout(RUN_LIMIT)

    def run():
        try:
            c, _ = ls.accept()
        except OSError:
            return
        with c:
            try:
                trickle(c.sendall, delay)
            except OSError:
                pass
        ls.close()

    threading.Thread(target=run, daemon=True).start()
    return ls.getsockname()[1]


def spawn(argv, width, stdin, locale="C"):
    """argv with stderr on a raw pty of width columns; returns everything it wrote there."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, width, 0, 0))
    tty.setraw(slave)  # no "\n" -> "\r\n": what the program writes is what is read
    env = dict(os.environ, LC_ALL=locale, TZ="UTC")
    p = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.DEVNULL, stderr=slave,
                         env=env, start_new_session=True)
    os.close(slave)
    out = bytearray()
    deadline = time.monotonic() + RUN_LIMIT
    while time.monotonic() < deadline:
        r, _, _ = select.select([master], [], [], 0.2)
        if r:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the last holder of the pty's other side is gone
                break
            if not data:
                break
            out += data
        elif p.poll() is not None:
            break
    if p.poll() is None:
        p.kill()
    p.wait()
    os.close(master)
    return bytes(out)


def run_case(ncpv, name, width):
    """One command at one width: its output, split into draws."""
    if name.startswith("pv"):
        rfd, wfd = os.pipe()
        extra = {"pv": [], "pv-size": ["-s", str(TOTAL)], "pv-huge": ["-s", "9000000000000000000"],
                 "pv-all": ["-pterbaIT", "-A", "12", "-N", "a-long-name", "-s", str(TOTAL)],
                 "pv-wide": ["-N", WIDE_NAME, "-s", str(TOTAL)],
                 "pv-wide-C": ["-N", WIDE_NAME, "-s", str(TOTAL)]}[name]

        def feed():
            with os.fdopen(wfd, "wb") as w:
                try:
                    trickle(w.write)
                    w.flush()
                except OSError:
                    pass

        threading.Thread(target=feed, daemon=True).start()
        # A name of wide characters (two columns each), an emoji and a combining accent, in a
        # UTF-8 locale and in C (where pv 1.10.5 counts such a name a column a byte).
        out = spawn([ncpv, "pv", "-i", "0.1"] + extra, width, rfd,
                    "C" if name.endswith("-C") or not name.startswith("pv-wide") else "C.UTF-8")
        os.close(rfd)
        return out
    # nc --progress refreshes once a second: its run lasts long enough for live lines.
    port = serve_once(DELAY * 3 if name == "nc" else DELAY)
    with open(os.devnull, "rb") as null:
        if name == "nc":
            return spawn([ncpv, "nc", "--progress", "127.0.0.1", str(port)], width, null)
        extra = {"get": [], "get-size": ["-s", str(TOTAL)], "get-huge": ["-s", "1000000G"]}[name]
        return spawn([ncpv, "get", "-i", "0.1"] + extra + ["127.0.0.1", str(port)], width, null)


def check(out, width):
    """The draws wider than width (those on lines with a '\\r': status lines, not summaries)."""
    bad, draws = [], 0
    for line in out.split(b"\n"):
        if b"\r" not in line:
            continue
        for draw in line.split(b"\r"):
            if draw:
                draws += 1
                if columns(draw) > width:
                    bad.append(draw)
    return bad, draws


def main():
    ncpv = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else random.randrange(1 << 30)
    rng = random.Random(seed)
    widths = sorted({1, 2, 3, 29, 30, 31, 79, 80, 81, 200} | {rng.randint(4, 199) for _ in range(6)})
    cases = ["get", "get-size", "get-huge", "nc", "pv", "pv-size", "pv-huge", "pv-all",
             "pv-wide", "pv-wide-C"]
    print(f"seed {seed}; widths {widths}")
    jobs = [(name, w) for name in cases for w in widths]
    failures = 0
    # Each run mostly waits on its data schedule (about 1 s, nc 2 s): twelve at a time.
    with ThreadPoolExecutor(max_workers=12) as pool:
        results = pool.map(lambda j: (j, run_case(ncpv, *j)), jobs)
        for (name, width), out in results:
            bad, draws = check(out, width)
            if draws == 0 and width >= 80:
                print(f"{name} at {width} columns: no status line drawn: {out[:200]!r}")
                failures += 1
            for draw in bad[:3]:
                print(f"{name} at {width} columns: {columns(draw)} wide: {draw!r}")
                failures += 1
    print(f"{len(jobs)} runs, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
