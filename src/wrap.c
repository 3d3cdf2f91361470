/* SPDX-License-Identifier: ISC */
/* wrap.c - a summary's clauses laid out in lines no wider than a terminal. */
#include "wrap.h"

#include <string.h>

static size_t put(char *out, size_t len, size_t at, const char *s)
{
	size_t k = strlen(s);

	if (at + 1 >= len)
		return at;
	if (k > len - 1 - at)
		k = len - 1 - at;
	memcpy(out + at, s, k);
	out[at + k] = '\0';
	return at + k;
}

char *wrap_clauses(char *out, size_t len, const char *const *clauses, size_t n, size_t width)
{
	size_t at = 0, col = 0;
	int first = 1;

	if (len == 0)
		return out;
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t k = clauses[i] ? strlen(clauses[i]) : 0;

		if (k == 0)
			continue;
		if (!first && col + 1 + k > width) {
			at = put(out, len, at, "\n" WRAP_INDENT);
			col = strlen(WRAP_INDENT);
		} else if (!first) {
			at = put(out, len, at, " ");
			col++;
		}
		at = put(out, len, at, clauses[i]);
		col += k;
		first = 0;
	}
	return out;
}

const char *wrap_s(unsigned long long n)
{
	return n == 1 ? "" : "s";
}
