#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# hardening.sh - check that a release build carries the hardening the Makefile asks for:
# PIE, full RELRO (GNU_RELRO + BIND_NOW), a non-executable stack, the stack protector,
# fortified libc calls, and that the compiler really applies _FORTIFY_SOURCE=3 with these
# flags (level 3 checks buffers of run-time size, which level 2 cannot).
# Usage: tests/hardening.sh BINARY CC "HARDEN FLAGS" "CFLAGS"
set -uo pipefail
export LC_ALL=C
bin=$1 cc=$2 harden=$3 cflags=$4
failed=0
check() {
	if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; failed=1; fi
}
hdr=$(readelf -hW "$bin") dyn=$(readelf -dW "$bin") seg=$(readelf -lW "$bin")
syms=$(readelf --dyn-syms -W "$bin")
check "PIE: ELF type DYN with the PIE flag" \
	'grep -q "Type: *DYN" <<<"$hdr" && grep -Eq "FLAGS_1.*PIE" <<<"$dyn"'
check "full RELRO: a GNU_RELRO segment" 'grep -q GNU_RELRO <<<"$seg"'
check "full RELRO: BIND_NOW (no lazy binding)" 'grep -Eq "\(FLAGS\).*BIND_NOW|FLAGS_1.*NOW" <<<"$dyn"'
check "stack not executable (GNU_STACK RW)" 'grep -E "GNU_STACK" <<<"$seg" | grep -qv RWE'
check "stack protector: __stack_chk_fail is called" 'grep -q __stack_chk_fail <<<"$syms"'
check "fortified libc calls (__*_chk) are used" \
	'[ "$(grep -oE "__[a-z]+_chk\b" <<<"$syms" | grep -vc __stack_chk)" -ge 3 ]'
check "the flags ask for _FORTIFY_SOURCE=3 and -fstack-protector-strong" \
	'grep -q -- "-D_FORTIFY_SOURCE=3" <<<"$harden" && grep -q -- "-fstack-protector-strong" <<<"$harden"'

# A copy into a malloc'd buffer of run-time size is checked at level 3 only.
probe=$(mktemp -d)
cat >"$probe/p.c" <<'C'
#include <stdlib.h>
#include <string.h>
char *probe(size_t n, const char *s);
char *probe(size_t n, const char *s)
{
	char *p = malloc(n);
	if (p)
		memcpy(p, s, strlen(s));
	return p;
}
C
# shellcheck disable=SC2086 # the flags are words
check "$cc applies _FORTIFY_SOURCE=3 with these flags" \
	'$cc -std=c11 $harden $cflags -Werror -c "$probe/p.c" -o "$probe/p.o" && nm "$probe/p.o" | grep -q __memcpy_chk'
rm -rf "$probe"
exit $failed
