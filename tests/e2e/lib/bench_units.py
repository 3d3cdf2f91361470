#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""bench_units.py JSON CSV... - every number in a bench report names its unit in its key.

Walks every key of the JSON document whose value is a number or holds numbers (arrays,
nested), and every column of each CSV file that holds a number in some row, and checks each
name against the table below: it ends in a unit suffix, or it is a count, a ratio or a
probability named in DIMENSIONLESS. Prints each offender with where it was found; exit 1 if any.
"""
import csv
import json
import sys

# Suffix: the unit it names. One unit per kind: seconds for times, bytes for sizes, bytes per
# second for data rates; downloads per second, CPU seconds per GiB or per download otherwise.
UNITS = {
    '_s': 'seconds',
    '_bytes': 'bytes',
    '_bytes_per_s': 'bytes per second',
    '_transfers_per_s': 'downloads per second',
    '_s_per_gib': 'CPU seconds per GiB',
    '_s_per_download': 'CPU seconds per download',
    '_s_bytes': '[seconds, bytes] pairs',
}
# A key that is its unit ("bytes") names it too.
WHOLE = {'bytes'}
# Counts, ordinals, ratios and probabilities: no unit to name.
DIMENSIONLESS = {
    'schema_version', 'seed', 'repeat', 'alpha', 'cpus', 'load', 'count', 'runs_needed',
    'unstable_rounds', 'runs', 'runs_ok', 'ok_runs', 'ratio', 'p_value', 'p_without_unstable',
    'retrans', 'transfers', 'position', 'round', 'ok', 'samples', 'ping_idle_samples',
    'ping_load_samples',
}


def named(key):
    return key in DIMENSIONLESS or key in WHOLE or any(key.endswith(s) for s in UNITS)


def has_number(v):
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float)):
        return True
    if isinstance(v, list):
        return any(has_number(x) for x in v)
    return False


def walk(v, path, bad, seen):
    if isinstance(v, dict):
        for k, x in v.items():
            if has_number(x):
                seen.add(k)
                if not named(k):
                    bad.append('%s.%s' % (path, k))
            walk(x, '%s.%s' % (path, k), bad, seen)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            walk(x, '%s[%d]' % (path, i), bad, seen)


def is_number(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


def main():
    bad, seen = [], set()
    with open(sys.argv[1]) as f:
        walk(json.load(f), '', bad, seen)
    for name in sys.argv[2:]:
        with open(name) as f:
            rows = list(csv.reader(f))
        for k, col in enumerate(rows[0]):
            if any(k < len(r) and is_number(r[k]) for r in rows[1:]):
                seen.add(col)
                if not named(col):
                    bad.append('%s column %s' % (name, col))
    print('%d numeric keys and columns checked' % len(seen))
    for b in sorted(set(bad)):
        print('no unit in the name: %s' % b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
