#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# first_hour.py - what a newcomer's terminal shows, captured on ptys of 40, 80 and 200 columns
# (issue 27 item 3): get's progress and summary, get --count's summary and serve's stop
# summary. No line may be wider than its terminal, and with a size known the percentage
# must be on the progress line at every width. Loopback only; every wait is bounded.
"""usage: first_hour.py NCPV

Prints one line per failure and exits 1 if any."""
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import progress_width as pw  # noqa: E402  (spawn, serve_once, columns, TOTAL)

WIDTHS = (40, 80, 200)


def lines(out):
    """Every draw: split at newlines and carriage returns."""
    return [d for line in out.split(b"\n") for d in line.split(b"\r") if d]


def serve_capture(ncpv, width):
    """serve on a pty of width columns: two gets from it, then SIGTERM; what it printed."""
    import pty, fcntl, termios, struct, tty, select
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, width, 0, 0))
    tty.setraw(slave)
    env = dict(os.environ, LC_ALL="C", TZ="UTC")
    p = subprocess.Popen([ncpv, "serve", "--size", "100000", "127.0.0.1:0"], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=slave, env=env, start_new_session=True)
    os.close(slave)
    out = bytearray()
    deadline = time.monotonic() + pw.RUN_LIMIT

    def read_until(pred):
        while time.monotonic() < deadline and not pred():
            r, _, _ = select.select([master], [], [], 0.1)
            if r:
                try:
                    data = os.read(master, 65536)
                except OSError:
                    return
                if not data:
                    return
                out.extend(data)
    read_until(lambda: re.search(rb"listening on 127\.0\.0\.1:(\d+)", out))
    m = re.search(rb"listening on 127\.0\.0\.1:(\d+)", out)
    if m:
        for _ in range(2):
            subprocess.run([ncpv, "get", "-q", "127.0.0.1:" + m.group(1).decode()], timeout=pw.RUN_LIMIT)
        read_until(lambda: out.count(b" done:") >= 2)
    p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + pw.RUN_LIMIT
    read_until(lambda: False)  # to the end: EOF once serve has exited
    if p.poll() is None:
        p.kill()
    p.wait()
    os.close(master)
    return bytes(out)


def get_capture(ncpv, width, extra):
    port = pw.serve_once(pw.DELAY)
    with open(os.devnull, "rb") as null:
        return pw.spawn([ncpv, "get", "-i", "0.1"] + extra + ["127.0.0.1", str(port)], width, null)


def get_count_capture(ncpv, width):
    """get --count 3 against a serve --size: its summary (over two lines at 80 columns)."""
    serve = subprocess.Popen([ncpv, "serve", "--size", "1000", "127.0.0.1:0"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, env=dict(os.environ, LC_ALL="C"))
    try:
        m = re.search(rb"listening on 127\.0\.0\.1:(\d+)", serve.stderr.readline())
        if not m:
            return b""
        with open(os.devnull, "rb") as null:
            return pw.spawn([ncpv, "get", "--count", "3", "127.0.0.1:" + m.group(1).decode()], width, null)
    finally:
        serve.kill()
        serve.wait()


def main():
    ncpv = sys.argv[1]
    failures = 0

    def fail(msg):
        nonlocal failures
        print(msg)
        failures += 1

    for width in WIDTHS:
        runs = {
            "get -s": get_capture(ncpv, width, ["-s", str(pw.TOTAL)]),
            "get": get_capture(ncpv, width, []),
            "get --count": get_count_capture(ncpv, width),
            "serve": serve_capture(ncpv, width),
        }
        for name, out in runs.items():
            print(f"--- {name} at {width} columns")
            if name == "serve":
                # Its stop summary: the lines before are log records, one a line however long
                # (a log is read with grep), as is "listening on ADDR:PORT (SOURCE)".
                out = out[out.find(b"ncpv serve: stopped after"):]
            for d in lines(out):
                print(f"{pw.columns(d):4d} {d.decode('utf-8', 'replace')}")
                if pw.columns(d) > width:
                    fail(f"{name} at {width} columns: {pw.columns(d)} wide: {d!r}")
        text = runs["get -s"]
        status = [d for d in lines(text) if re.search(rb"\d:\d\d:\d\d", d)]
        if not status:
            fail(f"get -s at {width} columns: no progress line drawn")
        for d in status:
            if not re.search(rb"\d+%", d):
                fail(f"get -s at {width} columns: a progress line without its percentage: {d!r}")
        if b"received 400000 B" not in text:
            fail(f"get -s at {width} columns: no summary")
        if b"stopped after" not in runs["serve"]:
            fail(f"serve at {width} columns: no stop summary")
    print(f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
