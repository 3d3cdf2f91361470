#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# link_ping.py - ICMP echo through an unprivileged ping socket (the ends of `ncpv link`
# allow it for our gid), for tests/e2e/link/link.bats:
#   link_ping.py pingpong HOST COUNT   one request at a time; prints the median, minimum
#                                      and maximum round trip (ms), the replies counted and
#                                      the lower quartile
#   link_ping.py burst HOST COUNT      COUNT requests back to back, then counts the
#                                      replies and those that came before a lower sequence
#   link_ping.py udp HOST COUNT SIZE   COUNT datagrams of SIZE bytes to HOST's discard port
#   link_ping.py flood HOST SECONDS SIZE  datagrams of SIZE bytes to HOST port 9000 for
#                                      SECONDS, as fast as they go (more than the link takes)
#   link_ping.py sink ADDR COUNT       receive on ADDR port 9000 until COUNT s pass without a
#                                      datagram after the first; print the IP bytes (28 more
#                                      than each payload) after the first, and the seconds from
#                                      the first to the last: the link's rate, queue kept full
import socket
import struct
import sys
import time

mode, host, count = sys.argv[1], sys.argv[2], float(sys.argv[3])
count = int(count) if mode != "flood" else count


def request(sock, seq):
    sock.sendto(struct.pack("!BBHHH", 8, 0, 0, 0, seq) + b"ncpv-link-ping" + bytes(42), (host, 0))


def reply_seq(sock):
    data = sock.recv(2048)
    return struct.unpack("!H", data[6:8])[0] if len(data) >= 8 and data[0] == 0 else None


if mode == "flood":
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    payload, end = bytes(int(sys.argv[4])), time.monotonic() + count
    while time.monotonic() < end:
        for i in range(64):
            try:
                u.sendto(payload, (host, 9000))
            except OSError:
                pass
    sys.exit(0)

if mode == "sink":
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind((host, 9000))
    first = u.recv(65536)
    t0 = t1 = time.monotonic()
    total = 0
    u.settimeout(count)
    try:
        while True:
            n = len(u.recv(65536))
            t1 = time.monotonic()
            total += n + 28
    except socket.timeout:
        pass
    print("sink bytes %d seconds %.6f" % (total, t1 - t0), flush=True)
    sys.exit(0)

if mode == "udp":
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i in range(count):
        u.sendto(bytes(int(sys.argv[4])), (host, 9))
    sys.exit(0)

s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP)
s.settimeout(2.0)
if mode == "burst":
    for seq in range(count):
        request(s, seq)
    got, reordered, highest = 0, 0, -1
    try:
        while got < count:
            seq = reply_seq(s)
            if seq is None:
                continue
            got += 1
            reordered += seq < highest
            highest = max(highest, seq)
    except socket.timeout:
        pass
    print("replies %d reordered %d" % (got, reordered))
    sys.exit(0)

# The reply's time is the kernel's receive timestamp, taken as it reached the socket, so that
# how late this process is woken afterwards is not counted against the line.
SO_TIMESTAMPNS = 35  # Linux, every architecture but parisc and sparc; Python does not name it
s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
rtts = []
for seq in range(count):
    t0 = time.time_ns()
    request(s, seq)
    try:
        while True:
            data, anc, flags, addr = s.recvmsg(2048, 64)
            if len(data) >= 8 and data[0] == 0 and struct.unpack("!H", data[6:8])[0] == seq:
                break
        at = [struct.unpack("qq", d[:16]) for lv, ty, d in anc
              if lv == socket.SOL_SOCKET and ty == SO_TIMESTAMPNS]
        t1 = at[0][0] * 1000000000 + at[0][1] if at else time.time_ns()
        rtts.append((t1 - t0) / 1e6)
    except socket.timeout:
        pass
rtts.sort()
if not rtts:
    print("median - min - max - replies 0")
    sys.exit(1)
print("median %.3f min %.3f max %.3f replies %d q1 %.3f" %
      (rtts[len(rtts) // 2], rtts[0], rtts[-1], len(rtts), rtts[len(rtts) // 4]))
