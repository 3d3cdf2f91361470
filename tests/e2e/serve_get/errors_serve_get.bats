#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# serve and get: bad input gets one line naming the problem and a documented exit code.

load ../lib/helpers

setup() { common_setup; }
teardown() { common_teardown; }

# one_line: the output is exactly one line.
one_line() { [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]; }

@test "serve: an invalid port is exit 2 naming the port" {
	run "$NCPV" serve 127.0.0.1:99999
	[ "$status" -eq 2 ]
	one_line
	[[ "$output" == *"invalid port '99999'"* ]]
}

@test "get: an invalid port is exit 2 naming the port" {
	run "$NCPV" get 127.0.0.1:70000
	[ "$status" -eq 2 ]
	one_line
	[[ "$output" == *"invalid port '70000'"* ]]
}

@test "get: an unknown host is exit 3 naming the host" {
	run "$NCPV" get no-such-host.invalid:6666
	[ "$status" -eq 3 ]
	one_line
	[[ "$output" == *"no-such-host.invalid"* ]]
}

@test "get: connection refused is exit 4" {
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	run "$NCPV" get "127.0.0.1:$port"
	[ "$status" -eq 4 ]
	one_line
	[[ "$output" == *"connect to 127.0.0.1:$port: Connection refused"* ]]
}

@test "get: a connect timeout is exit 5" {
	full_listener
	sleep 0.2
	run timeout 10 "$NCPV" get -w 0.5 "127.0.0.1:$FULL_PORT"
	[ "$status" -eq 5 ]
	one_line
	[[ "$output" == *"timed out"* ]]
}

@test "serve: an unreadable source file is exit 6 naming the file" {
	run "$NCPV" serve --source "$SCRATCH/missing" 127.0.0.1:0
	[ "$status" -eq 6 ]
	one_line
	[[ "$output" == *"cannot open source '$SCRATCH/missing': No such file or directory"* ]]
}

@test "serve: a directory as source is exit 6" {
	run "$NCPV" serve --source "$SCRATCH" 127.0.0.1:0
	[ "$status" -eq 6 ]
	one_line
	[[ "$output" == *"Is a directory"* ]]
}

@test "get: an unwritable output file is exit 6 naming it" {
	run "$NCPV" get -o "$SCRATCH/no/such/dir/out" 127.0.0.1:1
	[ "$status" -eq 6 ]
	one_line
	[[ "$output" == *"cannot open output '$SCRATCH/no/such/dir/out'"* ]]
}

@test "serve: a bad size suffix is exit 2 naming the value" {
	run "$NCPV" serve --size 4X 127.0.0.1:0
	[ "$status" -eq 2 ]
	one_line
	[[ "$output" == *"invalid size '4X'"* ]]
}

@test "get: a bad size suffix is exit 2 naming the value" {
	run "$NCPV" get --bytes 12Q 127.0.0.1
	[ "$status" -eq 2 ]
	one_line
	[[ "$output" == *"invalid bytes '12Q'"* ]]
}

@test "serve: an unknown option is exit 2 naming it" {
	run "$NCPV" serve --frobnicate
	[ "$status" -eq 2 ]
	one_line
	[[ "$output" == *"unknown option '--frobnicate'"* ]]
}

@test "get: an unknown short option is exit 2 naming it" {
	run "$NCPV" get -K 127.0.0.1
	[ "$status" -eq 2 ]
	one_line
	[[ "$output" == *"'-K'"* ]]
}

@test "get: a missing option argument is exit 2" {
	run "$NCPV" get 127.0.0.1 --time
	[ "$status" -eq 2 ]
	one_line
	[[ "$output" == *"needs an argument"* ]]
}

@test "serve: an address in use is exit 7" {
	start_serve
	run "$NCPV" serve "127.0.0.1:$SERVE_PORT"
	[ "$status" -eq 7 ]
	one_line
	[[ "$output" == *"cannot listen on 127.0.0.1:$SERVE_PORT: Address already in use"* ]]
}

@test "serve: --size with --discard is exit 2" {
	run "$NCPV" serve --discard --size 1K 127.0.0.1:0
	[ "$status" -eq 2 ]
	one_line
	[[ "$output" == *"conflict"* ]]
}

@test "get: a missing host is exit 2" {
	run "$NCPV" get
	[ "$status" -eq 2 ]
	one_line
	[[ "$output" == *"missing HOST"* ]]
}

@test "an unknown command is exit 2 naming it" {
	run "$NCPV" frob
	[ "$status" -eq 2 ]
	one_line
	[[ "$output" == *"unknown command 'frob'"* ]]
}

@test "--help and --version succeed" {
	run "$NCPV" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"serve"*"get"* ]]
	run "$NCPV" --version
	[ "$status" -eq 0 ]
	[[ "$output" == "ncpv "[0-9]* ]]
	run "$NCPV" serve --help
	[ "$status" -eq 0 ]
	run "$NCPV" get --help
	[ "$status" -eq 0 ]
}
