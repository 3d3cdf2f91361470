#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# Regressions found by differential runs of ncpv pv against pv 1.10.5 (generated inputs).

setup() {
	export LC_ALL=C
	SCRATCH=$(mktemp -d)
	head -c 4095 /dev/zero >"$SCRATCH/z"
	seq 1000 >"$SCRATCH/lines"
}

teardown() {
	rm -rf "$SCRATCH"
}

# pv 1.10 treats the size as unknown when any named input is missing: the -n figure must be
# the unknown-size one (as for the same bytes from a pipe), never a percentage of the rest.
@test "pv: a missing input among files makes the size unknown (-n, bytes and lines)" {
	local pos files want got
	for mode in "" "-l"; do
		for pos in 0 1 2; do
			files=("$SCRATCH/z" "$SCRATCH/lines")
			files=("${files[@]:0:pos}" "$SCRATCH/missing" "${files[@]:pos}")
			want=$(cat "$SCRATCH/z" "$SCRATCH/lines" | "$NCPV" pv -n $mode 2>&1 >/dev/null | tail -n 1)
			run bash -c '"$0" pv -n $1 "${@:2}" 2>&1 >/dev/null' "$NCPV" "$mode" "${files[@]}"
			[ "$status" -eq 2 ]
			[[ "${lines[0]}" == *"failed to read file: $SCRATCH/missing: No such file or directory" ]]
			got=${lines[${#lines[@]}-1]}
			echo "mode=$mode pos=$pos want=$want got=$got"
			[ "$got" = "$want" ]
			[ "$got" != 100 ]
		done
	done
}
