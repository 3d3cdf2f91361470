/* SPDX-License-Identifier: ISC */
/* limit.c - pv -L: a token bucket without bursts, in bytes (lines in line mode) per second (pure). */
#include "pv.h"

void pv_limit_start(struct pv_limit *l, uint64_t rate, double now)
{
	l->rate = rate;
	l->tokens = 0;
	l->at = now;
}

uint64_t pv_limit_allow(struct pv_limit *l, double now, double *wait)
{
	double rate = (double)l->rate;
	double chunk = rate * PV_RATE_CHUNK, cap = rate * PV_RATE_SLICE;

	if (chunk < 1)
		chunk = 1;
	if (chunk > PV_BUFFER_DEFAULT)
		chunk = PV_BUFFER_DEFAULT;
	if (cap < chunk)
		cap = chunk;
	l->tokens += (now - l->at) * rate;
	l->at = now;
	if (l->tokens > cap)
		l->tokens = cap;
	if (l->tokens < chunk) {
		*wait = (chunk - l->tokens) / rate;
		return 0;
	}
	*wait = 0;
	return (uint64_t)l->tokens;
}

void pv_limit_spend(struct pv_limit *l, uint64_t n)
{
	l->tokens -= (double)n;
}
