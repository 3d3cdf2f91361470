/* SPDX-License-Identifier: ISC */
/* get_side_iv.h - -i with the side channel: get's interval lines and, beside them, serve's
 * figures for the same stream and interval (its iv lines), matched by stream and order. */
#ifndef NCPV_CMD_GET_SIDE_IV_H
#define NCPV_CMD_GET_SIDE_IV_H

#include <pthread.h>

#include "get_report.h"
#include "../sidechan.h"

/* serve's lines that may wait for get's interval of the same index before going out alone. */
#define SIDE_IV_QUEUE 4

struct side_iv_stream {
	long shown;	/* get's intervals of this stream written: the next index (LONG_MAX: its last) */
	long got;	/* serve's lines taken: the next one's index */
	int upload;	/* serve receives on it (--reverse, --bidir's upload) */
	struct side_report prev; /* serve's last line (cumulative counters), prev.ms 0 at first */
	struct get_interval q[SIDE_IV_QUEUE];
	int final[SIDE_IV_QUEUE];
	int qn;
};

/* Owned by the command; the lines of both threads (get's streams, serve's reader) go out under
 * mu, one at a time. */
struct side_iv {
	pthread_mutex_t mu;
	struct get_report rp;
	int bidir;
	struct side_iv_stream s[2];
};

/* serve's interval from its line before (prev; ms 0 and counters 0 at first) to r: bytes sent
 * (received for an upload), retransmits in between, and r's gauges, on serve's clock. Pure. */
void side_iv_delta(const struct side_report *prev, const struct side_report *r, int upload, long index,
		   struct get_interval *out);

void side_iv_init(struct side_iv *x, const struct get_report *rp, int bidir, int reverse);
void side_iv_free(struct side_iv *x);

/* get_interval_out.interval's shape (streams[0].stream: the side stream + 1). */
void side_iv_get(void *ctx, const struct get_interval *streams, long n, const struct get_interval *sum);
/* get_side_events.report's shape: serve's iv and end lines. */
void side_iv_server(void *ctx, const struct side_report *r);
/* After the run: serve's lines still waiting go out. */
void side_iv_flush(struct side_iv *x);

#endif
