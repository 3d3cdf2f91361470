#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# pv_watch.bats - `ncpv pv -d PID[:FD]`: another process's files, followed through /proc.
load ../lib/helpers

setup() {
	common_setup
	make_file "$SCRATCH/in" 3000000
	# The watched process: a copy at 1 MiB/s, about three seconds.
	"$NCPV" pv -q -L 1M -P "$SCRATCH/pid" "$SCRATCH/in" >"$SCRATCH/out" 2>/dev/null &
	WATCHED=$!
	STARTED_PIDS+=("$WATCHED")
	wait_for "$SCRATCH/pid" '^[0-9]+$' 5
}

teardown() {
	common_teardown
}

@test "-d PID draws a line per open file, named, and ends with the process" {
	cd "$SCRATCH"
	run timeout 20 "$NCPV" pv -f -i 0.2 -d "$WATCHED"
	[ "$status" -eq 0 ]
	# Named by descriptor and path (relative to here), with the file's size for the bar.
	[[ "$output" == *"in: "*"%"* ]]
	[[ "$output" == *"out: "* ]]
	# Redrawn in place: the cursor goes back up over the other lines.
	[[ "$output" == *$'\e[A'* ]]
	! kill -0 "$WATCHED" 2>/dev/null
}

@test "-d PID:FD follows one descriptor, its offset rising to the end" {
	local fd f first last
	fd=
	for f in /proc/"$WATCHED"/fd/*; do
		[[ ! $f -ef $SCRATCH/in ]] || fd=${f##*/}
	done
	[ -n "$fd" ]
	run timeout 20 "$NCPV" pv -f -n -b -i 0.2 -d "$WATCHED:$fd"
	[ "$status" -eq 0 ]
	first=$(echo "$output" | head -1)
	last=$(echo "$output" | tail -1)
	[ "$first" -lt "$last" ]
	[ "$last" -le 3000000 ]
	[ "${#lines[@]}" -ge 3 ]
}

@test "-d names a process or descriptor that does not exist, with pv's status 2" {
	run "$NCPV" pv -d 2147483646
	[ "$status" -eq 2 ]
	[ "$output" = "pv: pid 2147483646: No such process" ]
	run "$NCPV" pv -d "$WATCHED:99"
	[ "$status" -eq 2 ]
	[ "$output" = "pv: pid $WATCHED: fd 99: No such file or directory" ]
	# Further arguments are more processes (as in pv 1.10.5): a file name is no process.
	run "$NCPV" pv -d "$WATCHED" "$SCRATCH/in"
	[ "$status" -eq 64 ]
	[ "$output" = "pv: -d: process ID or pid:fd pair expected" ]
	run "$NCPV" pv -d "$WATCHED" 0
	[ "$status" -eq 64 ]
	[ "$output" = "pv: -d: 0: invalid process ID" ]
}

# pv 1.10.5 follows only descriptors open on files or block devices: an offset on a pipe or a
# terminal says nothing. Asked for one by number, it says so (status 2), and so does ncpv.
@test "-d PID:FD on a pipe or /dev/null is refused in pv's words, status 2" {
	local fd
	fd=$(for f in /proc/"$WATCHED"/fd/*; do [ "$(readlink "$f")" = /dev/null ] && basename "$f"; done | head -1)
	[ -n "$fd" ]
	run "$NCPV" pv -d "$WATCHED:$fd"
	[ "$status" -eq 2 ]
	[ "$output" = "pv: pid $WATCHED: fd $fd: /dev/null: not a regular file or block device" ]
	# With :FD, a process that cannot be signalled is named alone, as pv does.
	run "$NCPV" pv -d 2147483646:3
	[ "$status" -eq 2 ]
	[ "$output" = "pv: pid 2147483646: No such process" ]
}

# A file open for writing is still growing: pv 1.10.5 gives it no size (its /proc link has the
# owner's w bit), so -n steps as for an unknown size (2, 4, 6, as pv 1.10.5 printed for the
# outside attack's writer) and the bar bounces. ncpv took the size of the moment: 100 each time.
@test "-d PID:FD on a file open for writing has no size: -n steps 2, 4, 6 and the bar bounces, as pv's" {
	run timeout 20 "$NCPV" pv -n -i 0.2 -d "$WATCHED:1"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -ge 3 ]
	local i
	for i in "${!lines[@]}"; do
		[ "${lines[$i]}" = "$((2 * (i + 1)))" ] || { echo "line $i: ${lines[$i]}"; return 1; }
	done
}

@test "-d PID:FD on a file open for writing draws the bouncing bar, no percentage; its input a percentage" {
	local in
	for in in /proc/"$WATCHED"/fd/*; do
		[[ ! $in -ef $SCRATCH/in ]] || break
	done
	run timeout 20 "$NCPV" pv -f -i 0.2 -d "$WATCHED:1" -d "$WATCHED:${in##*/}"
	[ "$status" -eq 0 ]
	[[ "$output" == *"<=>"* ]]
	[[ "$output" == *"%"* ]] # the input's line
}

# pv 1.10.5 takes every -d (and further arguments), names each one it cannot watch, watches the
# rest and ends with status 2; ncpv watched only the last -d, or stopped at the first failure.
@test "-d A -d B: one that cannot be watched is named, the other followed to its end; status 2" {
	cd "$SCRATCH"
	run timeout 20 "$NCPV" pv -f -n -b -i 0.2 -d 2147483646 -d "$WATCHED"
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "pv: pid 2147483646: No such process" ]
	[ "${#lines[@]}" -ge 3 ]
	! kill -0 "$WATCHED" 2>/dev/null
}

# The outside attack of issue 22's round: another process's file names reached the terminal raw
# (a title set, colours on). They are shown escaped, as every other untrusted text.
@test "-d shows another process's file name with its control characters escaped" {
	local name pid i
	name=$SCRATCH/$(printf 'evil\e]0;PWN\a\e[31mname')
	: >"$name"
	bash -c 'exec 3<"$1"; exec sleep 30' _ "$name" </dev/null >/dev/null 2>&1 &
	pid=$!
	STARTED_PIDS+=("$pid")
	for ((i = 0; i < 100; i++)); do
		[ "$(readlink "/proc/$pid/fd/3")" = "$name" ] && break
		sleep 0.02
	done
	run timeout 2 "$NCPV" pv -f -w 400 -d "$pid" # wide: the long scratch path is not cut
	[[ "$output" == *'evil\e]0;PWN\x07\e[31mname'* ]]
	run grep -c $'\e]0;PWN' <<<"$output"
	[ "$output" = 0 ]
}
