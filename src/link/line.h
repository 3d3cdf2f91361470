/* SPDX-License-Identifier: ISC */
/* line.h - the delay line: moves packets between two packet descriptors on the schedule of sched.h. */
#ifndef NCPV_LINK_LINE_H
#define NCPV_LINK_LINE_H

#include <stddef.h>
#include <stdint.h>

#include "sched.h"

/*
 * fd[0] and fd[1] give and take one packet per read and write (a TUN
 * device, a packet socket, a SOCK_SEQPACKET socket in tests); both are
 * non-blocking. Direction 0 ("down") reads fd[0] and writes fd[1];
 * direction 1 ("up") the other way. Each packet waits in memory until its
 * time comes; one timerfd on CLOCK_MONOTONIC wakes the line for the next
 * one, so an idle line sleeps. header bytes at the start of each packet
 * (an Ethernet header) are carried but not counted against the rate.
 */
struct link_line;

/* The most packets held (in the queue and in flight) per direction; more are dropped as overflow. */
#define LINK_LINE_MAX_HELD 131072u

struct link_line_counts {
	struct link_counts sched;	/* offered, lost, queue overflow */
	uint64_t held_overflow;		/* dropped: LINK_LINE_MAX_HELD reached */
	uint64_t delivered, delivered_bytes;
	uint64_t write_errors;		/* the far side refused a packet (counted, dropped) */
	uint64_t truncated;		/* longer than the line's buffer (dropped) */
	int64_t first_ns, last_ns;	/* when the first and the last delivered packet were due */
	uint64_t after_first_bytes;	/* bytes delivered after the first packet: over
					 * last_ns - first_ns, the rate the link carried. Due
					 * times, not write times: a loaded machine that wakes
					 * the line late for the first packet would otherwise
					 * shorten the span and report a rate above the link's */
};

/* A line between fd[0] and fd[1] (borrowed: the caller closes them after
 * link_line_free). p[0] is the down direction, p[1] up; seed drives loss
 * and jitter (direction 1 uses seed + 1). NULL with err on failure. */
struct link_line *link_line_new(const struct link_params p[2], uint64_t seed, const int fd[2], unsigned header,
				char *err, size_t errlen);

/* Move packets until wake_fd (borrowed) becomes readable: returns 0 then,
 * without reading it, and may be called again. -1 with err on a failure
 * of epoll, the timer or a read (the line is then left as it was). */
int link_line_run(struct link_line *l, int wake_fd, char *err, size_t errlen);

/* What direction dir has done so far. */
void link_line_counts(const struct link_line *l, int dir, struct link_line_counts *out);

/* Free the packets still held and the line; NULL is allowed. */
void link_line_free(struct link_line *l);

#endif
