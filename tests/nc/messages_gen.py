#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""messages_gen.py - writes tests/nc/messages.tsv: every message Debian's nc (netcat-openbsd 1.219)
prints, with a trigger, nc's exit status and the first line nc writes on stderr, recorded by
running nc.openbsd itself (through a symlink named nc, so that its prefix is "nc:").

usage: messages_gen.py > tests/nc/messages.tsv   (needs nc.openbsd; loopback only)
       messages_gen.py --rows   (the first four columns only, without running nc)

Columns: id, status, setup (see peer.py), arguments (shell words; {PORT} is the setup's port,
{DIR} a scratch directory), exit status, nc's first stderr line ({PORT} for the port, {NC} for
the path nc was run as: getopt's messages name it in full).
status: "test" (tests/e2e/nc/nc_messages.bats runs it with nc.openbsd and ncpv run as nc and wants
the same stderr and exit status), "differs:REASON" (ncpv differs on purpose; the test only checks
nc still says this), or "untestable:REASON" (loopback cannot reach the state; not run)."""
import os, shlex, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def socks5(rep, atyp=1, tail=None):
    """A SOCKS5 proxy's method choice (no authentication) and CONNECT reply."""
    addr = {1: "00000000", 4: "00" * 16, 3: "0161"}[atyp] if tail is None else tail
    return "peer:0500" + "05%02x00%02x" % (rep, atyp) + addr + ("0000" if tail is None else "")


def rows():
    """(id, status, setup, args) for every trigger, generated where a family of them exists."""
    out = []
    add = lambda *r: out.append(r)
    # Usage and getopt.
    add("usage-no-args", "test", "none", "")
    add("usage-U-no-path", "test", "none", "-U")
    add("usage-l-p-host", "test", "none", "-l -p 1234 127.0.0.1")
    add("usage-l-host-p-port", "test", "none", "-l -p 1235 127.0.0.1 1234")
    add("getopt-invalid", "test", "none", "-Q 127.0.0.1 1")
    for opt in "IiMmOPpqsTVWwXx":
        add("getopt-needs-arg-" + opt, "test", "none", "-" + opt)
    add("help", "differs:the option list's descriptions are ncpv's own words (same lines, letters and order)", "none", "-h")
    # Operand and conflict checks.
    add("missing-port", "test", "none", "127.0.0.1")
    add("missing-port-listen", "test", "none", "-l")
    add("U-with-port", "test", "none", "-U {DIR}/s 22")
    for name, args in (("z-l", "-z -l 1234"), ("k-without-l", "-k 127.0.0.1 1"), ("F-U", "-F -U {DIR}/s"),
                       ("proxy-listen", "-x 127.0.0.1 -l 1234"), ("proxy-udp", "-x 127.0.0.1 -u 127.0.0.1 1"),
                       ("proxy-unix", "-x 127.0.0.1 -U {DIR}/s"),
                       ("proxy-source", "-x 127.0.0.1 -s 127.0.0.1 127.0.0.1 1"),
                       ("proxy-bracket", "-x [::1 127.0.0.1 1"), ("proxy-delimiter", "-x [::1]x 127.0.0.1 1"),
                       ("proxy-protocol", "-X 9 127.0.0.1 1")):
        add("conflict-" + name, "test", "none", args)
    # Option values: each numeric option with a bad, a too-small and a too-large value.
    for opt, bad in (("I", ("abc", "0", "1073741825")), ("O", ("abc", "0", "1073741825")),
                     ("M", ("abc", "-1", "256")), ("m", ("abc", "-1", "256")),
                     ("q", ("abc", "-2147483649", "2147483648")), ("W", ("abc", "0", "2147483648")),
                     ("w", ("abc", "-1", "2147484")), ("i", ("abc", "-1", "4294967296"))):
        for kind, v in zip(("invalid", "small", "large"), bad):
            if v is not None:
                add("value-%s-%s" % (opt, kind), "test", "none", "-%s %s 127.0.0.1 1" % (opt, v))
    add("value-i-fraction", "differs:ncpv takes fractions of a second for -i", "none", "-i 0.5 127.0.0.1 1")
    add("value-T", "test", "none", "-T bogus 127.0.0.1 1")
    add("value-T-large", "test", "none", "-T 256 127.0.0.1 1")
    add("usage-s-with-U", "test", "none", "-s {DIR}/me -U {DIR}/s")
    add("value-V", "test", "none", "-V 1 127.0.0.1 1")
    add("value-S", "differs:-S asks for a TCP MD5 password in nc; ncpv has no TCP MD5 support", "none", "-S 127.0.0.1 1")
    add("value-Z", "differs:nc connects with DCCP; ncpv has no DCCP and says so", "none", "-Z 127.0.0.1 1")
    # Ports: every form, alone and as each end of a range.
    for p in ("0", "65536", "99999", "abc", "''", "1-abc", "abc-1", "0-5", "5-0", "1-65536", "65536-1", "1-2-3"):
        add("port-" + (p.strip("'") or "empty"), "test", "none", "127.0.0.1 " + p)
    for p in ("' 22'", "+22"):
        add("port-" + p.strip("'").strip(), "differs:ncpv refuses a port with a sign or spaces; nc reads it as a number",
            "refused", "-n 127.0.0.1 " + p)
    # Name lookups (numeric only: no DNS on loopback).
    add("gai-host", "test", "none", "-n notanip 1")
    add("gai-source", "test", "none", "-n -s notanip 127.0.0.1 1")
    add("gai-source-family", "test", "refused", "-n -s ::1 127.0.0.1 {PORT}")
    add("gai-listen", "test", "none", "-l -n notanip 1234")
    add("gai-proxy", "test", "none", "-x notanip.invalid:1 -n 127.0.0.1 1")
    add("gai-proxy-nohost", "test", "none", "-x :1080 127.0.0.1 1")
    add("gai-proxy-empty", "test", "none", "-X connect -x '' 127.0.0.1 1")
    add("gai-proxy-port", "test", "none", "-x 127.0.0.1:abc 127.0.0.1 1")
    add("gai-listen-port", "test", "none", "-l 127.0.0.1 abc")
    add("gai-listen-port-space", "test", "none", "-l 127.0.0.1 '22 '")
    add("gai-host-empty", "test", "none", "'' 1")
    add("gai-listen-empty", "test", "none", "-l '' 1234")
    add("set-ttl", "test", "none", "-M 0 127.0.0.1 1")
    # Connects.
    add("connect-refused", "test", "refused", "127.0.0.1 {PORT}")
    add("connect-refused-v", "test", "refused", "-v 127.0.0.1 {PORT}")
    add("connect-refused-v-name", "test", "refused", "-v localhost {PORT}")
    add("connect-timeout-v", "test", "full", "-v -w 1 127.0.0.1 {PORT}")
    add("bind-source", "test", "refused", "-n -s 192.0.2.1 127.0.0.1 {PORT}")
    add("bind-source-port", "test", "busy", "-n -p {PORT} -s 127.0.0.1 127.0.0.1 1")
    add("unix-connect", "test", "none", "-U {DIR}/nothing")
    # Listeners.
    add("listen-busy", "test", "busy", "-l 127.0.0.1 {PORT}")
    add("listen-foreign", "test", "none", "-l 192.0.2.1 1234")
    add("listen-unix-dir", "test", "none", "-lU {DIR}/no/such/dir")
    # Proxies: refused, and every SOCKS5 and SOCKS4 reply code, every cut-short reply.
    add("proxy-refused", "test", "refused", "-x 127.0.0.1:{PORT} 127.0.0.1 1")
    add("proxy-refused-v", "test", "refused", "-v -x 127.0.0.1:{PORT} 127.0.0.1 1")
    add("socks5-nomethod", "test", "peer:05ff", "-x 127.0.0.1:{PORT} 127.0.0.1 1")
    for rep in range(1, 10):
        add("socks5-rep-%d" % rep, "test", socks5(rep), "-x 127.0.0.1:{PORT} 127.0.0.1 1")
    add("socks5-atyp", "test", socks5(0, 9, ""), "-x 127.0.0.1:{PORT} 127.0.0.1 1")
    add("socks5-atyp-name", "differs:ncpv takes a reply naming its address (RFC 1928 allows it); nc refuses it",
        socks5(0, 3), "-x 127.0.0.1:{PORT} 127.0.0.1 1")
    for cut in ("", "05", "0500", "050005", "05000500", "0500050000", "050005000001000000"):
        add("socks5-cut-%d" % (len(cut) // 2), "test", "cut:" + cut, "-x 127.0.0.1:{PORT} 127.0.0.1 1")
    add("socks5-cut-v6", "test", "cut:05000500000400000000", "-x 127.0.0.1:{PORT} 127.0.0.1 1")
    for code in (91, 92, 93, 94):
        add("socks4-code-%d" % code, "test", "peer:00%02x000000000000" % code, "-X 4 -x 127.0.0.1:{PORT} 127.0.0.1 1")
    for cut in ("", "00", "005a0000"):
        add("socks4-cut-%d" % (len(cut) // 2), "test", "cut:" + cut, "-X 4 -x 127.0.0.1:{PORT} 127.0.0.1 1")
    for status in ("403 Forbidden", "407 Proxy Authentication Required", "502 Bad Gateway"):
        add("http-" + status.split()[0], "test", "peer:" + ("HTTP/1.0 %s\r\n\r\n" % status).encode().hex(),
            "-X connect -x 127.0.0.1:{PORT} 127.0.0.1 1")
    add("socks5-name-long", "test", "peer:0500", "-x 127.0.0.1:{PORT} " + "a" * 256 + " 1")
    add("http-headers-many", "differs:ncpv bounds the reply header by size (8 KiB), not by count (64 lines)",
        "peer:" + (b"HTTP/1.0 200 OK\r\n" + b"X: y\r\n" * 65 + b"\r\n").hex(), "-X connect -x 127.0.0.1:{PORT} 127.0.0.1 1")
    add("http-closed", "test", "cut:", "-X connect -x 127.0.0.1:{PORT} 127.0.0.1 1")
    for status in (b"201 Created", b"299 X"):  # nc takes 200 only, not every 2xx
        add("http-" + status[:3].decode(), "test", "peer:" + (b"HTTP/1.1 " + status + b"\r\n\r\n").hex(),
            "-X connect -x 127.0.0.1:{PORT} 127.0.0.1 1")
    # A reset instead of a close, at each step nc reads whole: the errno is the reset's.
    for name, proto, reply in (("socks5-method", "5", ""), ("socks5-reply", "5", "0500"), ("socks4", "4", ""),
                               ("socks5-addr", "5", "050005000001")):
        add("reset-" + name, "test", "reset:" + reply, "-X %s -x 127.0.0.1:{PORT} 127.0.0.1 1" % proto)
    add("http-cut", "test", "cut:" + b"HTTP/1.0 200 OK\r\n".hex(), "-X connect -x 127.0.0.1:{PORT} 127.0.0.1 1")
    add("http-line-long", "differs:ncpv bounds the whole reply header (8 KiB), not each line (1 KiB)",
        "peer:" + (b"HTTP/1.0 200 OK\r\nX: " + b"a" * 2000 + b"\r\n\r\n").hex(), "-X connect -x 127.0.0.1:{PORT} 127.0.0.1 1")
    add("http-hostname", "differs:ncpv sends any host name it can encode", "peer:", "-X connect -x 127.0.0.1:{PORT} '127.0.0.1 x' 1")
    return out


UNTESTABLE = [
    ("F-tty", "untestable:needs a terminal on stdout", "Cannot pass file descriptor to tty"),
    ("proxy-password", "untestable:needs a terminal for the password prompt", "Unable to read proxy passphrase"),
    ("proxy-auth-failed", "untestable:needs a terminal for the password prompt", "Proxy authentication failed"),
    ("socks4-name", "untestable:a SOCKS4 host name would need DNS", 'getaddrinfo("NAME", "PORT"): REASON'),
    ("setsockopt", "untestable:each socket option loopback allows succeeds", "set IP ToS: REASON"),
    ("poll", "untestable:poll(2) does not fail on loopback", "polling error: REASON"),
    ("sendmsg", "untestable:sendmsg(2) on a socket pair does not fail", "sendmsg: REASON"),
    ("accept", "untestable:accept(2) fails only when out of descriptors or memory", "accept: REASON"),
    ("listen", "untestable:listen(2) on a freshly bound socket does not fail", "listen: REASON"),
    ("recvfrom", "untestable:recvfrom(2) on a bound UDP socket does not fail", "recvfrom: REASON"),
    ("udp-connect", "untestable:connecting a UDP listener to the sender it just heard from does not fail", "connect: REASON"),
    ("getnameinfo", "untestable:getnameinfo(3) of an address the kernel gave does not fail", "getnameinfo: REASON"),
    ("mkdtemp", "untestable:nc makes its -uU directory in /tmp, which is writable", "mkdtemp: REASON"),
    ("sendmsg-short", "untestable:a one-byte sendmsg(2) is never short", "sendmsg: unexpected return value N"),
    ("auth-retries", "untestable:needs a terminal for each password prompt", "Too many authentication failures"),
    ("proxy-userpass-long", "untestable:the password comes from a terminal", "Proxy username/password too long"),
    ("set-rcvbuf", "untestable:every -I value nc accepts is a size the kernel takes", "set TCP receive buffer size: REASON"),
    ("set-sndbuf", "untestable:every -O value nc accepts is a size the kernel takes", "set TCP send buffer size: REASON"),
    ("set-minttl", "untestable:every -m value nc accepts is one the kernel takes", "set IP min TTL: REASON"),
    ("write-error", "untestable:not reached here: a stdout or socket that fails ends nc without it (faults.bats)", "Write Error!"),
]


def main():
    if sys.argv[1:] == ["--rows"]:
        for r in rows():
            print("\t".join(r))
        for rid, status, _ in UNTESTABLE:
            print("\t".join((rid, status, "none", "")))
        return
    nc = os.environ.get("NC_OPENBSD", "/bin/nc.openbsd")
    with tempfile.TemporaryDirectory() as scratch:
        os.symlink(nc, os.path.join(scratch, "nc"))
        print("# id\tstatus\tsetup\targs\texit\tstderr (written by tests/nc/messages_gen.py)")
        for rid, status, setup, args in rows():
            work = tempfile.mkdtemp(dir=scratch)
            words = [w.replace("{DIR}", work) for w in shlex.split(args)]
            port_file = os.path.join(work, "port")
            r = subprocess.run([sys.executable, os.path.join(HERE, "peer.py"), setup, port_file, "--",
                                os.path.join(scratch, "nc")] + words,
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            line = r.stderr.decode(errors="replace").split("\n")[0]
            if os.path.exists(port_file):
                line = line.replace(open(port_file).read().strip(), "{PORT}")
            line = line.replace(work, "{DIR}").replace(os.path.join(scratch, "nc"), "{NC}")
            print("\t".join((rid, status, setup, args, str(r.returncode), line)))
        for rid, status, line in UNTESTABLE:
            print("\t".join((rid, status, "none", "", "1", "nc: " + line)))


if __name__ == "__main__":
    main()
