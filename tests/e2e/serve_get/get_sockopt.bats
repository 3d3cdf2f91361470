#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# get_sockopt.bats - get's socket settings: the congestion control named is the one the kernel
# runs (ss -ti says so), the buffers reported are those granted (ss -m says so), the kernel's
# refusals name the setting (exit 2), and --bind/--cport set the local end.

load ../lib/helpers

setup() {
	common_setup
	command -v ss >/dev/null || skip "needs ss (iproute2)"
}

teardown() {
	common_teardown
}

# get_bg ARGS...: a 3 s download in the background against $SERVE_PORT, JSON to $SCRATCH/get.json;
# returns once ss sees its connection established (GET_PID set).
get_bg() {
	"$NCPV" get -q -j -t 3 "$@" "127.0.0.1:$SERVE_PORT" >"$SCRATCH/get.json" 2>"$SCRATCH/get.err" &
	GET_PID=$!
	STARTED_PIDS+=("$GET_PID")
	local i
	for ((i = 0; i < 250; i++)); do
		ss -tinH state established "( dport = :$SERVE_PORT )" | grep -q . && return 0
		sleep 0.02
	done
	return 1
}

@test "get -C CC: every congestion control the kernel has is the one its socket runs (ss -ti) and the one reported" {
	start_serve -q
	local cc
	for cc in $(cat /proc/sys/net/ipv4/tcp_available_congestion_control); do
		get_bg -C "$cc"
		ss -tinH state established "( dport = :$SERVE_PORT )" >"$SCRATCH/ss"
		grep -qw "$cc" "$SCRATCH/ss" || { echo "$cc: ss says"; cat "$SCRATCH/ss"; false; }
		wait "$GET_PID"
		[ "$(jq -r .socket.congestion "$SCRATCH/get.json")" = "$cc" ] || { cat "$SCRATCH/get.json"; false; }
	done
}

@test "get --window N reports the buffers the kernel granted, which ss -m shows on the socket" {
	start_serve -q
	local n
	for n in 16K 64K 1M; do
		get_bg --window "$n"
		ss -tmnH state established "( dport = :$SERVE_PORT )" >"$SCRATCH/ss"
		wait "$GET_PID"
		local snd rcv
		snd=$(jq .socket.sndbuf "$SCRATCH/get.json")
		rcv=$(jq .socket.rcvbuf "$SCRATCH/get.json")
		# ss: skmem:(r..,rb<rcvbuf>,t..,tb<sndbuf>,...)
		grep -q "rb$rcv," "$SCRATCH/ss" || { echo "$n: rcvbuf $rcv"; cat "$SCRATCH/ss"; false; }
		grep -q "tb$snd," "$SCRATCH/ss" || { echo "$n: sndbuf $snd"; cat "$SCRATCH/ss"; false; }
		# Linux doubles the request (under the cap).
		[ "$snd" -eq $(($(numfmt --from=iec "$n") * 2)) ] || [ "$n" = 1M ]
	done
	# The text summary names them too, on its own line.
	"$NCPV" get -t 0.2 --window 64K "127.0.0.1:$SERVE_PORT" 2>"$SCRATCH/text"
	grep -q '^socket: congestion control [a-z0-9_-]*, buffers granted: send 131072 B, receive 131072 B, MSS [0-9]*$' "$SCRATCH/text"
}

@test "get's socket settings the kernel refuses: one line naming the setting and why, exit 2" {
	start_serve -q
	run "$NCPV" get -t 1 -C nosuchcc "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 2 ]
	[[ "$output" == "ncpv get: congestion control 'nosuchcc': No such file or directory (available: "*")" ]]
	run "$NCPV" get -t 1 --mss 10 "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 2 ]
	[ "$output" = "ncpv get: MSS 10: Invalid argument (the kernel takes 88 to 32767)" ]
	run "$NCPV" get -t 1 --tos af44 "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 2 ]
	[[ "$output" == "ncpv get: invalid tos 'af44': "* ]]
	run "$NCPV" get --count 2 -C reno "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 2 ]
	[[ "$output" == *"apply to one stream, not yet to --count"* ]]
}

@test "get --mss, --no-delay and --tos ef are what the socket then has" {
	start_serve -q
	"$NCPV" get -q -j -t 0.3 --mss 1000 --no-delay --tos ef "127.0.0.1:$SERVE_PORT" >"$SCRATCH/get.json"
	jq -e '.socket.mss <= 1000 and .socket.nodelay == true and .socket.tos == 184' "$SCRATCH/get.json"
}

@test "get --bind and --cport: serve sees the connection come from that address and port" {
	start_serve --size 1K
	local port
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.2", 0)); print(s.getsockname()[1])')
	"$NCPV" get -q --bind 127.0.0.2 --cport "$port" "127.0.0.1:$SERVE_PORT"
	wait_for "$SERVE_LOG" "127.0.0.2:$port " 5
}

@test "get --congestion list prints what the kernel has and what this user may pick" {
	run "$NCPV" get --congestion list
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "available: $(cat /proc/sys/net/ipv4/tcp_available_congestion_control)" ]
	[[ "${lines[1]}" == "allowed without CAP_NET_ADMIN: "* ]]
}
