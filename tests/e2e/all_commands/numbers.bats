#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# numbers.bats - issue 22: every PID, fd, port and count of every command goes through one strict
# parser. A generated table: each option that takes a whole number, times the whole boundary set;
# every value outside the option's range (or not plain decimal digits) must be refused with the
# command's usage status and one line naming the option and the value as typed. Values inside
# the range are not run: for pv -R/-Q they would signal a real process.
load ../lib/helpers

setup() { common_setup; }
teardown() { common_teardown; }

# 0, -1, +1, blanks, empty, INT_MAX and past it, 2^31, 2^32 +/- 1, 2^63, 2^64 +/- 1, 20 nines,
# octal- and hex-looking values, signs, a fraction.
BOUNDARY=(0 -1 +1 -0 " 1" "1 " "" 1.0 2147483647 2147483648 4294967295 4294967296 4294967297
	9223372036854775807 9223372036854775808 18446744073709551615 18446744073709551616
	18446744073709551617 99999999999999999999 010 0x10 -99999999999999999999 65535 65536)

# Whether $1 is a plain decimal within [$2, $3] (bounds given in decimal, $2 may be negative):
# compared as digit strings, so that 20-digit values do not wrap in shell arithmetic.
in_range() {
	local v=$1 lo=$2 hi=$3 neg=
	if [[ $v == -* && $lo == -* ]]; then
		neg=1
		v=${v#-}
	fi
	[[ $v =~ ^[0-9]+$ ]] || return 1
	v=$(echo "$v" | sed 's/^0*//')
	v=${v:-0}
	[ "$v" = 0 ] && neg=
	if [ -n "$neg" ]; then
		le "$v" "${lo#-}"
	else
		[[ $lo == -* ]] || le "$lo" "$v" || return 1
		le "$v" "$hi"
	fi
}

# a <= b for unsigned decimal strings without leading zeros.
le() {
	[ "${#1}" -lt "${#2}" ] && return 0
	[ "${#1}" -gt "${#2}" ] && return 1
	[[ ! $1 > $2 ]]
}

# run_table STATUS LABEL LO HI WORDS...: WORDS with @ standing for the value. Each value outside
# [LO, HI] must give STATUS, one line on stderr, the label and (unless NONAME) the value typed.
run_table() {
	local want=$1 label=$2 lo=$3 hi=$4 v line i rows=0
	shift 4
	for v in "${BOUNDARY[@]}"; do
		in_range "$v" "$lo" "$hi" && continue
		local args=()
		for i in "$@"; do
			args+=("${i//@/$v}")
		done
		status=0
		timeout 10 "$NCPV" "${args[@]}" </dev/null >/dev/null 2>"$SCRATCH/err" || status=$?
		line=$(cat "$SCRATCH/err")
		if [ "$status" -ne "$want" ] || [ "$(wc -l <"$SCRATCH/err")" -ne 1 ] ||
			[[ $line != *"$label"* ]] || { [ -z "$NONAME" ] && [[ $line != *"$v"* ]]; }; then
			echo "row: ncpv ${args[*]} (value '$v')" >&2
			echo "got status $status (want $want), stderr: $line" >&2
			return 1
		fi
		rows=$((rows + 1))
	done
	echo "$rows rows" >&2
	[ "$rows" -gt 10 ]
}

@test "the range check of this table itself" {
	in_range 1 1 2147483647
	in_range 010 1 2147483647
	in_range 2147483647 1 2147483647
	! in_range 2147483648 1 2147483647 || false
	! in_range 0 1 65535 || false
	! in_range " 1" 1 65535 || false
	! in_range 99999999999999999999 0 18446744073709551615 || false
	in_range 18446744073709551615 0 18446744073709551615
	in_range -1 -2147483647 2147483647
	! in_range -99999999999999999999 -2147483647 2147483647 || false
}

@test "pv -R and -Q: a PID outside 1..INT_MAX is refused (status 64), never signalled" {
	run_table 64 "-R: " 1 2147483647 pv -R @ -L 1M
	run_table 64 "-Q: " 1 2147483647 pv -Q @
}

@test "pv -d: a PID outside 1..INT_MAX or an fd outside 0..INT_MAX is refused (status 64)" {
	# pv's own words for a value that is not PID[:FD] do not repeat it: only the range errors do.
	NONAME=1 run_table 64 "-d: " 1 2147483647 pv -d @
	NONAME=1 run_table 64 "-d: " 0 2147483647 pv -d 1:@
	run "$NCPV" pv -d 99999999999999999999
	[ "$output" = "pv: -d: invalid process ID" ]
	run "$NCPV" pv -d 1:4294967296
	[ "$output" = "pv: -d: 1:4294967296: invalid file descriptor" ]
}

@test "get: count, parallel, busy-poll and port" {
	run_table 2 "invalid count '" 1 100000000 get -n @ 127.0.0.1:1
	run_table 2 "invalid parallel '" 1 100000 get -n 2 -P @ 127.0.0.1:1
	run_table 2 "invalid busy-poll '" 0 1000000 get --busy-poll @ 127.0.0.1:1
	run_table 2 "port" 1 65535 get -- 127.0.0.1 @
}

@test "serve: max-conns, busy-poll and port" {
	run_table 2 "invalid max-conns '" 1 1000000 serve --max-conns @ 127.0.0.1:0
	run_table 2 "invalid busy-poll '" 0 1000000 serve --busy-poll @ 127.0.0.1:0
	run_table 2 "port" 0 65535 serve -- 127.0.0.1:@
}

@test "bench: count, repeat and shuffle seed" {
	run_table 2 "invalid count '" 1 10000000 bench -n @
	run_table 2 "invalid repeat '" 1 1000 bench -r @
	run_table 2 "invalid shuffle '" 0 2147483647 bench --shuffle=@
}

@test "link: queue and seed" {
	run_table 2 "invalid queue '" 1 65536 link --rate 1mbit --queue @ true
	run_table 2 "invalid seed '" 0 18446744073709551615 link --seed @ true
}

@test "nc (OpenBSD nc's status 1 and words): windows, ttl, quit timer, receive limit, timeout, port" {
	run_table 1 "TCP receive window " 1 1073741824 nc -I @ 127.0.0.1 1
	run_table 1 "TCP send window " 1 1073741824 nc -O @ 127.0.0.1 1
	run_table 1 "ttl " 0 255 nc -M @ 127.0.0.1 1
	run_table 1 "minttl " 0 255 nc -m @ 127.0.0.1 1
	run_table 1 "quit timer " -2147483647 2147483647 nc -q @ 127.0.0.1 1
	run_table 1 "receive limit " 1 2147483647 nc -W @ 127.0.0.1 1
	run_table 1 "timeout " 0 2147483 nc -w @ 127.0.0.1 1
	run_table 1 "port number " 1 65535 nc -- 127.0.0.1 @
	# -p: getaddrinfo (and so OpenBSD nc) binds 70000 as 4464 and " 1" as 1; ncpv refuses them.
	run_table 1 "port number " 0 65535 nc -p @ 127.0.0.1 1
}

@test "kill(2) is called in src/proc.c only, where 0 and negative PIDs are refused" {
	run grep -rnE '(^|[^_a-z])kill[[:space:]]*\([-*(a-zA-Z_]' "$BATS_TEST_DIRNAME/../../../src" --include='*.c'
	[ "$status" -eq 0 ]
	local others
	others=$(printf '%s\n' "$output" | grep -v '/src/proc\.c:' || true)
	[ -z "$others" ] || { echo "kill() outside proc.c: $others" >&2; false; }
}
