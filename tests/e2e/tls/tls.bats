#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# TLS: serve --tls, get --tls and nc --ssl, byte-exact both ways, against openssl, ncat and
# socat; each certificate failure with its own exit code; truncation, stalls and resumption.

load ../lib/helpers
bats_require_minimum_version 1.5.0

setup_file() {
	"$NCPV" --version | grep -qw tls || skip "this build has no TLS"
	# One CA, and leaves it signed: for localhost and 127.0.0.1, and the same names expired.
	CERTS=$(mktemp -d "${BATS_TMPDIR:-/tmp}/ncpv-tls-certs.XXXXXX")
	export CERTS
	(
		cd "$CERTS" || exit 1
		mkdir db && touch db/index.txt && echo 01 >db/serial
		key() { echo "-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout $1"; }
		# shellcheck disable=SC2046
		openssl req -x509 $(key ca.key) -out ca.pem -days 2 -subj /CN=ncpv-test-CA 2>/dev/null
		# shellcheck disable=SC2046
		openssl req -new $(key leaf.key) -out leaf.csr -subj /CN=localhost \
			-addext subjectAltName=DNS:localhost,IP:127.0.0.1 2>/dev/null
		cat >ca.cnf <<-EOF
			[ca]
			default_ca = d
			[d]
			database = $CERTS/db/index.txt
			new_certs_dir = $CERTS/db
			serial = $CERTS/db/serial
			default_md = sha256
			policy = p
			copy_extensions = copy
			unique_subject = no
			[p]
			commonName = supplied
		EOF
		openssl ca -batch -config ca.cnf -cert ca.pem -keyfile ca.key -in leaf.csr -out good.pem \
			-days 2 2>/dev/null
		openssl ca -batch -config ca.cnf -cert ca.pem -keyfile ca.key -in leaf.csr -out expired.pem \
			-startdate 20200101000000Z -enddate 20200102000000Z 2>/dev/null
		# A valid certificate from the same CA for a name that is not the one connected to.
		# shellcheck disable=SC2046
		openssl req -new $(key other.key) -out other.csr -subj /CN=other.example \
			-addext subjectAltName=DNS:other.example 2>/dev/null
		openssl ca -batch -config ca.cnf -cert ca.pem -keyfile ca.key -in other.csr -out other.pem \
			-days 2 2>/dev/null
	) || return 1
	[ -s "$CERTS/good.pem" ] && [ -s "$CERTS/expired.pem" ] && [ -s "$CERTS/other.pem" ]
}

teardown_file() {
	[ -n "${CERTS:-}" ] && rm -rf "$CERTS"
	return 0
}

setup() { common_setup; }
teardown() { common_teardown; }

# free_port: a loopback port nothing listens on now (for tools that cannot take port 0).
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# wait_listen PORT: until something listens on 127.0.0.1:PORT (ncat makes a key first).
wait_listen() {
	local i
	for ((i = 0; i < 500; i++)); do
		ss -ltn | grep -q "127.0.0.1:$1 " && return 0
		sleep 0.02
	done
	echo "nothing listens on $1" >&2
	return 1
}

# bg CMD...: start a helper process we own, stopped in teardown.
bg() {
	"$@" &
	STARTED_PIDS+=($!)
}

fingerprint() { sed -n 's/.*fingerprint \([0-9A-F:]*\).*/\1/p' "$SERVE_LOG"; }

# tls_download_exact BYTES: serve --tls a file of BYTES (self-signed), get it by --pin.
tls_download_exact() {
	make_file "$SCRATCH/in" "$1"
	start_serve --tls --source "$SCRATCH/in"
	wait_for "$SERVE_LOG" 'fingerprint'
	run "$NCPV" get -q --tls --pin "$(fingerprint)" -o "$SCRATCH/out" "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 0 ]
	[ "$(sha "$SCRATCH/in")" = "$(sha "$SCRATCH/out")" ]
}

# Sizes at TLS's record boundary (16384) and past the 64 KiB chunks either side uses.
@test "TLS download of 0 bytes is byte-exact" { tls_download_exact 0; }
@test "TLS download of 1 byte is byte-exact" { tls_download_exact 1; }
@test "TLS download of 16383 bytes is byte-exact" { tls_download_exact 16383; }
@test "TLS download of 16384 bytes is byte-exact" { tls_download_exact 16384; }
@test "TLS download of 16385 bytes is byte-exact" { tls_download_exact 16385; }
@test "TLS download of 64 KiB + 1 is byte-exact" { tls_download_exact 65537; }
@test "TLS download of 20 MiB + 3 is byte-exact" { tls_download_exact 20971523; }

@test "serve --tls --size repeats a small file byte-exactly through TLS" {
	printf 'abcdefghij' >"$SCRATCH/in"
	start_serve --tls --source "$SCRATCH/in" --size 100003
	wait_for "$SERVE_LOG" 'fingerprint'
	run "$NCPV" get -q --tls --pin "$(fingerprint)" -o "$SCRATCH/out" "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 0 ]
	for _ in $(seq 10001); do printf 'abcdefghij'; done | head -c 100003 >"$SCRATCH/want"
	[ "$(sha "$SCRATCH/want")" = "$(sha "$SCRATCH/out")" ]
}

@test "get --tls --send uploads byte-exactly to nc --ssl -l, and serve --tls --discard counts it" {
	make_file "$SCRATCH/in" 3000001
	port=$(free_port)
	bg "$NCPV" nc --ssl -l 127.0.0.1 "$port" >"$SCRATCH/out"
	wait_listen "$port"
	run "$NCPV" get -q --tls --insecure --send --source "$SCRATCH/in" "127.0.0.1:$port"
	[ "$status" -eq 0 ]
	wait_gone "${STARTED_PIDS[-1]}" 10
	[ "$(sha "$SCRATCH/in")" = "$(sha "$SCRATCH/out")" ]
	start_serve --tls --discard
	run "$NCPV" get -q --tls --insecure --send --source "$SCRATCH/in" "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 0 ]
	wait_for "$SERVE_LOG" 'received 3000001 B'
}

@test "a certificate from a trusted CA is accepted by name and by IP address" {
	make_file "$SCRATCH/in" 100000
	start_serve --tls --cert "$CERTS/good.pem" --key "$CERTS/leaf.key" --source "$SCRATCH/in"
	run "$NCPV" get -q --tls --cacert "$CERTS/ca.pem" -o "$SCRATCH/out" "localhost:$SERVE_PORT"
	[ "$status" -eq 0 ]
	[ "$(sha "$SCRATCH/in")" = "$(sha "$SCRATCH/out")" ]
	run "$NCPV" get -q --tls --cacert "$CERTS/ca.pem" "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 0 ]
}

# Each row: what get adds to its command line | exit code | words the message must have.
@test "each certificate failure has its own exit code and names its reason" {
	start_serve --tls --size 1000 --cert "$CERTS/good.pem" --key "$CERTS/leaf.key"
	good=$SERVE_PORT
	start_serve --tls --size 1000 --cert "$CERTS/expired.pem" --key "$CERTS/leaf.key"
	expired=$SERVE_PORT
	zeros=0000000000000000000000000000000000000000000000000000000000000000
	while IFS='|' read -r port args code words; do
		# shellcheck disable=SC2086
		run "$NCPV" get -q --tls $args "127.0.0.1:${!port}"
		echo "$args: $status $output"
		[ "$status" -eq "$code" ]
		[[ "$output" == *"$words"* ]]
	done <<-EOF
		good|--cacert $CERTS/ca.pem|0|
		good||9|unknown CA
		good|--cacert $CERTS/ca.pem --sni other.example|11|wrong host
		expired|--cacert $CERTS/ca.pem|10|certificate expired
		good|--pin $zeros|12|does not match the pin
		expired|--insecure|0|
	EOF
}

@test "a server that stalls in the handshake is cut off by -w with exit 13" {
	port=$(free_port)
	bg nc.openbsd -l 127.0.0.1 "$port"
	wait_listen "$port"
	start=$SECONDS
	run "$NCPV" get -q --tls --insecure -w 1 "127.0.0.1:$port"
	[ "$status" -eq 13 ]
	[[ "$output" == *"TLS handshake timed out"* ]]
	[ $((SECONDS - start)) -lt 10 ]
}

@test "a stream cut without close_notify is reported as truncated, not as a clean end" {
	make_file "$SCRATCH/in" 200000
	python3 - "$CERTS" "$SCRATCH/in" >"$SCRATCH/port" <<-'EOF' &
		import socket, ssl, sys
		ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
		ctx.load_cert_chain(sys.argv[1] + "/good.pem", sys.argv[1] + "/leaf.key")
		l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(1)
		print(l.getsockname()[1], flush=True)
		c, _ = l.accept(); l.settimeout(20)
		t = ctx.wrap_socket(c, server_side=True)
		t.sendall(open(sys.argv[2], "rb").read())
		t.close()  # no unwrap(): the socket closes without close_notify
	EOF
	STARTED_PIDS+=($!)
	wait_for "$SCRATCH/port" '^[0-9]+$'
	run "$NCPV" get -q --tls --cacert "$CERTS/ca.pem" -o "$SCRATCH/out" "127.0.0.1:$(cat "$SCRATCH/port")"
	[ "$status" -eq 1 ]
	[[ "$output" == *"truncated (no TLS close_notify)"* ]]
	[[ "$output" == *"after 200000 bytes"* ]]
}

@test "serve --tls --discard logs an upload cut without close_notify as a reset, not completed" {
	local ends
	start_serve --json --tls --discard
	python3 - "$SERVE_PORT" <<-'EOF'
		import socket, ssl, sys
		ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
		ctx.check_hostname = False
		ctx.verify_mode = ssl.CERT_NONE
		t = ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[1]))))
		t.sendall(bytes(100000))
		t.close()  # no unwrap(): the upload ends without close_notify
	EOF
	wait_for "$SERVE_LOG" '"event":"close"' 10
	ends=$(python3 -c '
import json, sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e["event"] == "close":
        print(e["end"], e["reason"])' "$SERVE_LOG")
	echo "$ends"
	[ "$(wc -l <<<"$ends")" -eq 1 ]
	[ "${ends%% *}" = reset ]
}

@test "serve --tls gives back a sized transfer's slot at once when its client leaves early (FIN or reset)" {
	# The client reads a little of a transfer that sits whole in serve's socket, then leaves;
	# TLS's read takes the reset's error, so serve must see the closed state itself (it held
	# the slot 20 s, two drain periods, and logged "peer stopped reading").
	head -c 3000000 /dev/urandom >"$SCRATCH/src"
	start_serve --tls --json --threads 1 --source "$SCRATCH/src"
	local how
	for how in fin rst fin rst; do
		run timeout 10 python3 -c '
import socket, ssl, struct, sys, time
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[1]))), server_hostname="x")
s.recv(1000)
time.sleep(0.3)
if sys.argv[2] == "rst":
	s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
s.close()
t = time.time()
while time.time() - t < 5:
	if open(sys.argv[3]).read().count("\"event\":\"close\"") >= int(sys.argv[4]):
		break
	time.sleep(0.02)
print("%.2f" % (time.time() - t))' "$SERVE_PORT" "$how" "$SERVE_LOG" "$(($(grep -c '"event":"close"' "$SERVE_LOG") + 1))"
		echo "$how: serve logged the close after $output s"
		[ "$status" -eq 0 ]
		awk -v t="$output" 'BEGIN { exit !(t < 2) }'
	done
	# Each logged as cut short by the client, never as served in full.
	run jq -r 'select(.event == "close") | .end' "$SERVE_LOG"
	[ "$output" = "$(printf 'reset\nreset\nreset\nreset')" ]
}

@test "a plain-TCP client and a silent one do not stop serve --tls from serving others" {
	make_file "$SCRATCH/in" 50000
	start_serve --tls --source "$SCRATCH/in"
	wait_for "$SERVE_LOG" 'fingerprint'
	# Plain TCP: serve sees no ClientHello and drops it with a reason.
	printf 'GET / HTTP/1.0\r\n\r\n' | timeout 10 nc.openbsd -q 2 127.0.0.1 "$SERVE_PORT" >/dev/null || true
	wait_for "$SERVE_LOG" 'TLS handshake failed'
	# A silent client holds a connection in its handshake meanwhile.
	exec 7<>"/dev/tcp/127.0.0.1/$SERVE_PORT"
	run "$NCPV" get -q --tls --pin "$(fingerprint)" -o "$SCRATCH/out" "127.0.0.1:$SERVE_PORT"
	exec 7>&-
	[ "$status" -eq 0 ]
	[ "$(sha "$SCRATCH/in")" = "$(sha "$SCRATCH/out")" ]
}

@test "--json and the summary say whether kernel TLS was used" {
	start_serve --json --tls --size 100000
	wait_for "$SERVE_LOG" '"sha256"'
	run "$NCPV" get -q --json --tls --insecure "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.tls.version == "TLSv1.3" and (.tls.ktls_send | type) == "boolean"'
	run "$NCPV" get --tls --insecure "127.0.0.1:$SERVE_PORT"
	[[ "$output" == *"kTLS o"* ]]
	stop_pid "$SERVE_PID"
	grep '"event":"summary"' "$SERVE_LOG" | jq -e '.tls_handshakes == 2 and .ktls_connections >= 0'
	grep '"event":"close"' "$SERVE_LOG" | head -1 | jq -e '(.tls.ktls_send | type) == "boolean"'
}

@test "get --tls --count resumes sessions and counts every transfer" {
	start_serve --tls --size 10000
	wait_for "$SERVE_LOG" 'fingerprint'
	run "$NCPV" get -q --json --tls --pin "$(fingerprint)" -n 40 -P 4 -s 10000 "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.transfers == 40 and .failed == 0 and .tls.handshakes == 40 and .tls.resumed > 0'
}

@test "get --tls --size N takes exactly N bytes from a server that sends N, and refuses one that sends more" {
	local n
	for n in 1 16384 65537 1000003; do
		make_file "$SCRATCH/in" "$n"
		start_serve --tls --source "$SCRATCH/in"
		wait_for "$SERVE_LOG" 'fingerprint'
		# The server's close_notify after the last byte is the end, not "more".
		run "$NCPV" get -q --tls --insecure --size "$n" -o "$SCRATCH/out" "127.0.0.1:$SERVE_PORT"
		[ "$status" -eq 0 ]
		[ "$(sha "$SCRATCH/in")" = "$(sha "$SCRATCH/out")" ]
		stop_pid "$SERVE_PID"
		start_serve --tls --size $((2 * n))
		wait_for "$SERVE_LOG" 'fingerprint'
		run "$NCPV" get -q --tls --insecure --size "$n" "127.0.0.1:$SERVE_PORT"
		[ "$status" -eq 1 ]
		[[ "$output" == *"the server sent more than --size ($n bytes)"* ]]
		stop_pid "$SERVE_PID"
	done
}

# ---- speed: the suite chosen and the reads per record (docs/BENCHMARKS.md) ----

@test "serve --tls picks AES-128-GCM, and ChaCha20 for a client that asks for it first" {
	start_serve --tls --size 1000
	wait_for "$SERVE_LOG" 'fingerprint'
	run "$NCPV" get -q --json --tls --insecure "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.tls.cipher == "TLS_AES_128_GCM_SHA256"'
	# openssl s_client offers AES-256-GCM first: the server's order wins.
	run timeout 30 openssl s_client -connect "127.0.0.1:$SERVE_PORT" </dev/null
	[[ "$output" == *"Cipher is TLS_AES_128_GCM_SHA256"* ]]
	# A client without AES in hardware puts ChaCha20 first, and gets it.
	run timeout 30 openssl s_client -connect "127.0.0.1:$SERVE_PORT" \
		-ciphersuites TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256 </dev/null
	[[ "$output" == *"Cipher is TLS_CHACHA20_POLY1305_SHA256"* ]]
	# get --tls offers AES-128-GCM first to a server that follows the client's order.
	port=$(free_port)
	openssl s_server -nbio -quiet -naccept 1 -accept "127.0.0.1:$port" -cert "$CERTS/good.pem" \
		-key "$CERTS/leaf.key" </dev/null &
	STARTED_PIDS+=($!)
	wait_listen "$port"
	run "$NCPV" get -q --json --tls --cacert "$CERTS/ca.pem" "localhost:$port"
	echo "$output" | jq -e '.tls.cipher == "TLS_AES_128_GCM_SHA256"'
}

@test "get --tls reads a TLS record with one read(2), not a header and a body apart" {
	command -v strace >/dev/null || skip "strace is not installed"
	strace -f -o /dev/null true 2>/dev/null || skip "ptrace is not permitted here"
	[ -z "${NCPV_VALGRIND:-}" ] || skip "under valgrind, strace would count valgrind's own reads"
	start_serve --tls --size 4M
	wait_for "$SERVE_LOG" 'fingerprint'
	# LeakSanitizer cannot run under ptrace; every other test checks leaks.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -e trace=read -o "$SCRATCH/trace" "$NCPV" get -q --tls --insecure "127.0.0.1:$SERVE_PORT"
	# 4 MiB is 256 full records: two reads each would be 512 and more.
	reads=$(grep -c ' read(' "$SCRATCH/trace")
	echo "reads: $reads" >&2
	[ "$reads" -ge 256 ] && [ "$reads" -le 400 ]
}

# ---- interoperation: each peer tool in both roles, sha256 of what arrived ----

@test "get --tls downloads byte-exactly from openssl s_server and uploads to it" {
	make_file "$SCRATCH/in" 2000003
	port=$(free_port)
	# (bg would give it /dev/null: a background job's stdin unless redirected in place)
	openssl s_server -nbio -quiet -naccept 1 -accept "127.0.0.1:$port" -cert "$CERTS/good.pem" \
		-key "$CERTS/leaf.key" <"$SCRATCH/in" &
	STARTED_PIDS+=($!)
	wait_listen "$port"
	run "$NCPV" get -q --tls --cacert "$CERTS/ca.pem" -o "$SCRATCH/out" "localhost:$port"
	[ "$status" -eq 0 ]
	[ "$(sha "$SCRATCH/in")" = "$(sha "$SCRATCH/out")" ]
	port=$(free_port)
	hold_stdin
	openssl s_server -nbio -quiet -naccept 1 -accept "127.0.0.1:$port" -cert "$CERTS/good.pem" \
		-key "$CERTS/leaf.key" <"$SCRATCH/hold" >"$SCRATCH/up" &
	STARTED_PIDS+=($!)
	wait_listen "$port"
	run "$NCPV" get -q --tls --cacert "$CERTS/ca.pem" --send --source "$SCRATCH/in" "localhost:$port"
	[ "$status" -eq 0 ]
	wait_gone "${STARTED_PIDS[-1]}" 10
	[ "$(sha "$SCRATCH/in")" = "$(sha "$SCRATCH/up")" ]
}

@test "openssl s_client, ncat --ssl and socat OPENSSL: download byte-exactly from serve --tls" {
	make_file "$SCRATCH/in" 1500007
	start_serve --tls --cert "$CERTS/good.pem" --key "$CERTS/leaf.key" --source "$SCRATCH/in"
	timeout 30 openssl s_client -quiet -verify_return_error -CAfile "$CERTS/ca.pem" \
		-connect "127.0.0.1:$SERVE_PORT" </dev/null >"$SCRATCH/s_client" 2>/dev/null
	[ "$(sha "$SCRATCH/in")" = "$(sha "$SCRATCH/s_client")" ]
	timeout 30 ncat --ssl --ssl-verify --ssl-trustfile "$CERTS/ca.pem" --recv-only localhost \
		"$SERVE_PORT" >"$SCRATCH/ncat"
	[ "$(sha "$SCRATCH/in")" = "$(sha "$SCRATCH/ncat")" ]
	timeout 30 socat -u "OPENSSL:127.0.0.1:$SERVE_PORT,cafile=$CERTS/ca.pem,commonname=localhost" - \
		>"$SCRATCH/socat"
	[ "$(sha "$SCRATCH/in")" = "$(sha "$SCRATCH/socat")" ]
}

# openssl s_server runs with -nbio: on a blocking socket it can sit in a read after the
# client's Finished (when it sent data first), waiting for a client that only listens.

# hold_stdin: $SCRATCH/hold, a FIFO that gives no data and no EOF while fd 8 holds it
# open, for tools that end at EOF on stdin (openssl s_server) when they should wait.
hold_stdin() {
	mkfifo "$SCRATCH/hold"
	exec 8<>"$SCRATCH/hold"
}

# one_way DIR LISTENER CONNECTOR [hold]: a file crosses from the connector to the listener
# (DIR up) or the other way (down); the receiving side's stdin is empty (or, with hold,
# never ends). The sha256 of what arrived must match. The commands are eval'd and find
# the port in $port.
one_way() {
	local dir=$1 listen=$2 connect=$3 idle=/dev/null out_l=/dev/null out_c=/dev/null in_l in_c
	make_file "$SCRATCH/data" 1000003
	if [ "${4:-}" = hold ]; then
		[ -p "$SCRATCH/hold" ] || hold_stdin
		idle=$SCRATCH/hold
	fi
	in_l=$idle in_c=$idle
	if [ "$dir" = up ]; then in_c=$SCRATCH/data out_l=$SCRATCH/out; else in_l=$SCRATCH/data out_c=$SCRATCH/out; fi
	port=$(free_port)
	eval "exec $listen" <"$in_l" >"$out_l" 2>"$SCRATCH/listener.err" &
	STARTED_PIDS+=($!)
	wait_listen "$port"
	eval "timeout 30 $connect" <"$in_c" >"$out_c"
	wait_gone "${STARTED_PIDS[-1]}" 10
	cat "$SCRATCH/listener.err" >&2
	[ "$(sha "$SCRATCH/data")" = "$(sha "$SCRATCH/out")" ]
}

@test "nc --ssl and ncat --ssl, each listening, byte-exact both directions" {
	# ncat ends a connection at EOF on its stdin, so the side that only receives says
	# --recv-only. (Not --send-only for the sender: it then never reads, and closing
	# over the server's unread session tickets resets the connection.)
	one_way up 'ncat --ssl -l --recv-only 127.0.0.1 $port' '"$NCPV" nc -N --ssl 127.0.0.1 $port'
	one_way down 'ncat --ssl -l 127.0.0.1 $port' '"$NCPV" nc --ssl 127.0.0.1 $port'
	one_way up '"$NCPV" nc --ssl -l 127.0.0.1 $port' 'ncat --ssl 127.0.0.1 $port'
	one_way down '"$NCPV" nc -N --ssl -l 127.0.0.1 $port' 'ncat --ssl --recv-only 127.0.0.1 $port'
}

@test "nc --ssl and openssl s_server / s_client, byte-exact both directions" {
	s_server="openssl s_server -nbio -quiet -naccept 1 -accept 127.0.0.1:\$port -cert $CERTS/good.pem -key $CERTS/leaf.key"
	one_way up "$s_server" '"$NCPV" nc -N --ssl-verify --ssl-trustfile $CERTS/ca.pem localhost $port' hold
	one_way down "$s_server" '"$NCPV" nc --ssl-trustfile $CERTS/ca.pem localhost $port'
	# s_client only receives here: told to end at its stdin's EOF (-no_ign_eof), it
	# closes before its last bytes are through, whoever the server is.
	one_way down '"$NCPV" nc -N --ssl -l --ssl-cert $CERTS/good.pem --ssl-key $CERTS/leaf.key 127.0.0.1 $port' \
		'openssl s_client -quiet -verify_return_error -CAfile $CERTS/ca.pem -connect 127.0.0.1:$port 2>/dev/null'
}

@test "nc --ssl and socat OPENSSL:, byte-exact both directions" {
	socat_l='socat -u OPENSSL-LISTEN:$port,bind=127.0.0.1,cert=$CERTS/good.pem,key=$CERTS/leaf.key,verify=0 -'
	one_way up "$socat_l" '"$NCPV" nc -N --ssl-trustfile $CERTS/ca.pem 127.0.0.1 $port'
	one_way down 'socat -u - OPENSSL-LISTEN:$port,bind=127.0.0.1,cert=$CERTS/good.pem,key=$CERTS/leaf.key,verify=0' \
		'"$NCPV" nc --ssl-trustfile $CERTS/ca.pem 127.0.0.1 $port'
	one_way up '"$NCPV" nc --ssl -l 127.0.0.1 $port' 'socat -u - OPENSSL:127.0.0.1:$port,verify=0'
	one_way down '"$NCPV" nc -N --ssl -l 127.0.0.1 $port' 'socat -u OPENSSL:127.0.0.1:$port,verify=0 -'
}

@test "nc --ssl-verify refuses an untrusted server and names the reason" {
	port=$(free_port)
	bg ncat --ssl -l 127.0.0.1 "$port"
	wait_listen "$port"
	run "$NCPV" nc --ssl-verify 127.0.0.1 "$port" </dev/null
	[ "$status" -eq 1 ]
	[[ "$output" == *"TLS handshake failed: unknown CA"* ]]
}

@test "nc --ssl-alpn is offered and accepted" {
	port=$(free_port)
	bg "$NCPV" nc -v --ssl -l --ssl-alpn h2,ncpv 127.0.0.1 "$port"
	wait_listen "$port"
	run "$NCPV" nc -v -N --ssl --ssl-alpn x,ncpv 127.0.0.1 "$port" </dev/null
	[ "$status" -eq 0 ]
	[[ "$output" == *"ALPN ncpv"* ]]
}

# Option pairs that make no sense, each refused with a message naming it.
@test "TLS options outside TLS, or on the wrong side, are refused by name" {
	while IFS='|' read -r args code words; do
		# shellcheck disable=SC2086
		run "$NCPV" $args
		echo "$args: $status $output"
		[ "$status" -eq "$code" ]
		[[ "$output" == *"$words"* ]]
	done <<-'EOF'
		get --cacert f h|2|--cacert needs --tls
		get --insecure h|2|--insecure needs --tls
		get --pin 00 h|2|--pin needs --tls
		get --sni n h|2|--sni needs --tls
		get --alpn h2 h|2|--alpn needs --tls
		get --tls --insecure --pin 00 h|2|--insecure conflicts with --pin
		get --tls --pin 00 127.0.0.1:1|2|invalid pin '00'
		get --tls --alpn h2,,x 127.0.0.1:1|2|invalid ALPN list
		get --tls --cacert /nonexistent/ca.pem 127.0.0.1:1|6|/nonexistent/ca.pem
		serve --cert f|2|--cert needs --tls
		serve --tls --key k 127.0.0.1:0|2|--key needs --cert
		serve --tls --cert /nonexistent/c.pem 127.0.0.1:0|6|/nonexistent/c.pem
		nc --ssl -u 127.0.0.1 1|1|cannot use --ssl and -u
		nc --ssl -z 127.0.0.1 1|1|cannot use --ssl and -z
		nc --ssl -l --ssl-verify 1|1|--ssl-verify is for connect mode
		nc --ssl-cert c 127.0.0.1 1|1|--ssl-cert is for listen mode
	EOF
}

# Issue 22: `--sni ""` made SSL_set1_host check no name, so a certificate for another host
# passed. Every name that would check less than asked is refused before connecting (get: 2,
# nc: 1 as OpenBSD nc); the server's certificate is for other.example, so a pass would be a bypass.
@test "no --sni / --ssl-servername value turns the host check off" {
	start_serve --tls --size 1000 --cert "$CERTS/other.pem" --key "$CERTS/other.key"
	local v
	for v in "" "." ".example" ".other.example" "*" "*.example" "other example" "other..example" \
		"other.example/x" $'other.example\t'; do
		run --separate-stderr "$NCPV" get --tls --cacert "$CERTS/ca.pem" --sni "$v" -o - "127.0.0.1:$SERVE_PORT"
		echo "get --sni '$v': $status $stderr"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[[ "$stderr" == "ncpv get: invalid sni '"* ]]
		run --separate-stderr "$NCPV" nc --ssl-trustfile "$CERTS/ca.pem" --ssl-servername "$v" 127.0.0.1 \
			"$SERVE_PORT" </dev/null
		echo "nc --ssl-servername '$v': $status $stderr"
		[ "$status" -eq 1 ]
		[ -z "$output" ]
		[[ "$stderr" == "ncpv nc: "*"--ssl-servername"* ]]
	done
	# Controls: the certificate's own name passes, the connect host and another name do not.
	run "$NCPV" get -q --tls --cacert "$CERTS/ca.pem" --sni other.example -o "$SCRATCH/out" "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 0 ]
	[ "$(stat -c %s "$SCRATCH/out")" -eq 1000 ]
	run "$NCPV" get -q --tls --cacert "$CERTS/ca.pem" "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 11 ]
	run "$NCPV" get -q --tls --cacert "$CERTS/ca.pem" --sni localhost "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 11 ]
	"$NCPV" nc --ssl-trustfile "$CERTS/ca.pem" --ssl-servername other.example 127.0.0.1 "$SERVE_PORT" \
		</dev/null >"$SCRATCH/nc.out"
	[ "$(stat -c %s "$SCRATCH/nc.out")" -eq 1000 ]
	run "$NCPV" nc --ssl-trustfile "$CERTS/ca.pem" 127.0.0.1 "$SERVE_PORT" </dev/null
	[ "$status" -eq 1 ]
	[[ "$output" == *"wrong host"* ]]
}

# The other inputs that could read as "not given" when empty: each is refused by name.
@test "an empty TLS option value is refused by name, never taken as absent" {
	local row
	while IFS='|' read -r code words row; do
		local args=()
		read -ra args <<<"$row"
		args+=("" 127.0.0.1:1)
		[ "${args[0]}" = nc ] && args[-1]=1 && args=("${args[@]:0:${#args[@]}-1}" 127.0.0.1 1)
		run "$NCPV" "${args[@]}" </dev/null
		echo "${args[*]}: $status $output"
		[ "$status" -eq "$code" ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == *"$words"* ]]
	done <<-'EOF'
		2|invalid sni ''|get --tls --sni
		2|invalid cacert ''|get --tls --cacert
		2|invalid pin ''|get --tls --pin
		2|invalid alpn ''|get --tls --alpn
		2|invalid cert ''|serve --tls --cert
		2|invalid key ''|serve --tls --cert /dev/null --key
		1|--ssl-servername: empty value|nc --ssl-verify --ssl-servername
		1|--ssl-trustfile: empty value|nc --ssl-trustfile
		1|--ssl-alpn: empty value|nc --ssl --ssl-alpn
		1|--ssl-cert: empty value|nc -l --ssl-cert
		1|--ssl-key: empty value|nc -l --ssl-cert /dev/null --ssl-key
	EOF
}

# Issue 22: a reset during the handshake exited 1 ("Connection reset by peer") where a FIN at the
# same point gave the handshake's exit 8. Every way a peer can fail the handshake is exit 8 for
# get (13 stays the -w timeout's), and nc's exit 1 (OpenBSD nc's one failure status) with the same
# "TLS handshake failed" words. (A reset before the client's first byte can beat the connect's
# own check, and is then the connect's failure: exit 4, as docs/ERRORS.md says of serve --max-conns.)
@test "a peer that resets, closes or answers garbage at any point of the handshake: get exit 8, nc exit 1" {
	local mode port i
	for mode in rst-partial rst-after-hello rst-mid-server fin-now fin-after-hello garbage; do
		bg python3 "$BATS_TEST_DIRNAME/../lib/handshake_cut.py" "$mode" 2 >"$SCRATCH/port.$mode"
		for ((i = 0; i < 500; i++)); do
			port=$(head -1 "$SCRATCH/port.$mode")
			[ -n "$port" ] && break
			sleep 0.02
		done
		[ -n "$port" ]
		run "$NCPV" get -q --tls --insecure -w 5 "127.0.0.1:$port"
		echo "get, $mode: $status $output"
		[ "$status" -eq 8 ]
		[[ "$output" == "ncpv get: TLS handshake with 127.0.0.1:$port: "* ]]
		run "$NCPV" nc --ssl -w 5 127.0.0.1 "$port" </dev/null
		echo "nc, $mode: $status $output"
		[ "$status" -eq 1 ]
		[[ "$output" == "ncpv nc: TLS handshake failed: "* ]]
	done
}
