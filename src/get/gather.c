/* SPDX-License-Identifier: ISC */
/* gather.c - -P's interval records in a small ring per stream, handed on as whole intervals
 * with their sum (see gather.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gather.h"

/* Intervals a stream may run ahead of the slowest before the slowest's is let go. */
#define GATHER_RING 8

struct gather {
	pthread_mutex_t mu;
	long n;
	long next;		  /* the interval index to hand on next */
	gather_emit_fn *emit;
	void *ctx;
	struct get_interval *slot; /* n * GATHER_RING */
	long *slot_index;	  /* the index held by each slot; -1: empty */
	int *done;		  /* per stream */
	long *seen;		  /* per stream: the highest index put, -1 none */
	struct get_interval *batch; /* n: one interval's records, for the call */
};

struct gather *gather_new(long n, gather_emit_fn *emit, void *ctx)
{
	struct gather *g = calloc(1, sizeof(*g));

	if (g == NULL)
		return NULL;
	g->n = n;
	g->emit = emit;
	g->ctx = ctx;
	g->slot = calloc((size_t)n * GATHER_RING, sizeof(*g->slot));
	g->slot_index = malloc((size_t)n * GATHER_RING * sizeof(*g->slot_index));
	g->done = calloc((size_t)n, sizeof(*g->done));
	g->seen = malloc((size_t)n * sizeof(*g->seen));
	g->batch = calloc((size_t)n, sizeof(*g->batch));
	if (!g->slot || !g->slot_index || !g->done || !g->seen || !g->batch) {
		gather_free(g);
		return NULL;
	}
	for (long i = 0; i < n * GATHER_RING; i++)
		g->slot_index[i] = -1;
	for (long i = 0; i < n; i++)
		g->seen[i] = -1;
	pthread_mutex_init(&g->mu, NULL);
	return g;
}

void gather_free(struct gather *g)
{
	if (g == NULL)
		return;
	if (g->slot_index)
		pthread_mutex_destroy(&g->mu);
	free(g->slot);
	free(g->slot_index);
	free(g->done);
	free(g->seen);
	free(g->batch);
	free(g);
}

static long at(long stream, long index)
{
	return stream * GATHER_RING + index % GATHER_RING;
}

/* Every stream has closed interval next, put its last, or gone past it (a stream that began
 * late puts no record for the intervals before it); and something is there to hand on, now
 * or later (else every stream is done). */
static int ready(const struct gather *g)
{
	int any = 0;

	for (long i = 0; i < g->n; i++) {
		int here = g->slot_index[at(i, g->next)] == g->next;

		if (!here && !g->done[i] && g->seen[i] <= g->next)
			return 0;
		any |= here || g->seen[i] > g->next;
	}
	return any;
}

/* Hand on interval next with what is there, and its sum. */
static void hand_on(struct gather *g)
{
	struct get_interval sum;
	long m = 0;

	memset(&sum, 0, sizeof(sum));
	for (long i = 0; i < g->n; i++) {
		long k = at(i, g->next);
		const struct get_interval *r = &g->slot[k];

		if (g->slot_index[k] != g->next)
			continue;
		g->batch[m] = *r;
		if (m == 0) {
			sum.start = r->start;
			sum.end = r->end;
			sum.omitted = r->omitted;
			sum.have_tcp = r->have_tcp;
			sum.last = 1;
		}
		sum.start = r->start < sum.start ? r->start : sum.start;
		sum.end = r->end > sum.end ? r->end : sum.end;
		sum.bytes += r->bytes;
		sum.omitted &= r->omitted;
		sum.have_tcp &= r->have_tcp;
		sum.last &= r->last;
		tcpstate_interval_add(&sum.tcp, &r->tcp, (unsigned)m);
		g->slot_index[k] = -1;
		m++;
	}
	sum.stream = 0;
	sum.index = g->next;
	if (m > 0)
		g->emit(g->ctx, g->batch, m, &sum);
	g->next++;
}

static void drain(struct gather *g)
{
	while (ready(g))
		hand_on(g);
}

void gather_put(struct gather *g, long id, const struct get_interval *rec)
{
	long k = at(id - 1, rec->index);

	pthread_mutex_lock(&g->mu);
	while (g->slot_index[k] >= 0 && g->next <= g->slot_index[k])
		hand_on(g); /* this stream is a ring ahead: let the oldest go as it is */
	if (rec->index > g->seen[id - 1])
		g->seen[id - 1] = rec->index;
	if (rec->index >= g->next) {
		g->slot[k] = *rec;
		g->slot[k].stream = id;
		g->slot_index[k] = rec->index;
	} else {
		/* Its interval went out without it: it goes out alone, so no byte is lost. */
		struct get_interval late = *rec, sum = *rec;

		late.stream = id;
		sum.stream = 0;
		g->emit(g->ctx, &late, 1, &sum);
	}
	drain(g);
	pthread_mutex_unlock(&g->mu);
}

void gather_done(struct gather *g, long id)
{
	pthread_mutex_lock(&g->mu);
	g->done[id - 1] = 1;
	drain(g);
	pthread_mutex_unlock(&g->mu);
}
