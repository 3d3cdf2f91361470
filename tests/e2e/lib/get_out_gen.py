#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# get_out_gen.py - generated runs of `ncpv get --json` against one ncpv serve, for
# get_side_out.bats: every mode (plain, --server-view, --bidir, --reverse) x report (-i, -f,
# -q, none) x limit (-b, -t) x output (-o -, -o FILE, none; --reverse writes nothing) x end
# (runs to its limit, or SIGINT at a seeded random moment). Checked on each: stdout holds
# exactly the data (-o -: byte count and sha256 against serve's source) or only JSON lines;
# with -o - stderr holds only JSON lines and at most one `ncpv get:` line; FILE is the data, or
# as it was after a signal; the status is 0, or 1 for a download kept with -o and interrupted,
# with the line that says so. Loopback only; every wait is bounded.
#   get_out_gen.py NCPV PORT SOURCE SCRATCH SEED
# SOURCE: the file serve repeats (serve --source SOURCE --size N). Prints one line per run and
# a tally; exits 1 at the first wrong run, naming it and the seed. The runs are drawn from the
# seed in order, then run GET_OUT_JOBS (4) at a time (each mostly waits: for a time limit, a
# signal, a slow reader), each in a directory of its own; the lines stay in the runs' order.
import hashlib
import itertools
import json
import os
import queue
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

NCPV, PORT, SOURCE, SCRATCH, SEED = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
SRC = open(SOURCE, 'rb').read()
OLD = b'the old contents\n'

MODES = {'plain': [], 'view': ['--server-view'], 'bidir': ['--bidir'], 'reverse': ['--reverse']}
REPORTS = {'-i': ['-i', '0.1'], '-f': ['-f'], '-q': ['-q'], 'none': []}
OUTS = ['-', 'FILE', 'none']
JOBS = int(os.environ.get('GET_OUT_JOBS', '4'))


def prefix_sha(n):
    """sha256 of the first n bytes of SOURCE repeated, as serve sends it."""
    h = hashlib.sha256()
    whole, rest = divmod(n, len(SRC))
    for _ in range(whole):
        h.update(SRC)
    h.update(SRC[:rest])
    return h.hexdigest()


def catches_sigint(pid):
    """get's handlers are set (SigCgt has SIGINT): a signal before them would kill it."""
    try:
        with open(f'/proc/{pid}/status') as f:
            for line in f:
                if line.startswith('SigCgt:'):
                    return (int(line.split()[1], 16) >> 1) & 1 == 1
    except OSError:
        pass
    return False


def run_one(work, had_file, delay, mode, report, limit, out, end):
    """One run in the directory work (its dir/ and err), with had_file and the signal's delay
    after get's handlers are set drawn beforehand."""
    path = os.path.join(work, 'dir', 'out.bin')
    d = os.path.dirname(path)
    for name in os.listdir(d):
        os.remove(os.path.join(d, name))
    if had_file:
        with open(path, 'wb') as f:
            f.write(OLD)
    interrupt = end == 'sigint'
    # A signal should find the download under way: a bigger limit, and -o - read slowly.
    lim = ['-b', '48M' if interrupt else '3M'] if limit == '-b' else ['-t', '5' if interrupt else '0.2']
    args = [NCPV, 'get', '--json', '-w', '10'] + MODES[mode] + REPORTS[report] + lim
    args += ['-o', '-'] if out == '-' else ['-o', path] if out == 'FILE' else []
    args.append('127.0.0.1:' + PORT)
    err = open(os.path.join(work, 'err'), 'w+b')
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=err)
    os.set_blocking(p.stdout.fileno(), False)
    data = bytearray()
    signal_at = None
    t0 = time.monotonic()
    while True:
        now = time.monotonic()
        if now - t0 > 30:
            p.kill()
            p.wait()
            return False, f'did not end within 30 s: {" ".join(args)}'
        if interrupt and signal_at is None and catches_sigint(p.pid):
            signal_at = now + delay
        if signal_at is not None and now >= signal_at:
            p.send_signal(signal.SIGINT)
            signal_at = float('inf')
        try:
            chunk = p.stdout.read(65536)
        except BlockingIOError:
            chunk = None
        if chunk:
            data += chunk
            if out == '-':
                time.sleep(0.001)  # about 60 MB/s: the download lasts past the signal
            continue
        if chunk == b'' and p.poll() is not None:
            break
        time.sleep(0.002)
    status = p.wait()
    err.seek(0)
    errtext = err.read().decode('utf-8', 'replace')
    err.close()
    row = f'{mode} {report} {" ".join(lim)} -o {out} {end}: status {status}'
    said = [l for l in errtext.split('\n') if l.startswith('ncpv get:')]
    json_lines = []
    for text in ([errtext] if out == '-' else [data.decode('utf-8', 'replace')]):
        for line in text.split('\n'):
            if not line or line.startswith('ncpv get:'):
                continue
            try:
                json_lines.append(json.loads(line))
            except ValueError:
                if out == '-':
                    return False, f'{row}: stderr line neither JSON nor ncpv get: {line[:80]!r}'
                return False, f'{row}: stdout line not JSON: {line[:80]!r}'
    summaries = [j for j in json_lines if j.get('event', 'summary') == 'summary']
    if len(said) > 1:
        return False, f'{row}: {len(said)} ncpv get: lines: {said}'
    if not summaries:
        # A signal during the connect: the connect's message, nothing written.
        if interrupt and status == 1 and said and said[0].endswith(': interrupted') and not (out == '-' and data):
            return True, row + ' (during the connect)'
        return False, f'{row}: no JSON summary; stderr {errtext[-300:]!r}'
    if len(summaries) > 1:
        return False, f'{row}: {len(summaries)} summaries'
    s = summaries[0]
    ended = s['ended']
    got = s['streams'][0]['bytes'] if mode == 'bidir' else s['bytes']
    cut = ended == 'interrupted'
    if cut and not interrupt:
        return False, f'{row}: ended interrupted without a signal'
    writes = mode != 'reverse' and out != 'none'
    want_status = 1 if cut and writes else 0
    if status != want_status:
        return False, f'{row}: want status {want_status} (ended {ended}); stderr {errtext[-300:]!r}'
    if cut and writes:
        what = 'stdout has only part of the download' if out == '-' else f"'{path}' left as it was"
        want = f'ncpv get: interrupted after {got} byte{"" if got == 1 else "s"}: {what}'
        if said != [want]:
            return False, f'{row}: want {want!r}, got {said}'
    elif said:
        return False, f'{row}: unexpected {said}'
    if out == '-':
        if len(data) != got or hashlib.sha256(data).hexdigest() != prefix_sha(got):
            return False, f'{row}: stdout {len(data)} bytes, summary {got}, or not the source'
    files = os.listdir(os.path.join(work, 'dir'))
    if files not in ([], ['out.bin']):
        return False, f'{row}: left {files}'
    if out == 'FILE' and not cut:
        with open(path, 'rb') as f:
            content = f.read()
        if len(content) != got or hashlib.sha256(content).hexdigest() != prefix_sha(got):
            return False, f'{row}: FILE {len(content)} bytes, summary {got}, or not the source'
    elif out == 'FILE' or had_file:
        if had_file != os.path.exists(path) or (had_file and open(path, 'rb').read() != OLD):
            return False, f'{row}: FILE was changed'
    return True, f'{row} (ended {ended}, {got} bytes)'


def main():
    rng = random.Random(SEED)
    # Each run's draws, in the order a run at a time made them: had_file, then the delay.
    runs = []
    for mode, report, limit, out, end in itertools.product(MODES, REPORTS, ['-b', '-t'], OUTS,
                                                           ['finish', 'sigint']):
        if mode == 'reverse' and out != 'none':
            continue  # --reverse uploads: -o is refused
        had_file = rng.random() < 0.5
        delay = rng.uniform(0, 0.25) if end == 'sigint' else None
        runs.append((had_file, delay, mode, report, limit, out, end))
    free = queue.Queue()
    for i in range(JOBS):
        os.makedirs(os.path.join(SCRATCH, 'w%d' % i, 'dir'), exist_ok=True)
        free.put(os.path.join(SCRATCH, 'w%d' % i))

    def one(run):
        work = free.get()
        try:
            return run_one(work, *run)
        finally:
            free.put(work)

    tally = {}
    with ThreadPoolExecutor(JOBS) as pool:
        futures = [pool.submit(one, run) for run in runs]
        for run, fut in zip(runs, futures):
            ok, line = fut.result()
            print(line, flush=True)
            if not ok:
                print(f'FAILED (seed {SEED})', flush=True)
                for f in futures:
                    f.cancel()
                sys.exit(1)
            kind = 'cut' if 'ended interrupted' in line or 'during the connect' in line else 'whole'
            tally[run[2], kind] = tally.get((run[2], kind), 0) + 1
    print('tally', sorted(tally.items()), flush=True)
    # The generator must have cut downloads short in every mode, and let some finish.
    for mode in MODES:
        if not tally.get((mode, 'cut')) or not tally.get((mode, 'whole')):
            print(f'FAILED (seed {SEED}): {mode} was never both cut and whole', flush=True)
            sys.exit(1)


main()
