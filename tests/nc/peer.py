#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""peer.py - the loopback situations tests/nc/messages.tsv's triggers need, held for one command.

usage: peer.py SETUP PORTFILE -- COMMAND...   (runs COMMAND with {PORT} in its words replaced and
       writes the port to PORTFILE; prints nothing of its own; exits with COMMAND's status;
       COMMAND's stdio are this process's)
SETUP:
  none        no peer; {PORT} is a port nothing listens on
  refused     the same: a loopback port nothing listens on
  busy        {PORT} is held by a listener without SO_REUSEPORT (a second listener fails)
  full        {PORT} is a listener whose accept queue is full (a connect times out)
  peer:HEX    {PORT} answers every connection with the bytes HEX once something arrives,
              then keeps reading until the client closes (5 s at most)
  cut:HEX     the same, but ends its sending side after HEX: a reply cut short
  reset:HEX   the same, but resets the connection after HEX: a reply cut by an error
Every wait is bounded; the peer stops when COMMAND ends. messages_check.py imports it and calls
run() in threads, one row each, without a Python process per row."""
import os, socket, subprocess, sys, threading, time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def answer(conn, reply, cut):
    conn.settimeout(5)
    try:
        first = conn.recv(4096)
        if first and reply:
            time.sleep(0.05)  # let a greeting and its request both arrive before the reply
            conn.sendall(reply)
        if first and cut == "reset":
            time.sleep(0.05)
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")
            conn.close()
            return
        if first and cut:
            conn.shutdown(socket.SHUT_WR)
        deadline = time.time() + 5
        while first and time.time() < deadline:
            if not conn.recv(4096):
                break
    except OSError:
        pass
    conn.close()


def serve(ls, reply, cut):
    while True:
        try:
            conn, _ = ls.accept()
        except OSError:
            return
        threading.Thread(target=answer, args=(conn, reply, cut), daemon=True).start()


class Held:
    """SETUP's loopback situation, held until close(); .port is its {PORT}. A command run meanwhile
    inherits none of its sockets (Python's sockets are not inheritable)."""

    def __init__(self, setup):
        self.keep, self.listener = [], None
        if setup in ("none", "refused"):
            self.port = free_port()
            return
        ls = socket.socket()
        ls.bind(("127.0.0.1", 0))
        self.port = ls.getsockname()[1]
        self.keep.append(ls)
        if setup == "busy":
            ls.listen(1)
        elif setup == "full":
            ls.listen(0)
            # Fill the accept queue (and the SYN queue's one slot): later SYNs are dropped.
            for _ in range(3):
                c = socket.socket()
                c.setblocking(False)
                try:
                    c.connect(("127.0.0.1", self.port))
                except BlockingIOError:
                    pass
                self.keep.append(c)
            time.sleep(0.1)
        elif setup.startswith(("peer:", "cut:", "reset:")):
            kind, _, hexbytes = setup.partition(":")
            ls.listen(8)
            self.listener = ls
            threading.Thread(target=serve, args=(ls, bytes.fromhex(hexbytes), kind if kind != "peer" else None), daemon=True).start()
        else:
            self.close()
            raise ValueError("peer.py: unknown setup " + setup)

    def close(self):
        """Stop accepting (shutdown wakes the accepting thread) and close every socket."""
        if self.listener is not None:
            try:
                self.listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for s in self.keep:
            s.close()


def run(setup, cmd, port_file=None, **kw):
    """Run cmd (its words' {PORT} replaced) with SETUP held, writing the port to port_file if
    given; return (cmd's exit status, or 124 after 20 s; the port; its stderr if kw piped it)."""
    held = Held(setup)
    try:
        if port_file:
            with open(port_file, "w") as f:
                f.write("%d\n" % held.port)
        words = [w.replace("{PORT}", str(held.port)) for w in cmd]
        try:
            r = subprocess.run(words, timeout=20, **kw)
            return r.returncode, held.port, r.stderr
        except subprocess.TimeoutExpired as e:
            return 124, held.port, e.stderr
    finally:
        held.close()


def main():
    setup, port_file, cmd = sys.argv[1], sys.argv[2], sys.argv[4:]
    try:
        rc, _, _ = run(setup, cmd, port_file)
    except ValueError as e:
        sys.exit(str(e))
    sys.exit(rc)


if __name__ == "__main__":
    main()
