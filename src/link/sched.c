/* SPDX-License-Identifier: ISC */
/* sched.c - the pure delay-line schedule of one link direction (see sched.h). */
#include "sched.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../units.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** */
static uint64_t next(uint64_t s[4])
{
	const uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double link_sched_uniform(struct link_sched *s)
{
	return (double)(next(s->rng) >> 11) * 0x1.0p-53;
}

void link_sched_init(struct link_sched *s, const struct link_params *p, uint64_t seed,
		     struct link_slot *ring, uint32_t cap)
{
	memset(s, 0, sizeof(*s));
	s->p = *p;
	for (int i = 0; i < 4; i++)
		s->rng[i] = splitmix64(&seed);
	s->ring = ring;
	s->cap = cap;
}

uint32_t link_sched_queued(struct link_sched *s, int64_t now_ns)
{
	while (s->count > 0 && s->ring[s->head].done_ns <= now_ns) {
		s->queued_bytes -= s->ring[s->head].size;
		s->head = (s->head + 1) % s->cap;
		s->count--;
	}
	return s->count;
}

/* The queue has room for size more bytes (an empty one always has). */
static int fits(const struct link_sched *s, uint32_t size)
{
	if (s->count == 0)
		return s->cap > 0;
	if (s->count >= s->cap || (s->p.queue_packets && s->count >= s->p.queue_packets))
		return 0;
	return !s->p.queue_bytes || s->queued_bytes + size <= s->p.queue_bytes;
}

/* Send size bytes from now on; returns when the last bit has left. The
 * time is kept exactly: whole nanoseconds plus a remainder of 1/rate ns. */
static int64_t serialize(struct link_sched *s, int64_t now_ns, uint32_t size)
{
	const uint64_t rate = s->p.bits_per_s, bits_ns = (uint64_t)size * 8 * 1000000000ULL;

	if (s->free_ns < now_ns) {
		s->free_ns = now_ns;
		s->free_rem = 0;
	}
	s->free_ns += (int64_t)(bits_ns / rate);
	s->free_rem += bits_ns % rate;
	if (s->free_rem >= rate) {
		s->free_ns++;
		s->free_rem -= rate;
	}
	return s->free_ns;
}

int link_sched_admit(struct link_sched *s, int64_t now_ns, uint32_t size, int64_t *deliver_ns)
{
	int64_t done = now_ns, delay = s->p.delay_ns;

	s->n.packets++;
	s->n.bytes += size;
	if (s->p.loss > 0 && link_sched_uniform(s) < s->p.loss) {
		s->n.lost++;
		return LINK_SCHED_LOST;
	}
	if (s->p.bits_per_s > 0) {
		link_sched_queued(s, now_ns);
		if (!fits(s, size)) {
			s->n.overflow++;
			return LINK_SCHED_OVERFLOW;
		}
		done = serialize(s, now_ns, size);
		s->ring[(s->head + s->count) % s->cap] = (struct link_slot){ done, size };
		s->count++;
		s->queued_bytes += size;
		if (s->count > s->n.max_queue)
			s->n.max_queue = s->count;
	}
	if (s->p.jitter_ns > 0) {
		/* Uniform over the 2 * jitter + 1 whole nanoseconds around delay. */
		const uint64_t span = 2 * (uint64_t)s->p.jitter_ns + 1;

		delay += (int64_t)(next(s->rng) % span) - s->p.jitter_ns;
		if (delay < 0)
			delay = 0;
	}
	*deliver_ns = done + delay;
	return 0;
}

/* One value for the kind into out (bits/s, ns, probability, or a queue). */
static int parse_one(const char *s, int kind, struct link_params *out, char *err, size_t errlen)
{
	double v;
	uint64_t bytes;
	long packets;
	size_t n = strlen(s);

	switch (kind) {
	case 'r':
		if (units_parse_bitrate(s, &v) < 0 || v < 1000 || v > 100e9) {
			snprintf(err, errlen, "expected a rate from 1kbit to 100gbit, such as 94mbit");
			return -1;
		}
		out->bits_per_s = (uint64_t)llround(v);
		return 0;
	case 't':
	case 'j':
		if (units_parse_delay(s, &v) < 0 || v > 60) {
			snprintf(err, errlen, "expected a time from 0 to 60s with its unit, such as 20ms or 0.5ms");
			return -1;
		}
		*(kind == 't' ? &out->delay_ns : &out->jitter_ns) = llround(v * 1e9);
		return 0;
	case 'p': {
		char num[32];
		char *end;

		if (n > 0 && s[n - 1] == '%')
			n--;
		if (n == 0 || n >= sizeof(num)) {
			snprintf(err, errlen, "expected a percentage from 0 to 100, such as 1%% or 0.5");
			return -1;
		}
		memcpy(num, s, n);
		num[n] = '\0';
		errno = 0;
		v = strtod(num, &end);
		if (errno || *end || !isdigit((unsigned char)num[0]) || !(v >= 0 && v <= 100)) {
			snprintf(err, errlen, "expected a percentage from 0 to 100, such as 1%% or 0.5");
			return -1;
		}
		out->loss = v / 100;
		return 0;
	}
	case 'q':
		if (n > 0 && !isdigit((unsigned char)s[n - 1])) {
			if (units_parse_size(s, &bytes) < 0 || bytes < 1 || bytes > 1ULL << 30) {
				snprintf(err, errlen, "expected packets (1 to %u) or bytes with a unit (1B to 1G), such as 100 or 64K",
					 LINK_QUEUE_MAX);
				return -1;
			}
			out->queue_bytes = bytes;
			out->queue_packets = 0;
			return 0;
		}
		if (units_parse_long(s, 1, LINK_QUEUE_MAX, &packets) < 0) {
			snprintf(err, errlen, "expected packets (1 to %u) or bytes with a unit (1B to 1G), such as 100 or 64K",
				 LINK_QUEUE_MAX);
			return -1;
		}
		out->queue_packets = (uint32_t)packets;
		out->queue_bytes = 0;
		return 0;
	}
	snprintf(err, errlen, "unknown kind of value");
	return -1;
}

int link_parse_value(const char *arg, int kind, struct link_params p[2], char *err, size_t errlen)
{
	const char *slash = strchr(arg, '/');
	char down[64];
	size_t n = slash ? (size_t)(slash - arg) : strlen(arg);

	if (n == 0 || n >= sizeof(down) || (slash && (slash[1] == '\0' || strchr(slash + 1, '/')))) {
		snprintf(err, errlen, "expected one value, or DOWN/UP");
		return -1;
	}
	memcpy(down, arg, n);
	down[n] = '\0';
	if (parse_one(down, kind, &p[0], err, errlen) < 0)
		return -1;
	return parse_one(slash ? slash + 1 : down, kind, &p[1], err, errlen);
}

char *link_params_describe(const struct link_params *p, char *buf, size_t len)
{
	char rate[32] = "no rate limit", jitter[32] = "", loss[32] = "", queue[48] = "";

	if (p->bits_per_s)
		snprintf(rate, sizeof(rate), "%.6gmbit", p->bits_per_s / 1e6);
	if (p->jitter_ns)
		snprintf(jitter, sizeof(jitter), " +-%.6gms", p->jitter_ns / 1e6);
	if (p->loss > 0)
		snprintf(loss, sizeof(loss), ", %.6g%% loss", p->loss * 100);
	if (p->queue_packets)
		snprintf(queue, sizeof(queue), ", queue %u packets", p->queue_packets);
	else if (p->queue_bytes)
		snprintf(queue, sizeof(queue), ", queue %llu bytes", (unsigned long long)p->queue_bytes);
	snprintf(buf, len, "%s, %.6gms%s%s%s", rate, p->delay_ns / 1e6, jitter, loss, queue);
	return buf;
}
