#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# pv_reference.bats - where ncpv pv differed from pv 1.10.5 (issue 15's list), one test each.
load helpers

setup() {
	common_setup
	ln -s "$NCPV" "$SCRATCH/pv"
	PV=$SCRATCH/pv
}

teardown() {
	common_teardown
}

@test "1: -L in line mode limits lines per second, not bytes" {
	local start end
	seq 400 >"$SCRATCH/in"
	start=$(date +%s%N)
	"$PV" -q -l -L 200 "$SCRATCH/in" >"$SCRATCH/out"
	end=$(date +%s%N)
	cmp "$SCRATCH/in" "$SCRATCH/out"
	# 400 lines at 200 lines/s: about 2 s; as bytes (1,492 at 200 B/s) it would take 7 s.
	[ $(((end - start) / 1000000)) -ge 1500 ]
	[ $(((end - start) / 1000000)) -lt 6000 ]
}

@test "2: -E exits 16 after skipping read errors, the skipped bytes written as zeros" {
	run bash -c '"$1" -q -E -S -s 100 /proc/self/mem 2>/dev/null | od -An -v -tx1 | tr -d " \n"; exit "${PIPESTATUS[0]}"' _ "$PV"
	[ "$status" -eq 16 ]
	[ "$output" = "$(printf '00%.0s' $(seq 100))" ]
}

@test "3: -n honours -F: %b prints the byte count" {
	head -c 5000 /dev/zero >"$SCRATCH/in"
	run bash -c '"$1" -n -F %b "$2" 2>&1 >/dev/null' _ "$PV" "$SCRATCH/in"
	[ "$output" = 5000 ]
	run bash -c '"$1" -n -F "%b %{progress-amount-only}" -s 10000 "$2" 2>&1 >/dev/null' _ "$PV" "$SCRATCH/in"
	[ "$output" = "5000 50" ]
}

# 4 (the padding after the terminal shrinks) is tests/unit/test_display.c's
# test_padding_stops_at_a_narrower_terminal.

@test "5: arguments pv accepts are accepted, and the data passes intact" {
	local a
	head -c 5000 /dev/urandom >"$SCRATCH/in"
	for a in "-L 0" "-i 0" "-i 0.0001" "-w 0" "-H 0" "-B 0" "-B 2G" "-s ' 2000'" \
		"-s 99999999999999999999" "-F %{bogus}" "-F %{bar-plain}" "-F %{bar-block}" \
		"-F %{bar-granular}" "-F %{bar-shaded}" "-F %{ratio}" "-F %{sgr:red}x%{sgr:reset}" \
		"-F %{previous-line}" "-F %L" "-o -" "-m 0" "-A 0"; do
		eval "set -- $a"
		"$PV" -f "$@" "$SCRATCH/in" >"$SCRATCH/out" 2>"$SCRATCH/err" || { echo "pv $a failed" >&2; false; }
		cmp "$SCRATCH/in" "$SCRATCH/out"
	done
}

@test "6: -s 0 means the files' size, as without -s" {
	head -c 5000 /dev/zero >"$SCRATCH/in"
	run bash -c '"$1" -f -p -s 0 -w 40 "$2" 2>&1 >/dev/null' _ "$PV" "$SCRATCH/in"
	[[ "$output" == *"100%"* ]]
}

@test "7: percentages pad to three columns, and no final line after a failure or a signal" {
	head -c 5000 /dev/zero >"$SCRATCH/in"
	run bash -c '"$1" -f -p -w 20 -s 100000 "$2" 2>&1 >/dev/null' _ "$PV" "$SCRATCH/in"
	[ "$output" = $'[>            ]   5%\r' ]
	run bash -c '"$1" -f "$2" 2>&1 >/dev/full' _ "$PV" "$SCRATCH/in"
	[ "$status" -eq 16 ]
	[ "$output" = "pv: write failed: No space left on device" ]
	run bash -c '"$1" -f "$2" 2>&1 >>"$2"' _ "$PV" "$SCRATCH/in"
	[ "$status" -eq 4 ]
	[ "$output" = "pv: input file is output file: $SCRATCH/in" ]
	run "$PV" -f "$SCRATCH/missing"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	run "$PV" -f --progress=1
	[ "$output" = "pv: option '--progress' doesn't allow an argument
Try \`pv --help' for more information." ]
}

@test "7: a signal ends the run with status 32 and no final line" {
	mkfifo "$SCRATCH/fifo"
	"$PV" -f -P "$SCRATCH/pid" "$SCRATCH/fifo" >/dev/null 2>"$SCRATCH/err" &
	local pid=$! rc=0
	exec 5>"$SCRATCH/fifo"
	wait_for "$SCRATCH/pid" '^[0-9]+$' 5
	kill -TERM "$pid"
	wait "$pid" || rc=$?
	exec 5>&-
	[ "$rc" -eq 32 ]
	[ ! -s "$SCRATCH/err" ]
}

@test "8: messages use pv's prefix and wording, run as pv or as ncpv pv" {
	run "$PV" -s abc
	[ "$status" -eq 64 ]
	[ "$output" = "pv: -s: abc: numeric value not understood" ]
	run "$NCPV" pv -i x
	[ "$status" -eq 64 ]
	[ "$output" = "pv: -i: x: numeric argument expected" ]
	run "$NCPV" pv -j
	[ "$status" -eq 64 ]
	[ "${lines[0]}" = "pv: invalid option -- 'j'" ]
	[ "${lines[1]}" = "Try \`pv --help' for more information." ]
}

@test "-g: without a size the bar shows the rate against the highest rate, as pv 1.10 draws it" {
	head -c 3000000 /dev/zero >"$SCRATCH/in"
	# Through a pipe (no size); one last line only, so no rate was seen yet, as with pv.
	run bash -c 'cat "$2" | "$1" -f -g -w 60 2>&1 >/dev/null' _ "$PV" "$SCRATCH/in"
	[ "$status" -eq 0 ]
	[ "$(printf '%s' "$output" | sed 's/0:00:0[0-9] \[[^]]*\]/T [R]/')" = $'2.86MiB T [R] [>                   ]/0.00  B/s\r' ]
	# With updates: "[=====>]/5.10MiB/s", the gauge and the maximum where the percentage would be.
	run bash -c '{ head -c 1000000 "$2"; sleep 1.5; head -c 1000000 "$2"; } | "$1" -f -g -i 0.5 -w 60 2>&1 >/dev/null' _ "$PV" "$SCRATCH/in"
	[[ "$output" =~ \[=*\>\ *\]/[\ 0-9.]+[kKMGT]?i?B/s ]]
	# With a size, -g changes nothing: the percentage as usual.
	run bash -c '"$1" -f -g -p -w 40 -s 6000000 <"$2" 2>&1 >/dev/null' _ "$PV" "$SCRATCH/in"
	[[ "$output" == *" 50%"* ]]
}

@test "-x windowtitle[:FORMAT]: the display again as the terminal's title, after the line as pv writes it" {
	head -c 5000 /dev/zero >"$SCRATCH/in"
	run bash -c 'cat "$2" | "$1" -f -b -x "window:%b|%N" -N nm 2>&1 >/dev/null' _ "$PV" "$SCRATCH/in"
	[ "$status" -eq 0 ]
	[ "$output" = $'       nm: 4.88KiB\r\e]2;4.88KiB|       nm:\e\\' ]
	run bash -c '"$1" -f -b -x windowtitle "$2" 2>&1 >/dev/null' _ "$PV" "$SCRATCH/in"
	[ "$output" = $'4.88KiB\r\e]2;4.88KiB\e\\' ]
	# -x processtitle (tests/e2e/pv_parity.bats) leaves stderr's line as it is.
	run bash -c '"$1" -f -b -x processtitle "$2" 2>&1 >/dev/null' _ "$PV" "$SCRATCH/in"
	[ "$status" -eq 0 ]
	[ "$output" = $'4.88KiB\r' ]
}

@test "-U FILE: all input stored in FILE first, then forwarded, a line for each as pv draws them" {
	make_file "$SCRATCH/in" 3000000
	run bash -c '"$1" -f -b -U "$2/store" "$2/in" 2>&1 >"$2/out"' _ "$PV" "$SCRATCH"
	[ "$status" -eq 0 ]
	[ "$output" = $'  (input): 2.86MiB\r\n2.86MiB           \r' ]
	cmp "$SCRATCH/in" "$SCRATCH/store"
	cmp "$SCRATCH/in" "$SCRATCH/out"
	# The store file being an input is refused, and the input left intact.
	cp "$SCRATCH/in" "$SCRATCH/copy"
	run "$PV" -q -U "$SCRATCH/copy" "$SCRATCH/copy"
	[ "$status" -eq 4 ]
	cmp "$SCRATCH/in" "$SCRATCH/copy"
}
