#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# TLS errors that say the fix (issue 27 item 2): TLS to a plain server, plain TCP to a TLS
# server, and a certificate no CA vouches for, with the --pin to accept it.

load helpers

setup() {
	"$NCPV" --version | grep -qw tls || skip "this build has no TLS"
	common_setup
}
teardown() { common_teardown; }

fingerprint() { sed -n 's/.*fingerprint \([0-9A-F:]*\).*/\1/p' "$SERVE_LOG"; }

@test "get --tls and nc --ssl to a plain server say it did not answer with TLS, not OpenSSL's words" {
	start_serve --size 100000
	run "$NCPV" get -q --tls "127.0.0.1:$SERVE_PORT"
	echo "$output"
	[ "$status" -eq 8 ]
	[ "$output" = "ncpv get: TLS handshake with 127.0.0.1:$SERVE_PORT: the server did not answer with TLS (plain TCP?)" ]
	run "$NCPV" nc --ssl 127.0.0.1 "$SERVE_PORT" </dev/null
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"TLS handshake failed: the server did not answer with TLS (plain TCP?)"* ]]
	[[ "$output" != *"wrong version number"* ]]
}

@test "serve --tls names a plain-TCP client as one, not by OpenSSL's reason" {
	start_serve --tls
	printf 'GET / HTTP/1.0\r\n\r\n' | "$NCPV" nc -w 2 127.0.0.1 "$SERVE_PORT" >/dev/null 2>&1 || true
	wait_for "$SERVE_LOG" 'TLS handshake failed'
	grep -q 'the client did not answer with TLS (plain TCP?)' "$SERVE_LOG"
}

@test "a plain get to a silent TLS server hints at --tls after 3 s, once (not under -q)" {
	start_serve --tls --size 1000
	SECONDS=0
	run timeout 20 "$NCPV" get -t 4 "127.0.0.1:$SERVE_PORT"
	echo "$status: $output"
	[ "$SECONDS" -lt 10 ]
	[ "$(grep -c 'TLS server' <<<"$output")" -eq 1 ]
	[ "${lines[0]}" = "ncpv get: nothing received from 127.0.0.1:$SERVE_PORT in 3 s: a TLS server stays silent until the client speaks TLS: if it is one, add --tls" ]
	run timeout 20 "$NCPV" get -q -t 3.5 "127.0.0.1:$SERVE_PORT"
	[ -z "$output" ]
}

@test "get -w shorter than the hint's delay says it in the timeout, and --tls or data silences it" {
	start_serve --tls --size 1000
	run timeout 20 "$NCPV" get -q -w 1 "127.0.0.1:$SERVE_PORT"
	echo "$status: $output"
	[ "$status" -eq 5 ]
	[[ "$output" == *"nothing received for 1 s (-w); a TLS server stays silent until the client speaks TLS: if it is one, add --tls"* ]]
	# A plain server that sends: no hint.
	start_serve --size 1000
	run timeout 20 "$NCPV" get -t 4 "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 0 ]
	[[ "$output" != *"TLS server"* ]]
}

@test "get --tls to a self-signed server prints the --pin that accepts it, and that pin works" {
	start_serve --tls --size 1000
	wait_for "$SERVE_LOG" fingerprint
	fp=$(fingerprint)
	[ ${#fp} -eq 95 ]
	run "$NCPV" get -q --tls "127.0.0.1:$SERVE_PORT"
	echo "$output"
	[ "$status" -eq 9 ]
	[ "$output" = "ncpv get: TLS handshake with 127.0.0.1:$SERVE_PORT: unknown CA (self-signed certificate); to accept exactly this certificate: --pin $fp" ]
	pin=${output##*--pin }
	run "$NCPV" get -q --tls --pin "$pin" "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 0 ]
}

@test "nc --ssl-verify to a self-signed server prints its fingerprint and nc's way to accept it" {
	start_serve --tls --size 1000
	wait_for "$SERVE_LOG" fingerprint
	fp=$(fingerprint)
	run "$NCPV" nc --ssl-verify 127.0.0.1 "$SERVE_PORT" </dev/null
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"unknown CA (self-signed certificate); its SHA-256 is $fp: trust its CA with --ssl-trustfile, or leave out --ssl-verify"* ]]
}
