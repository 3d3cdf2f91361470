#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# udp_peer.py - a hostile or greedy peer for serve -u (tests/e2e/udp.bats), speaking docs/UDP.md:
#   flood HOST PORT SEED: random, truncated and forged datagrams from many source ports; fails if any
#     answer is larger than the request that drew it, or a forged or replayed cookie gets an answer.
#   fill HOST PORT N: start N flows properly (HELLO, START); prints "started S full F".
import random
import socket
import struct
import sys
import time

MAGIC = 0x4E435055


def header(t, stream=0, test=1, cookie=0, version=1):
    return struct.pack('>IBBHIQ', MAGIC, version, t, stream, test, cookie)


def params(flags=0, length=1400, rate=1000000, ms=1000):
    return struct.pack('>BBHQI', flags, 0, length, rate, ms)


def hello(test, flags=0, pad=64, **kw):
    return (header(1, test=test, **kw) + params(flags)).ljust(pad, b'\0')[:pad]


def start(test, cookie, flags=0, stream=0):
    return (header(3, test=test, cookie=cookie, stream=stream) + params(flags)).ljust(64, b'\0')


def ask(sock, data, timeout=0.3):
    """Send data, return the answer or None; an answer longer than data fails the run."""
    sock.send(data)
    sock.settimeout(timeout)
    try:
        got = sock.recv(65536)
    except (socket.timeout, ConnectionRefusedError):
        return None
    if len(got) > len(data):
        sys.exit('amplified: %d-byte answer to a %d-byte request' % (len(got), len(data)))
    return got


def cookie_of(answer):
    return struct.unpack('>Q', answer[12:20])[0]


def flood(host, port, seed):
    rnd = random.Random(seed)
    print('seed', seed)
    socks = []
    for _ in range(200):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.connect((host, port))
        s.setblocking(False)
        socks.append(s)
    kinds = 0
    for i in range(20000):
        s = socks[i % len(socks)]
        k = rnd.randrange(8)
        if k == 0:
            d = rnd.randbytes(rnd.randrange(0, 1500))
        elif k == 1:  # our magic, cut anywhere
            d = (header(rnd.randrange(2, 9)) + rnd.randbytes(120))[:rnd.randrange(0, 100)]
        elif k == 2:  # another version
            d = header(rnd.randrange(1, 9), version=rnd.randrange(2, 256)) + rnd.randbytes(60)
        elif k == 3:  # a forged cookie on every type a client sends
            d = (header(rnd.choice([3, 5, 6, 8]), test=rnd.getrandbits(32), cookie=rnd.getrandbits(64)) +
                 rnd.randbytes(100))
        elif k == 4:  # a HELLO too short to answer
            d = hello(rnd.getrandbits(32), pad=rnd.randrange(20, 64))
        elif k == 5:  # server-only types
            d = header(rnd.choice([2, 4, 7]), cookie=rnd.getrandbits(64)) + rnd.randbytes(120)
        elif k == 6:  # random type numbers
            d = header(rnd.randrange(9, 256)) + rnd.randbytes(rnd.randrange(0, 200))
        else:  # data for no flow
            d = header(5, test=rnd.getrandbits(32), cookie=rnd.getrandbits(64)) + rnd.randbytes(40)
        try:
            s.send(d)
            kinds += 1
        except (BlockingIOError, ConnectionRefusedError):
            pass
    # No answer to any of that except HELLOs long enough (none were): drain and check sizes.
    time.sleep(0.2)
    for s in socks:
        while True:
            try:
                got = s.recv(65536)
            except (BlockingIOError, ConnectionRefusedError):
                break
            sys.exit('an answer (%d bytes) to a datagram that deserved none' % len(got))
    # A cookie proves one address and port: replayed from another port it is refused.
    a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    a.connect((host, port))
    b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    b.connect((host, port))
    got = ask(a, hello(77))
    if got is None or len(got) != 40:
        sys.exit('no COOKIE for a proper HELLO')
    if ask(b, start(77, cookie_of(got), flags=1)) is not None:
        sys.exit('a cookie replayed from another port was accepted')
    if ask(a, start(77, cookie_of(got) ^ 1, flags=1)) is not None:
        sys.exit('a forged cookie was accepted')
    print('sent', kinds, 'bad datagrams; no amplification, no forged or replayed cookie accepted')


def fill(host, port, n):
    started = full = 0
    socks = []
    for i in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.connect((host, port))
        socks.append(s)
        got = ask(s, hello(1000 + i))
        if got is None:
            continue
        got = ask(s, start(1000 + i, cookie_of(got)))
        if got is None:
            continue
        if got[20] & 4:
            full += 1
        else:
            started += 1
    print('started', started, 'full', full)


def tail(host, port):
    """Send datagrams 0..99 but 50 and 90..99, with a duplicate of 7 and 20 before 19, then the final
    request saying 100 were sent: print the REPORT's figures."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect((host, port))
    c = cookie_of(ask(s, hello(5)))
    ask(s, start(5, c))
    seqs = [q for q in range(90) if q != 50 and q != 19] + [7, 19]
    for q in seqs:
        s.send(header(5, test=5, cookie=c) + struct.pack('>QQ', q, int(time.monotonic() * 1e9)) + bytes(28))
    time.sleep(0.1)
    req = (header(6, test=5, cookie=c) + struct.pack('>BBHQQ', 1, 0, 9, 100, 6400)).ljust(112, b'\0')
    got = ask(s, req)
    f = struct.unpack('>BBH8Q', got[20:88])
    print('packets %d expected %d duplicates %d out_of_order %d' % (f[3], f[5], f[6], f[7]))


if __name__ == '__main__':
    if sys.argv[1] == 'flood':
        flood(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif sys.argv[1] == 'tail':
        tail(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == 'fill':
        fill(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit('usage: udp_peer.py flood|fill HOST PORT N')
