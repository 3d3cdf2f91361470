#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# nc_compat.bats - issue 19's differences from Debian's nc: nc_compat.py generates each item's
# scenarios and runs them with nc.openbsd and with ncpv run as `nc` (a symlink), requiring the
# same exit status, stdout and message. Deliberate differences are tested on their own below.
load ../lib/nc_helpers

setup() { common_setup; }
teardown() { common_teardown; }

@test "ncpv as nc matches Debian's nc in issue 19's scenarios" {
	run timeout 120 python3 "$BATS_TEST_DIRNAME/../lib/nc_compat.py" "$NCPV"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" scenarios, 0 differ" ]]
}

# Debian's nc deletes whatever is at PATH, a regular file included; ncpv replaces only a socket.
@test "nc -lU PATH leaves a regular file at PATH alone and says so" {
	echo keep >"$SCRATCH/file"
	run timeout 5 "$NCPV" nc -lU "$SCRATCH/file"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "ncpv nc: $SCRATCH/file: exists and is not a socket; not removed" ]
	[ "$(cat "$SCRATCH/file")" = keep ]
}
