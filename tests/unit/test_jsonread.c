/* SPDX-License-Identifier: ISC */
/* test_jsonread.c - the JSON reader: every kind of value, escapes and surrogate
 * pairs, each malformed input refused with its offset, every prefix of a
 * valid document refused, and a depth bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "jsonread.h"

static const char doc[] =
	"{\"ncpv\":\"0.1.0\",\"n\":-1.5e3,\"t\":true,\"f\":false,\"z\":null,\"a\":[1,[2,{}],[]],"
	"\"s\":\"q\\\"\\\\\\/\\b\\f\\n\\r\\t \\u00e9 \\u20ac \\ud83d\\ude00 \\ud800x \\u0000end\"}";

static void test_values_and_escapes(void **state)
{
	struct jvalue *v;
	char err[128];
	const struct jvalue *a;

	(void)state;
	assert_int_equal(jv_parse(doc, strlen(doc), &v, err, sizeof(err)), 0);
	assert_string_equal(jv_string(v, "ncpv", ""), "0.1.0");
	assert_true(jv_number(v, "n", 0) == -1500);
	assert_int_equal(jv_get(v, "t")->type, JV_TRUE);
	assert_int_equal(jv_get(v, "f")->type, JV_FALSE);
	assert_int_equal(jv_get(v, "z")->type, JV_NULL);
	a = jv_get(v, "a");
	assert_int_equal(a->n, 3);
	assert_int_equal(a->items[1].items[1].type, JV_OBJECT);
	assert_string_equal(jv_string(v, "s", ""),
			    "q\"\\/\b\f\n\r\t \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xef\xbf\xbdx \xef\xbf\xbd" "end");
	assert_null(jv_get(v, "missing"));
	assert_true(jv_number(v, "ncpv", 7) == 7);
	jv_free(v);
}

static void test_malformed_is_refused_with_the_offset(void **state)
{
	static const struct {
		const char *text, *err;
	} bad[] = {
		{ "", "offset 0: expected a value" },
		{ "[1,]", "offset 3: expected a value" },
		{ "{\"a\" 1}", "offset 5: expected ':'" },
		{ "{1:2}", "offset 1: expected a key" },
		{ "\"abc", "offset 4: unterminated string" },
		{ "\"a\tb\"", "offset 3: control character in a string" },
		{ "\"\\x\"", "offset 3: bad escape in a string" },
		{ "\"\\u12g4\"", "offset 5: bad \\u escape" },
		{ "1 2", "offset 2: text after the value" },
		{ "tru", "offset 0: expected a value" },
		{ "1e", "offset 0: bad number" },
		{ "01", "offset 0: bad number (a leading zero)" },
		{ "-", "offset 0: bad number" },
		{ "1.", "offset 0: bad number" },
		{ "1.e5", "offset 0: bad number" },
		{ "1e+", "offset 0: bad number" },
		{ ".5", "offset 0: expected a value" },
		{ "+1", "offset 0: expected a value" },
		{ "[-01]", "offset 1: bad number (a leading zero)" },
		{ "{\"runs_ok\": 1e400}", "offset 12: number out of range (beyond 1.8e308) in \"runs_ok\"" },
		{ "{\"a\": [1, -2e999]}", "offset 10: number out of range (beyond 1.8e308) in \"a\"" },
	};
	struct jvalue *v;
	char err[128];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(jv_parse(bad[i].text, strlen(bad[i].text), &v, err, sizeof(err)), -1);
		assert_null(v);
		assert_string_equal(err, bad[i].err);
	}
}

static void test_every_prefix_is_refused_and_depth_is_bounded(void **state)
{
	char deep[JV_MAX_DEPTH + 8], err[128];
	struct jvalue *v;

	(void)state;
	for (size_t n = 0; n < strlen(doc); n++) {
		char *copy = malloc(n + 1);

		memcpy(copy, doc, n);
		assert_int_equal(jv_parse(copy, n, &v, err, sizeof(err)), -1);
		free(copy);
	}
	memset(deep, '[', sizeof(deep));
	assert_int_equal(jv_parse(deep, sizeof(deep), &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "nested too deep"));
}

/* Any valid number is read whatever its length; only a value beyond a
 * double is refused, and it names its member. */
static void test_numbers_of_any_length(void **state)
{
	char text[1200], err[128];
	struct jvalue *v;
	size_t n;

	(void)state;
	/* 1 and 300 zeros: 1e300, in range, far longer than any fixed buffer. */
	n = (size_t)snprintf(text, sizeof(text), "{\"runs_ok\": 1%0300d}", 0);
	assert_int_equal(jv_parse(text, n, &v, err, sizeof(err)), 0);
	assert_true(jv_number(v, "runs_ok", 0) > 0.99e300 && jv_number(v, "runs_ok", 0) < 1.01e300);
	jv_free(v);
	/* 1 and 400 zeros after the point, and in the exponent's place. */
	n = (size_t)snprintf(text, sizeof(text), "{\"runs_ok\": 1.%0400d, \"e\": 1e%0400d1}", 0, 0);
	assert_int_equal(jv_parse(text, n, &v, err, sizeof(err)), 0);
	assert_true(jv_number(v, "runs_ok", 0) == 1);
	assert_true(jv_number(v, "e", 0) == 10);
	jv_free(v);
	/* Too small to tell from 0 reads as 0 (or a subnormal), as every reader does. */
	n = (size_t)snprintf(text, sizeof(text), "[1e-400, -0.%0400d1]", 0);
	assert_int_equal(jv_parse(text, n, &v, err, sizeof(err)), 0);
	assert_true(v->items[0].number == 0 && v->items[1].number == 0);
	jv_free(v);
	/* 1 and 400 zeros is 1e400: valid JSON, but no double holds it. */
	n = (size_t)snprintf(text, sizeof(text), "{\"runs_ok\": 1%0400d}", 0);
	assert_int_equal(jv_parse(text, n, &v, err, sizeof(err)), -1);
	assert_null(v);
	assert_string_equal(err, "offset 12: number out of range (beyond 1.8e308) in \"runs_ok\"");
}

/* jv_parse_keep holds only the listed members, and accepts and refuses
 * exactly what jv_parse does, on the document and every prefix of it. */
static void test_keep_holds_only_listed_members(void **state)
{
	static const char *const keep[] = { "a", "s", "key", NULL };
	static const char text[] = "{\"a\":[1,{\"s\":\"x\",\"drop\":[1,2,{\"s\":1}]},{\"drop\":1}],"
				   "\"drop\":{\"a\":1},\"k\\u0065y\":true,\"s\":\"y\"}";
	char err[128], err2[128];
	struct jvalue *v, *w;
	const struct jvalue *a;

	(void)state;
	assert_int_equal(jv_parse_keep(text, strlen(text), keep, &v, err, sizeof(err)), 0);
	assert_int_equal(v->n, 3);
	a = jv_get(v, "a");
	assert_int_equal(a->n, 3);
	assert_int_equal(a->items[1].n, 1);
	assert_string_equal(jv_string(&a->items[1], "s", ""), "x");
	assert_int_equal(a->items[2].n, 0);
	assert_null(jv_get(v, "drop"));
	assert_int_equal(jv_get(v, "key")->type, JV_TRUE);
	assert_string_equal(jv_string(v, "s", ""), "y");
	jv_free(v);
	for (size_t n = 0; n <= strlen(doc); n++) {
		int full = jv_parse(doc, n, &v, err, sizeof(err)), some = jv_parse_keep(doc, n, keep, &w, err2, sizeof(err2));

		assert_int_equal(full, some);
		if (full < 0)
			assert_string_equal(err, err2);
		jv_free(v);
		jv_free(w);
	}
}

/* A container whose closing bracket is the other kind ([} or {]) fooled the item count, and the
 * reader that keeps a member then said "expected ']'" where the one that drops it said "expected
 * a value" (fuzz_jsonread in CI). Generated: openers x closers x insides x where it sits (kept,
 * dropped, in an array, at the top); both readers must agree, text and error. */
static void test_miscounted_containers_fail_alike(void **state)
{
	static const char *const keep[] = { "a", NULL };
	static const char *const opens[] = { "[", "{" }, *const closes[] = { "]", "}" };
	static const char *const insides[] = { "", " ", "1", "1,", ",", "\"k\":", "\"k\":1", "\"k\":1,", "[", "{}", "[]," };
	static const char *const wraps[] = { "{\"a\": %s}", "{\"drop\": %s, \"a\": 1}", "[%s]", "%s", "{\"a\": [1, %s]}" };
	int cases = 0;

	(void)state;
	for (size_t o = 0; o < 2; o++)
		for (size_t c = 0; c < 2; c++)
			for (size_t i = 0; i < sizeof(insides) / sizeof(*insides); i++)
				for (size_t w = 0; w < sizeof(wraps) / sizeof(*wraps); w++) {
					char inner[64], text[160], err[128], err2[128];
					struct jvalue *v = NULL, *x = NULL;
					int full, some;

					snprintf(inner, sizeof(inner), "%s%s%s", opens[o], insides[i], closes[c]);
					snprintf(text, sizeof(text), wraps[w], inner);
					full = jv_parse(text, strlen(text), &v, err, sizeof(err));
					some = jv_parse_keep(text, strlen(text), keep, &x, err2, sizeof(err2));
					if (full != some || (full < 0 && strcmp(err, err2) != 0))
						fail_msg("%s: jv_parse %d '%s', jv_parse_keep %d '%s'", text, full,
							 full < 0 ? err : "", some, some < 0 ? err2 : "");
					jv_free(v);
					jv_free(x);
					cases++;
				}
	assert_int_equal(cases, 220);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values_and_escapes),
		cmocka_unit_test(test_malformed_is_refused_with_the_offset),
		cmocka_unit_test(test_every_prefix_is_refused_and_depth_is_bounded),
		cmocka_unit_test(test_numbers_of_any_length),
		cmocka_unit_test(test_keep_holds_only_listed_members),
		cmocka_unit_test(test_miscounted_containers_fail_alike),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
