#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# install.bats - make install / uninstall / install-links into a DESTDIR: every file where
# the FHS and Debian expect it, links only on request, and nothing left after uninstall.

load ../lib/helpers

ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)

setup() {
	common_setup
	DEST=$SCRATCH/dest
	DEVTCP_LIB=$(dirname "$NCPV")/libncpv-devtcp.so
	# A make run by `make check` or `make asan` must not pass its settings down.
	unset MAKEFLAGS MFLAGS MAKELEVEL
}
teardown() { common_teardown; }

# mk TARGET [VAR=VALUE]...: the tree's Makefile with this test's binary, the preload
# library built beside it, and DESTDIR, so that nothing is rebuilt.
mk() {
	make -s -C "$ROOT" NCPV_BIN="$NCPV" DEVTCP_LIB="$DEVTCP_LIB" DESTDIR="$DEST" PREFIX=/usr "$@"
}

has_command() { "$NCPV" --help | "$ROOT/tools/options" commands | grep -qx "$1"; }

@test "make install puts the binary, library, manual and completions where Debian looks" {
	mk install
	[ -x "$DEST/usr/bin/ncpv" ]
	cmp "$NCPV" "$DEST/usr/bin/ncpv"
	cmp "$DEVTCP_LIB" "$DEST/usr/lib/ncpv/libncpv-devtcp.so"
	gzip -dc "$DEST/usr/share/man/man1/ncpv.1.gz" | cmp - "$ROOT/doc/ncpv.1"
	cmp "$ROOT/completions/ncpv.bash" "$DEST/usr/share/bash-completion/completions/ncpv"
	cmp "$ROOT/completions/_ncpv" "$DEST/usr/share/zsh/vendor-completions/_ncpv"
	[ ! -e "$DEST/usr/bin/nc" ] && [ ! -e "$DEST/usr/bin/pv" ]
}

@test "make install honours PREFIX and the directory variables" {
	mk PREFIX=/opt/ncpv MANDIR=/opt/man install
	[ -x "$DEST/opt/ncpv/bin/ncpv" ]
	[ -f "$DEST/opt/ncpv/lib/ncpv/libncpv-devtcp.so" ]
	[ -f "$DEST/opt/man/man1/ncpv.1.gz" ]
	[ -f "$DEST/opt/ncpv/share/bash-completion/completions/ncpv" ]
}

@test "the installed ncpv runs and reports its version" {
	mk install
	run "$DEST/usr/bin/ncpv" --version
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "ncpv "[0-9]* ]]
	[[ "${lines[1]}" == "features: "* ]]
}

@test "make uninstall leaves no file behind, nor the library's own directory" {
	mk install
	[ -n "$(find "$DEST" ! -type d)" ]
	mk uninstall
	run find "$DEST" ! -type d
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ ! -e "$DEST/usr/lib/ncpv" ]
}

@test "the installed ncpv devtcp finds the installed library" {
	mk install
	# Only the installed tree: the library is found relative to the binary (../lib/ncpv).
	run env -u NCPV_DEVTCP_LIB "$DEST/usr/bin/ncpv" devtcp sh -c 'echo "$LD_PRELOAD"'
	[ "$status" -eq 0 ]
	[[ "$output" == *"$DEST/usr/lib/ncpv/libncpv-devtcp.so"* ]] || [[ "$output" == *"/usr/bin/../lib/ncpv/libncpv-devtcp.so"* ]]
}

@test "make install-links adds nc and pv only for commands this ncpv has" {
	mk install
	if has_command nc && has_command pv; then
		mk install-links
		[ "$(readlink "$DEST/usr/bin/nc")" = ncpv ]
		[ "$(readlink "$DEST/usr/bin/pv")" = ncpv ]
	else
		run mk install-links
		[ "$status" -ne 0 ]
		[[ "$output" == *"has no '"*"' command"* ]]
	fi
}

@test "make install-links never replaces somebody else's nc or pv" {
	mkdir -p "$DEST/usr/bin"
	echo 'not ours' >"$DEST/usr/bin/nc"
	echo 'not ours' >"$DEST/usr/bin/pv"
	run mk install-links
	[ "$status" -ne 0 ]
	[[ "$output" == *"/usr/bin/nc exists and is not ours"* ]]
	[ "$(cat "$DEST/usr/bin/nc")" = 'not ours' ]
	[ "$(cat "$DEST/usr/bin/pv")" = 'not ours' ]
}

@test "make uninstall removes our nc and pv links but not other files" {
	mk install
	ln -s ncpv "$DEST/usr/bin/nc"
	echo 'not ours' >"$DEST/usr/bin/pv"
	mk uninstall
	[ ! -L "$DEST/usr/bin/nc" ]
	[ "$(cat "$DEST/usr/bin/pv")" = 'not ours' ]
}
