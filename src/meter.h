/* meter.h - transfer rate arithmetic: totals, current and average rate, ETA (pure). */
#ifndef NCPV_METER_H
#define NCPV_METER_H

#include <stdint.h>

/* Caller-owned; the hot path only adds to bytes. */
struct meter {
	uint64_t bytes;	     /* counted so far */
	double start;	     /* time counting began (seconds, any monotonic clock) */
	double last_time;    /* time of the previous meter_read */
	uint64_t last_bytes; /* bytes at the previous meter_read */
	double rate;	     /* bytes/s over the last read interval */
};

struct meter_reading {
	uint64_t bytes;
	double elapsed;	 /* seconds since start */
	double rate;	 /* bytes/s since the previous reading */
	double average;	 /* bytes/s since start */
	double eta;	 /* seconds to reach size at the average rate; < 0 unknown */
	double percent;	 /* of size, 0..100 (may pass 100); < 0 unknown */
};

void meter_start(struct meter *m, double now);

static inline void meter_add(struct meter *m, uint64_t n)
{
	m->bytes += n;
}

/* Take a reading at now; size 0 means unknown. Starts a new rate
 * interval unless less than a millisecond has passed since the last. */
void meter_read(struct meter *m, double now, uint64_t size, struct meter_reading *r);

#endif
