/* SPDX-License-Identifier: ISC */
/* pace.c - the UDP sender's deadline schedule and the --rate parser. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pace.h"
#include "../units.h"

int udp_parse_rate(const char *s, double *bits_per_s)
{
	static const struct {
		const char *suffix;
		double mult;
	} si[] = { { "", 1 }, { "k", 1e3 }, { "m", 1e6 }, { "g", 1e9 }, { "t", 1e12 } };
	char *end;
	double v;

	if (s == NULL || !(*s >= '0' && *s <= '9') || strchr(s, 'e') || strchr(s, 'E') || strchr(s, 'x') ||
	    strchr(s, 'X')) {
		errno = EINVAL;
		return -1;
	}
	v = strtod(s, &end);
	if (!isfinite(v) || v < 0) {
		errno = EINVAL;
		return -1;
	}
	for (size_t i = 0; i < sizeof(si) / sizeof(si[0]); i++) {
		if (strcasecmp(end, si[i].suffix) == 0) {
			*bits_per_s = v * si[i].mult;
			if (*bits_per_s > 1e13 || (*bits_per_s > 0 && *bits_per_s < 1)) {
				errno = EINVAL;
				return -1;
			}
			return 0;
		}
	}
	if (units_parse_bitrate(s, &v) == 0 && v <= 1e13) {
		*bits_per_s = v;
		return 0;
	}
	errno = EINVAL;
	return -1;
}

double udp_rate_floor(uint32_t length, int streams)
{
	return 8.0 * length * (streams > 0 ? streams : 1);
}

/* How many datagrams k have k * gap < duration (their slot begins before the end): at least 1. */
static uint64_t slots_before(double gap_ns, uint64_t duration_ns)
{
	double n = ceil((double)duration_ns / gap_ns);
	uint64_t k;

	if (!(n >= 1))
		return 1;
	if (n > 1e18)
		return (uint64_t)1e18; /* below 0.1 ns a datagram for a day: no sender comes near */
	k = (uint64_t)n;
	/* The division rounds: settle k on the definition itself. */
	while (k > 1 && (double)(k - 1) * gap_ns >= (double)duration_ns)
		k--;
	while ((double)k * gap_ns < (double)duration_ns)
		k++;
	return k;
}

void udp_pace_init(struct udp_pace *p, double rate_bps, uint64_t len, uint64_t start_ns, uint64_t max_batch,
		   uint64_t duration_ns)
{
	memset(p, 0, sizeof(*p));
	p->start_ns = start_ns;
	p->gap_ns = rate_bps > 0 ? (double)len * 8 * 1e9 / rate_bps : 0;
	p->duration_ns = duration_ns;
	if (p->gap_ns > 0 && duration_ns > 0)
		p->limit = slots_before(p->gap_ns, duration_ns);
	p->batch = max_batch ? max_batch : 1;
	if (p->gap_ns > 0 && p->gap_ns < UDP_PACE_BATCH_NS) {
		uint64_t b = (uint64_t)(UDP_PACE_BATCH_NS / p->gap_ns);

		p->batch = b < 1 ? 1 : b > p->batch ? p->batch : b;
	} else if (p->gap_ns > 0)
		p->batch = 1;
}

uint64_t udp_pace_due(struct udp_pace *p, uint64_t now_ns, uint64_t max)
{
	uint64_t reached, due, cap;

	if (p->gap_ns <= 0) {
		p->k += max;
		return max;
	}
	if (now_ns < p->start_ns)
		return 0;
	/* Datagrams 0 .. reached-1 are due by now (none past the test's last). */
	reached = (uint64_t)floor((double)(now_ns - p->start_ns) / p->gap_ns) + 1;
	if (p->limit && reached > p->limit)
		reached = p->limit;
	if (reached <= p->k)
		return 0;
	cap = (uint64_t)(UDP_PACE_CATCHUP_NS / p->gap_ns) + p->batch;
	if (reached - p->k > cap) {
		p->slipped += reached - p->k - cap;
		p->k = reached - cap;
	}
	due = reached - p->k;
	if (due > max)
		due = max;
	p->k += due;
	return due;
}

uint64_t udp_pace_wake(const struct udp_pace *p)
{
	uint64_t last = p->k + p->batch - 1; /* the batch is due with its last datagram */

	if (p->gap_ns <= 0)
		return 0;
	if (p->limit && p->k >= p->limit)
		return UINT64_MAX;
	if (p->limit && last >= p->limit)
		last = p->limit - 1;
	return p->start_ns + (uint64_t)((double)last * p->gap_ns);
}

uint64_t udp_pace_span(const struct udp_pace *p, uint64_t now_ns)
{
	uint64_t elapsed = now_ns > p->start_ns ? now_ns - p->start_ns : 0;
	double slots, span;

	if (p->gap_ns <= 0)
		return p->duration_ns && elapsed > p->duration_ns ? p->duration_ns : elapsed;
	slots = floor((double)elapsed / p->gap_ns) + 1;
	if (p->limit && slots > (double)p->limit)
		slots = (double)p->limit;
	span = slots * p->gap_ns;
	return span >= 1.8e19 ? UINT64_MAX : (uint64_t)llround(span);
}
