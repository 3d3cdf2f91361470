#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""messages_check.py - runs tests/nc/messages.tsv's triggers with Debian's nc and with ncpv run as
nc, both through the same symlink path (getopt names it in its messages), and compares them.

usage: messages_check.py [--as-ncpv] NCPV TSV [ID...]
For each "test" row: nc's first stderr line must be the table's, and ncpv's whole stderr and exit
status must be nc's (ports replaced by {PORT}). For each "differs" row: nc must still say what the
table says. With --as-ncpv, each "test" row whose nc line is an "nc: " message is run as
"ncpv nc" instead, which must exit as nc does with its own prefix, "ncpv nc: ". Prints one line per row ("ok ID" or "FAIL ID: why") and exits 1 if any failed."""
import os, shlex, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
NC_OPENBSD = os.environ.get("NC_OPENBSD", "/bin/nc.openbsd")


def run(tool, link, setup, args):
    """Run args through link (a symlink to tool); return (exit status, stderr with {PORT}/{DIR})."""
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(tool, link)
    work = tempfile.mkdtemp(dir=os.path.dirname(os.path.dirname(link)))
    words = [w.replace("{DIR}", work) for w in shlex.split(args)]
    port_file = os.path.join(work, "port")
    r = subprocess.run([sys.executable, os.path.join(HERE, "peer.py"), setup, port_file, "--", link] + words,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)
    err = r.stderr.decode(errors="replace")
    if os.path.exists(port_file):
        err = err.replace(open(port_file).read().strip(), "{PORT}")
    return r.returncode, err.replace(work, "{DIR}").replace(link, "{NC}")


def main():
    args = sys.argv[1:]
    as_ncpv = args[:1] == ["--as-ncpv"]
    args = args[1:] if as_ncpv else args
    ncpv, table, only = os.path.abspath(args[0]), args[1], set(args[2:])
    failed = 0
    with tempfile.TemporaryDirectory() as scratch:
        os.mkdir(os.path.join(scratch, "bin"))
        link = os.path.join(scratch, "bin", "nc")
        for line in open(table):
            if line.startswith("#"):
                continue
            rid, status, setup, args, code, first = line.rstrip("\n").split("\t")
            if (only and rid not in only) or status.startswith("untestable"):
                continue
            why = ""
            if as_ncpv:
                if status != "test" or not first.startswith("nc: "):
                    continue
                rc, err = run(ncpv, link.replace("/nc", "/ncpv"), setup, "nc " + args)
                if rc != int(code) or not err.startswith("ncpv nc: "):
                    why = "ncpv nc: exit %d %r" % (rc, err.split("\n")[0])
                failed += bool(why)
                print(("FAIL %s: %s" % (rid, why)) if why else "ok " + rid, flush=True)
                continue
            rc, err = run(NC_OPENBSD, link, setup, args)
            if (rc, err.split("\n")[0]) != (int(code), first):
                why = "nc.openbsd now says %r (exit %d), the table %r (exit %s)" % (err.split("\n")[0], rc, first, code)
            elif status == "test":
                rc2, err2 = run(ncpv, link, setup, args)
                if (rc2, err2) != (rc, err):
                    why = "nc: exit %d %r; ncpv as nc: exit %d %r" % (rc, err, rc2, err2)
            failed += bool(why)
            print(("FAIL %s: %s" % (rid, why)) if why else "ok " + rid, flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
