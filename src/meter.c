/* SPDX-License-Identifier: ISC */
/* meter.c - transfer rate arithmetic: totals, the current and average rate, rate statistics (pure). */
#include "meter.h"

#include <math.h>
#include <string.h>

void meter_start(struct meter *m, double now)
{
	double window = m->window;

	memset(m, 0, sizeof(*m));
	m->window = window > 0 ? window : 0;
	m->start = now;
	m->last_time = now;
	m->history[0].time = now;
	m->hist_count = 1;
}

void meter_set_window(struct meter *m, double seconds)
{
	m->window = seconds > 0 ? seconds : 0;
}

/* Keep (now, bytes) when far enough from the newest sample; drop what left the window. */
static void remember(struct meter *m, double now)
{
	size_t newest = (m->hist_first + m->hist_count - 1) % METER_HISTORY;
	double spacing = m->window / (METER_HISTORY - 2);

	if (now - m->history[newest].time >= spacing) {
		if (m->hist_count == METER_HISTORY) {
			m->hist_first = (m->hist_first + 1) % METER_HISTORY;
			m->hist_count--;
		}
		newest = (m->hist_first + m->hist_count) % METER_HISTORY;
		m->history[newest].time = now;
		m->history[newest].bytes = m->bytes;
		m->hist_count++;
	}
	/* The oldest kept sample is the last one at or before the window's start. */
	while (m->hist_count > 1 &&
	       now - m->history[(m->hist_first + 1) % METER_HISTORY].time >= m->window) {
		m->hist_first = (m->hist_first + 1) % METER_HISTORY;
		m->hist_count--;
	}
}

static double window_average(struct meter *m, double now)
{
	const struct meter_sample *old;
	double span;

	remember(m, now);
	old = &m->history[m->hist_first];
	span = now - old->time;
	return span > 0 ? (double)(m->bytes - old->bytes) / span : 0;
}

void meter_read(struct meter *m, double now, struct meter_reading *r)
{
	double span = now - m->last_time;

	if (span >= 0.001) {
		m->rate = (double)(m->bytes - m->last_bytes) / span;
		m->last_time = now;
		m->last_bytes = m->bytes;
		if (m->samples == 0 || m->rate < m->rate_min)
			m->rate_min = m->rate;
		if (m->samples == 0 || m->rate > m->rate_max)
			m->rate_max = m->rate;
		m->rate_sum += m->rate;
		m->rate_sumsq += m->rate * m->rate;
		m->samples++;
	}
	r->bytes = m->bytes;
	r->elapsed = now - m->start;
	if (r->elapsed < 0)
		r->elapsed = 0;
	r->rate = m->rate;
	if (m->window > 0)
		r->average = window_average(m, now);
	else
		r->average = r->elapsed > 0 ? (double)m->bytes / r->elapsed : 0;
}

void meter_stats(const struct meter *m, struct meter_stats *s)
{
	memset(s, 0, sizeof(*s));
	if (m->samples == 0)
		return;
	s->samples = m->samples;
	s->min = m->rate_min;
	s->max = m->rate_max;
	s->mean = m->rate_sum / (double)m->samples;
	{
		double var = m->rate_sumsq / (double)m->samples - s->mean * s->mean;

		s->mdev = var > 0 ? sqrt(var) : 0;
	}
}
