/* SPDX-License-Identifier: ISC */
/* test_termsafe.c - the one escaping of untrusted text for a terminal: a table
 * of every class of byte (printable, C0, DEL, C1, bidi, bad UTF-8), the issue's
 * title-setting method name, cuts at every buffer size, and random bytes whose
 * rendering never holds a control byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "termsafe.h"

static void test_each_class_of_byte(void **state)
{
	static const struct {
		const char *in;
		size_t len;
		const char *out;
	} table[] = {
		{ "plain text 123", 14, "plain text 123" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
		{ "a\\b", 3, "a\\\\b" },
		{ "\n\r\t\x1b", 4, "\\n\\r\\t\\e" },
		{ "\x01\x07\x08\x7f", 4, "\\x01\\x07\\x08\\x7F" },
		{ "x\0y", 3, "x\\x00y" },
		{ "\xc2\x80\xc2\x9b\xc2\x9f\xc2\xa0", 8, "\\u0080\\u009B\\u009F\xc2\xa0" },
		/* NOLINTNEXTLINE(misc-misleading-bidirectional): the overrides are the input under test */
		{ "\xe2\x80\xae\xe2\x81\xa6\xe2\x80\xa8", 9, "\\u202E\\u2066\\u2028" },
		{ "\xff\xfe", 2, "\\xFF\\xFE" },
		{ "\xc0\xaf", 2, "\\xC0\\xAF" },			/* overlong '/' */
		{ "\xed\xa0\x80", 3, "\\xED\\xA0\\x80" },		/* a surrogate */
		{ "\xf4\x90\x80\x80", 4, "\\xF4\\x90\\x80\\x80" },	/* past U+10FFFF */
		{ "\xe2\x82", 2, "\\xE2\\x82" },			/* cut short */
		{ "\x9b" "2J", 3, "\\x9B2J" },				/* a raw C1 byte */
	};
	char buf[128];

	(void)state;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		size_t need = termsafe(buf, sizeof(buf), table[i].in, table[i].len);

		assert_string_equal(buf, table[i].out);
		assert_int_equal(need, strlen(table[i].out));
	}
}

/* Issue 22: a method name that set the title, cleared the screen and forged a line. */
static void test_the_issues_method_name(void **state)
{
	char buf[256];

	(void)state;
	assert_string_equal(termsafe_str(buf, sizeof(buf), "ncpv\x1b]0;owned\x07\x1b[2J\r\nFAKE LINE"),
			    "ncpv\\e]0;owned\\x07\\e[2J\\r\\nFAKE LINE");
	assert_string_equal(termsafe_str(buf, sizeof(buf), NULL), "(null)");
}

/* A buffer too small ends between whole pieces, NUL-terminated, and the
 * return value says how much was needed. */
static void test_cut_short_between_pieces(void **state)
{
	static const char in[] = "a\x1b\xc3\xa9\xff" "b";
	char full[64], buf[64];
	size_t need = termsafe(full, sizeof(full), in, sizeof(in) - 1);

	(void)state;
	assert_string_equal(full, "a\\e\xc3\xa9\\xFFb");
	for (size_t size = 0; size <= need + 1; size++) {
		memset(buf, 'Z', sizeof(buf));
		assert_int_equal(termsafe(buf, size, in, sizeof(in) - 1), need);
		if (size == 0) {
			assert_int_equal(buf[0], 'Z');
			continue;
		}
		assert_true(strlen(buf) < size);
		assert_memory_equal(buf, full, strlen(buf));
		/* Only at a boundary: "a", "a\e", "a\eé", "a\eé\xFF", all of it. */
		assert_true((strlen(buf) == 0 || strlen(buf) == 1 || strlen(buf) == 3 ||
						strlen(buf) == 5 || strlen(buf) == 9 || strlen(buf) == 10));
	}
}

/* xorshift32: the same bytes for a seed everywhere (rand() is libc's own). */
static uint32_t next_random(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* Random bytes (seeded): the rendering is printable or UTF-8 of 0xa0 up, never
 * a control byte, and at most four times as long. */
static void test_random_bytes_render_without_controls(void **state)
{
	const char *given = getenv("TERMSAFE_SEED");
	uint32_t seed = given != NULL ? (uint32_t)strtoul(given, NULL, 10) : 22, x = seed | 1;
	char in[64], buf[4 * sizeof(in) + 1];

	(void)state;
	for (int round = 0; round < 20000; round++) {
		size_t len = (size_t)next_random(&x) % sizeof(in), need;

		for (size_t i = 0; i < len; i++)
			in[i] = (char)(next_random(&x) & 0xff);
		need = termsafe(buf, sizeof(buf), in, len);
		assert_true(need <= 4 * len);
		assert_int_equal(strlen(buf), need);
		for (size_t i = 0; i < need; i++) {
			unsigned char c = (unsigned char)buf[i];

			if (c < 0x20 || c == 0x7f) {
				fprintf(stderr, "seed %u round %d: control byte 0x%02x at %zu\n", seed, round, c, i);
				fail();
			}
			/* A C1 control as UTF-8 (c2 80..9f) never passes through. */
			if (c == 0xc2 && i + 1 < need && (unsigned char)buf[i + 1] < 0xa0) {
				fprintf(stderr, "seed %u round %d: C1 control at %zu\n", seed, round, i);
				fail();
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_class_of_byte),
		cmocka_unit_test(test_the_issues_method_name),
		cmocka_unit_test(test_cut_short_between_pieces),
		cmocka_unit_test(test_random_bytes_render_without_controls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
