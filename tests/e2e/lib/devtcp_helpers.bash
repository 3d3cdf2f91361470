# SPDX-License-Identifier: ISC
# devtcp_helpers.bash - for the devtcp tests: a file-writing TCP sink (netcat-openbsd),
# a UDP echo peer, and the payloads every program moves.
load ../lib/helpers

devtcp_setup() {
	common_setup
	PAYLOAD=$SCRATCH/payload
	make_file "$PAYLOAD" 300000
	# python3 from the system when there is one: pyenv shims are scripts around it.
	PY=$(command -v /usr/bin/python3 || command -v python3)
}

devtcp() {
	"$NCPV" devtcp "$@"
}

# start_sink: netcat-openbsd listening on 127.0.0.1, port 0, writing what it receives
# to $SINK_OUT; sets SINK_PID and SINK_PORT. It exits when its client closes.
start_sink() {
	SINK_OUT=$SCRATCH/sink.$RANDOM.out
	local log=$SCRATCH/sink.$RANDOM.log
	nc -lv 127.0.0.1 0 </dev/null >"$SINK_OUT" 2>"$log" &
	SINK_PID=$!
	STARTED_PIDS+=("$SINK_PID")
	wait_for "$log" 'Listening on' 5 || return 1
	SINK_PORT=$(awk '/Listening on/ { print $NF; exit }' "$log")
	[ -n "$SINK_PORT" ]
}

# sink_received: wait (bounded) for the sink to see its client close; print the sha256.
sink_received() {
	wait_gone "$SINK_PID" 5 || { echo "sink still running" >&2; return 1; }
	sha "$SINK_OUT"
}

# start_listener PROGRAM...: run PROGRAM under `ncpv devtcp -v` (it opens a
# /dev/tcp-listen path on port 0) and set LISTEN_PID and LISTEN_PORT from the
# "listening on" line; its stdout is in $LISTEN_OUT, its stderr in $LISTEN_LOG.
start_listener() {
	LISTEN_LOG=$SCRATCH/listen.$RANDOM.log
	LISTEN_OUT=$SCRATCH/listen.$RANDOM.out
	"$NCPV" devtcp -v -t 5 "$@" >"$LISTEN_OUT" 2>"$LISTEN_LOG" &
	LISTEN_PID=$!
	STARTED_PIDS+=("$LISTEN_PID")
	wait_for "$LISTEN_LOG" 'listening on' 5 || return 1
	LISTEN_PORT=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\)$/\1/p' "$LISTEN_LOG" | head -1)
	[ -n "$LISTEN_PORT" ]
}
