#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# errors.bats - walks docs/ERRORS.md: every row's command line, run as written, must print
# exactly the row's message on stderr and exit with the row's code; so the catalogue and
# the program cannot drift apart.

load ../lib/helpers

ERRORS_MD="$BATS_TEST_DIRNAME/../../../docs/ERRORS.md"
STRESSOR=${STRESSOR:-$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)/build/tests/stressor}

setup() {
	common_setup
}

teardown() {
	common_teardown
}

# rows: "COMMAND<TAB>MESSAGE<TAB>EXIT" for each row of the catalogue table.
rows() {
	sed -n 's/^| [0-9][0-9]* | [^|]* | `\(.*\)` | `\(.*\)` | \([0-9][0-9]*\) |$/\1\t\2\t\3/p' "$ERRORS_MD"
}

# fixture NAME: start a stressor fixture (blackhole, resetter); FIXTURE_PORT is its port.
fixture() {
	local out=$SCRATCH/$1.port
	"$STRESSOR" "$1" >"$out" 3>&- &
	STARTED_PIDS+=("$!")
	wait_for "$out" '^port [0-9]+$' 5 || return 1
	FIXTURE_PORT=$(cut -d' ' -f2 "$out")
}

@test "docs/ERRORS.md lists at least 40 errors, each command line once" {
	[ "$(rows | wc -l)" -ge 40 ]
	[ -z "$(rows | cut -f1 | sort | uniq -d)" ]
}

@test "every error in docs/ERRORS.md gives its exact message and exit code" {
	local SERVE BUSY CLOSED BLACKHOLE RESETTER MISSING DIR EMPTY LONGHOST SMALL SILENT ENDLESS
	local TLSSERVE TLSCERT TLSFP ZEROPIN WATCHED
	local cmd msg code got rc n=0 bad=0
	start_serve --size 1000 127.0.0.1:0
	SERVE=$SERVE_PORT BUSY=$SERVE_PORT
	start_serve 127.0.0.1:0
	CLOSED=$SERVE_PORT
	stop_pid "$SERVE_PID"
	start_serve --quiet 127.0.0.1:0
	ENDLESS=$SERVE_PORT
	# It lives as long as the test (teardown stops it): under valgrind the rows take minutes.
	GET_PEER_LIMIT=3600 python3 "$BATS_TEST_DIRNAME/../lib/get_peer.py" '[["hold"]]' >"$SCRATCH/silent.port" &
	STARTED_PIDS+=("$!")
	wait_for "$SCRATCH/silent.port" '^[0-9]+$' 5
	SILENT=$(cat "$SCRATCH/silent.port")
	TLSCERT=$SCRATCH/tls.pem ZEROPIN=$(printf '0%.0s' {1..64})
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$SCRATCH/tls.key" \
		-out "$TLSCERT" -days 2 -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
		2>/dev/null
	TLSFP=$(openssl x509 -in "$TLSCERT" -noout -fingerprint -sha256 | sed 's/.*=//')
	start_serve --tls --size 1000 --cert "$TLSCERT" --key "$SCRATCH/tls.key" 127.0.0.1:0
	TLSSERVE=$SERVE_PORT
	fixture blackhole
	BLACKHOLE=$FIXTURE_PORT
	fixture resetter
	RESETTER=$FIXTURE_PORT
	MISSING=$SCRATCH/missing DIR=$SCRATCH/dir EMPTY=$SCRATCH/empty
	mkdir "$DIR"
	: >"$EMPTY"
	LONGHOST=$(printf 'a%.0s' {1..300})
	SMALL=$SCRATCH/small
	make_file "$SMALL" 100000
	# A process for -d PID:FD, its stdin /dev/null (teardown stops it).
	sleep 600 </dev/null >/dev/null 2>&1 &
	WATCHED=$!
	STARTED_PIDS+=("$WATCHED")
	ncpv() { "$NCPV" "$@"; }

	# The rows run ERRORS_JOBS (4) at a time, each writing its exit code and stderr to
	# $SCRATCH/rows/N.*: many wait out a -w or -t bound, and under valgrind each start takes a
	# second of CPU. Checked afterwards in the table's order. Each row's stdin is /dev/null.
	local jobs=() max=${ERRORS_JOBS:-4}
	mkdir "$SCRATCH/rows"
	while IFS=$'\t' read -r cmd msg code; do
		n=$((n + 1))
		# valgrind leaves a descriptor of its own on a closed stdout (faults.bats says more).
		[[ -n "${NCPV_VALGRIND:-}" && $cmd == *'>&-'* ]] && continue
		while [ "${#jobs[@]}" -ge "$max" ]; do
			wait -n "${jobs[@]}" || true
			local alive=() pid
			for pid in "${jobs[@]}"; do
				kill -0 "$pid" 2>/dev/null && alive+=("$pid")
			done
			jobs=("${alive[@]}")
		done
		(
			rc=0
			{ eval "$cmd"; } 2>"$SCRATCH/rows/$n.err" >/dev/null || rc=$?
			echo "$rc" >"$SCRATCH/rows/$n.rc"
		) </dev/null &
		jobs+=("$!")
	done < <(rows)
	[ "${#jobs[@]}" -eq 0 ] || wait "${jobs[@]}" || true
	n=0
	while IFS=$'\t' read -r cmd msg code; do
		n=$((n + 1))
		[[ -n "${NCPV_VALGRIND:-}" && $cmd == *'>&-'* ]] && continue
		eval "msg=\"$msg\""
		read -r rc <"$SCRATCH/rows/$n.rc"
		# stderr as $(...) would have it: without its last newlines (read: no fork a row).
		got=
		IFS= read -r -d '' got <"$SCRATCH/rows/$n.err" || true
		while [[ $got == *$'\n' ]]; do got=${got%$'\n'}; done
		if [ "$got" != "$msg" ] || [ "$rc" != "$code" ]; then
			printf 'row %d: %s\n  want exit %s: %s\n  got  exit %s: %s\n' "$n" "$cmd" "$code" "$msg" "$rc" "$got" >&2
			bad=$((bad + 1))
		fi
	done < <(rows)
	echo "$n rows, $bad differ" >&2
	[ "$n" -ge 40 ]
	[ "$bad" -eq 0 ]
}
