#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# deps.bats - tools/deps, the README's first step: installs only what is missing, with apt-get
# directly as root, through sudo as a user, and says what to do when neither can work. Runs
# against stand-ins for id, sudo, dpkg-query and apt-get on a PATH of their own.

load ../lib/helpers

ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)

setup() {
	common_setup
	BIN=$SCRATCH/bin
	mkdir "$BIN"
	local t
	for t in sh grep cat env dirname; do ln -s "$(command -v "$t")" "$BIN/$t"; done
	# dpkg-query: installed unless named in $SCRATCH/missing; apt-get and sudo log their argv.
	printf '#!/bin/sh\ngrep -qx "$3" "%s/missing" && exit 1; printf "install ok installed"\n' "$SCRATCH" >"$BIN/dpkg-query"
	printf '#!/bin/sh\necho "apt-get $* DEBIAN_FRONTEND=$DEBIAN_FRONTEND" >>"%s/log"\n' "$SCRATCH" >"$BIN/apt-get"
	printf '#!/bin/sh\necho "sudo" >>"%s/log"; exec "$@"\n' "$SCRATCH" >"$BIN/sudo"
	chmod +x "$BIN/dpkg-query" "$BIN/apt-get" "$BIN/sudo"
	: >"$SCRATCH/missing"
	: >"$SCRATCH/log"
}
teardown() { common_teardown; }

# deps UID SUDO(yes|no) LIST: run tools/deps LIST as user UID, with or without a sudo.
deps() {
	printf '#!/bin/sh\necho %s\n' "$1" >"$BIN/id"
	chmod +x "$BIN/id"
	[ "$2" = yes ] || mv "$BIN/sudo" "$BIN/sudo.off"
	run env -i PATH="$BIN" "$ROOT/tools/deps" "$3"
	[ "$2" = yes ] || mv "$BIN/sudo.off" "$BIN/sudo"
}

@test "every package of the bench list is in the full list, and both lists are sorted" {
	local l
	for l in .ci/packages .ci/packages-bench; do
		grep -v '^#' "$ROOT/$l" | LC_ALL=C sort -c
	done
	[ -z "$(comm -23 <(grep -v '^#' "$ROOT/.ci/packages-bench") <(grep -v '^#' "$ROOT/.ci/packages"))" ]
}

@test "deps installs nothing, and needs no root, when every package is there" {
	local uid sudo list
	for uid in 0 1000; do for sudo in yes no; do for list in bench check; do
		deps "$uid" "$sudo" "$list"
		[ "$status" -eq 0 ] || { echo "uid $uid sudo $sudo $list: $output"; return 1; }
		[[ "$output" == "deps: every package in .ci/packages"*" is installed" ]]
		[ ! -s "$SCRATCH/log" ]
	done; done; done
}

@test "deps installs exactly the missing packages: apt-get as root, sudo apt-get as a user" {
	local uid sudo list want
	printf 'pv\nsocat\n' >"$SCRATCH/missing"
	for uid in 0 1000; do for sudo in yes no; do for list in bench check; do
		: >"$SCRATCH/log"
		deps "$uid" "$sudo" "$list"
		want=
		[ "$uid" -eq 0 ] || want='sudo
'
		want="${want}apt-get update -q DEBIAN_FRONTEND=noninteractive
${want}apt-get install -y -q --no-install-recommends pv socat DEBIAN_FRONTEND=noninteractive"
		if [ "$uid" -ne 0 ] && [ "$sudo" = no ]; then
			[ "$status" -eq 1 ]
			[ "$output" = "deps: installing pv socat needs root, and there is no sudo: run tools/deps $list as root" ]
			[ ! -s "$SCRATCH/log" ]
			continue
		fi
		[ "$status" -eq 0 ] || { echo "uid $uid sudo $sudo $list: $output"; return 1; }
		[ "$(cat "$SCRATCH/log")" = "$want" ] || { echo "uid $uid sudo $sudo $list:"; cat "$SCRATCH/log"; return 1; }
	done; done; done
}

@test "deps refuses a list it does not know" {
	deps 0 yes everything
	[ "$status" -eq 2 ]
	[ "$output" = "usage: tools/deps bench|check" ]
}

@test "the README's set-up block is two commands: deps and the bench, deps and every test" {
	mapfile -t lines < <("$ROOT/tools/readme-setup")
	[ ${#lines[@]} -eq 2 ] || { printf '%s\n' "${lines[@]}"; return 1; }
	[[ "${lines[0]}" == "tools/deps bench && make bench "* ]]
	[[ "${lines[1]}" == "tools/deps check && make check "* ]]
	# .ci/run runs them from there, not a copy of them.
	grep -q 'tools/readme-setup' "$ROOT/.ci/run"
	! grep -qE 'make (bench|check)$' "$ROOT/.ci/run"
}
