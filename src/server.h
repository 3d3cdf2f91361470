/* SPDX-License-Identifier: ISC */
/* server.h - the connection server behind "ncpv serve": accept loop, budgets, limits, close path. */
#ifndef NCPV_SERVER_H
#define NCPV_SERVER_H

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

#include "source.h"
#include "tls.h"

/* How a connection ended. */
enum server_end {
	SERVER_COMPLETE, /* every byte of a sized transfer delivered, or an upload to its end */
	SERVER_CLIENT,	 /* the client closed an endless stream: its normal end */
	SERVER_LIMIT,	 /* --max-bytes or --max-time ended an endless stream, delivered in full */
	SERVER_RESET,	 /* the client reset a transfer before its end, or the socket failed */
	SERVER_CUT,	 /* the server reset it before its end: stop, source failure, a limit */
	SERVER_END_KINDS
};

struct server_opts {
	struct source *src;   /* what to send (borrowed); NULL with discard */
	int discard;	      /* receive and count uploads instead */
	int has_size;	      /* send exactly size bytes per connection */
	uint64_t size;
	uint64_t max_bytes;   /* 0: no limit */
	double max_time;      /* seconds; 0: no limit */
	long max_conns;
	double busy_poll;     /* seconds (loop_set_spin) */
	int name_peers;	      /* look up each peer's address for the reports */
	const sigset_t *wait_mask; /* signals let in only while waiting (loop_set_sigmask); NULL: none */
	struct tls_ctx *tls;  /* --tls: a server context (borrowed); NULL: plain TCP */
	/* serve --threads: the connections open across every loop, counted against max_conns
	 * (borrowed, shared by the loops); NULL: this server's own count. */
	atomic_long *conns_shared;
	int wakeable;	      /* server_wake may be called from another thread, and connections
			       * handed over by server_share_accepts (one pipe more) */
	/* The side channel: NULL answers a session's hello; else the word a control hello is
	 * refused with ("threads": serve --threads N > 1, whose loops share no session table). */
	const char *side_refuse;
};

/* One connection's end, for the caller's log. Everything is only valid during the call. */
struct server_close {
	const char *peer; /* "" unless name_peers */
	const char *reason;
	enum server_end end;
	uint64_t sent;	  /* bytes handed to the kernel (at a cut, some maybe never sent) ... */
	uint64_t wire;	  /* ... of which these had left for the wire when counted, just before
			   * the close: all a client that had stopped reading got ... */
	uint64_t acked;	  /* ... and these the client acknowledged: it holds between acked and
			   * sent (the kernel may send on in the microseconds before the close) */
	uint64_t received;
	double seconds;
	double rtt_ms;	  /* TCP's smoothed round trip at the end; -1 unknown */
	long retrans;	  /* segments TCP sent again; -1 unknown */
	const struct tls_conn *tls; /* its TLS, once the handshake is done; NULL otherwise */
	const char *side;  /* the side channel's role: "ctl", "down", "up"; NULL: none */
};

struct server_stats {
	uint64_t accepted, refused, bytes_sent, bytes_received;
	uint64_t ended[SERVER_END_KINDS];
	double seconds; /* since server_run began */
	uint64_t tls_handshakes, ktls_connections; /* --tls: handshakes done, those with kernel TLS */
	double cpu_seconds; /* user + system time of the thread that ran server_run; 0 unknown */
};

/* Called for each connection that ends (on_close) or is refused (on_refuse, reason set). */
typedef void server_close_fn(void *ctx, const struct server_close *c);
typedef void server_refuse_fn(void *ctx, const char *peer, const char *reason);

struct server;

/* Serve on the listening socket lfd (borrowed; -1: none, for a loop that only takes the
 * connections another hands it). Returns NULL with errno. */
struct server *server_new(const struct server_opts *o, int lfd, server_close_fn *on_close,
			  server_refuse_fn *on_refuse, void *ctx);
/* Serve until *stop is set (by a signal handler: see wait_mask). Every connection still open
 * then is closed as server_stop says. Returns 0, or -1 with errno if the event loop failed. */
int server_run(struct server *s, const volatile sig_atomic_t *stop);
void server_get_stats(const struct server *s, struct server_stats *st);
/* Wake server_run from another thread (wakeable servers only), so that it looks at *stop
 * now. Safe from any thread; async-signal-safe. */
void server_wake(struct server *s);
/* serve --threads: s, the server with the listener, hands each new connection to the next of
 * loops[0..n) in turn (s among them; the others wakeable), through their inboxes. loops is
 * borrowed and must outlive server_run; only s's thread writes to the inboxes, and a
 * connection handed to a loop that has stopped is reset by server_free. */
void server_share_accepts(struct server *s, struct server **loops, long n);
void server_free(struct server *s);

/* "completed", "client", "limit", "reset", "cut": the JSON names of the ends. */
const char *server_end_name(enum server_end e);

#endif
