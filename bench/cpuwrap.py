#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# cpuwrap.py OUT CMD...: run CMD; a stop signal is passed on to it; its CPU seconds (user+sys, from
# wait4) go to OUT, even when it was killed. For bench/updown-link.sh (a server at a link's near end).
import os, signal, subprocess, sys
out = sys.argv[1]
p = subprocess.Popen(sys.argv[2:])
for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(s, lambda n, f: p.send_signal(n))
while True:
    try:
        _, _, ru = os.wait4(p.pid, 0)
        break
    except InterruptedError:
        continue
    except ChildProcessError:
        ru = None
        break
open(out, "w").write("%.2f\n" % ((ru.ru_utime + ru.ru_stime) if ru else -1))
