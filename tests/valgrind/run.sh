#!/usr/bin/env bash
# run.sh - `make valgrind`: the end-to-end tests with every ncpv process under valgrind
# memcheck (tests/valgrind/ncpv-valgrind), then a check that no process reported anything.
# Usage: tests/valgrind/run.sh NCPV_BINARY [BATS_FILE...]  (default: every tests/e2e file)
# stress.bats skips itself here: it measures the native process's memory and CPU time.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export NCPV_REAL=$1 NCPV=$here/ncpv-valgrind NCPV_VALGRIND=1
shift
export VALGRIND_LOGS
VALGRIND_LOGS=$(mktemp -d "${TMPDIR:-/tmp}/ncpv-valgrind.XXXXXX")
[ $# -gt 0 ] || set -- tests/e2e
bats --timing "$@"
status=$?
processes=$(find "$VALGRIND_LOGS" -name 'vg.*.log' | wc -l)
reports=$(find "$VALGRIND_LOGS" -name 'vg.*.log' -size +0 | sort)
if [ -n "$reports" ]; then
	for r in $reports; do
		echo "== $r"
		head -60 "$r"
	done
	echo "valgrind: $(echo "$reports" | wc -l) of $processes ncpv processes reported errors or leaks"
	status=1
else
	echo "valgrind: $processes ncpv processes, no memory errors, no leaks"
fi
rm -rf "$VALGRIND_LOGS"
exit $status
