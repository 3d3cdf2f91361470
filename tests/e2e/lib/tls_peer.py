#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# tls_peer.py - a TLS server for tests/e2e/tls/tls_attack.bats that writes its ciphertext in
# TCP pieces of random sizes (records split anywhere) with random pauses, then ends in a
# chosen way. TLS through ssl.SSLObject over memory BIOs, so the socket writes are ours.
#
#   tls_peer.py CERT KEY SEED SIZE END [GO]   SIZE random bytes (random.Random(SEED)), then END:
#       notify: close_notify, then close     cut: close without close_notify
#       rst: a reset                         open: keep open until file GO exists, then notify
#   tls_peer.py CERT KEY partial GO           send a first record's first 10 bytes, print
#       "paused", wait for file GO, then the rest of the record (1000 bytes of 'A') and notify
# It prints its port first, and "done" once all of it is sent. Every wait is bounded (30 s).
import os
import random
import select
import socket
import ssl
import sys
import time


def wait_file(path):
    for _ in range(1500):
        if os.path.exists(path):
            return
        time.sleep(0.02)


class Peer:
    def __init__(self, sock, cert, key, rng):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        if rng.random() < 0.3:
            ctx.maximum_version = ssl.TLSVersion.TLSv1_2
        self.inb, self.outb = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.obj = ctx.wrap_bio(self.inb, self.outb, server_side=True)
        self.sock, self.rng = sock, rng

    def flush(self, pause):
        data = self.outb.read()
        while data:
            n = self.rng.randint(1, len(data)) if self.rng.random() < 0.5 else len(data)
            self.sock.sendall(data[:n])
            data = data[n:]
            if data and pause and self.rng.random() < 0.3:
                time.sleep(self.rng.random() * pause)

    def handshake(self):
        while True:
            try:
                self.obj.do_handshake()
                self.flush(0)
                return
            except ssl.SSLWantReadError:
                self.flush(0)
                if not select.select([self.sock], [], [], 30)[0]:
                    raise TimeoutError("no handshake")
                d = self.sock.recv(65536)
                if not d:
                    raise EOFError("the client left in the handshake")
                self.inb.write(d)

    def notify(self):
        try:
            self.obj.unwrap()
        except (ssl.SSLWantReadError, ssl.SSLError):
            pass
        self.flush(0)


def main():
    cert, key = sys.argv[1], sys.argv[2]
    lsock = socket.socket()
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(1)
    lsock.settimeout(30)
    print(lsock.getsockname()[1], flush=True)
    sock, _ = lsock.accept()
    if sys.argv[3] == "partial":
        p = Peer(sock, cert, key, random.Random(1))
        p.handshake()
        p.obj.write(b"A" * 1000)
        rec = p.outb.read()
        sock.sendall(rec[:10])
        print("paused", flush=True)
        wait_file(sys.argv[4])
        sock.sendall(rec[10:])
        print("done", flush=True)
        p.notify()
    else:
        rng = random.Random(int(sys.argv[3]))
        size, end = int(sys.argv[4]), sys.argv[5]
        data = rng.randbytes(size)
        p = Peer(sock, cert, key, rng)
        p.handshake()
        pause = 0.01 if size < 200000 else 0
        pos = 0
        while pos < size:  # records of 1 byte, around 16 KiB, or anything up to 70000
            c = rng.choice([1, 16383, 16384, 16385, 65536]) if rng.random() < 0.5 else rng.randint(1, 70000)
            p.obj.write(data[pos:pos + c])
            p.flush(pause)
            pos += c
        print("done", flush=True)
        if end == "open":
            wait_file(sys.argv[6])
        if end in ("notify", "open"):
            p.notify()
        if end == "rst":
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")
    time.sleep(0.05)
    sock.close()


if __name__ == "__main__":
    main()
