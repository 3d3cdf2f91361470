/* SPDX-License-Identifier: ISC */
/* fuzz_shquote.c - libFuzzer harness for the bench's quoting (src/shquote.c)
 * through its real use, method_expand: whatever the host, port and size
 * hold, the expanded template must split (by the sh model, shq_split) into
 * exactly the intended words, so sh -c can run nothing but that argv. */
#include <stdio.h>

#include "fuzz.h"
#include "../src/shquote.h"
#include "../src/bench/method.h"

/* Each template and its words, with H P S standing for the values. */
static const struct {
	const char *tmpl;
	const char *words[6];
} cases[] = {
	{ "nc {host} {port}", { "nc", "H", "P" } },
	{ "x a{host}b {port}c", { "x", "aHb", "Pc" } },
	{ "{ncpv} get -q {host} {port}", { "N", "get", "-q", "H", "P" } },
	{ "x {host}{port}{size}", { "x", "HPS" } },
	{ "{host} {size}", { "H", "S" } },
	{ "x\t{port}\t\t{host}", { "x", "P", "H" } },
};

/* The word a case intends: each of H P S N replaced by its value. */
static void intended(const char *w, const struct method_vars *v, char *out, size_t len)
{
	size_t n = 0;

	for (; *w; w++) {
		const char *val = *w == 'H' ? v->host : *w == 'P' ? v->port : *w == 'S' ? v->size
				  : *w == 'N' ? v->ncpv : NULL;

		n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%s", val ? val : (char[]){ *w, 0 });
	}
	if (n >= len)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size), *vals[3] = { s, "", "" };
	char line[8192], buf[8192], want[4096], bad[32], *words[8];
	size_t nv = 1;

	/* The input's lines (up to three) are the host, port and size. */
	for (char *p = s; *p && nv < 3; p++)
		if (*p == '\n' && p[1] == '\x01') {
			*p = '\0';
			vals[nv++] = p + 2;
			p++;
		}
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct method_vars v = { vals[0], vals[1], vals[2], "3", "/bin/ncpv" };
		int n;

		if (method_expand(cases[c].tmpl, &v, line, sizeof(line), bad, sizeof(bad)) < 0)
			continue; /* too long for the line: refused, never cut */
		n = shq_split(line, buf, sizeof(buf), words, 8);
		for (int k = 0; k < 6 && cases[c].words[k]; k++) {
			if (n <= k)
				abort(); /* fewer words, or something sh would act on */
			intended(cases[c].words[k], &v, want, sizeof(want));
			if (strcmp(words[k], want) != 0)
				abort();
		}
		for (int k = 0; k < 6; k++)
			if (cases[c].words[k] == NULL && n != k)
				abort(); /* more words than meant */
			else if (cases[c].words[k] == NULL)
				break;
	}
	{
		char q[256];
		size_t need = shq_quote(s, q, sizeof(q));

		/* A short buffer is cut, terminated, never overrun. */
		if (need < sizeof(q) && strlen(q) != need)
			abort();
		if (need >= sizeof(q) && strlen(q) != sizeof(q) - 1)
			abort();
	}
	free(s);
	return 0;
}
