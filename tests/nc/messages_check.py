#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""messages_check.py - runs tests/nc/messages.tsv's triggers with Debian's nc and with ncpv run as
nc, both through the same symlink path (getopt names it in its messages), and compares them.

usage: messages_check.py [--as-ncpv] NCPV TSV [ID...]
For each "test" row: nc's first stderr line must be the table's, and ncpv's whole stderr and exit
status must be nc's (ports replaced by {PORT}). For each "differs" row: nc must still say what the
table says. With --as-ncpv, each "test" row whose nc line is an "nc: " message is run as
"ncpv nc" instead, which must exit as nc does with its own prefix, "ncpv nc: ". Prints one line per row ("ok ID" or "FAIL ID: why") and exits 1 if any failed."""
import os, queue, shlex, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import peer  # noqa: E402

NC_OPENBSD = os.environ.get("NC_OPENBSD", "/bin/nc.openbsd")
# Rows run this many at a time (most of a row is waiting: for exec, a peer, a -w timeout), each
# worker in its own directory; the output stays in table order.
JOBS = int(os.environ.get("MESSAGES_JOBS", "6"))


def run(tool, link, setup, args):
    """Run args through link (a symlink to tool); return (exit status, stderr with {PORT}/{DIR})."""
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(tool, link)
    work = tempfile.mkdtemp(dir=os.path.dirname(os.path.dirname(link)))
    words = [w.replace("{DIR}", work) for w in shlex.split(args)]
    rc, port, err = peer.run(setup, [link] + words,
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = (err or b"").decode(errors="replace").replace(str(port), "{PORT}")
    return rc, err.replace(work, "{DIR}").replace(link, "{NC}")


def check(ncpv, as_ncpv, bindir, row):
    """One row, its links in bindir: None if not run here, else "ok ID" or "FAIL ID: why"."""
    rid, status, setup, args, code, first = row
    why = ""
    if as_ncpv:
        if status != "test" or not first.startswith("nc: "):
            return None
        rc, err = run(ncpv, os.path.join(bindir, "ncpv"), setup, "nc " + args)
        if rc != int(code) or not err.startswith("ncpv nc: "):
            why = "ncpv nc: exit %d %r" % (rc, err.split("\n")[0])
        return ("FAIL %s: %s" % (rid, why)) if why else "ok " + rid
    link = os.path.join(bindir, "nc")
    rc, err = run(NC_OPENBSD, link, setup, args)
    if (rc, err.split("\n")[0]) != (int(code), first):
        why = "nc.openbsd now says %r (exit %d), the table %r (exit %s)" % (err.split("\n")[0], rc, first, code)
    elif status == "test":
        rc2, err2 = run(ncpv, link, setup, args)
        if (rc2, err2) != (rc, err):
            why = "nc: exit %d %r; ncpv as nc: exit %d %r" % (rc, err, rc2, err2)
    return ("FAIL %s: %s" % (rid, why)) if why else "ok " + rid


def main():
    args = sys.argv[1:]
    as_ncpv = args[:1] == ["--as-ncpv"]
    args = args[1:] if as_ncpv else args
    ncpv, table, only = os.path.abspath(args[0]), args[1], set(args[2:])
    rows = []
    for line in open(table):
        if line.startswith("#"):
            continue
        row = line.rstrip("\n").split("\t")
        if (only and row[0] not in only) or row[1].startswith("untestable"):
            continue
        rows.append(row)
    failed = 0
    with tempfile.TemporaryDirectory() as scratch:
        # Each worker takes a directory of its own (its links, its rows' {DIR}s) and gives it back.
        free = queue.Queue()
        for i in range(JOBS):
            os.makedirs(os.path.join(scratch, str(i), "bin"))
            free.put(os.path.join(scratch, str(i), "bin"))

        def one(row):
            bindir = free.get()
            try:
                return check(ncpv, as_ncpv, bindir, row)
            finally:
                free.put(bindir)

        with ThreadPoolExecutor(JOBS) as pool:
            for out in pool.map(one, rows):
                if out is not None:
                    failed += out.startswith("FAIL")
                    print(out, flush=True)
    sys.exit(1 if failed else 0)

if __name__ == "__main__":
    main()
