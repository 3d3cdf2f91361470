#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# get_lines.py [--ss DST] -- COMMAND...: run COMMAND (an "ncpv get --json -i ..."), read its
# stdout line by line and stamp each line with the monotonic time it was read, as seconds after
# COMMAND was started. With --ss DST, after each interval line read, run `ss -tin dst DST` and
# keep the total retransmits it shows for that connection ("retrans:A/B": B). Prints one JSON
# object: {"rc": status, "exit_at": s, "lines": [{"at": s, "obj": parsed line, "ss": B or null}]}.
# A line that does not parse as JSON is kept as {"at": s, "bad": text}.
import json
import re
import subprocess
import sys
import time


def ss_retrans(dst):
    out = subprocess.run(["ss", "-tin", "dst", dst], capture_output=True, text=True, timeout=5).stdout
    m = re.search(r"\bretrans:\d+/(\d+)", out)
    if m:
        return int(m.group(1))
    # A connection with none retransmitted yet shows no retrans field.
    return 0 if re.search(r"\bcwnd:", out) else None


def main():
    args = sys.argv[1:]
    dst = None
    if len(args) >= 2 and args[0] == "--ss":
        dst = args[1]
        args = args[2:]
    if args and args[0] == "--":
        args = args[1:]
    t0 = time.monotonic()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    lines = []
    for raw in p.stdout:
        at = time.monotonic() - t0
        try:
            obj = json.loads(raw)
        except ValueError:
            lines.append({"at": at, "bad": raw})
            continue
        rec = {"at": at, "obj": obj, "ss": None}
        if dst and obj.get("event") == "interval":
            rec["ss"] = ss_retrans(dst)
        lines.append(rec)
    rc = p.wait(timeout=120)
    print(json.dumps({"rc": rc, "exit_at": time.monotonic() - t0, "lines": lines}))


main()
