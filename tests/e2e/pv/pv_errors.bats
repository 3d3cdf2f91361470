#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# pv_errors.bats - `ncpv pv` errors and exit statuses follow pv's bit mask; refused options are named.
load ../lib/helpers

setup() {
	common_setup
}

teardown() {
	common_teardown
	[ -z "${DIRECT_DIR:-}" ] || rm -rf "$DIRECT_DIR"
}

@test "every pv option ncpv lacks is refused with a one-line error naming it" {
	local o
	for o in "-u x" "-M" \
		"--monitor" "--bar-style=plain"; do
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
	for o in "-s abc" "-L x" "-i -1" "-i x" "-w x" "-w 1.5" "-B x" "-D x" "-A x" "-m x" "-R x"; do
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

@test "no readable input at all gives status 2 and no final line, as pv 1.10.5" {
	run "$NCPV" pv -f "$SCRATCH/missing"
	[ "$status" -eq 2 ]
	[ "$output" = "pv: failed to read file: $SCRATCH/missing: No such file or directory" ]
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
	run "$SCRATCH/pv" -u block
	[[ "$output" == *"-u (--bar-style) is not supported"* ]]
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
	# pv 1.10 takes both: the output is created (empty) and nothing is written to it.
	run "$NCPV" pv -q -X -o "$SCRATCH/out" "$SCRATCH/in"
	[ "$status" -eq 0 ]
	[ ! -s "$SCRATCH/out" ]
}

@test "the stats line summarises the rates at the end" {
	head -c 40000 /dev/zero | "$NCPV" pv -f -v -b -L 40000 -i 0.2 2>"$SCRATCH/err" >/dev/null
	grep -Eq '^rate min/avg/max/mdev = [0-9]+\.[0-9]{3}(/[0-9]+\.[0-9]{3}){3} B/s$' "$SCRATCH/err"
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

@test "-E -Z skips unreadable ranges to the next block boundary" {
	run bash -c '"$1" pv -q -E -Z 7 -S -s 20 /proc/self/mem 2>&1 >/dev/null' _ "$NCPV"
	[ "$status" -eq 16 ]
	[[ "$output" == *"skipped past read error: 0 - 7 (7 B)"* ]]
	[[ "$output" == *"skipped past read error: 7 - 14 (7 B)"* ]]
	[[ "$output" == *"skipped past read error: 14 - 20 (6 B)"* ]]
}

@test "-O leaves holes for blocks of zeros and the same bytes, to a file or stdout" {
	{ head -c 100000 /dev/urandom; head -c 1000000 /dev/zero; head -c 5000 /dev/urandom
	  head -c 300000 /dev/zero; } >"$SCRATCH/in"
	"$NCPV" pv -q -O -o "$SCRATCH/out" "$SCRATCH/in"
	cmp "$SCRATCH/in" "$SCRATCH/out"
	# About 1.3 MB of zeros are holes: far fewer blocks than the 1.4 MB file.
	[ "$(du -k "$SCRATCH/out" | cut -f1)" -lt 400 ]
	"$NCPV" pv -q -O "$SCRATCH/in" >"$SCRATCH/out2"
	cmp "$SCRATCH/in" "$SCRATCH/out2"
	# To a pipe it writes as usual.
	"$NCPV" pv -q -O "$SCRATCH/in" | cmp - "$SCRATCH/in"
}

# fd_flags PID PATH VAR: VAR = the open flags (octal, from /proc) of PID's descriptor open on
# PATH, or empty. Shell builtins only (-ef, read): a fork per descriptor took over a second at
# load 17, longer than the copy it watches.
fd_flags() {
	local f k v
	printf -v "$3" ''
	for f in /proc/"$1"/fd/*; do
		[[ $f -ef $2 ]] || continue
		while read -r k v; do
			if [ "$k" = flags: ]; then printf -v "$3" %s "$v"; fi
		done <"/proc/$1/fdinfo/${f##*/}"
	done 2>/dev/null
	return 0
}

@test "-K reads and writes with O_DIRECT where the file system takes it, the bytes unchanged" {
	local pid in_flags out_flags i dir=$SCRATCH
	# tmpfs refuses O_DIRECT (pv then copies as usual): look for a disk-backed place.
	if [ "$(stat -f -c %T "$dir")" = tmpfs ] && [ "$(stat -f -c %T /var/tmp 2>/dev/null)" != tmpfs ]; then
		DIRECT_DIR=$(mktemp -d /var/tmp/ncpv-direct.XXXXXX) && dir=$DIRECT_DIR
	fi
	make_file "$dir/in" 3000123
	"$NCPV" pv -q -K -L 2M -o "$dir/out" "$dir/in" &
	pid=$!
	STARTED_PIDS+=("$pid")
	# Until the input is open (at most 5 s); the copy takes about 1.5 s.
	for ((i = 0; i < 250; i++)); do
		fd_flags "$pid" "$dir/in" in_flags
		fd_flags "$pid" "$dir/out" out_flags
		[ -n "$in_flags" ] && [ -n "$out_flags" ] && [ $((8#$in_flags & 8#40000)) -ne 0 ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.02
	done
	echo "in $dir ($(stat -f -c %T "$dir")): input flags $in_flags, output flags $out_flags"
	wait "$pid"
	cmp "$dir/in" "$dir/out"
	# Where it cannot (a pipe), the copy is the same.
	"$NCPV" pv -q -K "$dir/in" | cmp - "$dir/in"
	[ "$(stat -f -c %T "$dir")" != tmpfs ] || skip "only tmpfs here: O_DIRECT flags not checked (bytes were)"
	# O_DIRECT is 040000 in the flags /proc shows (octal), on the input and the output.
	[ -n "$in_flags" ]
	[ -n "$out_flags" ]
	[ $((8#$in_flags & 8#40000)) -ne 0 ]
	[ $((8#$out_flags & 8#40000)) -ne 0 ]
}

@test "a line shown is ended by a newline however the run ends (signal, reader gone), as pv does" {
	# Without it the shell's prompt draws over the last line. Each ending, for ncpv and for
	# Debian's pv side by side: the last two bytes on stderr are "\r\n".
	local pv how pid rc tail
	for pv in "$NCPV pv" /usr/bin/pv; do
		[ -x "${pv%% *}" ] || continue
		for how in TERM HUP EPIPE; do
			rm -f "$SCRATCH/err"
			if [ "$how" = EPIPE ]; then
				# shellcheck disable=SC2086
				$pv -f -i 0.05 -L 1M /dev/zero 2>"$SCRATCH/err" |
					head -c 300000 >/dev/null # 0.3 s of lines, then the reader goes
			else
				# shellcheck disable=SC2086
				$pv -f -i 0.05 -L 1M /dev/zero 2>"$SCRATCH/err" >/dev/null &
				pid=$!
				STARTED_PIDS+=("$pid")
				wait_for "$SCRATCH/err" . 5
				rc=0
				kill -"$how" "$pid"
				wait "$pid" || rc=$?
				[ "$rc" -eq 32 ] || { echo "$pv $how: status $rc"; return 1; }
			fi
			tail=$(tail -c 2 "$SCRATCH/err" | od -An -c | tr -d ' ')
			[ "$tail" = '\r\n' ] || { echo "$pv $how: ends with '$tail'"; od -c "$SCRATCH/err" | tail -3; return 1; }
		done
	done
}
