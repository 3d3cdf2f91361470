/* SPDX-License-Identifier: ISC */
/* test_get_side_iv.c - get -i beside the side channel (src/cmd/get_side_iv.c): serve's lines
 * matched to get's by stream and order, over generated interleavings with a printed seed. A
 * serve line never waits once get's line of its index is out (a late one goes out when it
 * comes), at most SIDE_IV_QUEUE wait, each goes out once in order, and their bytes add up to
 * serve's end figure. */
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

#include "cmd/get_side_iv.h"

static unsigned seed_once(void)
{
	static unsigned seed;

	if (seed == 0) {
		seed = test_seed_env();
		print_message("seed %u (NCPV_TEST_SEED=%u reruns it)\n", seed, seed);
	}
	return seed;
}

/* The server_interval lines written so far: how many, their indexes in order, bytes summed. */
struct seen {
	long n, bad_order;
	unsigned long long bytes;
};

static void read_out(FILE *f, struct seen *s)
{
	char line[2048];

	memset(s, 0, sizeof(*s));
	fflush(f);
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		const char *b = strstr(line, "\"bytes\":"), *ix = strstr(line, "\"index\":");

		if (strstr(line, "\"event\":\"server_interval\"") == NULL)
			continue;
		assert_non_null(b);
		assert_non_null(ix);
		if (strtol(ix + 8, NULL, 10) != s->n)
			s->bad_order++;
		s->bytes += strtoull(b + 8, NULL, 10);
		s->n++;
	}
	fseek(f, 0, SEEK_END);
}

static void test_delta(void **state)
{
	struct side_report a = { .ms = 200, .sent = 1000, .received = 7, .retrans = 3, .cwnd = 10 };
	struct side_report b = { .ms = 450, .sent = 5000, .received = 9, .retrans = 5, .cwnd = 20, .final = 1 };
	struct get_interval iv;

	(void)state;
	side_iv_delta(&a, &b, 0, 2, &iv);
	assert_true(iv.bytes == 4000 && iv.tcp.retrans == 2 && iv.tcp.cwnd == 20 && iv.index == 2 && iv.last);
	assert_true(iv.start > 0.199 && iv.start < 0.201 && iv.end > 0.449 && iv.end < 0.451);
	side_iv_delta(&a, &b, 1, 2, &iv);
	assert_true(iv.bytes == 2);
	side_iv_delta(&b, &a, 0, 3, &iv); /* counters that go backwards count 0, not a wrap */
	assert_true(iv.bytes == 0 && iv.tcp.retrans == 0 && iv.end >= iv.start);
}

static void test_matching_generated(void **state)
{
	(void)state;
	test_seed(seed_once());
	for (int round = 0; round < 300; round++) {
		FILE *f = tmpfile();
		struct get_report rp = { .json = 1, .json_out = f, .text_out = f };
		struct side_iv x;
		long gets = 1 + test_rand() % 12, servs = test_rand() % 14, g = 0, k = 0, due;
		struct side_report r = { 0 };
		unsigned long long sent = 0;
		struct seen s;

		assert_non_null(f);
		side_iv_init(&x, &rp, 0, 0);
		/* get's intervals and serve's lines (servs iv lines, then the end line), interleaved. */
		while (g < gets || k <= servs) {
			int take_get = k > servs || (g < gets && test_rand() % 2);
			long before;

			if (take_get) {
				struct get_interval iv = { .stream = 1, .index = g, .last = g + 1 == gets };

				side_iv_get(&x, &iv, 1, NULL);
				g++;
				read_out(f, &s);
			} else {
				read_out(f, &s);
				before = s.n;
				r.stream = 0;
				r.ms += 1 + (uint64_t)(test_rand() % 300);
				r.sent = sent += (unsigned long long)(test_rand() % 100000);
				r.final = k == servs;
				side_iv_server(&x, &r);
				read_out(f, &s);
				/* A line whose get interval is out (or whose stream ended) went out now. */
				if (k < g || g == gets)
					assert_int_equal(s.n, k + 1);
				else
					assert_true(s.n >= before);
				k++;
			}
			/* Never more than the queue's bound waiting; none waiting for a line already out. */
			assert_true(k - s.n <= SIDE_IV_QUEUE);
			due = g == gets || k < g ? k : g; /* serve's lines whose get line is out */
			assert_true(s.n >= due);
			assert_int_equal(s.bad_order, 0);
		}
		side_iv_flush(&x);
		read_out(f, &s);
		assert_int_equal(s.n, servs + 1);
		assert_true(s.bytes == sent);
		side_iv_free(&x);
		fclose(f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_matching_generated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
