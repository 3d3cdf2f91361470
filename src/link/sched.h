/* SPDX-License-Identifier: ISC */
/* sched.h - one direction of an emulated link as a pure schedule: when each packet leaves, or why it is dropped. */
#ifndef NCPV_LINK_SCHED_H
#define NCPV_LINK_SCHED_H

#include <stddef.h>
#include <stdint.h>

/*
 * The model, per packet arriving at now with size bytes:
 *   1. loss: dropped with probability loss, before it takes any room;
 *   2. queue: it waits behind the packets not yet sent (drop-tail: dropped
 *      when queue_packets or queue_bytes would be exceeded; one packet
 *      always fits in an empty queue);
 *   3. rate: it is sent when the link is free, taking size * 8 / bits_per_s;
 *   4. delay: it arrives delay later, plus a uniform draw in [-jitter,
 *      +jitter] (never before it was sent). Only jitter can reorder packets.
 * Pure: no system calls, no allocation, no global state; the random numbers
 * (xoshiro256**) come from the seed alone, so a run can be replayed.
 */

/* The most packets a queue can hold: a bound on the caller's ring. */
#define LINK_QUEUE_MAX 65536u

struct link_params {
	uint64_t bits_per_s;	 /* 0: no rate limit (and no queue) */
	int64_t delay_ns;	 /* one-way delay, >= 0 */
	int64_t jitter_ns;	 /* +- this much, uniform; 0: none */
	double loss;		 /* probability in [0, 1] */
	uint32_t queue_packets;	 /* 0: no limit in packets (the ring's size still bounds it) */
	uint64_t queue_bytes;	 /* 0: no limit in bytes */
};

/* A packet in the queue or being sent: when its last bit leaves, its size. */
struct link_slot {
	int64_t done_ns;
	uint32_t size;
};

struct link_counts {
	uint64_t packets, bytes;	/* offered */
	uint64_t lost;			/* dropped by the random loss */
	uint64_t overflow;		/* dropped because the queue was full */
	uint64_t max_queue;		/* the most packets ever waiting */
};

struct link_sched {
	struct link_params p;
	uint64_t rng[4];
	int64_t free_ns;	/* when the link has sent all it holds */
	uint64_t free_rem;	/* the fraction of a nanosecond past free_ns, in units of 1/bits_per_s */
	struct link_slot *ring;	/* borrowed from the caller: cap slots */
	uint32_t cap, head, count;
	uint64_t queued_bytes;
	struct link_counts n;
};

enum { LINK_SCHED_LOST = -1, LINK_SCHED_OVERFLOW = -2 };

/* Start a direction. ring (cap slots, cap >= 1) must outlive s; it bounds
 * the queue in packets, so give at least p->queue_packets slots (up to
 * LINK_QUEUE_MAX). p is copied. */
void link_sched_init(struct link_sched *s, const struct link_params *p, uint64_t seed,
		     struct link_slot *ring, uint32_t cap);

/* A packet of size bytes arrives at now_ns (calls must not go back in
 * time). Returns 0 with *deliver_ns, when it reaches the far end, or
 * LINK_SCHED_LOST or LINK_SCHED_OVERFLOW. */
int link_sched_admit(struct link_sched *s, int64_t now_ns, uint32_t size, int64_t *deliver_ns);

/* Packets waiting or being sent at now_ns (forgets those already sent). */
uint32_t link_sched_queued(struct link_sched *s, int64_t now_ns);

/* A uniform draw in [0, 1) from the schedule's generator (for tests). */
double link_sched_uniform(struct link_sched *s);

/* Parse one option's value: "X" for both directions, or "DOWN/UP" (down:
 * near to far). kind says what X is: 'r' a rate (units_parse_bitrate,
 * 1kbit to 100gbit), 't' the delay or 'j' the jitter (units_parse_seconds,
 * up to 60 s), 'p' the loss as a percentage ("1%" or "1"), 'q' the queue
 * (a plain number: packets; with a unit, "64K" or "9000B": bytes). Fills
 * that field of p[0] and p[1]. Returns 0, or -1 with the reason in err. */
int link_parse_value(const char *arg, int kind, struct link_params p[2], char *err, size_t errlen);

/* One direction as people read it, such as "94mbit, 20ms +-1ms, 1% loss, queue 1000
 * packets" ("no rate limit" without a rate), into buf; returns buf. Pure. */
char *link_params_describe(const struct link_params *p, char *buf, size_t len);

#endif
