/* SPDX-License-Identifier: ISC */
/* meter.h - transfer rate arithmetic: totals, current and average rate, ETA (pure). */
#ifndef NCPV_METER_H
#define NCPV_METER_H

#include <stddef.h>
#include <stdint.h>

/* Samples kept for a windowed average (-m); older ones are dropped. */
#define METER_HISTORY 64

/* Caller-owned; the hot path only adds to bytes. */
struct meter {
	uint64_t bytes;	     /* counted so far */
	double start;	     /* time counting began (seconds, any monotonic clock) */
	double last_time;    /* time of the previous meter_read */
	uint64_t last_bytes; /* bytes at the previous meter_read */
	double rate;	     /* bytes/s over the last read interval */
	double window;	     /* seconds the average covers; 0: since start */
	struct meter_sample {
		double time;
		uint64_t bytes;
	} history[METER_HISTORY]; /* ring of (time, bytes), for the window */
	size_t hist_first, hist_count;
	/* Every interval rate taken, for the -v summary. */
	unsigned long samples;
	double rate_min, rate_max, rate_sum, rate_sumsq;
};

struct meter_reading {
	uint64_t bytes;
	double elapsed;	 /* seconds since start */
	double rate;	 /* bytes/s since the previous reading */
	double average;	 /* bytes/s since start, or over the window */
};

/* Rate statistics over the readings taken (the -v line); all 0 without samples. */
struct meter_stats {
	unsigned long samples;
	double min, max, mean, mdev;
};

/* Start counting at now. It keeps the window set by meter_set_window, so m must be
 * zeroed (or used before) when it is first started. */
void meter_start(struct meter *m, double now);

/* Average over the last seconds instead of since the start (0: since start). */
void meter_set_window(struct meter *m, double seconds);

static inline void meter_add(struct meter *m, uint64_t n)
{
	m->bytes += n;
}

/* Take a reading at now. Starts a new rate interval unless less than a millisecond has
 * passed since the last. Percent and ETA against a size are the display's (display.h). */
void meter_read(struct meter *m, double now, struct meter_reading *r);

/* The min/mean/max/mean-deviation of the interval rates read so far. */
void meter_stats(const struct meter *m, struct meter_stats *s);

#endif
