#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# pv_compat.bats - `ncpv pv` against Debian's real pv 1.6.20 where 1.10.5 (the reference,
# pv_golden.bats) behaves the same: timing, limits and data paths.
load helpers

setup() {
	common_setup
}

teardown() {
	common_teardown
}

# stderr of a run with the data thrown away, with \r shown as ^M.
show() {
	local input=$1
	shift
	"$@" <"$input" 2>&1 >/dev/null | cat -A
}

# both INPUT ARGS...: the same run through pv and ncpv pv; fails on any difference.
both() {
	local input=$1 a b
	shift
	a=$(show "$input" pv "$@")
	b=$(show "$input" "$NCPV" pv "$@")
	if [ "$a" != "$b" ]; then
		printf 'pv %s\n  pv:   %s\n  ncpv: %s\n' "$*" "$a" "$b" >&2
		return 1
	fi
}

@test "final line-mode counts match pv" {
	local n
	for n in 0 1 999 1000 1500 999999; do
		seq 1 "$n" >"$SCRATCH/in"
		both "$SCRATCH/in" -f -l -b
	done
	printf 'a\0b\0c' >"$SCRATCH/in"
	both "$SCRATCH/in" -f -0 -b
}

@test "long format names render like their short forms" {
	local a b
	head -c 5000 /dev/zero >"$SCRATCH/in"
	a=$(show "$SCRATCH/in" "$NCPV" pv -f -s 10000 -w 60 -F '%b %t %p %e')
	b=$(show "$SCRATCH/in" "$NCPV" pv -f -s 10000 -w 60 -F '%{bytes} %{timer} %{progress} %{eta}')
	[ "$a" = "$b" ]
	# pv 1.10 shows an unknown sequence as written.
	run "$NCPV" pv -f -F '<%{nope}>' </dev/null
	[ "$status" -eq 0 ]
	[[ "$output" == *"<%{nope}>"* ]]
}

@test "numeric updates with -s and -L follow pv in count and values" {
	local a b
	head -c 300000 /dev/zero >"$SCRATCH/in"
	pv -n -b -s 300000 -L 200000 -i 0.5 <"$SCRATCH/in" 2>"$SCRATCH/pv" >/dev/null
	"$NCPV" pv -n -b -s 300000 -L 200000 -i 0.5 <"$SCRATCH/in" 2>"$SCRATCH/ncpv" >/dev/null
	a=$(wc -l <"$SCRATCH/pv")
	b=$(wc -l <"$SCRATCH/ncpv")
	# pv moves data in 0.1 s bursts and finishes early; ncpv holds the rate: one line more at most.
	[ "$b" -ge "$a" ]
	[ "$b" -le $((a + 1)) ]
	[ "$(tail -1 "$SCRATCH/ncpv")" = 300000 ]
	[ "$(tail -1 "$SCRATCH/pv")" = 300000 ]
	# Every update lies within 10% of the ideal 100000 per half second.
	awk 'NR < 3 && ($1 < NR * 90000 || $1 > NR * 110000) { bad = 1 } END { exit bad }' "$SCRATCH/ncpv"
}

@test "rate limit holds without bursts after an idle input" {
	local start end
	# 40 KiB at 20 KiB/s after a one-second pause must still take about two seconds.
	start=$(date +%s%N)
	{ sleep 1; head -c 40960 /dev/zero; } | "$NCPV" pv -q -L 20K -n -b -i 0.25 2>"$SCRATCH/n" >/dev/null
	end=$(date +%s%N)
	[ $(((end - start) / 1000000)) -ge 2800 ]
	# No quarter-second update may show more than 0.1 s worth above the rate.
	awk -v lim=$((20480 / 4 + 2048 + 1024)) 'prev != "" && $1 - prev > lim { bad = 1 } { prev = $1 } END { exit bad }' "$SCRATCH/n"
}

@test "stop at size passes exactly -s bytes or lines, like pv" {
	make_file "$SCRATCH/in" 100000
	pv -q -s 12345 -S <"$SCRATCH/in" >"$SCRATCH/a"
	"$NCPV" pv -q -s 12345 -S <"$SCRATCH/in" >"$SCRATCH/b"
	[ "$(stat -c %s "$SCRATCH/b")" -eq 12345 ]
	[ "$(sha "$SCRATCH/a")" = "$(sha "$SCRATCH/b")" ]
	seq 1 1000 >"$SCRATCH/lines"
	"$NCPV" pv -q -l -s 10 -S <"$SCRATCH/lines" >"$SCRATCH/c"
	[ "$(cat "$SCRATCH/c")" = "$(seq 1 10)" ]
}

@test "data passes byte-exact through pipes, files and several inputs" {
	make_file "$SCRATCH/in" 3000000
	make_file "$SCRATCH/in2" 12345
	cat "$SCRATCH/in" | "$NCPV" pv -q | cat >"$SCRATCH/out1"
	[ "$(sha "$SCRATCH/in")" = "$(sha "$SCRATCH/out1")" ]
	"$NCPV" pv -q "$SCRATCH/in" >"$SCRATCH/out2"
	[ "$(sha "$SCRATCH/in")" = "$(sha "$SCRATCH/out2")" ]
	"$NCPV" pv -q -C -B 1000 "$SCRATCH/in" - "$SCRATCH/in2" <"$SCRATCH/in2" | cat >"$SCRATCH/out3"
	pv -q "$SCRATCH/in" - "$SCRATCH/in2" <"$SCRATCH/in2" >"$SCRATCH/ref"
	[ "$(sha "$SCRATCH/ref")" = "$(sha "$SCRATCH/out3")" ]
	"$NCPV" pv -q -o "$SCRATCH/out4" "$SCRATCH/in"
	[ "$(sha "$SCRATCH/in")" = "$(sha "$SCRATCH/out4")" ]
}

@test "a file's size drives the bar, as with pv" {
	head -c 5000 /dev/zero >"$SCRATCH/in"
	a=$(pv -f -p -w 40 "$SCRATCH/in" 2>&1 >/dev/null | cat -A)
	b=$("$NCPV" pv -f -p -w 40 "$SCRATCH/in" 2>&1 >/dev/null | cat -A)
	[ "$a" = "$b" ]
	b=$("$NCPV" pv -f -p -w 40 -s "@$SCRATCH/in" <"$SCRATCH/in" 2>&1 >/dev/null | cat -A)
	[ "$a" = "$b" ]
}

@test "a named FIFO is read without being opened twice" {
	mkfifo "$SCRATCH/fifo"
	{ printf 'hello\n' >"$SCRATCH/fifo"; } &
	STARTED_PIDS+=("$!")
	run timeout 5 "$NCPV" pv -q "$SCRATCH/fifo"
	[ "$status" -eq 0 ]
	[ "$output" = hello ]
}
