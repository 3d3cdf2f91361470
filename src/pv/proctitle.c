/* SPDX-License-Identifier: ISC */
/* proctitle.c - pv's -x processtitle: the line written over our own argument strings. */
#include "proctitle.h"

#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

void pv_proctitle_init(struct pv_proctitle *t, int argc, char **argv)
{
	char *end;

	t->start = argc > 0 ? argv[0] : NULL;
	t->len = 0;
	if (t->start == NULL)
		return;
	end = argv[0] + strlen(argv[0]);
	/* Only as far as the strings follow one another: past a gap is not ours to write. */
	for (int i = 1; i < argc && argv[i] == end + 1; i++)
		end = argv[i] + strlen(argv[i]);
	t->len = (unsigned long)(end - t->start);
}

void pv_proctitle_set(const struct pv_proctitle *t, const char *text)
{
	size_t n;

	if (t->len < 2)
		return;
	n = (size_t)snprintf(t->start, t->len + 1, "pv -- %s", text);
	if (n < t->len)
		memset(t->start + n, '\0', t->len - n);
	(void)prctl(PR_SET_NAME, "pv", 0, 0, 0); /* the short name: what top shows */
}
