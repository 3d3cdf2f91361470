/* SPDX-License-Identifier: ISC */
/* stats.h - a UDP receiver's figures (pure): loss, duplicates, reordering, RFC 3550 jitter, one-way delay. */
#ifndef NCPV_UDP_STATS_H
#define NCPV_UDP_STATS_H

#include <stdint.h>

#include "wire.h"

/* Sequence numbers remembered behind the highest one, for duplicates (a bit each). */
#define UDP_STATS_WINDOW 65536

/*
 * Definitions (README "UDP tests", docs/UDP.md), per stream, over first arrivals only:
 * - packets, bytes: datagrams seen for the first time (a duplicate counts in neither).
 * - expected: highest sequence number seen + 1, or the sender's own count once it gave it
 *   (udp_stats_expect), whichever is larger; lost = expected - packets (never below 0).
 * - duplicates: datagrams whose sequence number was already seen (within the window).
 * - out_of_order: first arrivals with a sequence number lower than the highest seen before.
 * - late: of those, the ones more than UDP_STATS_WINDOW behind (not checked for duplicates).
 * - jitter: RFC 3550 6.4.1: transit = arrival - send time; for each first arrival after the
 *   first, in arrival order, D = transit - previous transit, J += (|D| - J) / 16.
 * - one-way delay: arrival - send time, min, max and sum; valid only when both clocks are one
 *   (same host, its namespaces, ncpv link).
 * All times in nanoseconds of CLOCK_MONOTONIC.
 */
struct udp_stats {
	uint64_t packets, bytes, expected, duplicates, out_of_order, late;
	uint64_t highest;      /* highest sequence number seen (valid once packets > 0) */
	double jitter_ns;
	int64_t last_transit;
	int64_t owd_min, owd_max, owd_sum;
	uint64_t first_ns, last_ns; /* first and last arrival */
	uint64_t seen[UDP_STATS_WINDOW / 64]; /* bit seq % WINDOW: seq seen, for seq in (highest - WINDOW, highest] */
};

void udp_stats_init(struct udp_stats *s);

/* One datagram: seq and send_ns from it, its length, and when it arrived. */
void udp_stats_add(struct udp_stats *s, uint64_t seq, uint64_t send_ns, uint64_t arrival_ns, uint64_t len);

/* The sender says it sent n datagrams: the ones after the highest seen are lost too. */
void udp_stats_expect(struct udp_stats *s, uint64_t n);

uint64_t udp_stats_lost(const struct udp_stats *s);

/* The figures as a REPORT carries them (flags 0). */
void udp_stats_report(const struct udp_stats *s, struct udp_report *r);

#endif
