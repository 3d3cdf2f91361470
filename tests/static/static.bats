#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# static.bats - the `make static` binary ($NCPV, set by `make static-check`) needs no shared
# library: it is linked statically, runs in an empty chroot, and moves data byte-exact.

load ../e2e/lib/helpers

setup() { common_setup; }
teardown() { common_teardown; }

@test "the static binary is statically linked" {
	run file -L "$NCPV"
	[ "$status" -eq 0 ]
	[[ "$output" == *"statically linked"* ]]
	run ldd "$NCPV"
	[ "$status" -ne 0 ] || [[ "$output" == *"not a dynamic executable"* ]]
}

@test "the static binary says so in --version" {
	run "$NCPV" --version
	[ "$status" -eq 0 ]
	[[ "${lines[1]}" == "features: "*" static-"* ]]
}

@test "the static binary runs in an empty chroot with no libraries at all" {
	[ "$(id -u)" -eq 0 ] || skip "chroot needs root"
	mkdir "$SCRATCH/root"
	cp "$NCPV" "$SCRATCH/root/ncpv"
	run chroot "$SCRATCH/root" /ncpv --version
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "ncpv "* ]]
}

@test "the static binary downloads a file byte-exact over loopback" {
	make_file "$SCRATCH/src" 3000000
	start_serve --source "$SCRATCH/src"
	"$NCPV" get -q -o "$SCRATCH/dst" "127.0.0.1:$SERVE_PORT"
	[ "$(sha "$SCRATCH/src")" = "$(sha "$SCRATCH/dst")" ]
}

@test "the static binary uploads a counted stream of fresh random data" {
	start_serve --discard
	run "$NCPV" get -q --json --send --bytes 5M "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 0 ]
	[[ "$output" == *'"bytes":5242880'* ]]
	wait_for "$SERVE_LOG" 'received 5242880 B' 5
}

@test "the static binary has no TLS, says so in --version, and refuses --tls and --ssl by name" {
	run "$NCPV" --version
	[[ "${lines[1]}" != *" tls"* ]]
	run "$NCPV" get --tls 127.0.0.1:1
	[ "$status" -eq 2 ]
	[ "$output" = "ncpv get: --tls: this build has no TLS support (built without OpenSSL)" ]
	run "$NCPV" serve --tls 127.0.0.1:0
	[ "$status" -eq 2 ]
	[[ "$output" == *"no TLS support"* ]]
	run "$NCPV" nc --ssl 127.0.0.1 1
	[ "$status" -eq 1 ]
	[ "$output" = "ncpv nc: --ssl: this build has no TLS support (built without OpenSSL)" ]
}
