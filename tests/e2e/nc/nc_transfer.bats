#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# nc_transfer.bats - byte-exact transfers (0 B to 100 MiB, sha256) through ncpv nc in both
# directions and both roles, against real peers: nc.openbsd, ncat, socat, bash /dev/tcp and
# bash's accept loadable.
load ../lib/nc_helpers

SIZES="0 1 1048579 104857600"

setup_file() {
	local s
	export DATA=$(mktemp -d "${BATS_TMPDIR:-/tmp}/ncpv-nc-data.XXXXXX")
	for s in $SIZES; do
		head -c "$s" /dev/urandom >"$DATA/in.$s"
		sha256sum "$DATA/in.$s" | cut -d' ' -f1 >"$DATA/sha.$s"
	done
}

teardown_file() { rm -rf "$DATA"; }
setup() { common_setup; }
teardown() { common_teardown; }

# peer_listen PEER send|recv PORT IN OUT: a third-party listener that sends IN or receives into OUT.
peer_listen() {
	local peer=$1 dir=$2 p=$3 in=$4 out=$5
	case $peer/$dir in
	nc.openbsd/send) nc.openbsd -l -N 127.0.0.1 "$p" <"$in" >/dev/null ;;
	nc.openbsd/recv) nc.openbsd -l 127.0.0.1 "$p" >"$out" </dev/null ;;
	ncat/send) ncat -l --send-only 127.0.0.1 "$p" <"$in" ;;
	ncat/recv) ncat -l --recv-only 127.0.0.1 "$p" >"$out" ;;
	socat/send) socat -u "FILE:$in" "TCP-LISTEN:$p,bind=127.0.0.1,reuseaddr" ;;
	socat/recv) socat -u "TCP-LISTEN:$p,bind=127.0.0.1,reuseaddr" "CREATE:$out" ;;
	accept/send) bash -c 'enable -f /usr/lib/bash/accept accept && accept -b 127.0.0.1 -v fd "$1" && cat "$2" >&$fd' _ "$p" "$in" ;;
	accept/recv) bash -c 'enable -f /usr/lib/bash/accept accept && accept -b 127.0.0.1 -v fd "$1" && cat <&$fd >"$2"' _ "$p" "$out" ;;
	esac
}

# peer_connect PEER send|recv PORT IN OUT: a third-party client.
peer_connect() {
	local peer=$1 dir=$2 p=$3 in=$4 out=$5
	case $peer/$dir in
	nc.openbsd/send) nc.openbsd -N 127.0.0.1 "$p" <"$in" >/dev/null ;;
	nc.openbsd/recv) nc.openbsd -d 127.0.0.1 "$p" >"$out" ;;
	ncat/send) ncat --send-only 127.0.0.1 "$p" <"$in" ;;
	ncat/recv) ncat --recv-only 127.0.0.1 "$p" >"$out" ;;
	socat/send) socat -u "FILE:$in" "TCP:127.0.0.1:$p" ;;
	socat/recv) socat -u "TCP:127.0.0.1:$p" "CREATE:$out" ;;
	devtcp/send) bash -c 'cat "$2" >/dev/tcp/127.0.0.1/"$1"' _ "$p" "$in" ;;
	devtcp/recv) bash -c 'cat </dev/tcp/127.0.0.1/"$1" >"$2"' _ "$p" "$out" ;;
	esac
}

# ncpv_client_vs PEER DIR: ncpv nc connects; DIR is what ncpv does (send or recv).
ncpv_client_vs() {
	local peer=$1 dir=$2 s p out other
	for s in $SIZES; do
		out=$SCRATCH/out.$s
		p=$(free_port)
		other=$([ "$dir" = send ] && echo recv || echo send)
		timeout 30 bash -c "$(declare -f peer_listen); peer_listen $peer $other $p $DATA/in.$s $out" &
		local pid=$!
		wait_port_quiet "$p"
		if [ "$dir" = send ]; then
			timeout 30 "$NCPV" nc -N 127.0.0.1 "$p" <"$DATA/in.$s" >/dev/null
		else
			timeout 30 "$NCPV" nc -d 127.0.0.1 "$p" >"$out"
		fi
		wait "$pid"
		[ "$(sha "$out")" = "$(cat "$DATA/sha.$s")" ] || { echo "size $s differs"; return 1; }
		rm -f "$out"
	done
}

# ncpv_listener_vs PEER DIR: ncpv nc -l on port 0 (port read back from -v); DIR as above.
ncpv_listener_vs() {
	local peer=$1 dir=$2 s out log
	for s in $SIZES; do
		out=$SCRATCH/out.$s
		log=$SCRATCH/log.$s
		if [ "$dir" = send ]; then
			timeout 30 "$NCPV" nc -lv -N 127.0.0.1 0 <"$DATA/in.$s" >/dev/null 2>"$log" &
		else
			timeout 30 "$NCPV" nc -lv 127.0.0.1 0 >"$out" </dev/null 2>"$log" &
		fi
		local pid=$!
		wait_listening "$log"
		timeout 30 bash -c "$(declare -f peer_connect); peer_connect $peer $([ "$dir" = send ] && echo recv || echo send) $NC_PORT $DATA/in.$s $out"
		wait "$pid"
		[ "$(sha "$out")" = "$(cat "$DATA/sha.$s")" ] || { echo "size $s differs"; return 1; }
		rm -f "$out"
	done
}

@test "client sends to nc.openbsd -l" { ncpv_client_vs nc.openbsd send; }
@test "client receives from nc.openbsd -l" { ncpv_client_vs nc.openbsd recv; }
@test "listener receives from nc.openbsd" { ncpv_listener_vs nc.openbsd recv; }
@test "listener sends to nc.openbsd" { ncpv_listener_vs nc.openbsd send; }
@test "client sends to ncat -l" { ncpv_client_vs ncat send; }
@test "client receives from ncat -l" { ncpv_client_vs ncat recv; }
@test "listener receives from ncat" { ncpv_listener_vs ncat recv; }
@test "listener sends to ncat" { ncpv_listener_vs ncat send; }
@test "client sends to socat TCP-LISTEN" { ncpv_client_vs socat send; }
@test "client receives from socat TCP-LISTEN" { ncpv_client_vs socat recv; }
@test "listener receives from socat" { ncpv_listener_vs socat recv; }
@test "listener sends to socat" { ncpv_listener_vs socat send; }
@test "listener receives from bash /dev/tcp" { ncpv_listener_vs devtcp recv; }
@test "listener sends to bash /dev/tcp" { ncpv_listener_vs devtcp send; }
@test "client sends to bash's accept loadable" { ncpv_client_vs accept send; }
@test "client receives from bash's accept loadable" { ncpv_client_vs accept recv; }

# Issue 19: with a small fixed send buffer (-O), each send offered more than the buffer holds went
# out as one loopback-MSS segment whose ACK the receiver delayed 40 ms: 40 MB took 18-25 s against
# nc.openbsd's 0.05 s. 20 MB must now arrive byte-exact well inside 5 s (it took ~12 s before).
@test "client with -O 8192 sends 20 MB byte-exact, not one delayed ACK per send" {
	head -c 20000000 /dev/urandom >"$SCRATCH/in"
	timeout 60 "$NCPV" nc -lv 127.0.0.1 0 >"$SCRATCH/out" </dev/null 2>"$SCRATCH/log" &
	local pid=$! start end
	wait_listening "$SCRATCH/log"
	start=$EPOCHREALTIME
	timeout 60 "$NCPV" nc -N -O 8192 127.0.0.1 "$NC_PORT" <"$SCRATCH/in" >/dev/null
	wait "$pid"
	end=$EPOCHREALTIME
	[ "$(sha "$SCRATCH/out")" = "$(sha "$SCRATCH/in")" ]
	echo "took $(echo "$end - $start" | bc) s"
	[ "$(echo "$end - $start < 5" | bc)" = 1 ]
}
