/* SPDX-License-Identifier: ISC */
/* test_recmap.c - the plaintext a peer can hold, from how far a stream of records got. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "recmap.h"

/* A handshake of 300 wire bytes (marked as the server does), then records of 1000 plaintext bytes with 22 bytes each of overhead. */
static void write_records(struct recmap *m, int n, uint64_t *wire, uint64_t *plain)
{
	*wire = 300;
	*plain = 0;
	recmap_mark(m, *wire, *plain); /* the handshake is done: no plaintext yet */
	for (int i = 0; i < n; i++) {
		*wire += 1022;
		*plain += 1000;
		recmap_mark(m, *wire, *plain);
	}
}

static void test_whole_records_on_either_side(void **state)
{
	struct recmap m;
	uint64_t wire, plain;

	(void)state;
	memset(&m, 0, sizeof(m));
	write_records(&m, 10, &wire, &plain);
	/* All of it, none of it, and inside the fourth record (wire 3366 to 4388). */
	assert_int_equal(recmap_at_least(&m, wire, wire, plain), plain);
	assert_int_equal(recmap_at_most(&m, wire, plain), plain);
	assert_int_equal(recmap_at_least(&m, 300, wire, plain), 0);
	assert_int_equal(recmap_at_most(&m, 300, plain), 0);
	assert_int_equal(recmap_at_least(&m, 300 + 4 * 1022 - 10, wire, plain), 3000);
	assert_int_equal(recmap_at_most(&m, 300 + 4 * 1022 - 10, plain), 4000);
	/* Exactly at a record's end: both bounds meet. */
	assert_int_equal(recmap_at_least(&m, 300 + 5 * 1022, wire, plain), 5000);
	assert_int_equal(recmap_at_most(&m, 300 + 5 * 1022, plain), 5000);
}

static void test_past_the_last_mark_a_partial_record_adds_nothing(void **state)
{
	struct recmap m;
	uint64_t wire, plain;

	(void)state;
	memset(&m, 0, sizeof(m));
	write_records(&m, 3, &wire, &plain);
	/* 24 more bytes (close_notify) or half a record written without its plaintext counted. */
	assert_int_equal(recmap_at_least(&m, wire + 24, wire + 24, plain), plain);
	assert_int_equal(recmap_at_most(&m, wire + 10, plain), plain);
}

static void test_marks_dropped_fall_back_to_sound_bounds(void **state)
{
	struct recmap m;
	uint64_t wire, plain, x;

	(void)state;
	memset(&m, 0, sizeof(m));
	write_records(&m, RECMAP_MARKS + 50, &wire, &plain);
	assert_int_equal(m.n, RECMAP_MARKS);
	/* The oldest mark kept is the 51st record's end. */
	/* Below the oldest mark kept: plaintext is never longer than its records. */
	x = 300 + 40 * 1022 + 7;
	assert_int_equal(recmap_at_least(&m, x, wire, plain), plain - (wire - x) - RECMAP_RECORD_MAX);
	assert_true(recmap_at_least(&m, x, wire, plain) <= 40000);
	assert_int_equal(recmap_at_most(&m, x, plain), x); /* 51000, but no more than its wire */
	/* Within the marks kept, exact to the record. */
	x = 300 + 100 * 1022 + 1;
	assert_int_equal(recmap_at_least(&m, x, wire, plain), 100000);
	assert_int_equal(recmap_at_most(&m, x, plain), 101000);
}

static void test_never_more_plaintext_than_wire(void **state)
{
	struct recmap m;

	(void)state;
	memset(&m, 0, sizeof(m));
	assert_int_equal(recmap_at_most(&m, 50, 1000), 50);
	assert_int_equal(recmap_at_least(&m, 50, 100, 100000), 100000 - 50 - RECMAP_RECORD_MAX);
	assert_int_equal(recmap_at_least(&m, 0, 5000, 1000), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_records_on_either_side),
		cmocka_unit_test(test_past_the_last_mark_a_partial_record_adds_nothing),
		cmocka_unit_test(test_marks_dropped_fall_back_to_sound_bounds),
		cmocka_unit_test(test_never_more_plaintext_than_wire),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
