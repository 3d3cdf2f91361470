#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# handshake_cut.py - a peer that fails a TLS client's handshake at a chosen point, for
# tls.bats (issue 22): on each connection it accepts, it plays MODE once, then closes.
#   rst-now          reset at once (SO_LINGER 0), before reading anything
#   rst-partial      read 5 bytes of the ClientHello, then reset
#   rst-after-hello  read the whole ClientHello record, then reset
#   rst-mid-server   read the ClientHello, send the first 7 bytes of a ServerHello record, reset
#   fin-now          close cleanly (FIN) at once
#   fin-after-hello  read the ClientHello, then FIN
#   garbage          read the ClientHello, answer with an HTTP error, then FIN
# It prints its port first. Loopback only; it ends after CONNS connections or 30 s.
import socket
import struct
import sys
import time


def read_exact(conn, n, deadline):
    data = b""
    while len(data) < n and time.monotonic() < deadline:
        conn.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = conn.recv(n - len(data))
        except socket.timeout:
            break
        if not chunk:
            break
        data += chunk
    return data


def read_hello(conn, deadline):
    head = read_exact(conn, 5, deadline)
    if len(head) == 5:
        read_exact(conn, struct.unpack(">H", head[3:5])[0], deadline)


def reset(conn):
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()


def play(conn, mode):
    deadline = time.monotonic() + 10
    if mode == "rst-now":
        return reset(conn)
    if mode == "fin-now":
        return conn.close()
    if mode == "rst-partial":
        read_exact(conn, 5, deadline)
        return reset(conn)
    read_hello(conn, deadline)
    if mode == "rst-after-hello":
        return reset(conn)
    if mode == "rst-mid-server":
        conn.sendall(b"\x16\x03\x03\x00\x7a\x02\x00")
        time.sleep(0.05)  # let the client read them before the reset drops them
        return reset(conn)
    if mode == "garbage":
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n")
    conn.shutdown(socket.SHUT_WR)
    read_exact(conn, 1 << 20, time.monotonic() + 1)
    conn.close()


def main():
    mode, conns = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    print(srv.getsockname()[1], flush=True)
    srv.settimeout(30)
    for _ in range(conns):
        try:
            conn, _ = srv.accept()
        except socket.timeout:
            break
        play(conn, mode)
    srv.close()


main()
