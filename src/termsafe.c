/* SPDX-License-Identifier: ISC */
/* termsafe.c - untrusted text made visible and harmless on a terminal (see termsafe.h). */
#include "termsafe.h"

#include <stdio.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at s (at most len bytes) and its
 * code point in *cp, or 0 when the bytes there are not one. */
static size_t utf8_char(const unsigned char *s, size_t len, unsigned long *cp)
{
	size_t n, i;
	unsigned long c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and past U+10FFFF are not UTF-8. */
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) || (c >= 0xd800 && c < 0xe000))
		return 0;
	*cp = c;
	return n;
}

/* Whether code point c, valid UTF-8, must be shown as \uHHHH. */
static int hidden_unicode(unsigned long c)
{
	return (c >= 0x80 && c <= 0x9f) || c == 0x2028 || c == 0x2029 || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069);
}

/* The rendering of the character (or bad byte) at u into piece (its length
 * in *plen, at most 6); returns how many bytes of u it took. */
static size_t render(const unsigned char *u, size_t len, char piece[8], size_t *plen)
{
	unsigned long cp = 0;
	size_t n = utf8_char(u, len, &cp);

	if (n == 0) {
		snprintf(piece, 8, "\\x%02X", u[0]);
		*plen = 4;
		return 1;
	}
	if (cp == '\\' || cp == '\n' || cp == '\r' || cp == '\t' || cp == 0x1b) {
		piece[0] = '\\';
		piece[1] = cp == '\\' ? '\\' : cp == '\n' ? 'n' : cp == '\r' ? 'r' : cp == '\t' ? 't' : 'e';
		*plen = 2;
	} else if (cp < 0x20 || cp == 0x7f) {
		snprintf(piece, 8, "\\x%02X", (unsigned)cp);
		*plen = 4;
	} else if (hidden_unicode(cp)) {
		snprintf(piece, 8, "\\u%04X", (unsigned)cp & 0xffffu); /* hidden_unicode: cp <= 0x2069 */
		*plen = 6;
	} else {
		memcpy(piece, u, n);
		*plen = n;
	}
	return n;
}

size_t termsafe(char *buf, size_t size, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t need = 0, written = 0, i = 0;

	while (i < len) {
		char piece[8];
		size_t plen;

		i += render(u + i, len - i, piece, &plen);
		/* Once one piece does not fit, none after it is written either. */
		if (written == need && need + plen < size) {
			memcpy(buf + written, piece, plen);
			written += plen;
		}
		need += plen;
	}
	if (size > 0)
		buf[written] = '\0';
	return need;
}

const char *termsafe_str(char *buf, size_t size, const char *s)
{
	if (s == NULL)
		s = "(null)";
	termsafe(buf, size, s, strlen(s));
	return buf;
}
