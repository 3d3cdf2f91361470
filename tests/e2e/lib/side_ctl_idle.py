#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# side_ctl_idle.py PORT PID - a control hello on a connection that had been a stream (serve was
# sending to it), everything read, then held idle for 1 s: prints the CPU ticks serve (PID) used
# meanwhile. An idle session costs nothing; an EPOLLOUT left on spun a core (100 ticks).
import socket, sys, time, os
port = int(sys.argv[1]); pid = int(sys.argv[2])
def ticks():
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return int(f[11]) + int(f[12])
s = socket.create_connection(("127.0.0.1", port))
s.sendall(b"\0ncpv-side 1 ctl " + os.urandom(16).hex().encode() + b" interval=0 streams=1\n")
s.settimeout(0.05)
end = time.time() + 0.5
while time.time() < end:          # read what the stream sent before the hello, and the answer
    try:
        if not s.recv(1 << 20): break
    except socket.timeout:
        pass
t0 = ticks(); time.sleep(1.0); t1 = ticks()
print(t1 - t0)
