/* SPDX-License-Identifier: ISC */
/* get_side.h - get's half of the side channel (docs/SIDECHANNEL.md): a session with an ordinary
 * serve on its data port, through which get learns the sender's figures (--server-view) and
 * asks serve to receive (--reverse) or to do both at once (--bidir). Never prints, never exits. */
#ifndef NCPV_GET_SIDE_H
#define NCPV_GET_SIDE_H

#include "get_engine.h"
#include "../sidechan.h"

enum get_side_mode {
	GET_SIDE_VIEW,	  /* one download, with serve's view of it */
	GET_SIDE_REVERSE, /* one upload: serve receives */
	GET_SIDE_BIDIR	  /* a download and an upload at once, on two connections */
};

/*
 * report: every line serve sends on the control connection, as it arrives: the iv lines of
 * interval_ms (0: none) and each stream's end line (stream 0: the download, or the upload
 * with --reverse; stream 1: --bidir's upload). Called on the session's own thread, so the
 * callee takes its own lock; r is only valid during the call. May be NULL.
 */
struct get_side_events {
	void (*report)(void *ctx, const struct side_report *r);
	void *ctx;
};

/* Each direction's outcome, from both ends. */
struct get_side_dir {
	int ran;		 /* this direction was asked for */
	enum get_end end;
	struct get_result r;	 /* this end's, as get_stream gives it (get_result_free: get_side_free) */
	char err[256];		 /* r's failure, when get_end_failed(end) */
	int have_size;		 /* size: what serve said this download connection would get (its
				  * answer's size=: --size, or a file sent once; the progress total) */
	uint64_t size;
	int no_session;		 /* --server-view: serve closed the control connection unanswered
				  * (a transfer its socket buffers held whole); this direction ran
				  * as a plain download, without serve's view */
	int have_server;	 /* server: serve's end line for this connection came */
	struct side_report server;
};

struct get_side_result {
	struct get_side_dir down, up;
	int net_error;		 /* GET_END_NET on the control connection: the net_* code */
	char peer[64];
};

/*
 * With o->interval and o->interval_out, each direction's records go there with stream set to
 * its side-channel stream + 1 (1: the download, or --reverse's upload; 2: --bidir's upload),
 * from the direction's own thread (--bidir: two threads at once; the callee locks).
 * Run mode against o->at: the control connection (its hello, then serve's answer, read past
 * whatever serve had queued, within -w or 10 s), then the data connections with their hellos:
 * on this thread with ev for one direction, or on two threads without events for --bidir.
 * o->send and o->output are the command's; each direction takes its own copy. After the
 * streams, serve's end lines are awaited for -w (10 s without it). Returns the run's end: a
 * failure of the session itself (err says why), else the first direction's failure, else
 * the first direction's end. --server-view whose control connection serve closes unanswered
 * (it had sent a transfer its socket buffers held, FIN and all, before it read the hello) says
 * so through ev->say and runs the download again as a plain get_stream (r->down.no_session).
 * Free r with get_side_free.
 */
enum get_end get_side_run(const struct get_opts *o, enum get_side_mode mode, unsigned interval_ms,
			  const struct get_events *ev, const struct get_side_events *sev, struct get_side_result *r,
			  char *err, size_t errlen);
void get_side_free(struct get_side_result *r);

/*
 * get --rate on a download (o->rate > 0, not o->send): a session whose hello asks serve to pace
 * each of n down connections to o->rate bits/s, then the download as get_stream (n 1, with ev)
 * or get_parallel (n > 1) runs it, each connection with its down hello. A server that does not
 * say it paces (no answer, a refusal, or a serve from before rate=) fails the run with
 * GET_END_FAILED and err saying why, before any data connection; never an unpaced download.
 * rs[0..n) as get_stream / get_parallel fill them (get_result_free each; rs[0].net_error for
 * GET_END_NET on the control connection).
 */
enum get_end get_side_paced(const struct get_opts *o, long n, const struct get_events *ev, struct get_result *rs,
			    char *err, size_t errlen);

#endif
