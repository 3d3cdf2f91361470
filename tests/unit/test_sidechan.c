/* SPDX-License-Identifier: ISC */
/* test_sidechan.c - the side channel's lines: generated ones round-trip through writer and
 * parser, every prefix is partial, broken ones are refused, and nothing reads past the input
 * (each parse runs on an exact-size heap copy, so ASan sees any overrun). */
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

#include "sidechan.h"

enum which { HELLO, ANSWER, REPORT };

/* Parse the len bytes of line as which, from an exact-size copy. */
static int parse(enum which w, const char *line, size_t len)
{
	char *copy = malloc(len ? len : 1);
	struct side_hello h;
	struct side_answer a;
	struct side_report r;
	int rc;

	assert_non_null(copy);
	memcpy(copy, line, len);
	rc = w == HELLO ? side_parse_hello(copy, len, &h) :
	     w == ANSWER ? side_parse_answer(copy, len, &a) : side_parse_report(copy, len, &r);
	free(copy);
	return rc;
}

static void random_token(char *t)
{
	for (int i = 0; i < SIDE_TOKEN_LEN; i++)
		t[i] = "0123456789abcdef"[test_rand() % 16];
	t[SIDE_TOKEN_LEN] = '\0';
}

static uint64_t random_u64(void)
{
	switch (test_rand() % 4) {
	case 0:
		return 0;
	case 1:
		return UINT64_MAX - (uint64_t)(test_rand() % 3);
	default:
		return ((uint64_t)test_rand() << 31) ^ (uint64_t)test_rand();
	}
}

/* Each prefix of a good line is partial; the whole is consumed exactly, even with more after. */
static void check_prefixes(enum which w, const char *line, int n)
{
	char more[SIDE_LINE_MAX * 2];
	size_t len;

	assert_true(n > 0 && n < SIDE_LINE_MAX);
	len = (size_t)n;
	for (size_t i = 0; i < len; i++)
		assert_int_equal(parse(w, line, i), SIDE_PARTIAL);
	assert_int_equal(parse(w, line, len), n);
	memcpy(more, line, len);
	memcpy(more + len, "iv 0 0\n", 7);
	assert_int_equal(parse(w, more, len + 7), n);
}

static void test_round_trip_generated(void **state)
{
	unsigned seed = (unsigned)time(NULL);

	(void)state;
	print_message("seed %u\n", seed);
	test_seed(seed);
	for (int round = 0; round < 300; round++) {
		struct side_hello h = { 0 }, h2;
		struct side_answer a = { 0 }, a2;
		struct side_report r = { 0 }, r2;
		char line[SIDE_LINE_MAX];
		int n;

		h.version = 1 + (unsigned)test_rand() % 65535;
		h.role = (enum side_role)(test_rand() % 3);
		random_token(h.token);
		h.interval_ms = test_rand() % 5 ? 10 + (unsigned)test_rand() % 59991 : 0;
		h.streams = 1 + (unsigned)test_rand() % SIDE_MAX_STREAMS;
		h.stream = h.role == SIDE_CTL ? 0 : (unsigned)test_rand() % SIDE_MAX_STREAMS;
		h.rate_bps = h.role == SIDE_CTL && test_rand() % 2 ? SIDE_RATE_MIN + random_u64() % (SIDE_RATE_MAX - SIDE_RATE_MIN + 1) : 0;
		h.ask_size = h.role == SIDE_CTL && test_rand() % 2;
		n = side_format_hello(line, sizeof(line), &h);
		assert_true(n > SIDE_MAGIC_LEN);
		check_prefixes(HELLO, line, n);
		assert_int_equal(side_parse_hello(line, (size_t)n, &h2), n);
		assert_int_equal(h2.version, h.version);
		assert_int_equal(h2.role, h.role);
		assert_string_equal(h2.token, h.token);
		if (h.role == SIDE_CTL) {
			assert_int_equal(h2.interval_ms, h.interval_ms);
			assert_int_equal(h2.streams, h.streams);
			assert_true(h2.rate_bps == h.rate_bps);
			assert_int_equal(h2.ask_size, h.ask_size);
		} else
			assert_int_equal(h2.stream, h.stream);

		a.version = h.version;
		a.ok = test_rand() % 2;
		memcpy(a.token, h.token, sizeof(a.token));
		if (!a.ok)
			snprintf(a.reason, sizeof(a.reason), "%s", test_rand() % 2 ? "busy" : "version");
		else {
			a.rate_bps = h.rate_bps;
			a.has_size = h.ask_size;
			a.size = a.has_size ? random_u64() : 0;
		}
		n = side_format_answer(line, sizeof(line), &a);
		assert_true(n > 0);
		check_prefixes(ANSWER, line, n);
		assert_int_equal(side_parse_answer(line, (size_t)n, &a2), n);
		assert_int_equal(a2.ok, a.ok);
		assert_string_equal(a2.reason, a.reason);
		assert_true(a2.rate_bps == a.rate_bps);
		assert_int_equal(a2.has_size, a.has_size);
		assert_true(a2.size == a.size);

		r.final = test_rand() % 2;
		r.stream = (unsigned)test_rand() % SIDE_MAX_STREAMS;
		r.ms = random_u64();
		r.sent = random_u64();
		r.received = random_u64();
		r.acked = random_u64();
		r.retrans = random_u64();
		r.cwnd = random_u64();
		r.rtt_us = random_u64();
		r.rttvar_us = random_u64();
		r.pacing = random_u64();
		r.delivery = random_u64();
		n = side_format_report(line, sizeof(line), &r);
		assert_true(n > 0);
		check_prefixes(REPORT, line, n);
		assert_int_equal(side_parse_report(line, (size_t)n, &r2), n);
		assert_memory_equal(&r, &r2, sizeof(r));
	}
}

/* Each of tails (after the magic, with tok for its %s) is malformed as which. */
static void all_malformed(enum which w, const char *const *tails, size_t n, const char *tok)
{
	char line[SIDE_LINE_MAX * 2];

	for (size_t i = 0; i < n; i++) {
		int len;

		memcpy(line, SIDE_MAGIC, SIDE_MAGIC_LEN);
		len = snprintf(line + SIDE_MAGIC_LEN, sizeof(line) - SIDE_MAGIC_LEN, tails[i], tok);
		assert_int_equal(parse(w, line, (size_t)len + SIDE_MAGIC_LEN), SIDE_MALFORMED);
	}
}

static void test_bad_hellos(void **state)
{
	static const char tok[] = "0123456789abcdef0123456789abcdef";
	char line[SIDE_LINE_MAX * 2];
	static const char *const tails[] = {
		"1 ctl %s interval=5\n",      /* below 10 ms */
		"1 ctl %s interval=60001\n",  /* above a minute */
		"1 ctl %s streams=0\n",	      /* none */
		"1 ctl %s streams=129\n",     /* too many */
		"1 ctl %s streams=2 streams=3\n", /* twice */
		"1 up %s stream=128\n",	      /* past the last */
		"0 ctl %s\n",		      /* version 0 */
		"65536 ctl %s\n",	      /* past 16 bits */
		"1 side %s\n",		      /* unknown role */
		"1 ctl %s \n",		      /* an empty pair */
		"1  ctl %s\n",		      /* two spaces */
		"1 ctl %s =1\n",	      /* no key */
		"1 ctl %s interval\n",	      /* no value */
		"1 ctl %s interval=1x\n",     /* not a number */
		"1 ctl %s a=1 b=1 c=1 d=1 e=1 f=1 g=1 h=1 i=1\n", /* more than eight pairs */
		"1 ctl %sA\n",		      /* token too long */
		"1 ctl %.31s\n",	      /* token too short */
		"x ctl %s\n",
		"1 ctl %s Key=1\n",	      /* a key not a plain word (upper case) */
		"1 ctl %s k\xe4y=1\n",	      /* ... or not ASCII: random upload bytes */
		"1 ctl %s k-y=1\n",	      /* ... or with punctuation */
		"1 ctl %s key=v\x01\n",	      /* a value not printable */
		"1 ctl %s key=\xff\n",	      /* ... or not ASCII */
		"1 ctl %s rate=0\n",	      /* a rate of nothing */
		"1 ctl %s rate=10000000000001\n", /* past SIDE_RATE_MAX */
		"1 ctl %s rate=1M\n",	      /* bits/s as digits only */
		"1 ctl %s rate=5 rate=5\n",   /* twice */
	};

	(void)state;
	all_malformed(HELLO, tails, sizeof(tails) / sizeof(tails[0]), tok);
	/* Upper-case hex is not a token. */
	memcpy(line, SIDE_MAGIC, SIDE_MAGIC_LEN);
	snprintf(line + SIDE_MAGIC_LEN, sizeof(line) - SIDE_MAGIC_LEN, "%s", "1 ctl 0123456789ABCDEF0123456789abcdef\n");
	assert_int_equal(parse(HELLO, line, SIDE_MAGIC_LEN + 39), SIDE_MALFORMED);
	/* An answer's rate= is an ok's alone, digits within the bound, and nothing after it. */
	{
		static const char *const answers[] = { "1 no %s busy rate=5\n", "1 ok %s rate=0\n",
			"1 ok %s rate=10000000000001\n", "1 ok %s pace=5\n", "1 ok %s rate=5 rate=5\n",
			"1 ok %s rate=\n" };
		struct side_answer a;

		all_malformed(ANSWER, answers, sizeof(answers) / sizeof(answers[0]), tok);
		memcpy(line, SIDE_MAGIC, SIDE_MAGIC_LEN);
		snprintf(line + SIDE_MAGIC_LEN, sizeof(line) - SIDE_MAGIC_LEN, "1 ok %s rate=10000000000000\n", tok);
		assert_true(side_parse_answer(line, strlen(line + SIDE_MAGIC_LEN) + SIDE_MAGIC_LEN, &a) > 0);
		assert_true(a.ok && a.rate_bps == SIDE_RATE_MAX);
	}
	/* Unknown pairs are a newer client's: skipped. */
	memcpy(line, SIDE_MAGIC, SIDE_MAGIC_LEN);
	snprintf(line + SIDE_MAGIC_LEN, sizeof(line) - SIDE_MAGIC_LEN, "2 ctl %s zerocopy=1 interval=100\n", tok);
	assert_true(parse(HELLO, line, strlen(line + SIDE_MAGIC_LEN) + SIDE_MAGIC_LEN) > 0);
}

/* An ok line with tail (after the magic, tok for its %s): the parser's rc and answer. */
static int answer_of(const char *tail, const char *tok, struct side_answer *a)
{
	char line[SIDE_LINE_MAX];
	int len;

	memcpy(line, SIDE_MAGIC, SIDE_MAGIC_LEN);
	len = snprintf(line + SIDE_MAGIC_LEN, sizeof(line) - SIDE_MAGIC_LEN, tail, tok);
	assert_true(len > 0);
	return side_parse_answer(line, (size_t)len + SIDE_MAGIC_LEN, a);
}

/* size= in serve's ok: a decimal number 0..2^64-1 of at most 20 digits (leading zeros
 * included), once, beside rate= in either order; anything else is not an answer. */
static void test_answer_size(void **state)
{
	static const char tok[] = "0123456789abcdef0123456789abcdef";
	static const struct {
		const char *tail;
		uint64_t size;
	} good[] = {
		{ "1 ok %s size=0\n", 0 },
		{ "1 ok %s size=1\n", 1 },
		{ "1 ok %s size=18446744073709551615\n", UINT64_MAX },
		{ "1 ok %s size=00000000000000000042\n", 42 },
		{ "1 ok %s size=10485760 rate=5\n", 10485760 },
		{ "1 ok %s rate=5 size=10485760\n", 10485760 },
	};
	static const char *const bad[] = {
		"1 ok %s size=18446744073709551616\n",	 /* 2^64 */
		"1 ok %s size=99999999999999999999\n",	 /* 20 digits past 2^64 */
		"1 ok %s size=000000000000000000042\n", /* 21 digits, leading zeros or not */
		"1 ok %s size=\n",
		"1 ok %s size=-1\n",
		"1 ok %s size=1M\n",
		"1 ok %s size=0x10\n",
		"1 ok %s size=1 size=1\n",
		"1 ok %s size=1 color=2\n",
		"1 no %s busy size=5\n",
		"1 ok %s size=1  rate=5\n",
	};
	struct side_answer a;
	char line[SIDE_LINE_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_true(answer_of(good[i].tail, tok, &a) > 0);
		assert_true(a.ok && a.has_size && a.size == good[i].size);
	}
	assert_true(answer_of("1 ok %s rate=5 size=7\n", tok, &a) > 0);
	assert_true(a.rate_bps == 5);
	/* Missing: a bare ok knows no size (0 is a size said, not this). */
	assert_true(answer_of("1 ok %s\n", tok, &a) > 0);
	assert_true(a.ok && !a.has_size && a.size == 0);
	assert_true(answer_of("1 ok %s rate=5\n", tok, &a) > 0);
	assert_false(a.has_size);
	all_malformed(ANSWER, bad, sizeof(bad) / sizeof(bad[0]), tok);
	/* The writer: said only on ok, and read back whole at both ends of the range. */
	a = (struct side_answer){ .version = 1, .ok = 1, .has_size = 1, .size = UINT64_MAX };
	memcpy(a.token, tok, sizeof(a.token));
	assert_true(side_format_answer(line, sizeof(line), &a) > 0);
	assert_string_equal(line + SIDE_MAGIC_LEN, "1 ok 0123456789abcdef0123456789abcdef size=18446744073709551615\n");
	a.size = 0;
	a.rate_bps = 8;
	assert_true(side_format_answer(line, sizeof(line), &a) > 0);
	assert_string_equal(line + SIDE_MAGIC_LEN, "1 ok 0123456789abcdef0123456789abcdef rate=8 size=0\n");
	a.has_size = 0;
	a.rate_bps = 0;
	assert_true(side_format_answer(line, sizeof(line), &a) > 0);
	assert_string_equal(line + SIDE_MAGIC_LEN, "1 ok 0123456789abcdef0123456789abcdef\n");
	a = (struct side_answer){ .version = 1, .ok = 0, .has_size = 1, .size = 5 };
	memcpy(a.token, tok, sizeof(a.token));
	snprintf(a.reason, sizeof(a.reason), "busy");
	assert_int_equal(side_format_answer(line, sizeof(line), &a), -1);
}

/* ask=size in a control hello: a comma list of words, of which size is known; others skipped. */
static void test_hello_ask(void **state)
{
	static const char tok[] = "0123456789abcdef0123456789abcdef";
	static const struct {
		const char *tail;
		int ask;
	} cases[] = {
		{ "1 ctl %s interval=0 streams=1 ask=size\n", 1 },
		{ "1 ctl %s ask=future,size interval=0\n", 1 },
		{ "1 ctl %s ask=size,future\n", 1 },
		{ "1 ctl %s ask=future\n", 0 },
		{ "1 ctl %s ask=sizes\n", 0 },
		{ "1 ctl %s interval=0\n", 0 },
	};
	static const char *const bad[] = { "1 ctl %s ask=size ask=size\n", "1 ctl %s ask=Size\n", "1 ctl %s ask=\n" };
	struct side_hello h;
	char line[SIDE_LINE_MAX];
	int len;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(line, SIDE_MAGIC, SIDE_MAGIC_LEN);
		len = snprintf(line + SIDE_MAGIC_LEN, sizeof(line) - SIDE_MAGIC_LEN, cases[i].tail, tok);
		assert_true(side_parse_hello(line, (size_t)len + SIDE_MAGIC_LEN, &h) > 0);
		assert_int_equal(h.ask_size, cases[i].ask);
	}
	all_malformed(HELLO, bad, sizeof(bad) / sizeof(bad[0]), tok);
	h = (struct side_hello){ .version = 1, .role = SIDE_CTL, .streams = 2, .rate_bps = 9000, .ask_size = 1 };
	memcpy(h.token, tok, sizeof(h.token));
	assert_true(side_format_hello(line, sizeof(line), &h) > 0);
	assert_string_equal(line + SIDE_MAGIC_LEN,
			    "1 ctl 0123456789abcdef0123456789abcdef interval=0 streams=2 rate=9000 ask=size\n");
	h.role = SIDE_DOWN; /* only a control hello asks */
	h.rate_bps = 0;
	assert_int_equal(side_format_hello(line, sizeof(line), &h), -1);
}

/* ask='s list, generated: every list of 1 to 4 items drawn from a known word, an unknown one
 * and the empty item. A list with an empty item (",,,", "size,", ",size") is not a hello, as an
 * empty ask= is not; any other asks for size exactly when one item is "size". */
static void test_hello_ask_lists(void **state)
{
	static const char tok[] = "0123456789abcdef0123456789abcdef";
	static const char *const items[] = { "size", "future_2", "" };
	char list[64], line[SIDE_LINE_MAX];
	struct side_hello h;
	int checked = 0, refused = 0;

	(void)state;
	for (int k = 1; k <= 4; k++) {
		int combos = 1;

		for (int i = 0; i < k; i++)
			combos *= 3;
		for (int c = 0; c < combos; c++) {
			int empty = 0, size = 0, len, rc;
			size_t at = 0;

			for (int i = 0, x = c; i < k; i++, x /= 3) {
				at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s", i ? "," : "", items[x % 3]);
				empty |= x % 3 == 2;
				size |= x % 3 == 0;
			}
			memcpy(line, SIDE_MAGIC, SIDE_MAGIC_LEN);
			len = snprintf(line + SIDE_MAGIC_LEN, sizeof(line) - SIDE_MAGIC_LEN, "1 ctl %s interval=0 ask=%s\n",
				       tok, list);
			rc = parse(HELLO, line, (size_t)len + SIDE_MAGIC_LEN);
			if (empty) {
				if (rc != SIDE_MALFORMED)
					fail_msg("ask=%s: taken as a hello (rc %d)", list, rc);
				refused++;
			} else {
				assert_int_equal(side_parse_hello(line, (size_t)len + SIDE_MAGIC_LEN, &h), len + SIDE_MAGIC_LEN);
				assert_int_equal(h.ask_size, size);
			}
			checked++;
		}
	}
	assert_int_equal(checked, 3 + 9 + 27 + 81);
	assert_int_equal(refused, checked - (2 + 4 + 8 + 16));
}

/* rate= at and around its bounds, generated: SIDE_RATE_MIN (a kilobyte a second) to SIDE_RATE_MAX
 * is a paced hello, and the writer writes it; below (1 bit/s was taken) or above, neither. */
static void test_hello_rate_bounds(void **state)
{
	static const char tok[] = "0123456789abcdef0123456789abcdef";
	static const uint64_t edges[] = { 0, SIDE_RATE_MIN, SIDE_RATE_MAX };
	static const int64_t offsets[] = { -2, -1, 0, 1, 2 };
	char line[SIDE_LINE_MAX];
	struct side_hello h;

	(void)state;
	for (size_t e = 0; e < sizeof(edges) / sizeof(edges[0]); e++)
		for (size_t k = 0; k < sizeof(offsets) / sizeof(offsets[0]); k++) {
			uint64_t rate = edges[e] + (uint64_t)offsets[k];
			int ok = rate >= SIDE_RATE_MIN && rate <= SIDE_RATE_MAX, len, rc;

			if (edges[e] == 0 && offsets[k] < 0)
				continue;
			memcpy(line, SIDE_MAGIC, SIDE_MAGIC_LEN);
			len = snprintf(line + SIDE_MAGIC_LEN, sizeof(line) - SIDE_MAGIC_LEN, "1 ctl %s rate=%llu\n", tok,
				       (unsigned long long)rate);
			rc = side_parse_hello(line, (size_t)len + SIDE_MAGIC_LEN, &h);
			if (ok != (rc > 0))
				fail_msg("rate=%llu: parse %d", (unsigned long long)rate, rc);
			if (ok)
				assert_true(h.rate_bps == rate);
			h = (struct side_hello){ .version = 1, .role = SIDE_CTL, .streams = 1, .rate_bps = rate };
			memcpy(h.token, tok, sizeof(h.token));
			if (ok != (side_format_hello(line, sizeof(line), &h) > 0) && rate != 0)
				fail_msg("rate=%llu: written as a hello: %d", (unsigned long long)rate, !ok);
		}
}

/* What raw clients send first is never a hello, and is recognised as such from its first byte. */
static void test_raw_clients_not_hellos(void **state)
{
	static const char *const firsts[] = { "GET / HTTP/1.1\r\n", "hello\n", "\n", "\x16\x03\x01", "ncpv-side 1 ctl" };

	(void)state;
	for (size_t i = 0; i < sizeof(firsts) / sizeof(firsts[0]); i++) {
		assert_int_equal(side_maybe_hello(firsts[i], strlen(firsts[i])), 0);
		assert_int_equal(parse(HELLO, firsts[i], strlen(firsts[i])), SIDE_MALFORMED);
	}
	assert_int_equal(side_maybe_hello("", 0), 1); /* nothing yet: could still be */
	assert_int_equal(side_maybe_hello(SIDE_MAGIC, 4), 1);
}

/* A line that never ends is refused once SIDE_LINE_MAX bytes have come, not waited on. */
static void test_bounded(void **state)
{
	static char big[SIDE_LINE_MAX + 10];

	(void)state;
	memset(big, '1', sizeof(big));
	memcpy(big, SIDE_MAGIC, SIDE_MAGIC_LEN);
	assert_int_equal(parse(HELLO, big, SIDE_LINE_MAX - 1), SIDE_PARTIAL);
	assert_int_equal(parse(HELLO, big, SIDE_LINE_MAX), SIDE_MALFORMED);
	assert_int_equal(parse(HELLO, big, sizeof(big)), SIDE_MALFORMED);
	memcpy(big, "iv 1 ", 5);
	assert_int_equal(parse(REPORT, big, SIDE_LINE_MAX), SIDE_MALFORMED);
	big[SIDE_LINE_MAX] = '\n'; /* the newline just past the bound: still too long */
	assert_int_equal(parse(REPORT, big, sizeof(big)), SIDE_MALFORMED);
}

static void test_report_edges(void **state)
{
	struct side_report r;

	(void)state;
	assert_int_equal(side_parse_report("iv 3 100 acked=5 future=7\n", 26, &r), 26);
	assert_int_equal(r.acked, 5);
	assert_int_equal(r.stream, 3);
	assert_int_equal(side_parse_report("iv 3 100\n", 9, &r), 9);
	assert_int_equal(side_parse_report("iv 3 100 acked=18446744073709551616\n", 36, &r), SIDE_MALFORMED);
	assert_int_equal(side_parse_report("iv 128 100\n", 11, &r), SIDE_MALFORMED);
	assert_int_equal(side_parse_report("ix 1 100\n", 9, &r), SIDE_MALFORMED);
	assert_int_equal(side_parse_report("iv 1 100 acked=-1\n", 18, &r), SIDE_MALFORMED);
	assert_int_equal(side_parse_report("iv 1\n", 5, &r), SIDE_MALFORMED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_generated),
		cmocka_unit_test(test_bad_hellos),
		cmocka_unit_test(test_answer_size),
		cmocka_unit_test(test_hello_ask),
		cmocka_unit_test(test_hello_ask_lists),
		cmocka_unit_test(test_hello_rate_bounds),
		cmocka_unit_test(test_raw_clients_not_hellos),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_report_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
