/* SPDX-License-Identifier: ISC */
/* test_wrap.c - summaries laid out for a terminal: generated clauses and widths (the seed is
 * printed); joined back they give the one-line text, no line passes the width unless it holds
 * one clause too wide alone, and no line breaks before a clause that would have fitted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "test_random.h"

#include "wrap.h"

static void test_examples(void **state)
{
	const char *c[] = { "received 10485760 B (10.0MiB)", "in 0.012 s = 833MiB/s (6987.5 Mbit/s)", "",
			    "from 127.0.0.1:34693" };
	char buf[256];

	(void)state;
	assert_string_equal(wrap_clauses(buf, sizeof(buf), c, 4, 200),
			    "received 10485760 B (10.0MiB) in 0.012 s = 833MiB/s (6987.5 Mbit/s) from 127.0.0.1:34693");
	assert_string_equal(wrap_clauses(buf, sizeof(buf), c, 4, 80),
			    "received 10485760 B (10.0MiB) in 0.012 s = 833MiB/s (6987.5 Mbit/s)\n  from 127.0.0.1:34693");
	assert_string_equal(wrap_clauses(buf, sizeof(buf), c, 4, 10),
			    "received 10485760 B (10.0MiB)\n  in 0.012 s = 833MiB/s (6987.5 Mbit/s)\n  from 127.0.0.1:34693");
	assert_string_equal(wrap_clauses(buf, 12, c, 4, 80), "received 10");
	assert_string_equal(wrap_s(0), "s");
	assert_string_equal(wrap_s(1), "");
	assert_string_equal(wrap_s(2), "s");
}

static void test_generated(void **state)
{
	unsigned seed = (unsigned)time(NULL);
	char words[12][48], joined[1024], out[2048], back[2048];
	const char *c[12];

	(void)state;
	const char *given = getenv("WRAP_SEED");

	if (given != NULL)
		seed = (unsigned)strtoul(given, NULL, 10);
	printf("test_wrap seed %u (WRAP_SEED=%u to repeat)\n", seed, seed);
	test_seed(seed);
	for (int round = 0; round < 2000; round++) {
		size_t n = (size_t)(test_rand() % 12), width = 1 + (size_t)(test_rand() % 100), j = 0, o = 0;
		int first = 1;

		for (size_t i = 0; i < n; i++) {
			int k = test_rand() % 47;

			for (int x = 0; x < k; x++)
				words[i][x] = (char)('a' + test_rand() % 26);
			words[i][k] = '\0';
			c[i] = words[i];
			if (k > 0)
				j += (size_t)snprintf(joined + j, sizeof(joined) - j, "%s%s", j ? " " : "", words[i]);
		}
		joined[j] = '\0';
		wrap_clauses(out, sizeof(out), c, n, width);
		/* Joined back: the one-line text. */
		for (size_t i = 0; out[i]; i++) {
			if (out[i] == '\n') {
				assert_memory_equal(out + i + 1, WRAP_INDENT, strlen(WRAP_INDENT));
				back[o++] = ' ';
				i += strlen(WRAP_INDENT);
			} else {
				back[o++] = out[i];
			}
		}
		back[o] = '\0';
		assert_string_equal(back, joined);
		/* Each line within the width, or one clause alone (clauses here have no spaces);
		 * a break only where the next clause would not have fitted. */
		for (const char *line = out; line; first = 0) {
			const char *nl = strchr(line, '\n');
			size_t len = nl ? (size_t)(nl - line) : strlen(line);
			size_t skip = first ? 0 : strlen(WRAP_INDENT);

			if (len > width)
				assert_null(memchr(line + skip, ' ', len - skip));
			if (nl) {
				const char *next = nl + 1 + strlen(WRAP_INDENT);

				assert_true(len + 1 + strcspn(next, " \n") > width);
			}
			line = nl ? nl + 1 : NULL;
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_generated),
	};

	return cmocka_run_group_tests_name("wrap", tests, NULL, NULL);
}
