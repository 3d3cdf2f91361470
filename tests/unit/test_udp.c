/* SPDX-License-Identifier: ISC */
/* test_udp.c - the UDP test's pure parts: the datagram format round-trips and refuses short or foreign
 * input, the receiver's figures follow their definitions, SipHash matches its paper, pacing keeps time. */
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "udp/cookie.h"
#include "udp/pace.h"
#include "udp/stats.h"
#include "udp/wire.h"

static const struct udp_header H = { UDP_WIRE_VERSION, 0, 3, 0xdeadbeef, 0x0102030405060708ull };

static void test_wire_round_trips(void **state)
{
	uint8_t buf[UDP_WIRE_MAX];
	struct udp_header h = H, g;
	struct udp_params p = { UDP_FLAG_REVERSE, 1400, 123456789012ull, 10000 }, q;
	struct udp_data d = { 0xfffffffffffffffeull, 987654321ull }, e;
	struct udp_report_req rq = { UDP_FLAG_FINAL, 65535, 77, 7700 }, rq2;
	struct udp_report r = { UDP_FLAG_DONE, 9, 1, 2, 3, 4, 5, 6, 7, -8, 9, -10, 11 }, r2;
	size_t n;

	(void)state;
	h.type = UDP_HELLO;
	assert_int_equal(udp_wire_write_params(buf, sizeof(buf), &h, &p), UDP_WIRE_HELLO);
	assert_int_equal(udp_wire_header(buf, UDP_WIRE_HELLO, &g), UDP_HELLO);
	assert_int_equal(g.stream, 3);
	assert_int_equal(g.test_id, 0xdeadbeef);
	assert_true(g.cookie == H.cookie);
	assert_int_equal(udp_wire_params(buf, UDP_WIRE_HELLO, &q), 0);
	assert_true(q.flags == p.flags && q.length == p.length && q.rate == p.rate && q.duration_ms == p.duration_ms);
	h.type = UDP_COOKIE;
	assert_int_equal(udp_wire_write_params(buf, sizeof(buf), &h, &p), UDP_WIRE_GRANT);
	for (n = UDP_WIRE_DATA_MIN; n <= UDP_WIRE_MAX; n = n * 3 + 1) {
		assert_int_equal(udp_wire_write_data(buf, n, &H, &d, 1), n);
		assert_int_equal(udp_wire_header(buf, n, &g), UDP_DATA);
		assert_int_equal(udp_wire_data(buf, n, &e), 0);
		assert_true(e.seq == d.seq && e.send_ns == d.send_ns);
	}
	assert_int_equal(udp_wire_write_report_req(buf, sizeof(buf), &H, &rq), UDP_WIRE_REPORT);
	assert_int_equal(udp_wire_report_req(buf, UDP_WIRE_REPORT, &rq2), 0);
	assert_true(rq2.flags == rq.flags && rq2.req == rq.req && rq2.sent_packets == rq.sent_packets &&
		    rq2.sent_bytes == rq.sent_bytes);
	assert_int_equal(udp_wire_write_report(buf, sizeof(buf), &H, &r), UDP_WIRE_REPORT);
	assert_int_equal(udp_wire_report(buf, UDP_WIRE_REPORT, &r2), 0);
	assert_true(r2.flags == r.flags && r2.req == r.req && r2.packets == r.packets && r2.bytes == r.bytes &&
		    r2.expected == r.expected && r2.duplicates == r.duplicates && r2.out_of_order == r.out_of_order &&
		    r2.late == r.late && r2.jitter_ns == r.jitter_ns && r2.owd_min_ns == r.owd_min_ns &&
		    r2.owd_max_ns == r.owd_max_ns && r2.owd_sum_ns == r.owd_sum_ns && r2.span_ns == r.span_ns);
	assert_int_equal(udp_wire_write_stop(buf, sizeof(buf), &H), UDP_WIRE_STOP);
	assert_int_equal(udp_wire_header(buf, UDP_WIRE_STOP, &g), UDP_STOP);
}

/* Every length short of a type's size is refused, at every cut: never read past the end. */
static void test_wire_refuses_short_and_foreign(void **state)
{
	uint8_t buf[UDP_WIRE_REPORT];
	struct udp_header g;
	struct udp_params p;
	struct udp_data d;
	struct udp_report r;
	struct udp_report_req q;

	(void)state;
	memset(buf, 0, sizeof(buf));
	memset(&r, 0, sizeof(r));
	memset(&p, 0, sizeof(p));
	memset(&d, 0, sizeof(d));
	udp_wire_write_report(buf, sizeof(buf), &H, &r);
	for (size_t n = 0; n < UDP_WIRE_HEADER; n++)
		assert_int_equal(udp_wire_header(buf, n, &g), -1);
	for (size_t n = 0; n < UDP_WIRE_REPORT; n++) {
		assert_int_equal(udp_wire_report(buf, n, &r), -1);
		assert_int_equal(udp_wire_report_req(buf, n, &q), -1);
		if (n < UDP_WIRE_DATA_MIN)
			assert_int_equal(udp_wire_data(buf, n, &d), -1);
		if (n < UDP_WIRE_GRANT)
			assert_int_equal(udp_wire_params(buf, n, &p), -1);
	}
	buf[0] ^= 1; /* another magic */
	assert_int_equal(udp_wire_header(buf, sizeof(buf), &g), -1);
	buf[0] ^= 1;
	buf[4] = UDP_WIRE_VERSION + 1; /* a later version: not read as this one */
	assert_int_equal(udp_wire_header(buf, sizeof(buf), &g), -1);
	assert_int_equal(g.version, UDP_WIRE_VERSION + 1);
	/* Writers refuse a buffer too small, and a data length out of range. */
	assert_int_equal(udp_wire_write_report(buf, UDP_WIRE_REPORT - 1, &H, &r), 0);
	assert_int_equal(udp_wire_write_data(buf, UDP_WIRE_DATA_MIN - 1, &H, &d, 1), 0);
	assert_int_equal(udp_wire_write_params(buf, UDP_WIRE_HELLO - 1, &(struct udp_header){ .type = UDP_HELLO }, &p), 0);
}

/* A request is never smaller than its answer: no amplification by design. */
static void test_wire_answers_never_larger(void **state)
{
	(void)state;
	assert_true(UDP_WIRE_GRANT <= UDP_WIRE_HELLO);
	assert_true(UDP_WIRE_REPORT <= UDP_WIRE_REPORT);
	assert_true(UDP_WIRE_DATA_MIN >= UDP_WIRE_HEADER + 16);
}

static void feed(struct udp_stats *s, const uint64_t *seqs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		udp_stats_add(s, seqs[i], 1000 * seqs[i], 1000 * seqs[i] + 500, 100);
}

static void test_stats_loss_dups_order(void **state)
{
	static const uint64_t seqs[] = { 0, 1, 3, 2, 2, 5, 4, 9 };
	struct udp_stats *s = malloc(sizeof(*s));

	(void)state;
	udp_stats_init(s);
	feed(s, seqs, sizeof(seqs) / sizeof(seqs[0]));
	assert_int_equal(s->packets, 7);	 /* 2 came twice */
	assert_int_equal(s->bytes, 700);
	assert_int_equal(s->duplicates, 1);
	assert_int_equal(s->out_of_order, 2); /* 2 after 3, 4 after 5 */
	assert_int_equal(s->expected, 10);
	assert_int_equal(udp_stats_lost(s), 3); /* 6, 7, 8 */
	udp_stats_expect(s, 12);		/* the sender sent 10 and 11 too */
	assert_int_equal(udp_stats_lost(s), 5);
	udp_stats_expect(s, 3);			/* never lowers */
	assert_int_equal(s->expected, 12);
	free(s);
}

/* Generated: a random permutation with random duplicates and drops, checked against a plain count. */
static void test_stats_generated_against_model(void **state)
{
	unsigned seed = 20261202;
	(void)state;
	for (int round = 0; round < 200; round++) {
		struct udp_stats *s = malloc(sizeof(*s));
		uint64_t seqs[600], n = 0, total = 1 + (uint64_t)(rand_r(&seed) % 300), highest = 0;
		uint64_t want_dup = 0, want_ooo = 0, want_unique = 0;
		uint8_t seen[300] = { 0 };

		for (uint64_t q = 0; q < total; q++) {
			if (rand_r(&seed) % 10 == 0)
				continue; /* dropped */
			seqs[n++] = q;
			if (rand_r(&seed) % 8 == 0)
				seqs[n++] = q; /* duplicated */
		}
		for (uint64_t i = 0; n > 1 && i < n / 5; i++) { /* some swaps: reordering */
			uint64_t a = (uint64_t)rand_r(&seed) % n, b = (uint64_t)rand_r(&seed) % n, t = seqs[a];

			seqs[a] = seqs[b];
			seqs[b] = t;
		}
		udp_stats_init(s);
		for (uint64_t i = 0; i < n; i++) {
			uint64_t q = seqs[i];

			if (seen[q])
				want_dup++;
			else {
				if (want_unique > 0 && q < highest)
					want_ooo++;
				want_unique++;
				seen[q] = 1;
			}
			if (want_unique == 1 || q > highest)
				highest = q;
			udp_stats_add(s, q, q, q, 1);
		}
		if (s->packets != want_unique || s->duplicates != want_dup || s->out_of_order != want_ooo)
			fail_msg("seed 20261202 round %d: got %llu/%llu/%llu want %llu/%llu/%llu", round,
				 (unsigned long long)s->packets, (unsigned long long)s->duplicates,
				 (unsigned long long)s->out_of_order, (unsigned long long)want_unique,
				 (unsigned long long)want_dup, (unsigned long long)want_ooo);
		assert_int_equal(s->expected, n ? highest + 1 : 0);
		free(s);
	}
}

/* Past the window a datagram is late: counted out of order, never as a duplicate. */
static void test_stats_window(void **state)
{
	struct udp_stats *s = malloc(sizeof(*s));

	(void)state;
	udp_stats_init(s);
	udp_stats_add(s, 5, 0, 0, 1);
	udp_stats_add(s, 5 + UDP_STATS_WINDOW, 0, 0, 1);
	udp_stats_add(s, 5, 0, 0, 1); /* far behind: late, not known to be a duplicate */
	assert_int_equal(s->late, 1);
	assert_int_equal(s->duplicates, 0);
	udp_stats_add(s, 6 + UDP_STATS_WINDOW, 0, 0, 1);
	udp_stats_add(s, 6 + UDP_STATS_WINDOW, 0, 0, 1);
	assert_int_equal(s->duplicates, 1);
	/* A sequence number that reuses a slot is new, not a duplicate of its old occupant. */
	udp_stats_add(s, 7 + 2 * UDP_STATS_WINDOW, 0, 0, 1);
	udp_stats_add(s, 7 + 2 * UDP_STATS_WINDOW - 1, 0, 0, 1);
	assert_int_equal(s->duplicates, 1);
	free(s);
}

/* RFC 3550: J += (|D| - J) / 16 over transit differences; constant transit gives 0. */
static void test_stats_jitter_and_delay(void **state)
{
	struct udp_stats *s = malloc(sizeof(*s));
	double j = 0;
	int64_t transit[] = { 1000, 3000, 2000, 2000, 7000, 1000 };

	(void)state;
	udp_stats_init(s);
	for (int i = 0; i < 6; i++) {
		udp_stats_add(s, (uint64_t)i, 1000000u * (uint64_t)i, 1000000u * (uint64_t)i + (uint64_t)transit[i], 1);
		if (i > 0)
			j += (fabs((double)(transit[i] - transit[i - 1])) - j) / 16;
	}
	assert_true(fabs(s->jitter_ns - j) < 1e-9);
	assert_int_equal(s->owd_min, 1000);
	assert_int_equal(s->owd_max, 7000);
	assert_int_equal(s->owd_sum, 16000);
	udp_stats_init(s);
	for (int i = 0; i < 100; i++)
		udp_stats_add(s, (uint64_t)i, 777u * (uint64_t)i, 777u * (uint64_t)i + 5000, 1);
	assert_true(s->jitter_ns == 0);
	free(s);
}

/* Forged send times (any 64-bit value) never overflow a signed sum: UBSan runs this in make asan. */
static void test_stats_forged_times(void **state)
{
	static const uint64_t t[] = { 0, UINT64_MAX, 1ull << 63, (1ull << 63) - 1, 12345, UINT64_MAX - 1 };
	struct udp_stats *s = malloc(sizeof(*s));

	(void)state;
	udp_stats_init(s);
	for (size_t i = 0; i < 36; i++)
		udp_stats_add(s, i, t[i % 6], t[(i / 6) % 6], 36);
	assert_int_equal(s->packets, 36);
	assert_true(s->jitter_ns >= 0 && s->jitter_ns < 2e19);
	/* Sequence numbers at the top of the range end (a loop to 2^64 - 1 once never did). */
	udp_stats_init(s);
	udp_stats_add(s, UINT64_MAX - 5, 0, 0, 36);
	udp_stats_add(s, UINT64_MAX, 0, 0, 36);
	udp_stats_add(s, UINT64_MAX - 1, 0, 0, 36);
	assert_int_equal(s->packets, 3);
	assert_int_equal(s->out_of_order, 1);
	free(s);
}

/* The reference vectors of the SipHash paper (appendix A): key 00..0f, messages 00..(n-1). */
static void test_siphash_vectors(void **state)
{
	uint8_t key[16], msg[64];

	(void)state;
	for (int i = 0; i < 16; i++)
		key[i] = (uint8_t)i;
	for (int i = 0; i < 64; i++)
		msg[i] = (uint8_t)i;
	assert_true(udp_siphash(key, msg, 0) == 0x726fdb47dd0e0e31ull);
	assert_true(udp_siphash(key, msg, 1) == 0x74f839c593dc67fdull);
	assert_true(udp_siphash(key, msg, 8) == 0x93f5f5799a932462ull);
	assert_true(udp_siphash(key, msg, 15) == 0xa129ca6149be45e5ull);
	assert_true(udp_siphash(key, msg, 63) == 0x958a324ceb064572ull);
}

static void test_cookie_binds_address_port_test_and_time(void **state)
{
	uint8_t key[16] = { 1, 2, 3 };
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(5000), .sin_addr = { htonl(0x7f000001) } };
	struct sockaddr_in b = a;
	uint64_t c = udp_cookie(key, (struct sockaddr *)&a, 42, 100);

	(void)state;
	assert_true(udp_cookie_ok(key, (struct sockaddr *)&a, 42, 100, c));
	assert_true(udp_cookie_ok(key, (struct sockaddr *)&a, 42, 101, c));  /* the previous period */
	assert_false(udp_cookie_ok(key, (struct sockaddr *)&a, 42, 102, c)); /* expired */
	assert_false(udp_cookie_ok(key, (struct sockaddr *)&a, 43, 100, c));
	assert_false(udp_cookie_ok(key, (struct sockaddr *)&a, 42, 100, 0));
	b.sin_port = htons(5001);
	assert_false(udp_cookie_ok(key, (struct sockaddr *)&b, 42, 100, c));
	b = a;
	b.sin_addr.s_addr = htonl(0x7f000002);
	assert_false(udp_cookie_ok(key, (struct sockaddr *)&b, 42, 100, c));
	key[0] ^= 1; /* another server process */
	assert_false(udp_cookie_ok(key, (struct sockaddr *)&a, 42, 100, c));
}

static void test_rate_parses(void **state)
{
	static const struct {
		const char *s;
		double want;
	} ok[] = { { "0", 0 },	     { "1", 1 },	  { "100K", 1e5 },   { "50M", 50e6 },  { "1.5G", 1.5e9 },
		   { "10g", 10e9 },  { "100mbit", 100e6 }, { "1gbit", 1e9 }, { "1mbps", 8e6 } };
	static const char *bad[] = { "", "M", "-1", "1X", "1e9", "0x10", "inf", "nan", " 1M", "1M ", "100T" };
	double v;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(udp_parse_rate(ok[i].s, &v), 0);
		assert_true(fabs(v - ok[i].want) < 1e-6);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		if (udp_parse_rate(bad[i], &v) != -1)
			fail_msg("'%s' was accepted", bad[i]);
		assert_int_equal(errno, EINVAL);
	}
}

/* Over any schedule of wake-ups the count sent by t is the count due by t: the rate is exact. */
static void test_pace_holds_rate(void **state)
{
	static const double rates[] = { 1e6, 10e6, 100e6, 1e9, 10e9 };
	unsigned seed = 7;

	(void)state;
	for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		struct udp_pace p;
		uint64_t now = 1000000000u, sent = 0, end = now + 1000000000u;

		udp_pace_init(&p, rates[r], 1000, now, 64, 0);
		while (now < end) {
			uint64_t wake = udp_pace_wake(&p);

			/* Wake on time or up to 2 ms late (a loaded machine): never more than the catch-up. */
			now = (wake > now ? wake : now) + (uint64_t)(rand_r(&seed) % 2000000);
			if (now > end)
				now = end;
			for (uint64_t got = 1; got > 0;) { /* as the sender: send until nothing is due */
				got = udp_pace_due(&p, now, 64);
				sent += got;
			}
		}
		{
			double want = rates[r] / 8000;	/* datagrams in one second */
			uint64_t lost = p.slipped;

			if (fabs((double)(sent + lost) - want) > want * 0.001 + 64 || lost > 0)
				fail_msg("rate %g: sent %llu + slipped %llu, want %g", rates[r], (unsigned long long)sent,
					 (unsigned long long)lost, want);
		}
	}
}

/* Below 50 us between datagrams they come in batches; above, one at a time. */
static void test_pace_batches(void **state)
{
	struct udp_pace p;

	(void)state;
	udp_pace_init(&p, 1e9, 1000, 0, 64, 0); /* 8 us apart */
	assert_int_equal(p.batch, 6);
	udp_pace_init(&p, 1e6, 1000, 0, 64, 0); /* 8 ms apart */
	assert_int_equal(p.batch, 1);
	assert_int_equal(udp_pace_due(&p, 0, 64), 1);
	assert_int_equal(udp_pace_due(&p, 7999999, 64), 0);
	assert_int_equal(udp_pace_due(&p, 8000000, 64), 1);
	assert_int_equal(udp_pace_wake(&p), 16000000);
	/* Far behind: catch up at most UDP_PACE_CATCHUP_NS' worth (+ a batch), the rest slips. */
	assert_int_equal(udp_pace_due(&p, 1000000000, 64), UDP_PACE_CATCHUP_NS / 8000000 + 1);
	assert_int_equal(p.slipped, 125 - 2 - (UDP_PACE_CATCHUP_NS / 8000000 + 1) + 1);
	udp_pace_init(&p, 0, 1000, 0, 64, 0); /* as fast as possible */
	assert_int_equal(udp_pace_due(&p, 0, 64), 64);
}

/*
 * A test lasts its datagrams' slots (pace.h): over a table of rates, lengths and durations, a
 * sender that wakes on time or up to 2 ms late sends the datagrams whose slot begins before the
 * duration, and no more; the span ends with the last one's slot (at least the duration, less
 * than one gap more); so the bytes sent are the rate times the span, exactly, not within a
 * datagram. A stop inside the test ends the span with the slot in progress, the same way.
 */
static void test_pace_span_is_whole_slots(void **state)
{
	static const struct {
		double rate;
		uint64_t len, dur_ns;
	} t[] = {
		{ 1e6, 1400, 2000000000u },	/* the fencepost of issue 25: 179 datagrams, not over 2 s */
		{ 1e6, 1000, 1000000000u },	/* the duration a whole number of gaps: 125, not 126 */
		{ 11200, 1400, 2500000000u },	/* the floor: a datagram a second, 3 of them over 3 s */
		{ 11200, 1400, 300000000u },	/* shorter than one gap: one datagram, one slot */
		{ 333333, 1400, 1700000000u },
		{ 10e6, 64, 1234567891u },
		{ 100e6, 1400, 1000000000u },
		{ 1e9, 8972, 500000000u },
		{ 2.5e6, 36, 3000000000u },
	};
	unsigned seed = 25;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const uint64_t start = 5000000000u;
		double gap = (double)t[i].len * 8e9 / t[i].rate;
		struct udp_pace p;
		uint64_t now = start, sent = 0, span, end;

		udp_pace_init(&p, t[i].rate, t[i].len, start, 64, t[i].dur_ns);
		span = udp_pace_span(&p, UINT64_MAX);
		end = start + span;
		while (now < end) {
			uint64_t wake = udp_pace_wake(&p);

			if (wake == UINT64_MAX || wake >= end)
				now = end;
			else
				now = (wake > now ? wake : now) + (uint64_t)(rand_r(&seed) % 2000000);
			for (uint64_t got = 1; got > 0;) { /* at the end too: a late wake sends what was due */
				got = udp_pace_due(&p, now, 64);
				sent += got;
			}
		}
		/* Exactly the datagrams whose slot begins before the duration. */
		if ((double)(sent - 1) * gap >= (double)t[i].dur_ns || (double)sent * gap < (double)t[i].dur_ns ||
		    p.slipped != 0)
			fail_msg("rate %g len %llu: sent %llu (slipped %llu) of gap %g ns in %llu ns", t[i].rate,
				 (unsigned long long)t[i].len, (unsigned long long)sent, (unsigned long long)p.slipped, gap,
				 (unsigned long long)t[i].dur_ns);
		/* The span: their slots, so bits sent = rate x span to a nanosecond of rounding. */
		if (span < t[i].dur_ns || (double)span >= (double)t[i].dur_ns + gap ||
		    fabs((double)(sent * t[i].len * 8) - t[i].rate * (double)span / 1e9) > t[i].rate * 2e-9)
			fail_msg("rate %g len %llu: %llu datagrams over a span of %llu ns (asked %llu)", t[i].rate,
				 (unsigned long long)t[i].len, (unsigned long long)sent, (unsigned long long)span,
				 (unsigned long long)t[i].dur_ns);
		/* A stop inside the test: the slot in progress ends the span. */
		{
			uint64_t at = start + t[i].dur_ns / 3, s = udp_pace_span(&p, at);
			uint64_t slots = (uint64_t)floor((double)(at - start) / gap) + 1;

			assert_true(s >= at - start || s == span);
			assert_true(fabs((double)s - (double)slots * gap) <= 1 || s == span);
		}
	}
	/* As fast as possible: no slots, the span is the time, at most the duration. */
	{
		struct udp_pace p;

		udp_pace_init(&p, 0, 1400, 100, 64, 1000);
		assert_int_equal(udp_pace_span(&p, 600), 500);
		assert_int_equal(udp_pace_span(&p, UINT64_MAX), 1000);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wire_round_trips),
		cmocka_unit_test(test_wire_refuses_short_and_foreign),
		cmocka_unit_test(test_wire_answers_never_larger),
		cmocka_unit_test(test_stats_loss_dups_order),
		cmocka_unit_test(test_stats_generated_against_model),
		cmocka_unit_test(test_stats_window),
		cmocka_unit_test(test_stats_jitter_and_delay),
		cmocka_unit_test(test_stats_forged_times),
		cmocka_unit_test(test_siphash_vectors),
		cmocka_unit_test(test_cookie_binds_address_port_test_and_time),
		cmocka_unit_test(test_rate_parses),
		cmocka_unit_test(test_pace_holds_rate),
		cmocka_unit_test(test_pace_batches),
		cmocka_unit_test(test_pace_span_is_whole_slots),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
