#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# nc_halfclose.bats - who closes first, with and without -N, -q and -d: ncpv nc ends exactly as
# nc.openbsd does in the same situation (both run side by side against the same scripted peer).
load ../lib/nc_helpers

setup() { common_setup; }
teardown() { common_teardown; }

@test "client, stdin ends, no -N: no FIN sent, waits for the server to close" {
	compare_halfclose client "" eof:x "send:hi,sleep:0.6,close"
}

@test "client, stdin ends, -N: FIN sent at once, exits when the server closes" {
	compare_halfclose client "-N" eof:x "send:hi,sleep:0.6,close"
}

@test "client, server half-closes, no -N: exits once stdin has ended too" {
	compare_halfclose client "" eof:x "send:hi,shut,linger:1.2"
}

@test "client, server closes first while stdin stays open: runs until stdin ends" {
	compare_halfclose client "" open:1.2:x "send:hi,sleep:0.2,close"
}

@test "client, -q 0: FIN at stdin's end, exits as soon as the server closes" {
	compare_halfclose client "-q 0" eof:x "send:hi,sleep:0.6,close"
}

@test "client, -q 1: exits one second after both directions ended" {
	compare_halfclose client "-q 1" eof:x "send:hi,sleep:0.4,close"
}

@test "client, -d: ignores stdin, exits when the server closes" {
	compare_halfclose client "-d" open:1.5:x "send:hi,sleep:0.4,close"
}

@test "client, -d -N: FIN at once, then reads until the server closes" {
	compare_halfclose client "-d -N" none "send:hi,sleep:0.5,close"
}

@test "listen, client sends and closes, stdin already ended: exits" {
	compare_halfclose listen "" eof:x "send:hi,sleep:0.3,close"
}

@test "listen, client closes while stdin stays open: exits, the client's end ends a listener" {
	compare_halfclose listen "" open:1.2:x "send:hi,sleep:0.2,close"
}

@test "listen, client half-closes and keeps reading: the listener exits without waiting for stdin" {
	compare_halfclose listen "" open:1.2:x "send:hi,shut,linger:1.5"
}

@test "listen, -N: FIN at stdin's end, client sees it and closes" {
	compare_halfclose listen "-N" eof:x "send:hi,wait-eof,close"
}

@test "listen, -q 1: stops reading the client at stdin's end (late data is dropped), exits 1 s later" {
	compare_halfclose listen "-q 1" eof:x "sleep:0.5,send:late,linger:2.5"
}

@test "listen, -d: exits when the client closes" {
	compare_halfclose listen "-d" none "send:hi,sleep:0.3,close"
}
