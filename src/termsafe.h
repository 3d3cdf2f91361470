/* SPDX-License-Identifier: ISC */
/* termsafe.h - text from a file or a peer made safe to print on a terminal:
 * every control character and every byte that is not UTF-8 shown as a
 * visible escape, so a value cannot set the title, clear the screen or
 * forge lines (pure: no allocation, no I/O). */
#ifndef NCPV_TERMSAFE_H
#define NCPV_TERMSAFE_H

#include <stddef.h>

/*
 * Render len bytes of s into buf (size bytes, NUL-terminated whenever size
 * > 0): printable ASCII and valid printable UTF-8 as they are; backslash as
 * "\\" (so no escape can be forged); \n \r \t and ESC as "\n" "\r" "\t" "\e";
 * other C0 bytes and DEL as "\xHH"; C1 controls (U+0080..U+009F) and the
 * bidirectional overrides and isolates (U+202A..U+202E, U+2066..U+2069) and
 * the line and paragraph separators (U+2028, U+2029) as "\uHHHH"; each byte
 * of malformed or overlong UTF-8, a surrogate or a code point past U+10FFFF
 * as "\xHH". Output that does not fit stops between two whole pieces.
 * Returns the length the whole rendering needs (as snprintf), at most
 * 4 * len: a result >= size means it was cut short.
 */
size_t termsafe(char *buf, size_t size, const char *s, size_t len);

/* termsafe() of a NUL-terminated string (NULL reads as "(null)"); returns buf. */
const char *termsafe_str(char *buf, size_t size, const char *s);

#endif
