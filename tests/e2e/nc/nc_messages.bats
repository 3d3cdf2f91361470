#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# nc_messages.bats - run as nc (a symlink named nc or netcat), ncpv says what Debian's nc says, word
# for word: every message in tests/nc/messages.tsv (trigger, exit status, nc's line) is run with
# nc.openbsd and with ncpv through the same path, and stderr and exit status compared. Run as
# "ncpv nc", the same failures keep ncpv's prefix (issue 19).
load ../lib/nc_helpers
bats_require_minimum_version 1.5.0

TABLE=$BATS_TEST_DIRNAME/../../nc/messages.tsv
NCDIR=$BATS_TEST_DIRNAME/../../nc

setup() { common_setup; }
teardown() { common_teardown; }

@test "the message table lists exactly the triggers messages_gen.py generates" {
	diff -u <(python3 "$NCDIR/messages_gen.py" --rows) <(grep -v '^#' "$TABLE" | cut -f1-4)
}

@test "every message in the table: ncpv run as nc writes nc.openbsd's stderr and exits alike" {
	run python3 "$NCDIR/messages_check.py" "$NCPV" "$TABLE"
	echo "$output" | grep -v '^ok ' || true
	[ "$status" -eq 0 ]
	# The table is not empty and most of it is compared, not excused.
	[ "$(echo "$output" | grep -c '^ok ')" -ge 100 ]
}

@test "run as \"ncpv nc\", the same failures say \"ncpv nc:\" and exit as nc does" {
	run python3 "$NCDIR/messages_check.py" --as-ncpv "$NCPV" "$TABLE"
	echo "$output" | grep -v '^ok ' || true
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | grep -c '^ok ')" -ge 60 ]
}

@test "every untestable message says why loopback cannot reach it" {
	run awk -F'\t' '$2 ~ /^untestable/ && length($2) < 20' "$TABLE"
	[ -z "$output" ]
	[ "$(grep -c $'\tuntestable:' "$TABLE")" -ge 1 ]
}

@test "run as netcat, messages carry that name, as nc's do" {
	ln -s "$NCPV" "$SCRATCH/netcat"
	ln -s /bin/nc.openbsd "$SCRATCH/netcat.ref"
	run "$SCRATCH/netcat" 127.0.0.1 0
	[ "$status" -eq 1 ]
	[ "$output" = "netcat: port number too small: 0" ]
	mkdir "$SCRATCH/ref" && ln -s /bin/nc.openbsd "$SCRATCH/ref/netcat"
	[ "$("$SCRATCH/ref/netcat" 127.0.0.1 0 2>&1)" = "$output" ]
}

@test "-h run as nc: nc's first line and usage, and nc's option lines in nc's order" {
	mkdir "$SCRATCH/ours" "$SCRATCH/ref"
	ln -s "$NCPV" "$SCRATCH/ours/nc"
	ln -s /bin/nc.openbsd "$SCRATCH/ref/nc"
	"$SCRATCH/ours/nc" -h 2>"$SCRATCH/ours.h"
	"$SCRATCH/ref/nc" -h 2>"$SCRATCH/ref.h"
	# The version line and the usage block, byte for byte.
	diff <(head -6 "$SCRATCH/ref.h") <(head -6 "$SCRATCH/ours.h")
	# One line per option, same letter, same argument name, same order.
	opts() { sed -n 's/^\t\t\(-[^\t]*\)\t.*/\1/p' "$1"; }
	diff <(opts "$SCRATCH/ref.h") <(opts "$SCRATCH/ours.h")
	[ "$(opts "$SCRATCH/ref.h" | wc -l)" -ge 30 ]
}

@test "-h run as ncpv nc keeps ncpv's own text" {
	"$NCPV" nc -h 2>"$SCRATCH/h"
	run ! grep -q '^OpenBSD netcat' "$SCRATCH/h"
	grep -q -- '--progress' "$SCRATCH/h"
}
