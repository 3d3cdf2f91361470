/* SPDX-License-Identifier: ISC */
/* parallel.c - "get -P N" without --count: N streams to one server at once, one thread each, so
 * that N streams can use N cores (iperf3 -P). Each thread runs get_stream as it is; -b and -s
 * are totals, split between the streams, and --rate is each stream's (as iperf3's -b) (the command makes sure each gets at least one
 * byte). With -i, the streams' interval records meet in a gather (gather.c) that hands each
 * interval on with the sum once every stream still running has closed it. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "get_engine.h"
#include "gather.h"
#include "../clock.h"

struct lane {
	pthread_t tid;
	int started;
	long id;		/* 1..N */
	struct gather *g;	/* -i: where the records go; NULL: none */
	struct get_interval_out out;
	struct get_opts o;	/* the run's options, with this stream's share of -b */
	struct get_result *r;
	enum get_end end;
	char err[256];
};

/* A lane's interval record, on its way to the gather. */
static void lane_interval(void *ctx, const struct get_interval *one, long n, const struct get_interval *sum)
{
	struct lane *l = ctx;

	(void)n;
	(void)sum;
	gather_put(l->g, l->id, one);
}

/* Stream i's share of a total split between n streams: the first total % n get one more. */
static uint64_t share(uint64_t total, long n, long i)
{
	return total / (uint64_t)n + ((uint64_t)i < total % (uint64_t)n);
}

static void *lane_main(void *arg)
{
	struct lane *l = arg;

	l->end = get_stream(&l->o, NULL, l->r, l->err, sizeof(l->err));
	if (l->g)
		gather_done(l->g, l->id);
	return NULL;
}

enum get_end get_parallel(const struct get_opts *o, long n, struct get_result *rs, char *err, size_t errlen)
{
	struct lane *lanes = calloc((size_t)n, sizeof(*lanes));
	struct gather *g = NULL;
	enum get_end end = GET_END_EOF;

	if (lanes != NULL && o->interval > 0 && o->interval_out &&
	    (g = gather_new(n, o->interval_out->interval, o->interval_out->ctx)) == NULL) {
		free(lanes);
		lanes = NULL;
	}
	if (lanes == NULL) {
		snprintf(err, errlen, "out of memory");
		return GET_END_FAILED;
	}
	double epoch = clock_now(); /* the streams' intervals share boundaries */

	for (long i = 0; i < n; i++) {
		int e;

		lanes[i].o = *o;
		lanes[i].o.epoch = epoch;
		lanes[i].r = &rs[i];
		lanes[i].id = i + 1;
		lanes[i].g = g;
		lanes[i].out = (struct get_interval_out){ lane_interval, &lanes[i] };
		lanes[i].o.interval_out = g ? &lanes[i].out : NULL;
		memset(&rs[i], 0, sizeof(rs[i]));
		if (o->max_bytes)
			lanes[i].o.max_bytes = share(o->max_bytes, n, i);
		if (o->has_size)
			lanes[i].o.size = share(o->size, n, i);
		if (o->hellos) {
			lanes[i].o.hello = o->hellos[i];
			lanes[i].o.hello_len = o->hello_lens[i];
		}
		if ((e = pthread_create(&lanes[i].tid, NULL, lane_main, &lanes[i])) != 0) {
			snprintf(err, errlen, "stream %ld of %ld: %s", i + 1, n, strerror(e));
			end = GET_END_FAILED;
			for (long k = i; k < n && g; k++)
				gather_done(g, k + 1); /* no records will come from those never started */
			break;
		}
		lanes[i].started = 1;
	}
	for (long i = 0; i < n; i++)
		if (lanes[i].started)
			pthread_join(lanes[i].tid, NULL);
	/* The first failure is the run's (unless a thread did not even start), else stream 1's end. */
	for (long i = 0; i < n && !get_end_failed(end); i++) {
		if (i == 0 || get_end_failed(lanes[i].end))
			end = lanes[i].end;
		if (get_end_failed(end))
			snprintf(err, errlen, "stream %ld: %s", i + 1, lanes[i].err);
	}
	/* Else a stream that ended short of its share of -s makes the run short, and says so. */
	for (long i = 0; i < n && !get_end_failed(end); i++)
		if (lanes[i].end == GET_END_SHORT) {
			end = GET_END_SHORT;
			snprintf(err, errlen, "stream %ld of %ld: expected %llu byte%s (its share of -s %llu), received %llu",
				 i + 1, n, (unsigned long long)lanes[i].o.size, lanes[i].o.size == 1 ? "" : "s",
				 (unsigned long long)o->size, (unsigned long long)rs[i].bytes);
			break;
		}
	gather_free(g);
	free(lanes);
	return end;
}
