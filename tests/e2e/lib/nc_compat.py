#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""nc_compat.py - issue 19's differences from Debian's nc, as a generated comparison: each
scenario runs once with nc.openbsd and once with ncpv run as `nc` (a symlink, so argv[0] is nc),
and the outcomes must match: exit status (124 = still running when the bound ran out), stdout,
and stderr with the program's own prefix ("nc:", "ncpv nc:") set aside.

usage: nc_compat.py NCPV   prints one line per scenario, exits 1 if any differs.
Scenarios run JOBS (4) at a time (most of each is waiting for a bound or a timer); each holds its
own ports and paths, and each runs nc.openbsd, then ncpv. The lines keep the scenarios' order."""
from concurrent.futures import ThreadPoolExecutor
import array, fcntl, os, re, select, shutil, socket, subprocess, sys, tempfile, threading, time

SCRATCH = tempfile.mkdtemp(prefix="ncpv-compat.")
JOBS = int(os.environ.get("NC_COMPAT_JOBS", "4"))


def free_port(kind=socket.SOCK_STREAM):
    s = socket.socket(socket.AF_INET, kind)
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def finish(p, timeout, stdin=None):
    """Wait for p at most timeout seconds; 124 when it was still running (as timeout(1) says)."""
    try:
        out, err = p.communicate(stdin, timeout=timeout)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        return 124, out, err


def run(args, stdin=b"", timeout=2.0):
    """Run nc with a bound (see finish)."""
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return finish(p, timeout, stdin)


def words(err):
    """stderr without the program's prefix: Debian says "nc: ", ncpv "ncpv nc: "."""
    lines = []
    for line in err.decode(errors="replace").splitlines():
        for prefix in ("ncpv nc: ", "nc.openbsd: ", "nc: "):
            if line.startswith(prefix):
                line = line[len(prefix):]
                break
        lines.append(re.sub(r"(127\.0\.0\.1[ :])\d+", r"\1PORT", line))  # each run has its own port
    return lines


def wait_bound(port, udp):
    """Until something holds 127.0.0.1:port (a TCP listener, or a bound UDP socket), 5 s at most:
    read from /proc/net, which does not touch the port."""
    want = "0100007F:%04X" % port
    end = time.monotonic() + 5
    while time.monotonic() < end:
        with open("/proc/net/udp" if udp else "/proc/net/tcp") as f:
            for line in f.readlines()[1:]:
                cols = line.split()
                if cols[1] == want and (udp or cols[3] == "0A"):
                    return
        time.sleep(0.01)


def wait_path(path):
    for _ in range(300):
        if os.path.exists(path):
            return
        time.sleep(0.01)


# Item 1: `nc -lU PATH` where PATH is a socket an earlier listener left behind.
def unix_relisten(nc, dgram, stale):
    path = os.path.join(SCRATCH, "s%d" % time.monotonic_ns())
    if stale:  # bound and closed, never unlinked: what a killed listener leaves
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM if dgram else socket.SOCK_STREAM)
        s.bind(path)
        s.close()
    p = subprocess.Popen(nc + ["-l" + ("u" if dgram else "") + "U", path], stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ok, keep = False, []
    for _ in range(100):  # until it listens (or gave up)
        time.sleep(0.02)
        if p.poll() is not None:
            break
        try:
            c = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM if dgram else socket.SOCK_STREAM)
            if dgram:  # a named sender, as an nc -uU client is (an unnamed one nc cannot answer)
                if os.path.exists(path + ".client"):  # left by a try before nc listened
                    os.unlink(path + ".client")
                c.bind(path + ".client")
            c.connect(path)
            c.send(b"hi\n")
            if dgram:
                keep.append(c)  # nc answers to it: keep it there
            else:
                c.close()
            ok = True
            break
        except OSError:
            c.close()
    got = b""
    if ok:  # what nc printed of it: up to 5 s on a loaded machine, not a fixed second
        end = time.monotonic() + 5
        while len(got) < 3 and time.monotonic() < end and p.poll() is None:
            if select.select([p.stdout], [], [], 0.1)[0]:
                chunk = os.read(p.stdout.fileno(), 64)
                if not chunk:
                    break
                got += chunk
    rc, out, err = finish(p, 1)
    out = got + out
    for c in keep:
        c.close()
    return rc, out, words(err), ok


# Item 2: a second listener on the same address and port while the first one listens.
def second_listener(nc, udp):
    port = free_port(socket.SOCK_DGRAM if udp else socket.SOCK_STREAM)
    flags = "-lu" if udp else "-l"
    first = subprocess.Popen(nc + [flags, "127.0.0.1", str(port)], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_bound(port, udp)
    rc, out, err = run(nc + [flags, "127.0.0.1", str(port)], timeout=1.0)
    first.kill()
    first.wait()
    return rc, out, words(err)


# Item 2: a client's -p PORT again at once, the first connection's port in TIME_WAIT.
def source_port_again(nc):
    port, src = free_port(), free_port()
    peer = socket.socket()
    peer.bind(("127.0.0.1", port))
    peer.listen(4)
    results = []

    def serve():  # read each client to its end, then close: the client closed first
        peer.settimeout(3)
        for _ in range(2):
            try:
                c, _ = peer.accept()
                while c.recv(4096):
                    pass
                c.close()
            except OSError:
                return
    t = threading.Thread(target=serve)
    t.start()
    for _ in range(2):
        rc, out, err = run(nc + ["-N", "-p", str(src), "127.0.0.1", str(port)], stdin=b"x\n")
        results.append((rc, words(err)))
    t.join()
    peer.close()
    return results


# Item 3: UDP "connections": -v probes with "X" datagrams (a closed port fails), -z alone does not.
def udp_probe(nc, flags, port_open):
    sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sink.bind(("127.0.0.1", 0))
    port = sink.getsockname()[1]
    if not port_open:
        sink.close()
    start = time.monotonic()
    rc, out, err = run(nc + flags + ["127.0.0.1", str(port)], stdin=b"hello\n", timeout=6)
    secs = time.monotonic() - start
    got = []
    if port_open:
        sink.settimeout(0.2)
        try:
            while True:
                got.append(sink.recv(100))
        except OSError:
            pass
        sink.close()
    # The probes' count too: a receiver counting datagrams sees it.
    return rc, words(err), "slow" if secs > 2 else "fast", got.count(b"X"), [d for d in got if d != b"X"]


# Item 4: -z does not pause for -i; -k makes -W moot; -P means nothing to SOCKS4.
def scan_interval(nc):
    ports = [free_port() for _ in range(3)]  # closed: nothing listens there
    start = time.monotonic()
    rc, out, err = run(nc + ["-z", "-i", "1", "127.0.0.1"] + [str(p) for p in ports], timeout=6)
    return rc, words(err), "slow" if time.monotonic() - start > 1.5 else "fast"


def udp_keep_recvlimit(nc):
    port = free_port(socket.SOCK_DGRAM)
    p = subprocess.Popen(nc + ["-ulk", "-W", "1", "127.0.0.1", str(port)], stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wait_bound(port, True)
    c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for m in (b"a\n", b"b\n", b"c\n"):
        c.sendto(m, ("127.0.0.1", port))
        time.sleep(0.1)
    c.close()
    rc, out, err = finish(p, 1)
    return rc, out, words(err)


def socks4_with_user(nc):
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(1)
    ls.settimeout(5)

    def proxy():  # grant the request, then a banner from "the destination"
        try:
            c, _ = ls.accept()
            c.recv(512)
            c.sendall(bytes.fromhex("005a000000000000") + b"banner\n")
            c.close()
        except OSError:
            pass
    t = threading.Thread(target=proxy)
    t.start()
    env_less = dict(os.environ)
    env_less.pop("NCPV_PROXY_PASSWORD", None)
    p = subprocess.run(nc + ["-d", "-X", "4", "-P", "bob", "-x", "127.0.0.1:%d" % ls.getsockname()[1],
                             "127.0.0.1", "9"], stdin=subprocess.DEVNULL, capture_output=True, timeout=10,
                       env=env_less, start_new_session=True)
    t.join()
    ls.close()
    return p.returncode, p.stdout, words(p.stderr)


# Item 5: operands Debian's nc refuses (its usage, exit 1) or cannot use.
def arguments(nc, args):
    rc, out, err = run(nc + args, timeout=1.0)
    lines = words(err)
    usage = bool(lines) and lines[0].startswith("usage: nc ")
    return rc, usage, [] if usage else lines


# Item 6: -F hands the connected socket over stdout (a Unix socket) as nc leaves it: non-blocking.
def fdpass(nc, flags):
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(1)
    mine, theirs = socket.socketpair()
    p = subprocess.Popen(nc + flags + ["127.0.0.1", str(ls.getsockname()[1])], stdin=subprocess.DEVNULL,
                         stdout=theirs, stderr=subprocess.PIPE)
    theirs.close()
    mine.settimeout(5)
    fds = array.array("i")
    try:
        msg, anc, _, _ = mine.recvmsg(1, socket.CMSG_SPACE(fds.itemsize))
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(data[:fds.itemsize])
    except OSError:
        pass
    rc, _, err = finish(p, 5)
    nonblocking = None
    if fds:
        nonblocking = bool(fcntl.fcntl(fds[0], fcntl.F_GETFL) & os.O_NONBLOCK)
        os.close(fds[0])
    mine.close()
    ls.close()
    return rc, words(err), len(fds), nonblocking


# Item 8: a -uU client's own name: a private directory's recv.sock, gone when nc is.
def unix_dgram_client_name(nc):
    path = os.path.join(SCRATCH, "d%d" % time.monotonic_ns())
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    srv.bind(path)
    srv.settimeout(3)
    p = subprocess.Popen(nc + ["-q", "0", "-uU", path], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    p.stdin.write(b"hi\n")
    p.stdin.flush()
    try:
        _, sender = srv.recvfrom(100)
    except OSError:
        sender = ""
    p.stdin.close()
    p.stdin = None  # closed: end of input for nc, nothing more for communicate to flush
    rc, _, err = finish(p, 3)
    srv.close()
    shape = re.sub(r"^/tmp/nc-[A-Za-z0-9]{6}/recv\.sock$", "/tmp/nc-XXXXXX/recv.sock", sender or "")
    return rc, words(err), shape, bool(sender) and os.path.exists(os.path.dirname(sender))


# Item 5, generated: every shape of operands (0 to 3) with -l, -U/-uU, -s/-p and the options nc
# checks against them (-z, -k, -x). Each run fails fast or ends at once: the port is held by a
# listener without SO_REUSEPORT that closes whoever connects, the paths are in no directory.
def busy_port():
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(64)

    def closer():
        while True:
            try:
                ls.accept()[0].close()
            except OSError:
                return
    threading.Thread(target=closer, daemon=True).start()
    return ls, str(ls.getsockname()[1])


def shapes(busy):
    for listen in ([], ["-l"]):
        for fam in ([], ["-U"], ["-uU"]):
            ops = ["/nonexistent/b", busy, "x"] if fam else ["127.0.0.1", busy, busy]
            for extra in ([], ["-z"], ["-k"], ["-x", "127.0.0.1:1"]):
                for src in ([], ["-s", "/nonexistent/a" if fam else "127.0.0.1"], ["-p", busy]):
                    for argc in range(4):
                        yield listen + fam + extra + src + ops[:argc]


def scenarios():
    for dgram in (False, True):
        for stale in (False, True):
            yield ("1 -l%sU PATH, PATH %s" % ("u" if dgram else "", "a stale socket" if stale else "absent"),
                   lambda nc, d=dgram, s=stale: unix_relisten(nc, d, s))
    for udp in (False, True):
        yield ("2 second -l%s on the same port" % ("u" if udp else ""), lambda nc, u=udp: second_listener(nc, u))
    yield ("2 client -p PORT twice in a row", source_port_again)
    for port_open in (False, True):
        for flags in (["-uv", "-q", "0"], ["-zu"], ["-zuv"], ["-zuv", "-w", "1"]):
            yield ("3 %s to a %s UDP port" % (" ".join(flags), "open" if port_open else "closed"),
                   lambda nc, f=flags, o=port_open: udp_probe(nc, f, o))
    yield ("4 -z -i 1 over three closed ports", scan_interval)
    yield ("4 -ulk -W 1, three datagrams", udp_keep_recvlimit)
    yield ("4 -X 4 -P user through a SOCKS4 proxy", socks4_with_user)
    for flags in (["-F"], ["-F", "-z"]):  # -z too: nc passes before it would scan
        yield ("6 %s hands over the socket" % " ".join(flags), lambda nc, f=flags: fdpass(nc, f))
    port = str(free_port())
    for args in (["-l", "-p", port, "127.0.0.1"], ["-l", "-s", "127.0.0.1", port],
                 ["-l", "-p", port, "127.0.0.1", port], ["-l", "-p", port, port],
                 ["-l", "127.0.0.1", port + "-" + port], ["-l", "127.0.0.1", port + "," + port],
                 ["-U", "-s", "/nonexistent/a", "/nonexistent/b"], ["-U", "-p", port, "/nonexistent/b"],
                 ["-uU", "-p", port, "/nonexistent/b"], ["-lU", "-p", port, "/nonexistent/b"],
                 ["-luU", "-s", "/nonexistent/a", "/nonexistent/b"]):
        yield ("5 " + " ".join(args), lambda nc, a=args: arguments(nc, a))
    yield ("8 -uU client's own socket name", unix_dgram_client_name)
    for host in ("127.1", "localhost", "127.0.0.1"):  # -v's line names the address once with -n
        for flags in (["-zv"], ["-zvn"]):
            yield ("5 %s %s" % (" ".join(flags), host), lambda nc, a=flags + [host, BUSY[1]]: arguments(nc, a))
    for args in shapes(BUSY[1]):
        yield ("5 " + " ".join(args), lambda nc, a=args: arguments(nc, a))
    # Item 7: a -s or -p nc cannot use is said without -v (the port is closed either way).
    for args in (["-s", "10.99.99.99"], ["-s", "bad..host"], ["-s", "::1"], ["-p", "abc"], ["-s", "127.0.0.2"]):
        yield ("7 " + " ".join(args), lambda nc, a=args: arguments(nc, a + ["127.0.0.1", port]))


BUSY = busy_port()


def main():
    link = os.path.join(SCRATCH, "nc")
    os.symlink(os.path.abspath(sys.argv[1]), link)
    bad = n = 0
    with ThreadPoolExecutor(JOBS) as pool:
        todo = [(name, pool.submit(lambda f=scenario: (f(["nc.openbsd"]), f([link]))))
                for name, scenario in scenarios()]
        for name, fut in todo:
            ref, ours = fut.result()
            same = ref == ours
            print("%-45s %s" % (name, "same" if same else "DIFFERS:\n  nc.openbsd: %r\n  ncpv (nc): %r" % (ref, ours)),
                  flush=True)
            bad += not same
            n += 1
    print("%d scenarios, %d differ" % (n, bad))
    shutil.rmtree(SCRATCH, ignore_errors=True)
    sys.exit(1 if bad else 0)


main()
