/* meter.c - transfer rate arithmetic: totals, current and average rate, ETA (pure). */
#include "meter.h"

#include <string.h>

void meter_start(struct meter *m, double now)
{
	memset(m, 0, sizeof(*m));
	m->start = now;
	m->last_time = now;
}

void meter_read(struct meter *m, double now, uint64_t size, struct meter_reading *r)
{
	double span = now - m->last_time;

	if (span >= 0.001) {
		m->rate = (double)(m->bytes - m->last_bytes) / span;
		m->last_time = now;
		m->last_bytes = m->bytes;
	}
	r->bytes = m->bytes;
	r->elapsed = now - m->start;
	if (r->elapsed < 0)
		r->elapsed = 0;
	r->rate = m->rate;
	r->average = r->elapsed > 0 ? (double)m->bytes / r->elapsed : 0;
	r->eta = -1;
	r->percent = -1;
	if (size > 0) {
		r->percent = 100.0 * (double)m->bytes / (double)size;
		if (m->bytes >= size)
			r->eta = 0;
		else if (r->average > 0)
			r->eta = (double)(size - m->bytes) / r->average;
	}
}
