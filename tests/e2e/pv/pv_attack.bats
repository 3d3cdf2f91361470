#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# Regressions found by differential runs of ncpv pv against pv 1.10.5 (generated inputs).

setup() {
	export LC_ALL=C
	SCRATCH=$(mktemp -d)
	head -c 4095 /dev/zero >"$SCRATCH/z"
	seq 1000 >"$SCRATCH/lines"
}

teardown() {
	rm -rf "$SCRATCH"
}

# pv 1.10 treats the size as unknown when any named input is missing: the -n figure must be
# the unknown-size one (as for the same bytes from a pipe), never a percentage of the rest.
@test "pv: a missing input among files makes the size unknown (-n, bytes and lines)" {
	local pos files want got
	for mode in "" "-l"; do
		for pos in 0 1 2; do
			files=("$SCRATCH/z" "$SCRATCH/lines")
			files=("${files[@]:0:pos}" "$SCRATCH/missing" "${files[@]:pos}")
			want=$(cat "$SCRATCH/z" "$SCRATCH/lines" | "$NCPV" pv -n $mode 2>&1 >/dev/null | tail -n 1)
			run bash -c '"$0" pv -n $1 "${@:2}" 2>&1 >/dev/null' "$NCPV" "$mode" "${files[@]}"
			[ "$status" -eq 2 ]
			[[ "${lines[0]}" == *"failed to read file: $SCRATCH/missing: No such file or directory" ]]
			got=${lines[${#lines[@]}-1]}
			echo "mode=$mode pos=$pos want=$want got=$got"
			[ "$got" = "$want" ]
			[ "$got" != 100 ]
		done
	done
}

# -S in line mode stops after the lines counted in the inputs; the bytes written must be the
# same whether a display is drawn (-f, -n) or not (no terminal, -q): up to the last separator.
@test "pv: -l/-0 -S writes the same bytes with and without a display" {
	local sep flag want got
	printf 'a\nb\nc' >"$SCRATCH/nl"
	printf 'a\0b\0c' >"$SCRATCH/nul"
	for sep in l 0; do
		f=$SCRATCH/nl want=$(printf 'a\nb\n' | sha256sum)
		[ "$sep" = 0 ] && f=$SCRATCH/nul want=$(printf 'a\0b\0' | sha256sum)
		for flag in "" -q -f -n "-f -p"; do
			got=$("$NCPV" pv -"$sep" -S $flag "$f" 2>/dev/null | sha256sum)
			echo "sep=$sep flag=$flag"
			[ "$got" = "$want" ]
		done
	done
}

# A colour set by %{sgr:...} and not turned off by the format is reset at the end of each line
# (ESC [ m), as pv 1.10 does, so that it does not bleed into the terminal after pv.
@test "pv: -F %{sgr:...} left on is reset at the end of the line" {
	local fmt want got
	while read -r fmt want; do
		got=$(printf abc | TERM=xterm "$NCPV" pv -f -F "$fmt" 2>&1 >/dev/null | od -An -c | tr -d ' \n')
		echo "fmt=$fmt want_reset=$want got=$got"
		if [ "$want" = yes ]; then
			[[ "$got" == *'033[m\r\n' ]]
		else
			[[ "$got" != *'033[m'* ]]
		fi
	done <<'CASES'
%{sgr:bold}%b yes
%{sgr:red,bg-blue}x yes
%{sgr:0,red}x yes
%{sgr:1;2}x yes
%{sgr:bold}%{sgr:bogus}x yes
%{sgr:bold}%b%{sgr:reset} no
%{sgr:bold,0}x no
%{sgr:0}x no
%{sgr:bogus}x no
%b no
CASES
}

# -w past what a line holds (1023 columns) still draws the whole format: the bar, and what
# follows it; never a line without its bar or cut short.
@test "pv: -w wider than a line draws the widest complete line" {
	local w fmt tail line
	for w in 1000 1023 1024 1030 5000 100000; do
		while read -r fmt tail; do
			line=$(printf abc | "$NCPV" pv -f -s 3 -w "$w" -F "$fmt" 2>&1 >/dev/null | tr -d '\r\n')
			echo "w=$w fmt=$fmt len=${#line} end=${line: -14}"
			[[ "$line" == *"[="*"=>] 100%"* ]]
			[[ "$line" == *"$tail"* ]]
			[ "${#line}" -le "$w" ]
			[ "${#line}" -ge 1000 ]
		done <<'CASES'
%{progress}-x 100%-x
%p-end 100%-end
ab%p%b 100%3.00
%p 100%
CASES
	done
}
