/* SPDX-License-Identifier: ISC */
/* interval.c - get's interval clock: where -i's boundaries and --omit's end fall, and one
 * stream's interval record between two readings of its counters (pure: the caller reads the
 * clock and TCP_INFO). */
#include <math.h>
#include <string.h>

#include "get_engine.h"

/* A boundary this close to rel counts as passed: a wake-up a hair early is not a new interval. */
#define IVAL_SLACK 1e-9

double get_ival_boundary(double rel, double every, double omit)
{
	double k;

	if (rel + IVAL_SLACK < omit) {
		if (every <= 0)
			return omit;
		k = floor((rel + IVAL_SLACK) / every) + 1;
		return k * every < omit ? k * every : omit;
	}
	if (every <= 0)
		return 0;
	k = floor((rel - omit + IVAL_SLACK) / every) + 1;
	return omit + k * every;
}

void get_ival_start(struct get_ival *iv, const struct get_opts *o, double start, uint64_t bytes,
		    const struct tcpstate *tcp)
{
	double b, base = o->epoch > 0 && o->epoch <= start ? o->epoch : start;

	memset(iv, 0, sizeof(*iv));
	iv->start = base;
	iv->at = start - base;
	iv->every = o->interval;
	iv->omit = o->omit;
	/* The boundaries passed before this stream began (each is later than the last). */
	b = get_ival_boundary(0, iv->every, iv->omit);
	while (b > 0 && b <= iv->at + IVAL_SLACK) {
		iv->index++;
		b = get_ival_boundary(b, iv->every, iv->omit);
	}
	iv->bytes_at = bytes;
	if (tcp) {
		iv->have_tcp = 1;
		iv->tcp_at = *tcp;
	}
	b = get_ival_boundary(iv->at, iv->every, iv->omit);
	iv->next = b > 0 ? base + b : 0;
}

int get_ival_close(struct get_ival *iv, double now, uint64_t bytes, const struct tcpstate *tcp, int last,
		   struct get_interval *out)
{
	double rel = now - iv->start, b;
	int omit_ends = 0;

	if (rel < iv->at)
		rel = iv->at; /* a clock read before the last boundary's: an empty interval */
	memset(out, 0, sizeof(*out));
	out->index = iv->index;
	out->start = iv->at;
	out->end = rel;
	out->bytes = bytes >= iv->bytes_at ? bytes - iv->bytes_at : 0;
	out->omitted = iv->omit > 0 && iv->at + IVAL_SLACK < iv->omit; /* began inside --omit */
	out->last = last;
	if (iv->have_tcp && tcp) {
		tcpstate_delta(&iv->tcp_at, tcp, rel - iv->at, &out->tcp);
		out->have_tcp = 1;
	}
	if (!last && iv->omit > 0 && iv->at + IVAL_SLACK < iv->omit && rel + IVAL_SLACK >= iv->omit)
		omit_ends = 1;
	iv->at = rel;
	iv->index++;
	iv->bytes_at = bytes;
	iv->have_tcp = tcp != NULL;
	if (tcp)
		iv->tcp_at = *tcp;
	b = last ? 0 : get_ival_boundary(rel, iv->every, iv->omit);
	iv->next = b > 0 ? iv->start + b : 0;
	return omit_ends;
}
