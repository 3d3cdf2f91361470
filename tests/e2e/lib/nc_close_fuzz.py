#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""nc_close_fuzz.py - random schedules around the ends of an `nc -N` transfer: nothing may be lost.

usage: nc_close_fuzz.py NC... [--seed N] [--seconds S] [--runs N] [--fixed NAME]
Each run draws a schedule: client or listener; how much stdin holds (sizes at the pipe's 64 KiB
and the relay's 256 KiB edges, or random up to 4 MiB) and how it is written (all at once, in
random chunks, or "stall": written while the peer does not read, the pipe closed the moment it is
full); the peer's receive buffer (default or 64 KiB); when the peer starts reading (at once, only after stdin has closed, or slowly); what the peer
sends back (nothing, 1 B, 64 KiB or random up to 2 MiB, at once or after nc's FIN, or "trickle":
4 KiB at a time for as long as nc sends, reading slowly); whether nc's stdout is a blocking or a
non-blocking pipe, read at once or only once the peer has sent; -N, or -q 0 / -q 1 (which imply it).
Every run checks: exit status 0, the peer got exactly what was written to stdin (sha256), and
nc's stdout holds exactly what the peer sent (sha256; a listener with -q stops reading at the end
of stdin, so there only the start of it). Prints one line per failing run and
"N runs, N failed"; exits 1 if any failed. Bounded: --runs runs and --seconds seconds.
--fixed NAME repeats one of the FIXED schedules (new data each run) instead of drawing them.
"""
import hashlib, os, random, select, socket, subprocess, sys, threading, time

HANG = 30  # one run longer than this is a hang


def sha(b):
    return hashlib.sha256(b).hexdigest()[:16]


def schedule(rng):
    edges = [0, 1, 65535, 65536, 65537, 262143, 262144, 262145]
    return {
        "role": rng.choice(["client", "client", "listen"]),
        "size": rng.choice(edges + [rng.randrange(1, 4 << 20)] * 4),
        "write": rng.choice(["all", "chunks", "stall", "stall"]),
        "peer_read": rng.choice(["now", "after_stdin", "slow"]),
        "down": rng.choice([0, 1, 65536, rng.randrange(1, 2 << 20)]),
        "down_when": rng.choice(["now", "after_fin", "trickle"]),
        "stdout": rng.choice(["blocking", "nonblocking"]),
        "out_read": rng.choice(["now", "after_peer", "after_peer_fin"]),
        "rcvbuf": rng.choice([0, 0, 65536]),  # the peer's SO_RCVBUF (0: the default)
        "quit": rng.choice([None, None, 0, 1]),  # -q (None: -N)
        "seed": rng.randrange(1 << 30),
    }


# The two schedules that lost data before nc_relay.c stopped taking POLLHUP on an input it had not
# asked to read for its end: stdin's pipe closed full while the relay's buffer was full (the pipe's
# 64 KiB lost), and a non-blocking stdout full when the peer's FIN arrived (the rest of the socket's
# receive queue lost, then an RST).
FIXED = {
    "stdin-closed-full": {"role": "client", "size": 32 << 20, "rcvbuf": 65536, "write": "stall", "peer_read": "after_stdin",
                          "down": 0, "down_when": "now", "stdout": "blocking", "out_read": "now"},
    "stdout-full-at-fin": {"role": "client", "size": 0, "rcvbuf": 0, "write": "all", "peer_read": "now",
                           "down": 1 << 20, "down_when": "now", "stdout": "nonblocking",
                           "out_read": "after_peer_fin"},
    # The peer keeps sending while it reads slowly: `-l -q 0` stopped reading with shutdown(SHUT_RD),
    # closed with unread data, and Linux's RST threw away most of what send() had taken (195 KB of
    # 4 MiB reached the peer), with exit 0.
    "q0-listen-trickle": {"role": "listen", "size": 4 << 20, "rcvbuf": 65536, "write": "all", "peer_read": "slow",
                          "down": 0, "down_when": "trickle", "stdout": "blocking", "out_read": "now", "quit": 0},
}


def writer(fd, data, how, rng, ev_closed, result):
    """Write data to nc's stdin; result["written"] is what the peer must get."""
    h, written = hashlib.sha256(), 0
    try:
        if how == "stall":
            os.set_blocking(fd, False)
        while written < len(data):
            n = len(data) - written if how != "chunks" else rng.randint(1, 70000)
            try:
                n = os.write(fd, data[written:written + n])
            except BlockingIOError:
                # The peer is not reading: once the pipe stays full, close it full.
                if not select.select([], [fd], [], 0.2)[1]:
                    break
                continue
            h.update(data[written:written + n])
            written += n
            if how == "chunks" and rng.random() < 0.05:
                time.sleep(0.001)
    except OSError as e:
        result["writer_error"] = str(e)
    os.close(fd)
    result["written"], result["written_sha"] = written, h.hexdigest()[:16]
    ev_closed.set()


def peer(conn, s, rng, ev_stdin_closed, ev_sent, ev_fin, result):
    """Read until nc's FIN, send s["down"] bytes back (at once or after the FIN; or trickle), half-close,
    then wait for nc to close."""
    conn.settimeout(HANG)
    down = rng.randbytes(s["down"])
    trickle, stop = s["down_when"] == "trickle", threading.Event()
    sent = bytearray()

    def send():
        try:
            conn.sendall(down)
        except OSError as e:
            result["peer_send_error"] = str(e)
        ev_sent.set()

    def send_trickle():
        """4 KiB at a time until nc's end of data; nc may stop reading and close meanwhile."""
        chunk = rng.randbytes(4096)
        try:
            while not stop.is_set() and len(sent) < (64 << 20):
                if select.select([], [conn], [], 0.05)[1]:
                    sent.extend(chunk[:conn.send(chunk, socket.MSG_DONTWAIT)])
                time.sleep(0.002)
        except OSError:
            pass  # nc closed: what it had not read is not its to deliver
        ev_sent.set()
    sender = threading.Thread(target=send_trickle if trickle else send)
    if s["down_when"] in ("now", "trickle"):
        sender.start()
    if s["peer_read"] == "after_stdin":
        ev_stdin_closed.wait(HANG)
        time.sleep(rng.random() * 0.05)
    h, got = hashlib.sha256(), 0
    try:
        while True:
            d = conn.recv(4096 if s["peer_read"] == "slow" else 65536)
            if not d:
                break
            h.update(d)
            got += len(d)
            if trickle and s["peer_read"] == "slow":
                time.sleep(0.001)
            elif s["peer_read"] == "slow" and rng.random() < 0.02:
                time.sleep(0.002)
    except OSError as e:
        result["peer_recv_error"] = str(e)
    stop.set()
    if s["down_when"] == "after_fin":
        sender.start()
    sender.join()
    if trickle:
        down = bytes(sent)
    try:
        conn.shutdown(socket.SHUT_WR)
        ev_fin.set()
        while conn.recv(65536):
            pass
    except OSError:
        pass
    conn.close()
    result["got"], result["got_sha"], result["down"] = got, h.hexdigest()[:16], down


def run(nc, s):
    rng = random.Random(s["seed"])
    data = rng.randbytes(s["size"])
    result = {}
    ev_stdin_closed, ev_sent, ev_fin = threading.Event(), threading.Event(), threading.Event()
    end = ["-N"] if s.get("quit") is None else ["-q", str(s["quit"])]
    quit_listener = s["role"] == "listen" and s.get("quit") is not None
    if quit_listener and s["down_when"] != "trickle":
        s = dict(s, down_when="trickle")  # it stops reading: a bulk send back would stall, not test
    if s["role"] == "client":
        ls = socket.socket()
        if s["rcvbuf"]:
            ls.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, s["rcvbuf"])
        ls.bind(("127.0.0.1", 0))
        ls.listen(1)
        args = nc + end + ["127.0.0.1", str(ls.getsockname()[1])]
    else:
        args = nc + ["-l"] + end + ["-v", "127.0.0.1", "0"] if nc[-1] == "nc" else None
        if args is None:  # nc.openbsd cannot listen on port 0 and say which port it got
            return None
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    if s["stdout"] == "nonblocking":
        os.set_blocking(out_w, False)
    proc = subprocess.Popen(args, stdin=in_r, stdout=out_w, stderr=subprocess.PIPE)
    os.close(in_r)
    os.close(out_w)
    start = time.time()
    if s["role"] == "client":
        ls.settimeout(HANG)
        conn = ls.accept()[0]
        ls.close()
    else:
        line = proc.stderr.readline().decode()  # "Listening on 127.0.0.1 PORT"
        conn = socket.socket()
        if s["rcvbuf"]:
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, s["rcvbuf"])
        conn.settimeout(HANG)
        conn.connect(("127.0.0.1", int(line.split()[-1])))
    threads = [threading.Thread(target=writer, args=(in_w, data, s["write"], random.Random(rng.random()),
                                                    ev_stdin_closed, result)),
               threading.Thread(target=peer, args=(conn, s, rng, ev_stdin_closed, ev_sent, ev_fin, result))]
    for t in threads:
        t.start()
    # A blocking stdout may hold the peer up: wait for it, but not forever.
    if s["out_read"] == "after_peer":
        ev_sent.wait(0.5)
    elif s["out_read"] == "after_peer_fin" and ev_fin.wait(0.5):
        time.sleep(0.05)  # the FIN's way to nc; missing it only makes the run easier
    out = bytearray()
    with os.fdopen(out_r, "rb") as f:
        while True:
            d = f.read1(65536)
            if not d:
                break
            out += d
    try:
        rc = proc.wait(timeout=HANG)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = "hang"
    for t in threads:
        t.join(HANG)
    proc.stderr.close()
    problems = []
    if rc != 0:
        problems.append("exit %s" % rc)
    if result.get("got_sha") != result.get("written_sha"):
        problems.append("peer got %s B of %s B written to stdin" % (result.get("got"), result.get("written")))
    down = result.get("down", b"")
    if (down[:len(out)] if quit_listener else down) != bytes(out):
        problems.append("stdout has %d B of %d B the peer sent" % (len(out), len(down)))
    for k in ("writer_error", "peer_send_error", "peer_recv_error"):
        if k in result:
            problems.append("%s: %s" % (k, result[k]))
    return problems, time.time() - start


def main():
    argv = sys.argv[1:]
    opts = {"--seed": None, "--seconds": "20", "--runs": "100000", "--fixed": None}
    while len(argv) >= 2 and argv[-2] in opts:
        opts[argv[-2]] = argv[-1]
        argv = argv[:-2]
    nc = argv
    seed = int(opts["--seed"]) if opts["--seed"] is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    deadline = time.time() + float(opts["--seconds"])
    runs = failed = 0
    print("seed %d" % seed)
    while runs < int(opts["--runs"]) and time.time() < deadline:
        s = schedule(rng)
        if opts["--fixed"] is not None:
            s = dict(FIXED[opts["--fixed"]], seed=rng.randrange(1 << 30))
        r = run(nc, s)
        if r is None:
            continue
        runs += 1
        problems, secs = r
        if problems:
            failed += 1
            print("FAIL run %d %.2fs %s: %s" % (runs, secs, s, "; ".join(problems)))
    print("%d runs, %d failed" % (runs, failed))
    sys.exit(1 if failed else 0)


main()
