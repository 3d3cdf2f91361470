#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# run.sh - `make valgrind`: the end-to-end tests with every ncpv process under valgrind
# memcheck (tests/valgrind/ncpv-valgrind), then a check that no process reported anything.
# Usage: tests/valgrind/run.sh NCPV_BINARY [BATS_FILE...]  (default: every file under tests/e2e)
# stress.bats skips itself here: it measures the native process's memory and CPU time.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export NCPV_REAL=$1 NCPV_VALGRIND=1 NCPV_VALGRIND_SUPP=$here/ncpv.supp
shift
export VALGRIND_LOGS NCPV
VALGRIND_LOGS=$(mktemp -d "${TMPDIR:-/tmp}/ncpv-valgrind.XXXXXX")
# The wrapper goes in a directory of its own, named ncpv, beside the devtcp library, as
# the tests expect of a build tree.
mkdir "$VALGRIND_LOGS/bin"
cp "$here/ncpv-valgrind" "$VALGRIND_LOGS/bin/ncpv"
ln -s "$(dirname "$NCPV_REAL")/libncpv-devtcp.so" "$VALGRIND_LOGS/bin/libncpv-devtcp.so"
NCPV=$VALGRIND_LOGS/bin/ncpv
[ $# -gt 0 ] || set -- tests/e2e
"$here/../bats-run" --timing "$@"
status=$?
processes=$(find "$VALGRIND_LOGS" -name 'vg.*.log' | wc -l)
reports=$(find "$VALGRIND_LOGS" -name 'vg.*.log' -size +0 | sort)
echo "valgrind: $processes ncpv processes checked" >"$VALGRIND_LOGS/count"
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
