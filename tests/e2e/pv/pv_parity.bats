#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# pv_parity.bats - where ncpv pv differed from pv 1.10.5 (issue 26's list), one test each: the
# ones now matched, and the deliberate differences README lists (tested as ncpv's behaviour).
load ../lib/helpers
bats_require_minimum_version 1.5.0

setup() {
	common_setup
	ln -s "$NCPV" "$SCRATCH/pv"
	PV=$SCRATCH/pv
	cd "$SCRATCH"
}

teardown() {
	local p
	for p in ${BG_PIDS:-}; do kill "$p" 2>/dev/null || true; done
	common_teardown
}

# wait_line FILE REGEX SECONDS: wait until a line of FILE ('\r' ending lines too) matches.
wait_line() {
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		tr '\r' '\n' <"$1" | grep -Eq -- "$2" && return 0
		sleep 0.05
	done
	echo "no line /$2/ in $1 after $3 s:" >&2
	tr '\r' '\n' <"$1" >&2
	return 1
}

# The last line pv drew on stderr file $1 ('\r' and '\n' both end a line, blank ones dropped).
last_line() {
	tr '\r' '\n' <"$1" | sed '/^ *$/d' | tail -n 1
}

@test "1: the bar is filled from the exact fraction: 49.75% of 73 columns is 36" {
	head -c 1000 /dev/zero >in
	"$PV" -f -p -s 2010 -w 80 in 2>err >/dev/null
	# [ + 73 + ] + " 49%": 36 columns reached, the tip '>' on the 36th, so 35 '='.
	[ "$(tr -cd = <err | wc -c)" -eq 35 ]
	grep -q ' 49%' err
}

@test "2: -n with an unknown size: the last update adds its step, as pv's does" {
	mkfifo fifo
	"$PV" -n -i 0.1 <fifo >/dev/null 2>err &
	BG_PIDS=$!
	exec 7>fifo
	printf x >&7
	wait_for err '^2$' 10
	exec 7>&-
	wait "$BG_PIDS"
	# Updates without data keep 2; the last one (the whole run's rate) steps on to 4.
	[ "$(last_line err)" = 4 ]
}

@test "3: -A after a slow pipe: the last line shows the last bytes written" {
	seq -w 3 1 100 | "$PV" -qL 200 | "$PV" -f -B 1024 -A 16 -i 0.2 >/dev/null 2>err
	[ "$(last_line err)" = "097.098.099.100." ]
}

@test "3: -A on data written before the first update shows dots, as pv's" {
	printf 'hello world\n' >in
	"$PV" -f -A 16 in >/dev/null 2>err
	[ "$(last_line err)" = "................" ]
}

@test "4: the reader goes away (EPIPE): a last line, status 0, nothing said" {
	run bash -c '"$1" -f -n -b /dev/zero 2>err | head -c1 >/dev/null; exit "${PIPESTATUS[0]}"' _ "$PV"
	[ "$status" -eq 0 ]
	[ "$(wc -l <err)" -ge 1 ]
	grep -Eq '^[0-9]+$' err
	run bash -c '"$1" -f /dev/zero 2>err | head -c1 >/dev/null; exit "${PIPESTATUS[0]}"' _ "$PV"
	[ "$status" -eq 0 ]
	grep -q '<=>' err
	run ! grep -q 'write failed' err
}

# A read error mid-file, from an LD_PRELOAD shim (tests/e2e/lib/pv_eio_shim.c): the bytes before
# it are read in one read(), then EIO for a range.
eio_setup() {
	command -v cc >/dev/null || skip "no C compiler for the shim"
	cc -shared -fPIC -o eio.so "$BATS_TEST_DIRNAME/../lib/pv_eio_shim.c" -ldl || skip "shim not built"
	head -c 100000 /dev/urandom >eio-input
	export EIO_AT=50000 EIO_LEN=4096 ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
}

@test "5 (deliberate): a read error mid-file keeps the bytes read before it (pv 1.10.5 drops them)" {
	eio_setup
	run bash -c 'LD_PRELOAD=./eio.so "$1" -q eio-input >out' _ "$PV"
	[ "$status" -eq 16 ]
	[[ "$output" == *"eio-input: read failed: Input/output error"* ]]
	[ "$(stat -c %s out)" -eq 50000 ]
	cmp -n 50000 out eio-input
}

@test "5 (deliberate): -E keeps every offset: zeros over the bad range, the rest intact" {
	eio_setup
	run bash -c 'LD_PRELOAD=./eio.so "$1" -q -E eio-input >out' _ "$PV"
	[ "$status" -eq 16 ]
	[ "$(stat -c %s out)" -eq 100000 ]
	cmp -n 50000 out eio-input
	[ "$(head -c 54096 out | tail -c 4096 | tr -d '\0' | wc -c)" -eq 0 ]
	# The skips (up to 512 bytes) end at most 511 bytes past the range: the rest is the input's.
	cmp -i 54607 out eio-input
}

@test "6: -s @DIR is the sum of the files under it; a missing @FILE is status 64" {
	mkdir -p d/sub
	head -c 300 /dev/zero >d/a
	head -c 700 /dev/zero >d/sub/b
	ln -s /etc/passwd d/link
	head -c 2000 /dev/zero >in
	run bash -c '"$1" -f -n -s @d in 2>&1 >/dev/null' _ "$PV"
	[ "$output" = 200 ]
	run "$PV" -s @missing in
	[ "$status" -eq 64 ]
	[[ "$output" == *"pv: missing: failed to stat file: No such file or directory"* ]]
}

@test "7: -d PID1 PID2 watches both, each line named by pid and fd" {
	seq 1000 >in1
	seq 2000 >in2
	sleep 30 <in1 &
	BG_PIDS=$!
	sleep 30 <in2 &
	BG_PIDS="$BG_PIDS $!"
	set -- $BG_PIDS
	"$PV" -f -i 0.1 -d "$1:0" "$2:0" >/dev/null 2>err &
	local watcher=$!
	STARTED_PIDS+=("$watcher")
	wait_for err "^ *$1: *0:in1" 10
	wait_for err "^ *$2: *0:in2" 10
	# Bounded: under ASan at a load of 4, a pv ended by SIGTERM once spun in LeakSanitizer's
	# exit check for 13 minutes (its tracer child waiting), and `timeout` waited on it.
	kill "$watcher"
	wait_gone "$watcher" 10 || kill -KILL "$watcher" 2>/dev/null || true
	wait "$watcher" || true
}

@test "7: -P FILE -d PID writes the pidfile, so a script waiting for it goes on" {
	seq 1000 >in1
	sleep 30 <in1 &
	BG_PIDS=$!
	"$PV" -P pidf -f -i 0.2 -d "$BG_PIDS:0" >/dev/null 2>err &
	local watcher=$!
	BG_PIDS="$BG_PIDS $watcher"
	wait_for pidf '^[0-9]+$' 10
	[ "$(cat pidf)" -eq "$watcher" ]
}

@test "8: -R PID -a changes the running pv's display; -B is refused by name" {
	"$PV" -f -L 200k -i 0.1 -P pidf /dev/zero 2>err >/dev/null &
	BG_PIDS=$!
	wait_for pidf '^[0-9]+$' 10
	"$PV" -R "$BG_PIDS" -a
	# Only the average rate now, as pv: "(200KiB/s)" with nothing before it.
	wait_line err '^\([0-9. ]+[KM]?i?B/s\) *$' 10
	run "$PV" -R "$BG_PIDS" -B 10
	[ "$status" -eq 64 ]
	[[ "$output" == *"-B cannot be changed in a running pv"* ]]
}

@test "9: -q -v prints pv's statistics line after a slow pipe" {
	run bash -c '(printf a; sleep 0.5; printf b) | "$1" -q -v -i 0.1 2>&1 >/dev/null' _ "$PV"
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^rate\ min/avg/max/mdev\ =\ [0-9.]+/[0-9.]+/[0-9.]+/[0-9.]+\ B/s$ ]]
}

@test "10 (deliberate): --wait draws the last line once data moved, however fast" {
	head -c 1000 /dev/zero >in
	"$PV" -f -W in >/dev/null 2>err
	grep -q '1000  B' err
}

@test "11: exit status: pv <&- is 2 with pv's words; -s @missing 64 (test 6)" {
	run bash -c '"$1" <&- >/dev/null' _ "$PV"
	[ "$status" -eq 2 ]
	[ "$output" = "pv: failed to stat file: -: Bad file descriptor" ]
}

@test "11 (deliberate): pv FILE >&- is a write error (16), -K writes the data (0)" {
	head -c 1000 /dev/urandom >in
	run bash -c '"$1" in >&-' _ "$PV"
	[ "$status" -eq 16 ]
	[[ "$output" == *"write failed: Bad file descriptor"* ]]
	"$PV" -q -K in >out
	cmp in out
}

@test "12: SIGINT ignored at start still ends the run, status 32" {
	bash -c 'trap "" INT; exec "$1" -q -L 100 -P pidf /dev/zero' _ "$PV" >/dev/null &
	BG_PIDS=$!
	wait_for pidf '^[0-9]+$' 10
	kill -INT "$BG_PIDS"
	wait_gone "$BG_PIDS" 10 || { kill -TERM "$BG_PIDS"; false; }
	local rc=0
	wait "$BG_PIDS" || rc=$?
	[ "$rc" -eq 32 ]
}

@test "12 (deliberate): SIGHUP ignored at start (nohup) stays ignored" {
	bash -c 'trap "" HUP; exec "$1" -q -L 100 -P pidf /dev/zero' _ "$PV" >/dev/null &
	BG_PIDS=$!
	wait_for pidf '^[0-9]+$' 10
	kill -HUP "$BG_PIDS"
	# A hangup that were caught would end the run at once (status 32, as SIGTERM below).
	sleep 0.5
	kill -0 "$BG_PIDS"
	kill -TERM "$BG_PIDS"
	local rc=0
	wait "$BG_PIDS" || rc=$?
	[ "$rc" -eq 32 ]
}

@test "13: -w past 1023 columns draws a line that wide" {
	head -c 1000 /dev/zero >in
	"$PV" -f -p -w 2000 in 2>err >/dev/null
	[ "$(tr -d '\r\n' <err | wc -c)" -eq 2000 ]
}

@test "13: getopt's complaints name the long option in full" {
	run "$PV" --prog=1
	[ "$status" -eq 64 ]
	[ "${lines[0]}" = "pv: option '--progress' doesn't allow an argument" ]
	run "$PV" --siz
	[ "${lines[0]}" = "pv: option '--size' requires an argument" ]
}

# The wording of -d errors, compared with pv 1.10.5 run as root and as nobody (issue 26). As root
# -d 1 watches init, so the unprivileged case needs another user.
@test "13: -d 1 as an unprivileged user: pv's words, status 2; with :FD the pid alone" {
	[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null || skip "needs root and setpriv to drop to nobody"
	local nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	"${nobody[@]}" true || skip "setpriv cannot switch user here"
	"${nobody[@]}" test -x "$NCPV" || skip "nobody cannot run $NCPV from here (a private checkout)"
	run "${nobody[@]}" "$NCPV" pv -f -d 1 </dev/null
	[ "$status" -eq 2 ]
	[ "$output" = "pv: pid 1: Operation not permitted" ]
	run "${nobody[@]}" "$NCPV" pv -f -d 1:0 </dev/null
	[ "$status" -eq 2 ]
	[ "$output" = "pv: pid 1: Operation not permitted" ]
	run "${nobody[@]}" "$NCPV" pv -f -d 1 -d 2147483646 </dev/null
	[ "$status" -eq 2 ]
	[ "$output" = $'pv: pid 1: Operation not permitted\npv: pid 2147483646: No such process' ]
}

@test "13: a -N with a newline leaves no room for the bar, as pv's wcswidth" {
	head -c 1000 /dev/zero >in
	"$PV" -f -N "$(printf 'a\nb')" in 2>err >/dev/null
	grep -q 'B/s\]' err
	run ! grep -q '100%' err
}

@test "13 (deliberate): cat f | pv f1 - f2: the size is unknown, not the files' alone" {
	head -c 1000 /dev/zero >f1
	head -c 700 /dev/zero >f2
	head -c 100000 /dev/zero | "$PV" -f f1 - f2 2>err >/dev/null
	grep -q '<=>' err
	run ! grep -q '%' err
}

@test "-x processtitle: the line becomes the process title" {
	mkfifo fifo
	"$PV" -f -i 0.1 -x 'processtitle:%b' <fifo >/dev/null 2>/dev/null &
	BG_PIDS=$!
	exec 7>fifo
	printf 'x%.0s' $(seq 100) >&7
	local i found=0
	for i in $(seq 200); do
		if tr '\0' ' ' </proc/"$BG_PIDS"/cmdline | grep -q '^pv -- *100  *B'; then
			found=1
			break
		fi
		sleep 0.05
	done
	tr '\0' ' ' </proc/"$BG_PIDS"/cmdline >&2
	exec 7>&-
	[ "$found" -eq 1 ]
}

# Issue 26's speed item: into /dev/null nothing needs the bytes, so ncpv moves them with the
# fewest wakeups and copies: an input pipe grown to 1 MiB (a splice per MiB, not per 64 KiB: a
# third of the context switches), and a TCP input received without a copy (test_pv_xfer).
@test "speed: into /dev/null the input pipe is grown to 1 MiB; from TCP every byte is counted" {
	run python3 - "$PV" <<'PY'
import fcntl, os, subprocess, sys, time
r, w = os.pipe()
p = subprocess.Popen([sys.argv[1], "-q"], stdin=r, stdout=subprocess.DEVNULL)
os.close(r)
os.write(w, b"x")
size = 0
for _ in range(250):  # 5 s at most
    size = fcntl.fcntl(w, 1032)  # F_GETPIPE_SZ
    if size >= 1 << 20:
        break
    time.sleep(0.02)
os.close(w)
p.wait(timeout=10)
print(size)
PY
	[ "$status" -eq 0 ]
	[ "$output" = 1048576 ]
	start_serve --source zero --size 3000000 127.0.0.1:0
	wait_for "$SERVE_LOG" 'listening on' 5
	local port
	port=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\) .*/\1/p' "$SERVE_LOG")
	run bash -c "exec 3<>/dev/tcp/127.0.0.1/$port && timeout 20 \"\$1\" -n -b <&3 >/dev/null" _ "$PV"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = 3000000 ]
}
