#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# pv_errors.bats - `ncpv pv` errors and exit statuses follow pv's bit mask; refused options are named.
load helpers

setup() {
	common_setup
}

teardown() {
	common_teardown
}

@test "every pv option ncpv lacks is refused with a one-line error naming it" {
	local o
	for o in "-c" "-d 1" "-R 1" "-Q 1" "-U f" "-g" "-x x" "-u x" "-K" "-Z 1" \
		"--cursor" "--watchfd=1" "--remote=1" "--query=1" "--gauge"; do
		# shellcheck disable=SC2086
		run "$NCPV" pv $o </dev/null
		[ "$status" -eq 64 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "${lines[0]}" == *"not supported"* ]]
		[[ "${lines[0]}" == *"${o%% *}"* || "${lines[0]}" == *"${o%%=*}"* ]]
	done
}

@test "bad values are one-line usage errors with pv's status 64" {
	local o
	for o in "-s abc" "-L 0" "-i 0" "-i x" "-w 0" "-B 0" "-D x" "-A x" "-m 0"; do
		# shellcheck disable=SC2086
		run "$NCPV" pv $o </dev/null
		[ "$status" -eq 64 ]
		[ "${#lines[@]}" -eq 1 ]
	done
}

@test "an unreadable file is named, the others still copied, status 2 as pv" {
	printf 'one\n' >"$SCRATCH/a"
	printf 'two\n' >"$SCRATCH/b"
	run "$NCPV" pv -q "$SCRATCH/a" "$SCRATCH/missing" "$SCRATCH/b"
	[ "$status" -eq 2 ]
	[[ "$output" == *"$SCRATCH/missing: No such file or directory"* ]]
	[[ "$output" == *one* && "$output" == *two* ]]
	pv -q "$SCRATCH/a" "$SCRATCH/missing" "$SCRATCH/b" >/dev/null 2>&1 || [ $? -eq 2 ]
}

@test "no readable input at all gives status 10, as pv" {
	run "$NCPV" pv -q "$SCRATCH/missing"
	[ "$status" -eq 10 ]
	run pv -q "$SCRATCH/missing"
	[ "$status" -eq 10 ]
}

@test "a read error is reported with status 16 and later files still copied" {
	printf 'after\n' >"$SCRATCH/b"
	run "$NCPV" pv -q "$SCRATCH" "$SCRATCH/b"
	[ "$status" -eq 16 ]
	[[ "$output" == *"$SCRATCH: read failed: Is a directory"* ]]
	[[ "$output" == *after* ]]
}

@test "the input being the output is refused with status 4" {
	printf 'x\n' >"$SCRATCH/f"
	run bash -c '"$1" pv -q "$2" >>"$2"' _ "$NCPV" "$SCRATCH/f"
	[ "$status" -eq 4 ]
	[[ "$output" == *"input file is output file"* ]]
}

@test "-o naming one of the inputs is refused with status 4 and the file left intact" {
	printf 'precious\n' >"$SCRATCH/f"
	run "$NCPV" pv -q -o "$SCRATCH/f" "$SCRATCH/f"
	[ "$status" -eq 4 ]
	[[ "$output" == *"input file is output file"* ]]
	[ "$(cat "$SCRATCH/f")" = precious ]
	run bash -c '"$1" pv -q -o "$2" <"$2"' _ "$NCPV" "$SCRATCH/f"
	[ "$status" -eq 4 ]
	[ "$(cat "$SCRATCH/f")" = precious ]
}

@test "-o truncates an existing output file before writing" {
	printf 'a much longer old content\n' >"$SCRATCH/out"
	printf 'new\n' >"$SCRATCH/in"
	run "$NCPV" pv -q -o "$SCRATCH/out" "$SCRATCH/in"
	[ "$status" -eq 0 ]
	[ "$(sha "$SCRATCH/in")" = "$(sha "$SCRATCH/out")" ]
}

@test "a closed reader ends the run at once with pv's status 0" {
	local start end
	start=$(date +%s%N)
	run bash -c '"$1" pv -q /dev/zero | head -c 10 >/dev/null; echo "${PIPESTATUS[0]}"' _ "$NCPV"
	end=$(date +%s%N)
	[ "$output" = 0 ]
	[ $(((end - start) / 1000000)) -lt 3000 ]
}

@test "a full disk is a write error with non-zero status" {
	run bash -c 'head -c 100000 /dev/zero | "$1" pv -q -o /dev/full' _ "$NCPV"
	[ "$status" -eq 16 ]
	[[ "$output" == *"No space left on device"* ]]
	run bash -c 'head -c 100000 /dev/zero | "$1" pv -q >/dev/full' _ "$NCPV"
	[ "$status" -eq 16 ]
}

@test "a terminating signal ends the run with status 32" {
	local pid rc=0
	"$NCPV" pv -q -P "$SCRATCH/pid" /dev/zero >/dev/null &
	pid=$!
	STARTED_PIDS+=("$pid")
	wait_for "$SCRATCH/pid" '^[0-9]+$' 3
	kill -TERM "$pid"
	wait "$pid" || rc=$?
	[ "$rc" -eq 32 ]
}

@test "a symlink named pv runs ncpv pv" {
	ln -s "$NCPV" "$SCRATCH/pv"
	head -c 1024 /dev/zero >"$SCRATCH/in"
	run bash -c '"$1" -f -b <"$2" 2>&1 >/dev/null' _ "$SCRATCH/pv" "$SCRATCH/in"
	[ "$output" = $'1.00KiB\r' ]
	run "$SCRATCH/pv" -c
	[[ "$output" == *"-c (--cursor) is not supported"* ]]
}

# pv's input stays open until the pidfile has been checked (once 0.5 s, which a loaded machine
# could spend before the check, when pv had already ended and removed it).
@test "the pidfile holds our PID while running and is removed after" {
	mkfifo "$SCRATCH/in"
	"$NCPV" pv -q -P "$SCRATCH/pid" <"$SCRATCH/in" >/dev/null &
	local pid=$! w
	STARTED_PIDS+=("$pid")
	exec {w}>"$SCRATCH/in"
	wait_for "$SCRATCH/pid" '^[0-9]+$' 5
	[ "$(cat "$SCRATCH/pid")" = "$pid" ]
	echo x >&"$w"
	exec {w}>&-
	wait "$pid"
	[ ! -e "$SCRATCH/pid" ]
}

@test "discard and sync options pass or drop the data as asked" {
	make_file "$SCRATCH/in" 100000
	run bash -c '"$1" pv -q -X "$2" | wc -c' _ "$NCPV" "$SCRATCH/in"
	[ "$output" = 0 ]
	"$NCPV" pv -q -Y -o "$SCRATCH/out" "$SCRATCH/in"
	[ "$(sha "$SCRATCH/in")" = "$(sha "$SCRATCH/out")" ]
	run "$NCPV" pv -q -X -o "$SCRATCH/out" "$SCRATCH/in"
	[ "$status" -eq 64 ]
}

@test "the stats line summarises the rates at the end" {
	head -c 40000 /dev/zero | "$NCPV" pv -f -v -b -L 40000 -i 0.2 2>"$SCRATCH/err" >/dev/null
	grep -q '^rate min/avg/max/mdev = .*B/s/.*B/s/.*B/s/.*B/s$' "$SCRATCH/err"
}

@test "skip errors replaces unreadable ranges with zeros and reports them" {
	# Reading our own /proc/self/mem at address 0 fails with EIO, and it can be seeked past.
	run bash -c '"$1" pv -q -E -S -s 100 /proc/self/mem | od -An -v -tx1 | tr -d " \n"' _ "$NCPV"
	[[ "$output" == *"read errors detected: Input/output error"* ]]
	[[ "$output" == *"skipped past read error: 0 - 1 (1 B)"* ]]
	[[ "$output" == *"$(printf '00%.0s' $(seq 100))" ]]
	run bash -c '"$1" pv -q -EE -S -s 2000 /proc/self/mem 2>&1 >/dev/null | wc -l' _ "$NCPV"
	[ "$output" -eq 1 ]
	run "$NCPV" pv -q /proc/self/mem
	[ "$status" -eq 16 ]
	[[ "$output" == *"read failed: Input/output error"* ]]
}
