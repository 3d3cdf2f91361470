/* SPDX-License-Identifier: ISC */
/* test_get_interval.c - get's interval clock (src/get/interval.c: -i's boundaries, --omit's end,
 * records that add up to the stream) and -P's gather (src/get/gather.c: whole intervals in
 * order, with sums that add up), over generated schedules with a printed seed. */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "test_random.h"

#include "get/gather.h"
#include "get/get_engine.h"

static unsigned seed_once(void)
{
	static unsigned seed;

	if (seed == 0) {
		seed = test_seed_env();
		print_message("seed %u (NCPV_TEST_SEED=%u reruns it)\n", seed, seed);
	}
	return seed;
}

static void test_boundaries_table(void **state)
{
	(void)state;
	assert_true(fabs(get_ival_boundary(0, 1, 0) - 1) < 1e-9);
	assert_true(fabs(get_ival_boundary(1, 1, 0) - 2) < 1e-9);
	assert_true(fabs(get_ival_boundary(0.999999, 1, 0) - 1) < 1e-9);
	/* Through --omit every interval, then omit itself, then every interval from omit. */
	assert_true(fabs(get_ival_boundary(0, 1, 2.5) - 1) < 1e-9);
	assert_true(fabs(get_ival_boundary(2, 1, 2.5) - 2.5) < 1e-9);
	assert_true(fabs(get_ival_boundary(2.5, 1, 2.5) - 3.5) < 1e-9);
	/* --omit without -i: one boundary, at omit. */
	assert_true(fabs(get_ival_boundary(0, 0, 2) - 2) < 1e-9);
	assert_true(get_ival_boundary(2, 0, 2) == 0);
	assert_true(get_ival_boundary(0, 0, 0) == 0);
}

/* A stream of -P that starts 2.5 s after the run's epoch begins inside interval 2, and its
 * first record runs from 2.5 to the shared boundary at 3. */
static void test_late_start(void **state)
{
	struct get_opts o = { .interval = 1, .epoch = 100 };
	struct get_ival iv;
	struct get_interval rec;

	(void)state;
	get_ival_start(&iv, &o, 102.5, 0, NULL);
	assert_int_equal(iv.index, 2);
	assert_true(fabs(iv.next - 103) < 1e-9);
	get_ival_close(&iv, 103.001, 10, NULL, 0, &rec);
	assert_int_equal(rec.index, 2);
	assert_true(fabs(rec.start - 2.5) < 1e-9 && fabs(rec.end - 3.001) < 1e-9);
	assert_true(fabs(iv.next - 104) < 1e-9);
}

/* A stream closed at random times (on time, late, or at an early end): the records are
 * contiguous, add up to the bytes, are omitted exactly while inside --omit, and the omit's
 * end is reported once, at omit. */
static void test_records_generated(void **state)
{
	(void)state;
	test_seed(seed_once());
	for (int round = 0; round < 2000; round++) {
		struct get_opts o = { 0 };
		struct get_ival iv;
		struct get_interval rec;
		double start = 1000 + test_rand() % 1000, end, prev_end = 0;
		uint64_t bytes = 0, sum = 0;
		int omit_ends = 0, n = 0;

		o.interval = (1 + test_rand() % 200) / 100.0;
		o.omit = test_rand() % 3 ? (test_rand() % 500) / 100.0 : 0;
		end = (1 + test_rand() % 1000) / 100.0;
		get_ival_start(&iv, &o, start, 0, NULL);
		while (iv.next > 0 && iv.next - start < end) {
			double late = (test_rand() % 100) / 1e4;
			double now = iv.next + late;
			double b = get_ival_boundary(iv.at, o.interval, o.omit);

			assert_true(fabs(iv.next - start - b) < 1e-9);
			if (now - start >= end)
				break;
			bytes += (uint64_t)(test_rand() % 100000);
			if (get_ival_close(&iv, now, bytes, NULL, 0, &rec)) {
				omit_ends++;
				assert_true(o.omit > 0 && fabs(b - o.omit) < 1e-9);
			}
			assert_true(rec.index == n);
			assert_true(fabs(rec.start - prev_end) < 1e-12);
			assert_true(rec.omitted == (o.omit > 0 && rec.start < o.omit - 1e-6));
			prev_end = rec.end;
			sum += rec.bytes;
			n++;
		}
		bytes += (uint64_t)(test_rand() % 100000);
		get_ival_close(&iv, start + end, bytes, NULL, 1, &rec);
		assert_true(rec.last && rec.index == n && fabs(rec.start - prev_end) < 1e-12);
		assert_true(iv.next == 0);
		sum += rec.bytes;
		assert_true(sum == bytes);
		assert_true(omit_ends <= 1);
	}
}

/* What the gather handed on, for the checks. */
struct seen {
	long calls, next_index, late;
	uint64_t bytes, sum_bytes;
	int bad;
};

static void seen_emit(void *ctx, const struct get_interval *streams, long n, const struct get_interval *sum)
{
	struct seen *s = ctx;
	uint64_t b = 0;

	s->calls++;
	if (sum->index < s->next_index)
		s->late++; /* out of order: a record whose interval went out without it */
	else
		s->next_index = sum->index + 1;
	for (long i = 0; i < n; i++) {
		b += streams[i].bytes;
		if (streams[i].index != sum->index || (i > 0 && streams[i].stream <= streams[i - 1].stream))
			s->bad = 1;
	}
	if (b != sum->bytes || sum->stream != 0)
		s->bad = 1;
	s->bytes += b;
	s->sum_bytes += sum->bytes;
}

/* N streams of different lengths, some beginning late (their first index past 0), put their
 * records in a random interleaving: the bytes handed on are the bytes put, and while no stream
 * runs a ring (8) ahead of another, every interval goes out once, in order. */
static void test_gather_generated(void **state)
{
	(void)state;
	test_seed(seed_once() + 1);
	for (int round = 0; round < 500; round++) {
		long n = 1 + test_rand() % 6, left = n;
		long len[6], put[6] = { 0 }, first[6];
		int ahead = test_rand() % 2; /* may a stream run more than the ring ahead? */
		int done[6] = { 0 };
		uint64_t total = 0;
		struct seen s = { 0 };
		struct gather *g = gather_new(n, seen_emit, &s);

		assert_non_null(g);
		for (long i = 0; i < n; i++) {
			first[i] = test_rand() % 4 == 0 ? test_rand() % 5 : 0; /* a late start */
			len[i] = first[i] + test_rand() % 12; /* no records: a stream that never started */
			put[i] = first[i];
		}
		while (left > 0) {
			long i = test_rand() % n;
			struct get_interval rec = { 0 };

			if (done[i])
				continue;
			if (!ahead) {
				long least = LONG_MAX;

				for (long k = 0; k < n; k++)
					if (!done[k] && put[k] < least)
						least = put[k];
				if (put[i] - least >= 7)
					continue;
			}
			if (put[i] == len[i]) {
				gather_done(g, i + 1);
				done[i] = 1;
				left--;
				continue;
			}
			rec.index = put[i]++;
			rec.bytes = (uint64_t)(test_rand() % 1000);
			rec.last = put[i] == len[i];
			total += rec.bytes;
			gather_put(g, i + 1, &rec);
		}
		gather_free(g);
		assert_false(s.bad);
		assert_true(s.bytes == total && s.sum_bytes == total);
		if (!ahead)
			assert_true(s.late == 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boundaries_table),
		cmocka_unit_test(test_late_start),
		cmocka_unit_test(test_records_generated),
		cmocka_unit_test(test_gather_generated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
