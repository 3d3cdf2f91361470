/* SPDX-License-Identifier: ISC */
/* test_link_sched.c - the link's schedule: exact rate, delay, drop-tail queue, loss and jitter. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "link/sched.h"

#define MS 1000000LL
#define SEC 1000000000LL

static struct link_slot ring[LINK_QUEUE_MAX];

static void start(struct link_sched *s, uint64_t rate, int64_t delay, uint32_t qp, uint64_t qb)
{
	struct link_params p = { .bits_per_s = rate, .delay_ns = delay, .queue_packets = qp, .queue_bytes = qb };

	link_sched_init(s, &p, 1, ring, LINK_QUEUE_MAX);
}

static void test_back_to_back_packets_leave_one_transmission_time_apart(void **state)
{
	struct link_sched s;
	int64_t t;

	(void)state;
	/* 1500 bytes at 12 Mbit/s: exactly 1 ms each, then 20 ms of delay. */
	start(&s, 12000000, 20 * MS, 100, 0);
	for (int k = 1; k <= 50; k++) {
		assert_int_equal(link_sched_admit(&s, 0, 1500, &t), 0);
		assert_true(t == k * MS + 20 * MS);
	}
}

static void test_rate_is_exact_over_a_long_run_at_an_awkward_rate(void **state)
{
	/* 999983 bit/s does not divide a packet's bits: the remainder is
	 * carried, so 100000 packets end within a nanosecond of the exact time. */
	const uint64_t rate = 999983;
	struct link_sched s;
	int64_t t = 0, now = 0;
	long double exact;

	(void)state;
	start(&s, rate, 0, LINK_QUEUE_MAX, 0);
	for (int k = 0; k < 100000; k++) {
		assert_int_equal(link_sched_admit(&s, now, 1000, &t), 0);
		now = t - 1000 * MS > now ? t - 1000 * MS : now; /* keep the queue short of full */
	}
	exact = 100000.0L * 1000 * 8 * 1e9L / rate;
	assert_true(fabsl((long double)t - exact) <= 1);
}

static void test_an_idle_link_sends_at_once_and_keeps_no_credit(void **state)
{
	struct link_sched s;
	int64_t t;

	(void)state;
	start(&s, 8000000, 5 * MS, 10, 0); /* 1000 bytes: 1 ms */
	assert_int_equal(link_sched_admit(&s, 0, 1000, &t), 0);
	assert_true(t == 1 * MS + 5 * MS);
	/* Idle for a second: the next one is not sent early, nor late. */
	assert_int_equal(link_sched_admit(&s, SEC, 1000, &t), 0);
	assert_true(t == SEC + 1 * MS + 5 * MS);
	assert_int_equal(link_sched_admit(&s, SEC, 1000, &t), 0);
	assert_true(t == SEC + 2 * MS + 5 * MS);
}

static void test_no_rate_means_only_the_delay(void **state)
{
	struct link_sched s;
	int64_t t;

	(void)state;
	start(&s, 0, 7 * MS, 0, 0);
	for (int64_t k = 0; k < 1000; k++) {
		assert_int_equal(link_sched_admit(&s, k * 10, 65535, &t), 0);
		assert_true(t == k * 10 + 7 * MS);
	}
	assert_int_equal(s.n.overflow, 0);
}

/* A small seeded generator for the test's own schedules (xorshift64). */
static uint64_t draw(uint64_t *x, uint64_t below)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x % below;
}

/* Offer packets (sizes and gaps from a seeded generator) and check the
 * queue never holds more than its limits, drops only when full, and,
 * without jitter, nothing is ever reordered. */
static void random_schedule(uint32_t qp, uint64_t qb, unsigned seed)
{
	struct link_sched s;
	int64_t now = 0, t, last = 0;
	uint64_t accepted = 0;

	uint64_t x = 0x9e3779b97f4a7c15ULL * seed;

	start(&s, 10000000, 3 * MS, qp, qb);
	for (int k = 0; k < 20000; k++) {
		uint32_t size = 40 + (uint32_t)draw(&x, 1461);
		uint32_t before;
		uint64_t bytes_before;
		int rc;

		now += draw(&x, 3) == 0 ? (int64_t)draw(&x, 2 * MS) : 0; /* bursts, then gaps */
		before = link_sched_queued(&s, now);
		bytes_before = s.queued_bytes;
		rc = link_sched_admit(&s, now, size, &t);
		if (rc == LINK_SCHED_OVERFLOW) {
			/* Dropped only when it would not have fit. */
			assert_true(before > 0);
			assert_true((qp && before >= qp) || (qb && bytes_before + size > qb));
			continue;
		}
		assert_int_equal(rc, 0);
		accepted++;
		assert_true(t >= last);
		last = t;
		assert_true(!qp || link_sched_queued(&s, now) <= qp);
		assert_true(!qb || s.queued_bytes <= qb || s.count == 1);
	}
	assert_true(accepted > 1000);
	assert_true(s.n.overflow > 100); /* the offered load was enough to fill it */
}

static void test_random_schedules_respect_a_queue_in_packets(void **state)
{
	(void)state;
	for (unsigned seed = 1; seed <= 5; seed++)
		random_schedule(1 + seed * 7, 0, seed);
}

static void test_random_schedules_respect_a_queue_in_bytes(void **state)
{
	(void)state;
	for (unsigned seed = 1; seed <= 5; seed++)
		random_schedule(0, 1500 + seed * 5000, seed);
}

static void test_a_burst_into_a_queue_of_ten_keeps_ten(void **state)
{
	struct link_sched s;
	int64_t t;
	int kept = 0;

	(void)state;
	start(&s, 1000000, 0, 10, 0);
	for (int k = 0; k < 100; k++)
		kept += link_sched_admit(&s, 0, 1500, &t) == 0;
	assert_int_equal(kept, 10);
	assert_int_equal(s.n.overflow, 90);
	assert_int_equal(s.n.max_queue, 10);
	/* Once the first has left (12 ms at 1 Mbit/s), one more fits. */
	assert_int_equal(link_sched_admit(&s, 12 * MS - 1, 1500, &t), LINK_SCHED_OVERFLOW);
	assert_int_equal(link_sched_admit(&s, 12 * MS, 1500, &t), 0);
}

static void test_loss_rate_falls_in_its_binomial_interval_and_replays(void **state)
{
	static const double rates[] = { 0.001, 0.01, 0.1, 0.5 };
	const int n = 200000;

	(void)state;
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		struct link_params p = { .loss = rates[i] };
		struct link_sched a, b;
		int64_t t;
		double sd = sqrt(n * rates[i] * (1 - rates[i]));
		int same = 1;

		link_sched_init(&a, &p, 42 + i, ring, 1);
		link_sched_init(&b, &p, 42 + i, ring, 1);
		for (int k = 0; k < n; k++)
			same &= link_sched_admit(&a, k, 100, &t) == link_sched_admit(&b, k, 100, &t);
		/* 4.5 standard deviations: a false failure once in ~150000 seeds. */
		assert_true(fabs((double)a.n.lost - n * rates[i]) <= 4.5 * sd);
		assert_true(same);
	}
}

static void test_loss_of_zero_and_of_everything(void **state)
{
	struct link_params none = { .loss = 0 }, all = { .loss = 1 };
	struct link_sched s;
	int64_t t;

	(void)state;
	link_sched_init(&s, &none, 7, ring, 1);
	for (int k = 0; k < 10000; k++)
		assert_int_equal(link_sched_admit(&s, k, 100, &t), 0);
	link_sched_init(&s, &all, 7, ring, 1);
	for (int k = 0; k < 10000; k++)
		assert_int_equal(link_sched_admit(&s, k, 100, &t), LINK_SCHED_LOST);
}

static void test_jitter_stays_in_its_window_and_averages_to_the_delay(void **state)
{
	struct link_params p = { .delay_ns = 20 * MS, .jitter_ns = 5 * MS };
	struct link_sched s;
	int64_t t, prev = 0, lo = INT64_MAX, hi = 0;
	double sum = 0;
	int reordered = 0;
	const int n = 100000;

	(void)state;
	link_sched_init(&s, &p, 3, ring, 1);
	for (int k = 0; k < n; k++) {
		int64_t now = (int64_t)k * 100000; /* every 0.1 ms */

		assert_int_equal(link_sched_admit(&s, now, 100, &t), 0);
		lo = t - now < lo ? t - now : lo;
		hi = t - now > hi ? t - now : hi;
		sum += (double)(t - now);
		reordered += t < prev;
		prev = t;
	}
	assert_true(lo >= 15 * MS && hi <= 25 * MS);
	assert_true(lo < 15 * MS + MS / 10 && hi > 25 * MS - MS / 10);
	assert_true(fabs(sum / n - 20 * MS) < 0.05 * MS);
	assert_true(reordered > 0); /* jitter larger than the gap reorders, as asked */
}

static void test_jitter_never_delivers_before_sending(void **state)
{
	struct link_params p = { .delay_ns = 1 * MS, .jitter_ns = 5 * MS };
	struct link_sched s;
	int64_t t;

	(void)state;
	link_sched_init(&s, &p, 9, ring, 1);
	for (int k = 0; k < 10000; k++) {
		assert_int_equal(link_sched_admit(&s, k * MS, 100, &t), 0);
		assert_true(t >= k * MS && t <= k * MS + 6 * MS);
	}
}

static void test_parse_values_for_both_directions_or_each(void **state)
{
	struct link_params p[2];
	char err[128];

	(void)state;
	memset(p, 0, sizeof(p));
	assert_int_equal(link_parse_value("94mbit", 'r', p, err, sizeof(err)), 0);
	assert_true(p[0].bits_per_s == 94000000 && p[1].bits_per_s == 94000000);
	/* The bounds themselves are allowed: 1 kbit/s and 100 Gbit/s. */
	assert_int_equal(link_parse_value("100gbit/1kbit", 'r', p, err, sizeof(err)), 0);
	assert_true(p[0].bits_per_s == 100000000000ULL && p[1].bits_per_s == 1000);
	assert_int_equal(link_parse_value("10mbit/1mbit", 'r', p, err, sizeof(err)), 0);
	assert_true(p[0].bits_per_s == 10000000 && p[1].bits_per_s == 1000000);
	assert_int_equal(link_parse_value("20ms", 't', p, err, sizeof(err)), 0);
	assert_true(p[0].delay_ns == 20 * MS && p[1].delay_ns == 20 * MS);
	assert_int_equal(link_parse_value("0.5ms/0", 'j', p, err, sizeof(err)), 0);
	assert_true(p[0].jitter_ns == MS / 2 && p[1].jitter_ns == 0);
	assert_int_equal(link_parse_value("1%", 'p', p, err, sizeof(err)), 0);
	assert_float_equal(p[0].loss, 0.01, 1e-12);
	assert_int_equal(link_parse_value("0/2.5", 'p', p, err, sizeof(err)), 0);
	assert_true(p[0].loss == 0);
	assert_float_equal(p[1].loss, 0.025, 1e-12);
	assert_int_equal(link_parse_value("100", 'q', p, err, sizeof(err)), 0);
	assert_true(p[0].queue_packets == 100 && p[0].queue_bytes == 0);
	assert_int_equal(link_parse_value("64K/9000B", 'q', p, err, sizeof(err)), 0);
	assert_true(p[0].queue_bytes == 65536 && p[0].queue_packets == 0 && p[1].queue_bytes == 9000);
}

static void test_parse_rejects_what_it_cannot_mean(void **state)
{
	static const struct {
		const char *arg;
		int kind;
	} bad[] = {
		{ "", 'r' },	   { "fast", 'r' },	 { "10mbit/", 'r' }, { "/10mbit", 'r' },
		{ "1/2/3", 'r' },  { "999bit", 'r' },	 { "200gbit", 'r' }, { "-5ms", 't' },
		{ "61s", 't' },	   { "1 ms", 't' },	 { "101%", 'p' },    { "-1", 'p' },
		{ "%", 'p' },	   { "1e2x", 'p' },	 { "nan", 'p' },     { "0", 'q' },
		{ "65537", 'q' },  { "2G", 'q' },	 { "ten", 'q' },     { "0B", 'q' },
		{ "20", 't' },	   { "0.5", 'j' },	 { "20ms/1", 't' },
	};
	struct link_params p[2];
	char err[128];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (link_parse_value(bad[i].arg, bad[i].kind, p, err, sizeof(err)) != -1)
			fail_msg("'%s' (%c) was accepted", bad[i].arg, bad[i].kind);
		assert_true(err[0] != '\0');
	}
}

/* The remainder carry at its boundary, and an idle restart however short the idle: at
 * 3 bit/s a byte takes 8e9/3 ns, so three take exactly 8 s; at 8 Gbit/s (one byte a ns)
 * 100 bytes sent at 0 leave at 100 ns, and 100 more sent at 500 ns leave at 600, not 200. */
static void test_rate_carry_and_idle_restart_to_the_nanosecond(void **state)
{
	struct link_sched s;
	int64_t t;

	(void)state;
	start(&s, 3, 0, 10, 0);
	for (int k = 0; k < 3; k++)
		assert_int_equal(link_sched_admit(&s, 0, 1, &t), 0);
	assert_true(t == 8 * SEC);
	start(&s, 8000000000ULL, 0, 10, 0);
	assert_int_equal(link_sched_admit(&s, 0, 100, &t), 0);
	assert_true(t == 100);
	assert_int_equal(link_sched_admit(&s, 500, 100, &t), 0);
	assert_true(t == 600);
}

/* A draw below zero delay is clamped to zero, not reflected: with 1 ms of delay and 5 ms of
 * jitter the draw is uniform over -4..6 ms, so about 40% of packets leave the moment they
 * are sent (reflected, they would spread over 0..4 ms and almost none would). */
static void test_jitter_below_zero_delay_leaves_at_once(void **state)
{
	struct link_params p = { .delay_ns = 1 * MS, .jitter_ns = 5 * MS };
	struct link_sched s;
	int64_t t;
	int at_once = 0;

	(void)state;
	link_sched_init(&s, &p, 11, ring, 1);
	for (int k = 0; k < 10000; k++) {
		assert_int_equal(link_sched_admit(&s, k * MS, 100, &t), 0);
		at_once += t == k * MS;
	}
	assert_true(at_once > 3500 && at_once < 4500);
}

/* -v's words for one direction (moved from cmd/link.c, unchanged). */
static void test_params_describe_as_link_v_prints_them(void **state)
{
	struct link_params p = { .bits_per_s = 94000000, .delay_ns = 10000000, .jitter_ns = 1000000,
				 .loss = 0.01, .queue_packets = 1000 };
	struct link_params none = { 0 };
	struct link_params bytes = { .bits_per_s = 1000000, .queue_bytes = 65536 };
	char buf[128];

	(void)state;
	assert_string_equal(link_params_describe(&p, buf, sizeof(buf)), "94mbit, 10ms +-1ms, 1% loss, queue 1000 packets");
	assert_string_equal(link_params_describe(&none, buf, sizeof(buf)), "no rate limit, 0ms");
	assert_string_equal(link_params_describe(&bytes, buf, sizeof(buf)), "1mbit, 0ms, queue 65536 bytes");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_back_to_back_packets_leave_one_transmission_time_apart),
		cmocka_unit_test(test_rate_is_exact_over_a_long_run_at_an_awkward_rate),
		cmocka_unit_test(test_an_idle_link_sends_at_once_and_keeps_no_credit),
		cmocka_unit_test(test_no_rate_means_only_the_delay),
		cmocka_unit_test(test_random_schedules_respect_a_queue_in_packets),
		cmocka_unit_test(test_random_schedules_respect_a_queue_in_bytes),
		cmocka_unit_test(test_a_burst_into_a_queue_of_ten_keeps_ten),
		cmocka_unit_test(test_loss_rate_falls_in_its_binomial_interval_and_replays),
		cmocka_unit_test(test_loss_of_zero_and_of_everything),
		cmocka_unit_test(test_jitter_stays_in_its_window_and_averages_to_the_delay),
		cmocka_unit_test(test_jitter_never_delivers_before_sending),
		cmocka_unit_test(test_parse_values_for_both_directions_or_each),
		cmocka_unit_test(test_parse_rejects_what_it_cannot_mean),
		cmocka_unit_test(test_rate_carry_and_idle_restart_to_the_nanosecond),
		cmocka_unit_test(test_jitter_below_zero_delay_leaves_at_once),
		cmocka_unit_test(test_params_describe_as_link_v_prints_them),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
