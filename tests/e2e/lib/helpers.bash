# SPDX-License-Identifier: ISC
# helpers.bash - shared by the end-to-end tests: scratch space, servers on port 0
# with the real port read back, bounded waits, and cleanup of only our own PIDs.
export LC_ALL=C
# The tree is three folders above this file (tests/e2e/lib/), whichever test loads it.
NCPV=${NCPV:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/ncpv}
STARTED_PIDS=()

common_setup() {
	SCRATCH=$(mktemp -d "${BATS_TMPDIR:-/tmp}/ncpv-test.XXXXXX")
}

common_teardown() {
	local pid
	for pid in "${STARTED_PIDS[@]}"; do
		stop_pid "$pid"
	done
	[ -n "${SCRATCH:-}" ] && rm -rf "$SCRATCH"
	return 0
}

# wait_for FILE REGEX [SECONDS]: poll FILE until a line matches, at most SECONDS (default 5).
wait_for() {
	local file=$1 re=$2 limit=${3:-5} i
	for ((i = 0; i < limit * 50; i++)); do
		grep -Eq -- "$re" "$file" 2>/dev/null && return 0
		sleep 0.02
	done
	echo "timed out after ${limit}s waiting for /$re/ in $file:" >&2
	cat "$file" >&2 2>/dev/null
	return 1
}

# unwrapped FILE: FILE with each summary's continuation lines (a newline and two spaces: a
# summary laid out for 80 columns) joined back to the line they continue.
unwrapped() {
	sed -e ':a' -e 'N' -e '$!ba' -e 's/\n  / /g' "$1"
}

# wait_gone PID [SECONDS]: wait for a process we started to exit.
wait_gone() {
	local pid=$1 limit=${2:-5} i
	for ((i = 0; i < limit * 50; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.02
	done
	return 1
}

# stop_pid PID: TERM, a bounded wait, then KILL; only ever a PID we started.
stop_pid() {
	local pid=$1
	kill -0 "$pid" 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null || true # it may have ended since kill -0
	wait_gone "$pid" 3 || kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# start_serve [ARGS...]: run `ncpv serve ARGS 127.0.0.1:0` (pass an ADDR:PORT as the
# last argument to override) and set SERVE_PID, SERVE_PORT and SERVE_LOG.
start_serve() {
	local addr=127.0.0.1:0 last
	if [ $# -gt 0 ]; then
		last=${!#}
		case $last in
		-*) ;;
		*:*) addr=$last; set -- "${@:1:$(($# - 1))}" ;;
		esac
	fi
	SERVE_LOG=$SCRATCH/serve.$RANDOM.log
	"$NCPV" serve "$@" "$addr" 2>"$SERVE_LOG" &
	SERVE_PID=$!
	STARTED_PIDS+=("$SERVE_PID")
	local i
	# Until the port can be read: a line caught half written has none yet.
	SERVE_PORT=
	for ((i = 0; i < 250; i++)); do
		SERVE_PORT=$(sed -En 's/.*(listening on |"address":").*:([0-9]+)[ "].*/\2/p' "$SERVE_LOG" | head -1)
		[ -z "$SERVE_PORT" ] || break
		kill -0 "$SERVE_PID" 2>/dev/null || { cat "$SERVE_LOG" >&2; return 1; }
		sleep 0.02
	done
	[ -n "$SERVE_PORT" ] || { cat "$SERVE_LOG" >&2; return 1; }
}

# make_file PATH BYTES: deterministic pseudo-random content of exactly BYTES.
make_file() {
	head -c "$2" /dev/urandom >"$1"
}

sha() {
	sha256sum "$1" | cut -d' ' -f1
}

# full_listener: a listener whose accept queue is full, so that it drops
# further SYNs and a connect to it hangs; sets FULL_PORT.
full_listener() {
	python3 -c '
import socket, time
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(0)
held = []
for _ in range(4):
    c = socket.socket(); c.setblocking(False)
    try: c.connect(l.getsockname())
    except BlockingIOError: pass
    held.append(c)
print(l.getsockname()[1], flush=True)  # once the queue is full: a test may connect at once
time.sleep(30)' >"$SCRATCH/full.port" &
	STARTED_PIDS+=($!)
	wait_for "$SCRATCH/full.port" '^[0-9]+$' 5
	FULL_PORT=$(cat "$SCRATCH/full.port")
}
