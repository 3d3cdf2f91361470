/* SPDX-License-Identifier: ISC */
/* get_engine.h - the engine of "ncpv get": one stream (a download into a sink, or an upload from a
 * source) and the --count batch. It never prints and never exits: notices and progress go
 * through struct get_events, a failure comes back as an end reason with why in a caller's
 * buffer, and the command (src/cmd/get.c) turns both into messages and an exit code. */
#ifndef NCPV_GET_ENGINE_H
#define NCPV_GET_ENGINE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "../addr.h"
#include "../net.h"
#include "../stats.h"
#include "../tls.h"
#include "../tcp/sockopt.h"
#include "../tcp/tcpstate.h"

/* What the engine needs from the command line; filled once by the command, read-only after.
 * The strings are borrowed (argv) and must outlive the run. */
struct get_opts {
	struct addr_spec at;	/* HOST and PORT */
	struct net_opts net;	/* family, connect timeout (-w), net.cancel = cancel */
	double timeout;		/* -w: seconds of peer idleness (0: none) */
	double duration;	/* -t: seconds (0: none) */
	double busy_poll;	/* --busy-poll: seconds */
	uint64_t max_bytes;	/* -b (0: none) */
	uint64_t size;		/* -s, when has_size */
	int has_size, send;	/* --send: upload source instead of downloading */
	/* The side channel's size= (get_side.h): what serve said this download connection will
	 * get, when has_server_size. A total for the progress line only (without -s): never
	 * checked against what comes, as -s is. */
	uint64_t server_size;
	int has_server_size;
	long count, parallel;	/* --count (0: one stream), --parallel */
	const char *output;	/* -o FILE, "-" for stdout, NULL to discard */
	const char *source;	/* --source: what --send sends */
	int zerocopy;		/* -Z: instead, SOURCE_REPEAT_BLOCK random bytes over and over (sendfile) */
	const struct tls_config *tls; /* --tls: the client's settings (borrowed); NULL: plain TCP */
	const char *tls_name;	/* the name sent and verified (--sni, or the host) */
	const volatile sig_atomic_t *cancel; /* set by a signal: stop (borrowed, never NULL) */
	/* Socket settings (congestion control, buffers, MSS, no-delay, TOS) applied before the
	 * connect (borrowed); NULL: the kernel's defaults. The bind address and port are net's. */
	const struct sockopt_want *sock;
	double interval;	/* -i given: a record per interval through get_events.interval (0: none) */
	double omit;		/* --omit: seconds at the start left out of the results (0: none) */
	double rate;		/* --rate: bits/s that --send's socket is paced to, each -P stream's
				 * (as iperf3's -b); a download's is asked of serve (get_side_paced) */
	double epoch;		/* -P: the clock_now() that every stream's intervals count from, so
				 * that they share boundaries (0: each stream's own start) */
	const struct get_interval_out *interval_out; /* -i: where records go (borrowed; NULL: none) */
	/* The side channel's hello for this connection (get_side.h), sent first after the
	 * connect and counted in no figure; NULL: none (every plain get). */
	const char *hello;
	size_t hello_len;
	/* get_parallel: stream i's hello (hellos[i], hello_lens[i] bytes) in place of hello;
	 * NULL: hello for every stream. Borrowed, n entries. */
	const char *const *hellos;
	const size_t *hello_lens;
};

/* How a run ended. The first five leave a summary to show; the rest are failures whose reason
 * is in the caller's err buffer. */
enum get_end {
	GET_END_EOF,	     /* the server closed the stream (--count: every transfer ended) */
	GET_END_TIME,	     /* -t ran out */
	GET_END_BYTES,	     /* -b was reached */
	GET_END_INTERRUPTED, /* *cancel was set */
	GET_END_SHORT,	     /* the server closed with a total other than -s: -o is not replaced */
	GET_END_FAILED,	     /* the transfer failed (a reset, more than -s, out of memory...) */
	GET_END_IDLE,	     /* -w: the peer moved nothing for that long, or a connect timed out */
	GET_END_FILE,	     /* a local file: -o or --source */
	GET_END_NET,	     /* resolving or connecting failed: net_error says how */
	GET_END_TLS	     /* the TLS handshake failed: tls_error says how */
};

/* A failure (no summary to show; err says why), as opposed to an end as asked or a short one. */
static inline int get_end_failed(enum get_end end)
{
	return end >= GET_END_FAILED;
}

/* The word for how a stream ended in get's --json ("eof", "time", "bytes", "interrupted");
 * a short stream was ended by the server's close, so it is "eof" too. NULL for a failure. */
const char *get_end_name(enum get_end end);

/* Where a run stands, for the progress line. */
struct get_totals {
	uint64_t bytes; /* moved so far: received, or sent with --send (every connection with --count) */
	double start;	/* clock_now() when the transfer began (after the connect and handshake) */
	uint64_t size;	/* the total bytes will reach, for a bar and an ETA; 0 unknown: -s (else the
			 * server's size through the side channel), -b, an uploaded file's size,
			 * whichever is least (one stream only) */
	long finished, count; /* --count: transfers over (done or failed) of count asked for */
};

enum get_tick {
	GET_TICK_START, /* the transfer begins: bytes 0, start set */
	GET_TICK_LIVE,	/* the time asked for has come */
	GET_TICK_END,	/* the transfer is over, as asked or not: a last line if there is one */
	GET_TICK_FAILED /* the transfer is over and failed */
};

/* One interval of one stream, or of -P's streams together (interval.c). Times are seconds
 * from the stream's start; an interval that ends inside --omit is marked omitted. */
struct get_interval {
	long stream;		/* 1..N; 0 for the sum of -P's streams */
	long index;		/* 0 for the first interval of the stream */
	double start, end;
	uint64_t bytes;		/* received, or sent with --send, in the interval */
	int omitted;		/* inside --omit: not counted in the results */
	int last;		/* the stream's last: it ends where the stream ended */
	int have_tcp;		/* tcp: this end's TCP_INFO over the interval */
	struct tcpstate_interval tcp;
};

/* With o->interval, as each interval ends: the n streams' records (n is 1 for one stream) and,
 * for -P, their sum (NULL for one stream). Borrowed for the call only. Under -P it is called
 * from the streams' threads, one call at a time. */
struct get_interval_out {
	void (*interval)(void *ctx, const struct get_interval *streams, long n, const struct get_interval *sum);
	void *ctx;
};

/*
 * What the engine hands its caller while it runs (any member may be NULL):
 * say: a notice for stderr (no newline): --parallel capped by the open-file limit, a --count
 *   transfer that the server never closes.
 * tick: see enum get_tick; returns the clock_now() time of the next GET_TICK_LIVE it wants,
 *   or 0 for none. The engine's waits wake for it.
 */
struct get_events {
	void (*say)(void *ctx, const char *line);
	double (*tick)(void *ctx, const struct get_totals *t, enum get_tick when, double now);
	void *ctx;
};

/* The interval clock of one stream (interval.c): where the last boundary was, and what the
 * counters read there. Owned by the stream. */
struct get_ival {
	double start;		/* clock_now() that boundaries count from (the epoch) */
	double every, omit;	/* o->interval (0: boundaries only at omit), o->omit */
	double next;		/* clock_now() of the next boundary; 0: none */
	double at;		/* the last boundary (or the stream's start), in seconds from start */
	long index;		/* of the interval now running */
	uint64_t bytes_at;
	int have_tcp;
	struct tcpstate tcp_at;
};

/* The boundary after rel seconds from the start: every `every` seconds through --omit, at
 * omit itself, then every `every` seconds from omit (as iperf3 restarts after -O). 0 when there
 * is none (every and omit 0, or rel past omit with every 0). Pure. */
double get_ival_boundary(double rel, double every, double omit);

/* Start the clock for a stream that starts at start, with the counters' first readings (tcp
 * NULL: none). Boundaries count from o->epoch when set (a stream that starts late begins inside
 * an interval, with that interval's index), else from start. */
void get_ival_start(struct get_ival *iv, const struct get_opts *o, double start, uint64_t bytes,
		    const struct tcpstate *tcp);

/* Close the interval at now (a boundary, or the stream's end with last set), filling out, and
 * start the next. Pure: tcp is the reading at now (NULL: none). Returns 1 when now is the end
 * of --omit (the results start counting there), else 0. */
int get_ival_close(struct get_ival *iv, double now, uint64_t bytes, const struct tcpstate *tcp, int last,
		   struct get_interval *out);

/* One stream's outcome. tls is the finished connection for the summary, NULL without --tls or
 * when the handshake failed; it and its context are owned by the result: get_result_free
 * releases them. */
struct get_result {
	uint64_t bytes;
	double seconds;
	char peer[64];
	int began;	/* the transfer had started: a failure happened after bytes counted */
	int net_error;	/* GET_END_NET: the net_* code */
	int tls_error;	/* GET_END_TLS: the tls_result code */
	struct tls_conn *tls;
	struct tls_ctx *tls_ctx;
	int sock_refused;	/* the kernel refused a socket setting: err names it */
	int have_sock;		/* sock: what the connected socket uses, as the kernel says */
	struct sockopt_got sock;
	int have_tcp;		/* tcp: TCP's figures over the transfer (this end's view) */
	struct tcpstate_interval tcp;
	/* --omit: the start left out. bytes and seconds above are the whole stream's; the
	 * results are bytes - omitted_bytes over seconds - omitted_seconds, and tcp is taken
	 * from the end of the omitted time (omitted_seconds 0: the stream ended inside it). */
	uint64_t omitted_bytes;
	double omitted_seconds;
	int paced;		/* --rate: SO_MAX_PACING_RATE was set on the socket */
};

/* One stream (o->count 0): connect, the TLS handshake, then receive into a sink (replacing
 * -o only when the stream ended whole, at the server's close, -t or -b: not when interrupted)
 * or upload o->source and wait for the server's close.
 * Every wait is bounded by -w of peer idleness and -t, and ends once *o->cancel is set.
 * Returns how it ended (also the reason for failures, with err filled). */
enum get_end get_stream(const struct get_opts *o, const struct get_events *ev, struct get_result *r,
			char *err, size_t errlen);
void get_result_free(struct get_result *r);

/* get -P without --count: at most this many streams, a thread each. */
#define GET_STREAMS_MAX 128

/* -P N without --count: N streams at once to one server, each on a thread of its own and each
 * as get_stream runs it (no events: no progress line), -b and -s split between them (--rate is
 * each stream's, as iperf3's -b), -o
 * refused by the command. With o->interval_out, each interval's records are gathered from the
 * streams and handed on with their sum once every stream still running has closed it.
 * rs[0..n) get each stream's result (get_result_free each). Returns the first failure (err:
 * "stream I: why"), else the first stream's end. */
enum get_end get_parallel(const struct get_opts *o, long n, struct get_result *rs, char *err, size_t errlen);

/* The --count batch's outcome. */
struct get_batch_result {
	char peer[64];
	int net_error;		   /* GET_END_NET: the net_* code */
	int tls_error;		   /* GET_END_TLS: the tls_result code (--tls settings unusable) */
	long done, failed, cut;	   /* transfers finished, failed, cut short by -t or a signal */
	uint64_t bytes;
	double seconds;
	struct stats_summary latency; /* over the finished transfers, in seconds */
	long handshakes, resumed, ktls; /* --tls */
	char first_error[256];	   /* the first failure's reason */
};

/* o->count whole downloads over up to o->parallel connections (fewer when the open-file limit
 * says so) on one event loop; each ends when its server closes. Returns GET_END_EOF when every
 * transfer started ended, GET_END_TIME or GET_END_INTERRUPTED when -t or *o->cancel cut the
 * rest, or a failure to start (GET_END_NET, GET_END_TLS, GET_END_FAILED) with err filled. */
enum get_end get_batch(const struct get_opts *o, const struct get_events *ev, struct get_batch_result *r,
		       char *err, size_t errlen);

#endif
