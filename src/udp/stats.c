/* SPDX-License-Identifier: ISC */
/* stats.c - a UDP receiver's figures, as stats.h defines them; pure. */
#include <math.h>
#include <string.h>

#include "stats.h"

void udp_stats_init(struct udp_stats *s)
{
	memset(s, 0, sizeof(*s));
}

static int test_and_set(struct udp_stats *s, uint64_t seq)
{
	uint64_t bit = seq % UDP_STATS_WINDOW, mask = 1ull << (bit % 64);
	int was = (s->seen[bit / 64] & mask) != 0;

	s->seen[bit / 64] |= mask;
	return was;
}

/* Forget the sequence numbers (from, to]: they fell out of the window as the highest moved on. */
static void clear_range(struct udp_stats *s, uint64_t from, uint64_t to)
{
	if (to - from >= UDP_STATS_WINDOW) {
		memset(s->seen, 0, sizeof(s->seen));
		return;
	}
	/* Counted, not compared: with to at 2^64 - 1, q <= to would hold for ever (the fuzzer's hang). */
	for (uint64_t n = to - from, q = from + 1; n > 0; n--, q++)
		s->seen[(q % UDP_STATS_WINDOW) / 64] &= ~(1ull << (q % 64));
}

void udp_stats_add(struct udp_stats *s, uint64_t seq, uint64_t send_ns, uint64_t arrival_ns, uint64_t len)
{
	int64_t transit = (int64_t)(arrival_ns - send_ns);

	if (s->packets == 0) {
		s->highest = seq;
		test_and_set(s, seq);
		s->first_ns = arrival_ns;
		s->owd_min = s->owd_max = transit;
	} else if (seq > s->highest) {
		clear_range(s, s->highest, seq);
		s->highest = seq;
		test_and_set(s, seq);
	} else if (s->highest - seq >= UDP_STATS_WINDOW) {
		s->out_of_order++;
		s->late++;
	} else if (test_and_set(s, seq)) {
		s->duplicates++;
		return;
	} else
		s->out_of_order++;
	if (s->packets > 0) {
		/* Wrapping arithmetic: forged send times must not overflow a signed sum. */
		double d = fabs((double)(int64_t)((uint64_t)transit - (uint64_t)s->last_transit));

		s->jitter_ns += (d - s->jitter_ns) / 16;
		if (transit < s->owd_min)
			s->owd_min = transit;
		if (transit > s->owd_max)
			s->owd_max = transit;
	}
	s->last_transit = transit;
	s->owd_sum = (int64_t)((uint64_t)s->owd_sum + (uint64_t)transit);
	s->packets++;
	s->bytes += len;
	s->last_ns = arrival_ns;
	if (s->highest + 1 > s->expected)
		s->expected = s->highest + 1;
}

void udp_stats_expect(struct udp_stats *s, uint64_t n)
{
	if (n > s->expected)
		s->expected = n;
}

uint64_t udp_stats_lost(const struct udp_stats *s)
{
	return s->expected > s->packets ? s->expected - s->packets : 0;
}

void udp_stats_report(const struct udp_stats *s, struct udp_report *r)
{
	memset(r, 0, sizeof(*r));
	r->packets = s->packets;
	r->bytes = s->bytes;
	r->expected = s->expected;
	r->duplicates = s->duplicates;
	r->out_of_order = s->out_of_order;
	r->late = s->late;
	r->jitter_ns = (uint64_t)(s->jitter_ns + 0.5);
	r->owd_min_ns = s->owd_min;
	r->owd_max_ns = s->owd_max;
	r->owd_sum_ns = s->owd_sum;
	r->span_ns = s->packets ? s->last_ns - s->first_ns : 0;
}
