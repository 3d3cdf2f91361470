#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# side_peer.py - hostile and near-miss side-channel hellos (docs/SIDECHANNEL.md) against ncpv
# serve, for serve_get_side.bats. Loopback only; every wait is bounded.
#   side_peer.py near-miss PORT send SEED       each case's bytes, then serve must go on sending
#   side_peer.py near-miss PORT discard SEED LOG each case's bytes + filler uploaded to serve
#                                               --discard: its -j LOG must count every byte
#   side_peer.py orphans PORT N HOLD            N control hellos that never open a data
#                                               connection, at most HOLD open at once
#   side_peer.py hold-ctl PORT N SECONDS        N control sessions, each answered ok, held open
#                                               SECONDS; prints "held N" once all are answered
#   side_peer.py paced-ctl PORT SECONDS         a control hello with rate= whose data connection
#                                               never comes: prints serve's answer, holds SECONDS
#   side_peer.py answer PORT [PAIR]...          a control hello with PAIRs (ask=size...) added:
#                                               prints serve's answer line, then closes
#   side_peer.py grow PORT FILE START ADD...    for each ADD: FILE made START bytes, a control
#                                               hello with ask=size, ADD bytes appended after
#                                               the answer, then the down connection: prints
#                                               "said N got M eof|reset" per case
#   side_peer.py gone-down PORT PID N           N sessions whose down connection says hello and
#                                               resets while serve (PID) is stopped: serve meets
#                                               the reset at its first send, the hello unread;
#                                               prints "end" or "none" per session (its end line
#                                               on the control connection within 5 s, or not)
#   side_peer.py old-serve                      a serve from before rate=: answers a control
#                                               hello with a bare ok, sends to anything else;
#                                               prints its port, then "data ROLE" per connection
import json
import os
import random
import socket
import sys
import time

MAGIC = b"\0ncpv-side "
TOKEN = b"0123456789abcdef0123456789abcdef"
GOOD = MAGIC + b"1 ctl " + TOKEN + b" interval=0 streams=1\n"


def cases(seed):
    """The generated table: (name, first bytes). None of them is a hello serve may answer."""
    rng = random.Random(seed)
    out = [("prefix%d" % n, GOOD[:n]) for n in range(1, len(GOOD))]
    out += [
        ("text", b"hello, world\n"),
        ("http", b"GET / HTTP/1.0\r\nHost: x\r\n\r\n"),
        ("tls", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"),
        ("nuls", b"\0\0\0\0"),
        ("version0", MAGIC + b"0 ctl " + TOKEN + b"\n"),
        ("versionx", MAGIC + b"x ctl " + TOKEN + b"\n"),
        ("overlong", MAGIC + b"1 ctl " + TOKEN + b" " + b"k=v " * 150 + b"\n"),
        ("nonewline", MAGIC + b"1 ctl " + TOKEN + b" " + b"x" * 600),
        ("token31", MAGIC + b"1 ctl " + TOKEN[:31] + b"\n"),
        ("token33", MAGIC + b"1 ctl " + TOKEN + b"0\n"),
        ("tokenupper", MAGIC + b"1 ctl " + TOKEN.upper().replace(b"0", b"A") + b"\n"),
        ("tokennonhex", MAGIC + b"1 ctl " + b"g" * 32 + b"\n"),
        ("role", MAGIC + b"1 side " + TOKEN + b"\n"),
        ("notoken", MAGIC + b"1 ctl\n"),
        ("trailingspace", MAGIC + b"1 ctl " + TOKEN + b" \n"),
        ("ninepairs", MAGIC + b"1 ctl " + TOKEN + b"".join(b" k%d=1" % i for i in range(9)) + b"\n"),
        ("interval5", MAGIC + b"1 ctl " + TOKEN + b" interval=5\n"),
        ("streams0", MAGIC + b"1 ctl " + TOKEN + b" streams=0\n"),
        ("streams129", MAGIC + b"1 ctl " + TOKEN + b" streams=129\n"),
        ("magicx", b"\0ncpv-sidX 1 ctl " + TOKEN + b"\n"),
        ("rate0", MAGIC + b"1 ctl " + TOKEN + b" rate=0\n"),
        ("ratebig", MAGIC + b"1 ctl " + TOKEN + b" rate=10000000000001\n"),
        ("rateunit", MAGIC + b"1 ctl " + TOKEN + b" rate=10M\n"),
        ("askempty", MAGIC + b"1 ctl " + TOKEN + b" ask=,,,\n"),
        ("asktrailing", MAGIC + b"1 ctl " + TOKEN + b" ask=size,\n"),
        ("askleading", MAGIC + b"1 ctl " + TOKEN + b" ask=,size\n"),
    ]
    # Below the floor, a kilobyte a second (SIDE_RATE_MIN): 1 bit/s was taken.
    out += [("rate%d" % r, MAGIC + b"1 ctl " + TOKEN + b" rate=%d\n" % r) for r in (1, 8, 999, 7999)]
    for i in range(20):
        out.append(("random%d" % i, b"\0" + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 700)))))
    return out


def connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.settimeout(5)
    return s


# More than serve sends at accept (four 256 KiB sends) and the sockets' buffers hold: only a
# serve that goes on sending after it looked at the bytes gets this far.
STILL = 8 << 20


def still_sends(port, name, data):
    """serve must go on with the stream it sends, and answer nothing."""
    s = connect(port)
    s.sendall(data)
    got, end = bytearray(), time.time() + 5  # bytearray: appending copies nothing back
    while len(got) < STILL and time.time() < end:
        d = s.recv(1 << 20)
        if not d:
            break
        got += d
    s.close()
    if len(got) < STILL:
        return "%s: serve sent %d bytes, then stopped" % (name, len(got))
    if MAGIC + b"1 " in got:
        return "%s: serve answered a near-miss hello" % name
    return None


def uploaded(port, name, data, filler, split):
    """serve --discard must count every byte, the near-miss's included. Returns (port, bytes).
    split: the first bytes go alone, and the rest 20 ms later (no Nagle), so that serve sees a
    hello's beginning on one read and what breaks it on a later one; a schedule, not a wait."""
    s = connect(port)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if split:
        s.sendall(data)
        time.sleep(0.02)
        s.sendall(filler)
    else:
        s.sendall(data + filler)
    s.shutdown(socket.SHUT_WR)
    while s.recv(65536):
        pass
    lport = s.getsockname()[1]
    s.close()
    return lport, len(data) + len(filler)


def near_miss(argv):
    port, mode, seed = int(argv[0]), argv[1], int(argv[2])
    print("seed %d" % seed)
    bad = []
    sent = {}
    rng = random.Random(seed + 1)
    for name, data in cases(seed):
        if mode == "send":
            why = still_sends(port, name, data)
            if why:
                bad.append(why)
        else:
            # A third of the cases end at the near-miss (its EOF decides), the rest go on.
            size = 0 if rng.randrange(3) == 0 else rng.randrange(1, 5000)
            filler = bytes(rng.randrange(256) for _ in range(size))
            lport, n = uploaded(port, name, data, filler, rng.randrange(2) == 0)
            sent[lport] = (name, n)
    if mode == "discard":
        logged, end = {}, time.time() + 5
        while len(logged) < len(sent) and time.time() < end:
            with open(argv[3]) as f:
                for line in f:
                    ev = json.loads(line)
                    if ev.get("event") == "close":
                        logged[int(ev["peer"].rsplit(":", 1)[1])] = ev
            time.sleep(0.05)
        for lport, (name, n) in sent.items():
            ev = logged.get(lport)
            if ev is None:
                bad.append("%s: no close line" % name)
            elif ev["received"] != n or "side" in ev:
                bad.append("%s: sent %d, serve counted %d (%s)" % (name, n, ev["received"], ev.get("side", "")))
    for b in bad:
        print(b)
    print("%d cases, %d failed" % (len(cases(seed)), len(bad)))
    return 1 if bad else 0


def orphans(argv):
    """N control hellos, none followed by a data connection; the oldest is dropped (unread: a
    reset) once HOLD are open. serve's log says which it answered."""
    port, n, hold = int(argv[0]), int(argv[1]), int(argv[2])
    open_socks, failed = [], 0
    end = time.time() + 60
    for i in range(n):
        if time.time() > end:
            print("gave up after %d" % i)
            return 1
        tok = b"%032x" % random.getrandbits(128)
        try:
            s = connect(port)
            s.sendall(MAGIC + b"1 ctl " + tok + b" interval=10 streams=2\n")
            open_socks.append((s, tok))
        except OSError:
            failed += 1
        if len(open_socks) > hold:
            open_socks.pop(0)[0].close()
    # The last HOLD, all open at once: each is answered (its token comes after whatever serve
    # had queued) or refused (a reset); more than --max-conns cannot all be answered.
    answered = refused = 0
    t_end = time.time() + 20
    for s, tok in open_socks:
        got = b""
        try:
            s.settimeout(max(0.1, t_end - time.time()))
            while tok not in got:
                d = s.recv(1 << 20)
                if not d:
                    break
                got = got[-100:] + d
        except OSError:
            pass
        answered += tok in got
        refused += tok not in got
    # Closed only once all are read: a slot freed while later ones still wait in the kernel's
    # accept queue would let serve answer one more than --max-conns at once.
    for s, _ in open_socks:
        s.close()
    print("orphans %d, connect or send failed %d; of the last %d: answered %d, refused %d"
          % (n, failed, len(open_socks), answered, refused))
    return 0


def hold_ctl(argv):
    """N control sessions at once, each waited for until serve's ok, then held: they are
    connections, and count against --max-conns as any other."""
    port, n, hold = int(argv[0]), int(argv[1]), float(argv[2])
    socks, end = [], time.time() + 10
    for _ in range(n):
        tok = b"%032x" % random.getrandbits(128)
        s = connect(port)
        s.sendall(MAGIC + b"1 ctl " + tok + b" interval=0 streams=1\n")
        got = b""
        s.settimeout(max(0.1, end - time.time()))
        while tok not in got:
            d = s.recv(1 << 20)
            if not d:
                print("session %d: no answer" % len(socks))
                return 1
            got = got[-100:] + d
        socks.append(s)
    print("held %d" % n, flush=True)
    time.sleep(hold)
    for s in socks:
        s.close()
    return 0


def paced_ctl(argv):
    """A paced session that no data connection joins: serve holds new connections meanwhile."""
    port, hold = int(argv[0]), float(argv[1])
    s = connect(port)
    s.sendall(MAGIC + b"1 ctl " + TOKEN + b" interval=0 streams=1 rate=1000000\n")
    got, end = b"", time.time() + 5
    while TOKEN not in got and time.time() < end:
        d = s.recv(1 << 20)
        if not d:
            break
        got = got[-200:] + d
    line = got[got.rfind(MAGIC):].split(b"\n")[0] if MAGIC in got else b""
    print(line[1:].decode("ascii", "replace"), flush=True)
    time.sleep(hold)
    s.close()
    return 0


def answer(argv):
    """serve's answer to a control hello with argv[1:] added (the size= asked for or not)."""
    s = connect(int(argv[0]))
    s.sendall(MAGIC + b"1 ctl " + TOKEN + b" interval=0 streams=1" + b"".join(b" " + a.encode() for a in argv[1:]) + b"\n")
    line = read_answer(s, TOKEN)
    print(line[1:].decode("ascii", "replace"), flush=True)
    s.close()
    return 0


def old_serve(argv):
    """Before rate=, serve skipped the key as unknown and answered ok: get must not go on."""
    import threading

    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(16)
    ls.settimeout(1)
    print(ls.getsockname()[1], flush=True)

    def serve_one(c):
        c.settimeout(2)
        first = b""
        try:
            while b"\n" not in first and len(first) < 512:
                d = c.recv(512)
                if not d:
                    break
                first += d
        except OSError:
            pass
        words = first.split(b"\n")[0].split(b" ")
        if first.startswith(MAGIC) and len(words) > 3 and words[2] == b"ctl":
            print("data ctl", flush=True)
            c.sendall(MAGIC + b"1 ok " + words[3] + b"\n")
            try:
                while c.recv(65536):
                    pass
            except OSError:
                pass
        else:
            print("data %s" % (words[2].decode() if first.startswith(MAGIC) and len(words) > 2 else "raw"),
                  flush=True)
            try:
                for _ in range(64):
                    c.sendall(b"x" * 65536)
            except OSError:
                pass
        c.close()

    end = time.time() + 30
    while time.time() < end:
        try:
            c, _ = ls.accept()
        except socket.timeout:
            continue
        threading.Thread(target=serve_one, args=(c,), daemon=True).start()
    return 0


def read_answer(s, token):
    """serve's answer line on control connection s, read past the data queued before it."""
    got, end = b"", time.time() + 5
    while time.time() < end and not (MAGIC in got and token in got[got.rfind(MAGIC):] and
                                      b"\n" in got[got.rfind(MAGIC):]):
        d = s.recv(1 << 20)
        if not d:
            break
        got = got[-600:] + d
    return got[got.rfind(MAGIC):].split(b"\n")[0] if MAGIC in got else b""


def grow(argv):
    """The file grows between serve's answer (its size=) and the down connection's accept."""
    port, path, start = int(argv[0]), argv[1], int(argv[2])
    for add in (int(a) for a in argv[3:]):
        with open(path, "wb") as f:
            f.write(os.urandom(start))
        token = b"%032x" % random.getrandbits(128)  # its own: a paced-ctl may hold TOKEN
        ctl = connect(port)
        ctl.sendall(MAGIC + b"1 ctl " + token + b" interval=0 streams=1 ask=size\n")
        line = read_answer(ctl, token)
        said = [w[5:].decode() for w in line.split() if w.startswith(b"size=")]
        with open(path, "ab") as f:
            f.write(os.urandom(add))
        down = connect(port)
        down.sendall(MAGIC + b"1 down " + token + b" stream=0\n")
        got, how = 0, "eof"
        try:
            while True:
                d = down.recv(1 << 20)
                if not d:
                    break
                got += len(d)
        except OSError:
            how = "reset"
        down.close()
        ctl.close()
        print("said %s got %d %s" % (said[0] if said else "none", got, how), flush=True)
    return 0


def gone_down(argv):
    """A down connection that said hello and reset before serve accepted it: the session's
    control connection must still get its end line, not wait for one that never comes."""
    import signal
    import struct
    port, pid, n = int(argv[0]), int(argv[1]), int(argv[2])
    for _ in range(n):
        token = b"%032x" % random.getrandbits(128)
        ctl = connect(port)
        ctl.sendall(MAGIC + b"1 ctl " + token + b" interval=0 streams=1\n")
        read_answer(ctl, token)
        os.kill(pid, signal.SIGSTOP)
        try:
            down = connect(port)  # the kernel completes it: serve accepts it later
            down.sendall(MAGIC + b"1 down " + token + b" stream=0\n")
            time.sleep(0.01)
            down.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            down.close()  # a reset, before serve's accept
        finally:
            os.kill(pid, signal.SIGCONT)
        got, end = b"", time.time() + 5
        ctl.settimeout(0.2)
        while time.time() < end and not any(l.startswith(b"end 0 ") for l in got.split(b"\n")[:-1]):
            try:
                d = ctl.recv(65536)
            except socket.timeout:
                continue
            if not d:
                break
            got += d
        ctl.close()
        print("end" if any(l.startswith(b"end 0 ") for l in got.split(b"\n")[:-1]) else "none", flush=True)
    return 0


if __name__ == "__main__":
    cmd = sys.argv[1]
    modes = {"near-miss": near_miss, "orphans": orphans, "hold-ctl": hold_ctl, "paced-ctl": paced_ctl, "old-serve": old_serve,
             "answer": answer, "grow": grow, "gone-down": gone_down}
    sys.exit(modes[cmd](sys.argv[2:]))
