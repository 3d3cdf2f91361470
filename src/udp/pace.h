/* SPDX-License-Identifier: ISC */
/* pace.h - the UDP sender's schedule and the --rate parser (pure: the caller reads the clock). */
#ifndef NCPV_UDP_PACE_H
#define NCPV_UDP_PACE_H

#include <stdint.h>

/* Below this gap between datagrams they go out in batches, one batch per this long. */
#define UDP_PACE_BATCH_NS 50000
/* A sender late by more than this catches up no further: the rest is let go (counted as slipped).
 * Catching up keeps the average rate through the stalls of a loaded machine (at 10 ms, a load of
 * 12 on 2 cores cost 15% of 100 Mbit/s); the price is a burst of at most this much after one. */
#define UDP_PACE_CATCHUP_NS 100000000

/*
 * --rate: bits per second, a decimal number with an optional K, M, G or T (SI: powers of
 * 1000, as iperf3's -b), or tc's words (kbit, mbit, gbit; kbps... are bytes) as
 * `ncpv link --rate`. "0" means as fast as possible. Returns 0, or -1 (errno EINVAL).
 */
int udp_parse_rate(const char *s, double *bits_per_s);

/*
 * The least --rate a test can keep: a datagram a second per stream. Below it the first
 * datagram alone is more than was asked (at 1 bit/s, 1400 bytes read as 11,200 times the
 * rate), so a rate under it is refused, not reported as a huge overshoot.
 */
double udp_rate_floor(uint32_t length, int streams);

/*
 * Datagram k (from 0) is due at start + k * gap, gap = len * 8 / rate: the schedule is a
 * deadline per datagram, never a rate averaged over bursts. With rate 0 every call has
 * `max` due. A caller sleeps until udp_pace_wake, then sends what udp_pace_due says.
 *
 * Datagram k owns the slot [k * gap, (k + 1) * gap). A test of duration D sends the datagrams
 * whose slot begins before D, limit = ceil(D / gap) (at least 1), and lasts their slots: its
 * span is limit * gap, at most one gap more than D. So a sender that keeps up sends exactly
 * rate x span bits; counting the datagram at t = 0 over D alone would overstate the rate by
 * one datagram (+0.24% at 1 Mbit/s, 1400 bytes, 2 s: 179 over 2 s).
 */
struct udp_pace {
	uint64_t start_ns;
	double gap_ns;	       /* 0: as fast as possible */
	uint64_t duration_ns;  /* as asked; 0: no end */
	uint64_t limit;	       /* datagrams in the test (their slots begin before the duration); 0: no end */
	uint64_t k;	       /* datagrams scheduled so far */
	uint64_t batch;	       /* datagrams per wake: those due within UDP_PACE_BATCH_NS, at least 1 */
	uint64_t slipped;      /* datagrams given up on after falling more than CATCHUP behind */
};

void udp_pace_init(struct udp_pace *p, double rate_bps, uint64_t len, uint64_t start_ns, uint64_t max_batch,
		   uint64_t duration_ns);

/*
 * The test's span from start to a stop at now_ns (UINT64_MAX: the whole test), in ns: paced, the
 * end of the slot now is in, at most limit slots (the end of the last datagram's slot); as fast
 * as possible, now - start, at most the duration. The test ends at start + udp_pace_span(p,
 * UINT64_MAX), and its rates are bits over this span.
 */
uint64_t udp_pace_span(const struct udp_pace *p, uint64_t now_ns);

/* Datagrams due at now (at most max, never past limit), counted as scheduled. */
uint64_t udp_pace_due(struct udp_pace *p, uint64_t now_ns, uint64_t max);

/* When to wake for the next batch (now or earlier: at once; UINT64_MAX: all are scheduled). */
uint64_t udp_pace_wake(const struct udp_pace *p);

#endif
