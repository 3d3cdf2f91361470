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
 */
struct udp_pace {
	uint64_t start_ns;
	double gap_ns;	       /* 0: as fast as possible */
	uint64_t k;	       /* datagrams scheduled so far */
	uint64_t batch;	       /* datagrams per wake: those due within UDP_PACE_BATCH_NS, at least 1 */
	uint64_t slipped;      /* datagrams given up on after falling more than CATCHUP behind */
};

void udp_pace_init(struct udp_pace *p, double rate_bps, uint64_t len, uint64_t start_ns, uint64_t max_batch);

/* Datagrams due at now (at most max), counted as scheduled. */
uint64_t udp_pace_due(struct udp_pace *p, uint64_t now_ns, uint64_t max);

/* When to wake for the next batch (now or earlier: at once). */
uint64_t udp_pace_wake(const struct udp_pace *p);

#endif
