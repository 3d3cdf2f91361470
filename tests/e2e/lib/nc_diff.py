#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""nc_diff.py - the differential run behind nc_diff.bats: generated data through `ncpv nc` and
nc.openbsd with the same options, in the same situation, comparing what the peer received
(sha256), what nc wrote to stdout (sha256) and the exit status; and both against the bytes
that should arrive (stdin, LF -> CRLF with -C).

usage: nc_diff.py NCPV [SEED [CASE]]   prints one line per case (or runs only case CASE),
exits 1 if any case differs.
The case table is generated: every data-moving option (-C -N -q -d -i -u -l -w -U -O) with
sizes at the buffer boundaries (16 KiB, 256 KiB), random chunking of stdin and slow peers.
Every draw from SEED is made in the table's order first; the UDP cases then run alone, one at a
time (a loaded peer could drop datagrams), and the rest JOBS (3) at a time, each case with its
own peer, port and files; the lines are printed in the table's order."""
from concurrent.futures import ThreadPoolExecutor
import hashlib, os, random, shutil, socket, subprocess, sys, tempfile, threading, time

SCRATCH = tempfile.mkdtemp(prefix="ncpv-diff.")
TIMEOUT = 20
JOBS = int(os.environ.get("NC_DIFF_JOBS", "3"))


def sha(b):
    return hashlib.sha256(b).hexdigest()[:16]


def crlf(data):
    out, prev = bytearray(), 0
    for c in data:
        if c == 10 and prev != 13:
            out.append(13)
        out.append(c)
        prev = c
    return bytes(out)


def make_data(rng, size, lines):
    if size == 2:  # two lines: what -i 1 can send in bounded time
        return b"a\n"
    if lines:  # text with line feeds and carriage returns
        raw = bytes(rng.choice(b"abcdefghij\n\n\r") for _ in range(size))
    else:
        raw = rng.randbytes(size)
    return raw


def feed(proc, data, chunking, rng):
    """Write data to proc's stdin in pieces; chunking 0 = all at once."""
    try:
        if chunking == 0:
            proc.stdin.write(data)
        else:
            i = 0
            while i < len(data):
                n = rng.randint(1, chunking)
                proc.stdin.write(data[i:i + n])
                proc.stdin.flush()
                i += n
                if rng.random() < 0.05:
                    time.sleep(0.001)
        proc.stdin.close()
    except (BrokenPipeError, ValueError):
        pass


class Peer:
    """The other end: sends `down` while it reads until EOF or `want` bytes (pausing `slow`
    seconds every 64 KiB), then half-closes: an early end would stop a listener (nc's rule)
    before its stdin is through. For UDP it reads datagrams until `want` bytes or 1 s of silence."""

    def __init__(self, kind, down, want, slow):
        self.kind, self.down, self.want, self.slow = kind, down, want, slow
        self.got = bytearray()
        self.done = threading.Event()

    def serve_conn(self, conn):
        conn.settimeout(TIMEOUT)

        def sender():
            try:
                if self.down:
                    conn.sendall(self.down)
            except OSError:
                pass
        t = threading.Thread(target=sender)
        t.start()
        since = 0
        try:
            while len(self.got) < self.want:
                d = conn.recv(65536)
                if not d:
                    break
                self.got += d
                since += len(d)
                if self.slow and since >= 65536:
                    time.sleep(self.slow)
                    since = 0
        except OSError:
            pass
        t.join()
        try:
            conn.shutdown(socket.SHUT_WR)
            while conn.recv(65536):  # until nc closes too
                pass
        except OSError:
            pass
        conn.close()
        self.done.set()

    def serve_udp(self, s):
        s.settimeout(1)
        try:
            while len(self.got) < self.want:
                d, _ = s.recvfrom(70000)
                self.got += d
        except OSError:
            pass
        s.close()
        self.done.set()


def listening(port):
    """Is something listening on 127.0.0.1:port (TCP)? Read /proc, no probe connection."""
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            if state == "0A" and int(local.split(":")[1], 16) == port:
                return True
    return False


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def run(nc, case, data, down, tag_n, feed_seed):
    opts, role = case["opts"], case["role"]
    want = len(crlf(data) if "-C" in opts else data)
    if "-d" in opts:
        want = 0
    peer = Peer("udp" if "-u" in opts else "tcp", down, want, case["slow"])
    tag = "%s.%d" % (os.path.basename(nc[0]), tag_n)
    if role == "client":
        if "-U" in opts:
            path = os.path.join(SCRATCH, tag)
            ls = socket.socket(socket.AF_UNIX)
            ls.bind(path)
            where = [path]
        elif "-u" in opts:
            ls = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            ls.bind(("127.0.0.1", 0))
            where = ["127.0.0.1", str(ls.getsockname()[1])]
        else:
            ls = socket.socket()
            ls.bind(("127.0.0.1", 0))
            where = ["127.0.0.1", str(ls.getsockname()[1])]
        if "-u" in opts:
            threading.Thread(target=peer.serve_udp, args=(ls,)).start()
        else:
            ls.listen(1)
            ls.settimeout(TIMEOUT)

            def accept():
                try:
                    c, _ = ls.accept()
                    peer.serve_conn(c)
                except OSError:
                    peer.done.set()
            threading.Thread(target=accept).start()
        args = nc + opts + where
    else:
        port = free_port()
        args = nc + ["-l"] + opts + ["127.0.0.1", str(port)]
    out = open(os.path.join(SCRATCH, tag + ".out"), "w+b")
    start = time.time()
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.DEVNULL)
    feeder = threading.Thread(target=feed, args=(proc, data, case["chunk"], random.Random(feed_seed)))
    feeder.start()
    if role == "listen":
        for _ in range(500):
            if listening(port) or proc.poll() is not None:
                break
            time.sleep(0.01)
        c = socket.create_connection(("127.0.0.1", port), timeout=5)
        threading.Thread(target=peer.serve_conn, args=(c,)).start()
    try:
        rc = proc.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = "hang"
    feeder.join()
    peer.done.wait(TIMEOUT if rc == 0 else 1)
    if role == "client":
        ls.close()
    out.seek(0)
    got_out = out.read()
    out.close()
    return {"rc": rc, "peer": sha(bytes(peer.got)), "peer_len": len(peer.got),
            "out": sha(got_out), "out_len": len(got_out), "secs": time.time() - start}


def cases(rng):
    """The generated table: each option set meets sizes at the buffer boundaries."""
    edges = [0, 1, 16383, 16384, 16385, 262143, 262144, 262145, 3 << 20]
    table = []
    option_sets = [
        ("client", ["-N"], edges + [100 << 20], True),
        ("client", ["-N", "-C"], edges, True),
        ("client", ["-q", "0"], [0, 1, 16385, 262145, 3 << 20], False),
        ("client", ["-N", "-w", "5"], [1, 262145], True),
        ("client", ["-N", "-O", "65536"], [16385, 3 << 20], True),
        ("client", ["-d"], [0], True),
        ("client", ["-N", "-C", "-i", "1"], [0, 2], True),
        ("client", ["-u", "-q", "0"], [0, 1, 1000, 16384], False),
        ("client", ["-u", "-C", "-q", "0"], [1000], False),
        ("client", ["-U", "-N"], [0, 1, 262145, 3 << 20], True),
        ("client", ["-U", "-N", "-C"], [262145], True),
        ("listen", ["-N"], [0, 1, 262145, 3 << 20], True),
        ("listen", ["-N", "-C"], [16385, 262145], True),
        ("listen", ["-d"], [0], True),
    ]
    for role, opts, sizes, down in option_sets:
        for size in sizes:
            table.append({
                "role": role, "opts": opts, "size": size,
                "lines": "-C" in opts or "-i" in opts,
                "chunk": 0 if size > (8 << 20) else rng.choice([0, 1000, 65536]),
                "slow": 0 if size > (8 << 20) or "-u" in opts else rng.choice([0, 0, 0.002]),
                "down": down and rng.random() < 0.5,
            })
    return table


def compare(i, case, data, down, ref, ours):
    """One case's line, and whether it differs."""
    expect_up = sha(crlf(data) if "-C" in case["opts"] else data)
    if "-d" in case["opts"]:
        expect_up = sha(b"")
    problems = []
    notes = []
    for k in ("rc", "peer", "out"):
        if ref[k] == ours[k]:
            continue
        if k == "peer" and ours["peer"] == expect_up and ref["peer"] != expect_up:
            # nc.openbsd -u -C -q 0 sometimes sends less than stdin said (its CRLF goes
            # out as datagrams of its own, and -q 0 can exit first): ncpv is not held to that.
            notes.append("nc.openbsd's peer got %d B, short; ncpv's got all" % ref["peer_len"])
            continue
        problems.append("%s %s vs %s" % (k, ref[k], ours[k]))
    # Complete delivery where nc promises it (-q 0 and UDP may cut the download short).
    if ours["peer"] != expect_up:
        problems.append("peer got %d B, not what stdin said" % ours["peer_len"])
    if down and ours["out"] != sha(down) and "-q" not in case["opts"]:
        problems.append("stdout %d B, not what the peer sent" % ours["out_len"])
    line = "%-3d %-6s %-24s size=%-9d chunk=%-5d slow=%-5s down=%-6d rc=%s/%s %.2fs/%.2fs" % (
        i, case["role"], " ".join(case["opts"]), case["size"], case["chunk"], case["slow"],
        len(down), ref["rc"], ours["rc"], ref["secs"], ours["secs"])
    return line + ("  DIFFERS: " + "; ".join(problems) if problems else "  same") + "".join("  (" + n + ")" for n in notes), bool(problems)


def main():
    ncpv = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 19
    rng = random.Random(seed)
    bad = 0
    table = cases(rng)
    only = int(sys.argv[3]) if len(sys.argv) > 3 else None
    # The draws in the order one case at a time made them: data, down, then each run's file
    # tag and stdin chunking seed (nc.openbsd's run, then ncpv's).
    todo = []
    for i, case in enumerate(table):
        data = make_data(rng, case["size"], case["lines"])
        down = rng.randbytes(rng.choice([1, 5000, 300000])) if case["down"] else b""
        if only is not None and i != only:
            continue
        draws = [rng.randrange(1 << 30), rng.random(), rng.randrange(1 << 30), rng.random()]
        todo.append((i, case, data, down, draws))

    def one(job):
        i, case, data, down, d = job
        ref = run(["nc.openbsd"], case, data, down, d[0], d[1])
        ours = run([ncpv, "nc"], case, data, down, d[2], d[3])
        return compare(i, case, data, down, ref, ours)

    results = {}
    for job in todo:
        if "-u" in job[1]["opts"]:
            results[job[0]] = one(job)
    with ThreadPoolExecutor(JOBS) as pool:
        rest = [job for job in todo if "-u" not in job[1]["opts"]]
        for job, res in zip(rest, pool.map(one, rest)):
            results[job[0]] = res
    for job in todo:
        line, differs = results[job[0]]
        print(line)
        bad += differs
    print("%d cases, %d differ" % (len(table) if only is None else 1, bad))
    shutil.rmtree(SCRATCH, ignore_errors=True)
    sys.exit(1 if bad else 0)


main()
