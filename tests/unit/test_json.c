/* SPDX-License-Identifier: ISC */
/* test_json.c - the JSON writer: commas and nesting, every byte's escape, numbers without NaN,
 * and a caller's buffer cut at every length reported, never overrun. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "json.h"

/* One document using every kind of value, at several depths. */
static void write_doc(struct json *j)
{
	json_object(j, NULL);
	json_string(j, "event", "close");
	json_string(j, "peer", "a\"b\\c\n");
	json_uint(j, "sent", 18446744073709551615ull);
	json_int(j, "delta", -5);
	json_fixed(j, "seconds", 1.5, 6);
	json_fixed(j, "rate", 1234.5678, 0);
	json_general(j, "ratio", 2.0 / 3, 6);
	json_bool(j, "ok", 1);
	json_array(j, "samples");
	for (int i = 0; i < 3; i++) {
		json_array(j, NULL);
		json_fixed(j, NULL, i * 0.1, 3);
		json_uint(j, NULL, (unsigned long long)i * 1000);
		json_end(j);
	}
	json_end(j);
	json_object(j, "empty");
	json_end(j);
	json_string(j, "none", NULL);
	json_end(j);
	json_raw(j, "\n");
}

static const char doc_text[] =
	"{\"event\":\"close\",\"peer\":\"a\\\"b\\\\c\\u000a\",\"sent\":18446744073709551615,\"delta\":-5,"
	"\"seconds\":1.500000,\"rate\":1235,\"ratio\":0.666667,\"ok\":true,"
	"\"samples\":[[0.000,0],[0.100,1000],[0.200,2000]],\"empty\":{},\"none\":\"\"}\n";

static void test_document(void **state)
{
	char buf[512];
	struct json j;

	(void)state;
	json_init(&j, buf, sizeof(buf));
	write_doc(&j);
	assert_int_equal(json_status(&j), 0);
	assert_string_equal(json_text(&j), doc_text);
	assert_ptr_equal(json_text(&j), buf);
}

static void test_grow_gives_the_same_text(void **state)
{
	struct json j;

	(void)state;
	json_init_grow(&j);
	for (int i = 0; i < 200; i++)
		write_doc(&j);
	assert_int_equal(json_status(&j), 0);
	assert_int_equal(strlen(json_text(&j)), 200 * strlen(doc_text));
	for (int i = 0; i < 200; i++)
		assert_memory_equal(json_text(&j) + i * strlen(doc_text), doc_text, strlen(doc_text));
	json_free(&j);
}

/* Every cap from 0 to past the end: complete exactly when it fits, else a NUL-terminated prefix;
 * nothing past cap is touched (a guard byte after it). */
static void test_every_buffer_size(void **state)
{
	size_t full = strlen(doc_text);
	char *buf = malloc(full + 8);

	(void)state;
	assert_non_null(buf);
	for (size_t cap = 0; cap <= full + 4; cap++) {
		struct json j;

		memset(buf, 'Z', full + 8);
		json_init(&j, buf, cap);
		write_doc(&j);
		assert_int_equal(buf[cap], 'Z');
		if (cap > full) {
			assert_int_equal(json_status(&j), 0);
			assert_string_equal(buf, doc_text);
		} else {
			assert_int_equal(json_status(&j), -1);
			if (cap > 0) {
				assert_true(strlen(buf) < cap);
				assert_memory_equal(buf, doc_text, strlen(buf));
			}
		}
	}
	free(buf);
}

static void test_every_byte_escapes(void **state)
{
	(void)state;
	for (int c = 1; c < 256; c++) {
		char in[2] = { (char)c, '\0' }, out[32], want[32];
		struct json j;

		json_init(&j, out, sizeof(out));
		json_string(&j, NULL, in);
		assert_int_equal(json_status(&j), 0);
		if (c == '"' || c == '\\')
			snprintf(want, sizeof(want), "\"\\%c\"", c);
		else if (c < 0x20)
			snprintf(want, sizeof(want), "\"\\u%04x\"", c);
		else
			snprintf(want, sizeof(want), "\"%c\"", c);
		assert_string_equal(out, want);
	}
}

static void test_no_nan_or_infinity(void **state)
{
	char buf[512];
	struct json j;

	(void)state;
	json_init(&j, buf, sizeof(buf));
	json_array(&j, NULL);
	json_fixed(&j, NULL, NAN, 3);
	json_general(&j, NULL, INFINITY, 6);
	json_fixed(&j, NULL, -INFINITY, 0);
	json_fixed(&j, NULL, 1e300, 0);
	json_end(&j);
	assert_int_equal(json_status(&j), 0);
	assert_int_equal(strncmp(buf, "[0.000,0,0,1", 12), 0);
	assert_int_equal(buf[strlen(buf) - 1], ']');
}

static void test_unbalanced_is_incomplete(void **state)
{
	char buf[256];
	struct json j;

	(void)state;
	json_init(&j, buf, sizeof(buf));
	json_object(&j, NULL);
	assert_int_equal(json_status(&j), -1); /* still open */
	json_end(&j);
	assert_int_equal(json_status(&j), 0);
	json_end(&j); /* one end too many */
	assert_int_equal(json_status(&j), -1);
	json_init(&j, buf, sizeof(buf));
	for (int i = 0; i <= JSON_DEPTH; i++)
		json_array(&j, NULL);
	assert_int_equal(json_status(&j), -1);
	assert_true(strlen(buf) <= JSON_DEPTH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_document),
		cmocka_unit_test(test_grow_gives_the_same_text),
		cmocka_unit_test(test_every_buffer_size),
		cmocka_unit_test(test_every_byte_escapes),
		cmocka_unit_test(test_no_nan_or_infinity),
		cmocka_unit_test(test_unbalanced_is_incomplete),
	};

	return cmocka_run_group_tests_name("json", tests, NULL, NULL);
}
