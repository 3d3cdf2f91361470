/* SPDX-License-Identifier: ISC */
/* serve_side.h - serve's half of the side channel (docs/SIDECHANNEL.md): recognising a hello in
 * a connection's first bytes, the table of sessions, and the report lines queued on a session's
 * control connection. It knows sockets and the wire format, not the server's connections: the
 * server (server.c) decides what each role does to a connection. Never prints, never exits. */
#ifndef NCPV_SERVE_SIDE_H
#define NCPV_SERVE_SIDE_H

#include <stddef.h>
#include <stdint.h>

#include "sidechan.h"

/* A session whose control connection has no data connection this long after its answer is
 * dropped (an orphan hello). */
#define SERVE_SIDE_ORPHAN_SECONDS 10.0
/* The most report bytes queued on one control connection that its client does not read. */
#define SERVE_SIDE_OUT_MAX ((size_t)256 * 1024)

/* A connection's first bytes while they may still be a hello (allocated only for a connection
 * whose first byte is the hello's NUL; freed once decided). */
struct serve_side_acc {
	size_t len;
	char buf[SIDE_LINE_MAX];
};

enum serve_side_seen {
	SERVE_SIDE_WAIT,  /* nothing to decide yet, or a hello's beginning taken into *acc */
	SERVE_SIDE_NONE,  /* not a hello: an ordinary connection; *taken bytes were read and are data */
	SERVE_SIDE_HELLO, /* a hello, read off the socket exactly (the data after it untouched) */
	SERVE_SIDE_EOF	  /* the peer's EOF (after *taken bytes of data): the ordinary read's answer
			   * too, so a client that only closes costs no read more than before */
};

/*
 * Look at what a connection sent, on its reads until decided. The first look is a recv with
 * MSG_PEEK: anything but a hello's beginning stays in the socket for the ordinary read. A
 * hello's beginning that is not yet a whole line is read into *acc (allocated here; the caller
 * frees it once decided); *taken is then what was read and turned out not to be a hello.
 * Returns -1 with errno when the socket failed (the error is taken by this look: the caller
 * acts on it) or memory ran out.
 */
int serve_side_look(int fd, struct serve_side_acc **acc, struct side_hello *h, uint64_t *taken);

/* Does a hello (or the rest of one begun in acc) wait unread on fd? One recv with MSG_PEEK, for
 * a sender whose send failed before any wakeup looked: a client that took what it wanted and
 * reset may have said hello first, and its session must hear how the connection ended. */
int serve_side_unread(int fd, const struct serve_side_acc *acc);

struct serve_side_session {
	struct serve_side_session *prev, *next;
	char token[SIDE_TOKEN_LEN + 1];
	unsigned interval_ms, streams;
	uint64_t rate_bps;	    /* the hello's rate=: each down connection paced to it (0: none) */
	unsigned pace_waiting;	    /* rate=: down connections still to come (the server holds new
				     * connections from sending until their first bytes meanwhile) */
	int said_size;		    /* the answer said size= (ask=size, and serve knew it) ... */
	uint64_t size;		    /* ...this: each down connection is sent exactly that */
	double start, orphan_until; /* orphan_until: 0 once a data connection joined */
	double next_report;	    /* interval_ms > 0: when the next iv lines are due */
	void *ctl;		    /* the server's control connection (borrowed) */
	char *out;		    /* report bytes not yet taken by the socket */
	size_t out_len, out_cap;
	int listed;		    /* in the table (a refusal's is not) */
};

/* Sessions asking for reports more often than this have them between serve's sweeps. */
#define SERVE_SIDE_FAST_MS 100

struct serve_side_table {
	struct serve_side_session *head;
	long n;
	long nfast; /* of them, those with 0 < interval_ms < SERVE_SIDE_FAST_MS */
};

/* Whether ss is one of the table's nfast. */
#define SERVE_SIDE_FAST(ss) ((ss)->interval_ms > 0 && (ss)->interval_ms < SERVE_SIDE_FAST_MS)

/* A new session for hello h (a ctl) on connection ctl at now, with its answer queued (saying
 * rate= back when the hello asked for one: the server paces every down connection; and size=
 * when it asked with ask=size and size is not NULL: the bytes each down connection will get,
 * exactly). NULL when the token is in use (*why "token") or memory ran out (*why NULL, errno). */
struct serve_side_session *serve_side_open(struct serve_side_table *t, const struct side_hello *h, void *ctl,
					   double now, const uint64_t *size, const char **why);
struct serve_side_session *serve_side_find(struct serve_side_table *t, const char *token);
/* Free ss, and take it out of t if it is listed there. */
void serve_side_close(struct serve_side_table *t, struct serve_side_session *ss);

/* An unlisted session that only carries the refusal "no TOKEN WHY" to its control connection
 * (closed once it is out). NULL when out of memory. */
struct serve_side_session *serve_side_refusal(const char *token, const char *why, void *ctl);

/* Queue one report line. -1 past SERVE_SIDE_OUT_MAX or out of memory: the session is to end. */
int serve_side_queue(struct serve_side_session *ss, const struct side_report *r);
/* Queue raw bytes (an answer line). -1 as serve_side_queue. */
int serve_side_queue_raw(struct serve_side_session *ss, const char *text, size_t len);
/* Hand queued bytes to fd. Returns the bytes the socket took (>= 0; *more set while some wait
 * for room), or -1 with errno when the socket failed. */
long serve_side_flush(struct serve_side_session *ss, int fd, int *more);

/* A report of one data connection: TCP's figures from fd's TCP_INFO (the sender's gauges),
 * with the byte counts the server keeps. ms counts from the session's start. */
void serve_side_fill(struct side_report *r, int fd, unsigned stream, const struct serve_side_session *ss,
		     double now, uint64_t sent, uint64_t acked, uint64_t received);

#endif
