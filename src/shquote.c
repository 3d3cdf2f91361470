/* SPDX-License-Identifier: ISC */
/* shquote.c - POSIX single-quote quoting, and a model of sh's word splitting
 * for the subset it produces (see shquote.h). */
#include "shquote.h"

#include <string.h>

/* Bytes no shell gives a meaning to in any position of a word. '=' is left
 * out (a first word with one is an assignment), as are '~' (tilde
 * expansion) and '{' '}' (bash's brace expansion). */
static int bare(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c != '\0' && strchr("_@%+:,./-", c) != NULL);
}

size_t shq_quote(const char *s, char *out, size_t len)
{
	size_t n = 0;
	int plain = s[0] != '\0';

	for (const char *p = s; *p && plain; p++)
		plain = bare((unsigned char)*p);
#define PUT(c)                          \
	do {                            \
		if (n + 1 < len)        \
			out[n] = (c);   \
		n++;                    \
	} while (0)
	if (!plain)
		PUT('\'');
	for (const char *p = s; *p; p++) {
		if (*p == '\'' && !plain) {
			/* close the quote, an escaped quote, reopen */
			PUT('\'');
			PUT('\\');
			PUT('\'');
		}
		PUT(*p);
	}
	if (!plain)
		PUT('\'');
#undef PUT
	if (len > 0)
		out[n < len ? n : len - 1] = '\0';
	return n;
}

int shq_split(const char *line, char *buf, size_t buflen, char **words, int maxwords)
{
	size_t n = 0;
	int nwords = 0, inword = 0;

	for (const char *p = line; *p;) {
		if (*p == ' ' || *p == '\t') {
			if (inword) {
				if (n >= buflen)
					return -1;
				buf[n++] = '\0';
				inword = 0;
			}
			p++;
			continue;
		}
		if (!inword) {
			if (nwords >= maxwords)
				return -1;
			words[nwords++] = buf + n;
			inword = 1;
		}
		if (*p == '\'') {
			const char *end = strchr(p + 1, '\'');

			if (end == NULL || n + (size_t)(end - p - 1) >= buflen)
				return -1; /* sh: unterminated quote */
			memcpy(buf + n, p + 1, (size_t)(end - p - 1));
			n += (size_t)(end - p - 1);
			p = end + 1;
		} else if (*p == '\\') {
			if (p[1] == '\0' || p[1] == '\n' || n >= buflen)
				return -1; /* a line continuation, or a dangling escape */
			buf[n++] = p[1];
			p += 2;
		} else if (bare((unsigned char)*p)) {
			if (n >= buflen)
				return -1;
			buf[n++] = *p++;
		} else {
			return -1; /* something sh would act on */
		}
	}
	if (inword) {
		if (n >= buflen)
			return -1;
		buf[n++] = '\0';
	}
	return nwords;
}
