#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# nc_close_peer.py - a server for nc's close path (issue 22): for one connection, send 4096
# bytes, wait DELAY ms, read ALL (until the client's 4 bytes), NONE or PART (2 bytes) of what
# the client sent, then CLOSE (FIN) or RESET (SO_LINGER 0). Usage: PORTFILE READ END DELAY_MS
# [FIRST_MS: wait that long before sending, so an HTTP proxy's reply comes first].
import socket
import struct
import sys
import time

portfile, read, end, delay = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
ls = socket.socket()
ls.bind(("127.0.0.1", 0))
ls.listen(1)
with open(portfile + ".tmp", "w") as f:
    f.write(str(ls.getsockname()[1]))
import os
os.rename(portfile + ".tmp", portfile)
ls.settimeout(30)
conn = ls.accept()[0]
conn.settimeout(10)
time.sleep(int(sys.argv[5]) / 1000 if len(sys.argv) > 5 else 0)
conn.sendall(bytes(range(256)) * 16)
time.sleep(delay / 1000)
want = {"all": 4, "part": 2, "none": 0}[read]
got = b""
while len(got) < want:
    chunk = conn.recv(want - len(got))
    if not chunk:
        break
    got += chunk
if end == "reset":
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
conn.close()
