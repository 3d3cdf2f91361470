/* SPDX-License-Identifier: ISC */
/* server.c - the connection server: one thread, epoll, many clients; sends fresh data
 * (endless or fixed-size "files") or sinks uploads, and reports each connection's end.
 * Why past 800 lines: it is one state machine (accept, handshake, pump, finish, settle, close)
 * over two private structs; its seams (TLS pumping, the close path) each read and change most
 * of struct conn and struct server, so a split would publish both in a header for one caller. */
#include "server.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "loop.h"
#include "net.h"
#include "recmap.h"
#include "repbuf.h"
#include "serve_side.h"
#include "tcp/pace.h"

/* How long a finished connection may go without the peer reading or
 * closing before we give up on it. */
#define DRAIN_SECONDS 10.0
#define FDS_WAIT_SECONDS 1.0 /* a full fd table this long with nothing freed: reset the queue */
/* Largest single send; sockets on loopback take about this much at once. */
#define SEND_CHUNK ((size_t)256 * 1024)
/* Sends per wakeup, so that one fast reader cannot starve the others. */
#define SEND_BUDGET 4
/* How often deadlines are checked when any are set. */
#define SWEEP_MS 100
_Static_assert(SWEEP_MS == SERVE_SIDE_FAST_MS, "sessions under the sweep's period have their own timer");
/* How long a TLS client may take over its handshake. */
#define HANDSHAKE_SECONDS 10.0
/* At a stop, the longest wait for acknowledgements still on their way to connections whose
 * every byte is out (a link's delay line holds them for its round trip). */
#define STOP_SETTLE_SECONDS 2.0
/* Plaintext taken from the source per TLS connection: four records. */
#define TLS_BUF ((size_t)64 * 1024)

enum conn_state {
	CONN_SENDING,
	CONN_DRAINING, /* all sent (or a limit met): half-closed, reading until the peer's FIN */
	CONN_SETTLING, /* the FIN came: edge-triggered until the peer acknowledges every byte */
	CONN_RECEIVING,
	CONN_CONTROL   /* a side channel's control connection: report lines only (serve_side.c) */
};


struct server;

struct conn {
	struct conn *prev, *next;
	struct conn *wprev, *wnext; /* in server.waiting while waiting_source */
	struct server *srv;
	int fd;
	enum conn_state state;
	int registered;	     /* added to the loop (a new conn is pumped first) */
	int waiting_source;  /* a stream source had nothing: parked until it is readable */
	int peer_eof;	     /* the peer sent its FIN: its EOF is not polled for again */
	int shut;	     /* our FIN is queued (shutdown(SHUT_WR) succeeded) */
	int timed;	     /* counted in server.ndeadlines */
	int finite;	     /* limit is the transfer's length (--size or the file), not endless */
	enum server_end end;   /* how a drained connection ends ... */
	const char *end_reason; /* ... and the word its log line gives */
	uint64_t sent, received, limit;
	uint64_t fsize;	     /* a file source's size when this connection started */
	struct repbuf *rep;  /* a small file sent over and over: its copies, sent from memory */
	const char *limit_reason;
	uint64_t acked;	     /* while draining: delivered when last looked at */
	double start, deadline; /* deadline: --max-time while sending, 0 none */
	double drain_until;	/* while draining: closed if the peer makes no progress by then */
	char peer[64];
	struct tls_conn *tls;	/* --tls: NULL otherwise */
	int handshaking;	/* the TLS handshake is not done yet ... */
	double handshake_until;	/* ... and must be by then */
	uint8_t *tbuf;		/* plaintext taken from the source, not yet through TLS */
	struct recmap *rmap;	/* with tbuf: the records written, to map the wire's counts to plaintext */
	size_t toff, tlen;
	/* The side channel (docs/SIDECHANNEL.md), looked at on a connection's reads until decided. */
	int side_decided;	/* its first bytes were a hello or were not (or it is TLS) */
	struct serve_side_acc *side_acc; /* a hello's beginning, while it comes */
	int side_role;		/* 0: none; else 1 + enum side_role */
	unsigned side_stream;	/* down/up: the stream's index in its session */
	struct serve_side_session *sess; /* ctl: its session; down/up: theirs (NULL once it ended) */
	int side_closing;	/* ctl: close once the queued lines are out (a refusal) */
	const char *side_reason; /* ... with this reason */
	int side_out_polled;	/* ctl: EPOLLOUT asked for */
	struct side_hello *moved_hello; /* on its way to the side channel's loop, with its hello */
	/* get --rate on a download (a session's rate=): bytes handed to the kernel on a schedule
	 * counted from the accept (tcp/pace.h), the kernel pacing the packets. */
	int pace_hold;		/* accepted while a paced session waits for its down connections:
				 * nothing sent until its first bytes (a hello?) or hold_until */
	double hold_until;
	double pace_bits;	/* bits/s; 0: not paced */
	double pace_at;		/* parked until then, polling for no EPOLLOUT; 0: not parked */
	struct conn *pprev, *pnext; /* in server.paced while parked */
};

struct server {
	struct server_opts o;
	server_close_fn *on_close;
	server_refuse_fn *on_refuse;
	void *ctx;
	struct loop *loop;
	struct source *src;
	void *scratch; /* NET_DISCARD_MAX bytes the kernel never writes */
	int lfd, spare_fd, accept_paused;
	double fds_out_since; /* when accept first met a full fd table with nothing freed since; 0 */
	/* wakeable: a pipe of ints: an accepted fd handed over by the loop that listens, or -1
	 * from server_wake. A pipe because it is both the queue and the wakeup, writes of an int
	 * are atomic (under PIPE_BUF), and no lock is shared between loops. -1s when unused. */
	int inbox[2];
	int moved[2];		   /* connections moved here with a side channel hello (pointers) */
	struct server *side_home;  /* with several loops: the one that holds every session */
	struct server **peers; /* server_share_accepts: the loops to hand connections to (borrowed) */
	long npeers;
	unsigned long next_peer;
	double cpu_seconds;
	struct conn *conns;
	struct conn *waiting; /* connections parked until the stream source is readable */
	struct conn *paced;   /* paced connections parked until their schedule lets more go */
	struct repbuf *rep_cache; /* the latest small file's copies, for new connections */
	int source_watched;   /* the source fd is in the loop (until its next event) */
	long nconns;
	long ndeadlines; /* connections with a deadline: the loop then wakes to sweep */
	double start;
	uint64_t accepted, refused, bytes_sent, bytes_received;
	uint64_t ended[SERVER_END_KINDS];
	uint8_t *tls_rbuf;	/* TLS_BUF bytes: where uploads over TLS are decrypted */
	char tls_err[256];	/* why the last TLS call failed */
	uint64_t tls_handshakes, ktls_connections;
	struct serve_side_table sides; /* the side channel's sessions on this loop */
	/* The sessions' down connections asked to be paced that have not come yet (rate=), on
	 * the loop that holds the sessions; every loop reads it at its accepts. */
	atomic_long pace_pending;
};

static const char *const end_names[SERVER_END_KINDS] = { "completed", "client", "limit", "reset", "cut" };

const char *server_end_name(enum server_end e)
{
	return end_names[e];
}

static const char *const side_role_names[] = { "ctl", "down", "up" };

/* What a connection's log line says, read from its socket just before the close. */
struct conn_tally {
	uint64_t acked, wire; /* the peer holds at least acked bytes, at most wire */
	double rtt_ms;
	long retrans;
};

static void report_close(struct server *s, struct conn *c, enum server_end kind, const char *reason, double now,
			 const struct conn_tally *t)
{
	struct server_close r = {
		.peer = c->peer, .reason = reason, .end = kind,
		.sent = c->sent, .wire = t->wire, .acked = t->acked, .received = c->received,
		.seconds = now - c->start,
		.tls = c->tls && !c->handshaking ? c->tls : NULL,
		.rtt_ms = t->rtt_ms, .retrans = t->retrans,
		.side = c->side_role ? side_role_names[c->side_role - 1] : NULL,
	};

	s->bytes_sent += c->sent;
	s->bytes_received += c->received;
	s->on_close(s->ctx, &r);
}

/* What a sending connection polls for: room to send, unless it waits for
 * the source; and the peer's data or EOF, until the EOF came (a readable
 * EOF would wake us forever). Errors and hangups are always reported. */
static uint32_t sending_interest(const struct conn *c)
{
	uint32_t in = c->peer_eof ? 0 : EPOLLIN | EPOLLRDHUP;

	return c->waiting_source || c->pace_at > 0 || c->pace_hold ? in : in | EPOLLOUT;
}

/* How long a connection accepted while a paced session waits for its down connections is
 * held from sending when it sends nothing: a raw client that overlaps a paced session's
 * start waits this long at most (the sweep releases it, every SWEEP_MS). */
#define PACE_HOLD_SECONDS 0.5

/* Down connections asked to be paced, not yet come, on the loop holding the sessions. */
static long pace_pending(const struct server *s)
{
	const struct server *home = s->side_home != NULL ? s->side_home : s;

	return atomic_load(&home->pace_pending);
}

/* A held connection may send: its first bytes came, or its hold is over. */
static void pace_release(struct server *s, struct conn *c)
{
	if (!c->pace_hold)
		return;
	c->pace_hold = 0;
	if (c->registered && c->state == CONN_SENDING)
		loop_mod(s->loop, c->fd, sending_interest(c));
}

/* Take a paced connection off the parked list. */
static void pace_unpark(struct server *s, struct conn *c)
{
	if (c->pace_at <= 0)
		return;
	if (c->pprev)
		c->pprev->pnext = c->pnext;
	else
		s->paced = c->pnext;
	if (c->pnext)
		c->pnext->pprev = c->pprev;
	c->pprev = c->pnext = NULL;
	c->pace_at = 0;
}

/* A paced connection has sent what its schedule allows until at: it stops polling for room
 * (a writable socket would wake the loop for nothing) and server_run wakes it then. The other
 * connections of the loop go on meanwhile. Returns 0. */
static int pace_park(struct server *s, struct conn *c, double at)
{
	if (c->pace_at > 0) {
		c->pace_at = at > 0 ? at : 1e-9; /* parked already (an event of the same wakeup) */
		return 0;
	}
	c->pace_at = at > 0 ? at : 1e-9;
	c->pprev = NULL;
	c->pnext = s->paced;
	if (s->paced)
		s->paced->pprev = c;
	s->paced = c;
	if (c->registered)
		loop_mod(s->loop, c->fd, sending_interest(c));
	return 0;
}

static void waiting_unlink(struct server *s, struct conn *c)
{
	if (c->wprev)
		c->wprev->wnext = c->wnext;
	else
		s->waiting = c->wnext;
	if (c->wnext)
		c->wnext->wprev = c->wprev;
	c->wprev = c->wnext = NULL;
	c->waiting_source = 0;
}

/* Bytes out of c->sent that are still in the kernel's queue: not yet
 * acknowledged (acked), or not even sent. Our FIN counts once in either
 * queue until it is acknowledged or sent. */
static uint64_t conn_queued(const struct conn *c, int acked)
{
	uint64_t q = acked ? net_unacked(c->fd) : net_unsent(c->fd);

	return c->shut && q > 0 ? q - 1 : q;
}

/* Bytes the peer has acknowledged: what reached it, for sure. */
static uint64_t conn_delivered(const struct conn *c)
{
	uint64_t q = conn_queued(c, 1);

	return q < c->sent ? c->sent - q : 0;
}

/*
 * How far c's bytes got, in the bytes its reader sees: acknowledged (the peer
 * has them) and gone to the wire (it may have them; the rest is still in our
 * queue). Over TLS the queue counts records, mapped back to the plaintext of
 * the whole records on either side (recmap); without that map (kTLS) the
 * range widens to what TLS cannot have added. The wire count is read last:
 * the kernel keeps sending until the close, so the later the closer.
 */
static void conn_tally(const struct conn *c, struct conn_tally *t)
{
	uint32_t rtt_us, retrans;
	uint64_t unacked, unsent, written;

	t->rtt_ms = -1;
	t->retrans = -1;
	if (net_tcp_stats(c->fd, &rtt_us, &retrans) == 0) {
		t->rtt_ms = rtt_us / 1000.0;
		t->retrans = retrans;
	}
	unacked = conn_queued(c, 1);
	unsent = conn_queued(c, 0);
	if (c->tls == NULL) {
		t->acked = unacked < c->sent ? c->sent - unacked : 0;
		t->wire = unsent < c->sent ? c->sent - unsent : 0;
	} else if (c->rmap != NULL && tls_conn_wire_written(c->tls, &written) == 0) {
		uint64_t acked = unacked < written ? written - unacked : 0;

		t->acked = recmap_at_least(c->rmap, acked, written, c->sent);
		/* What left for the wire, as the peer can read it: whole records only (a
		 * stalled reader decrypts exactly these; "sent" is the bound). */
		t->wire = recmap_at_least(c->rmap, unsent < written ? written - unsent : 0, written, c->sent);
	} else {
		/* Plaintext never outnumbers the records that carry it. */
		t->acked = unacked < c->sent ? c->sent - unacked : 0;
		t->wire = c->sent;
	}
	if (t->acked > t->wire)
		t->acked = t->wire;
}

static void side_conn_ends(struct server *s, struct conn *c, uint64_t wire, uint64_t acked, double now);

/* Take c off s's lists and counts (not the count shared by the loops). */
static void conn_unlink(struct server *s, struct conn *c)
{
	if (c->waiting_source)
		waiting_unlink(s, c);
	pace_unpark(s, c);
	if (c->timed)
		s->ndeadlines--;
	/* The list's invariant, stated for readers and for the static analyzer. */
	assert((c->prev == NULL) == (s->conns == c));
	assert(c->next == NULL || c->next->prev == c);
	if (c->prev)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->prev = c->next = NULL;
	s->nconns--;
}

/* Put c on s's list and count (its deadline and the count shared by the loops are the
 * caller's). */
static void conn_link(struct server *s, struct conn *c)
{
	c->srv = s;
	c->next = s->conns;
	if (s->conns)
		s->conns->prev = c;
	s->conns = c;
	s->nconns++;
}

/*
 * Close c and log how it ended. A connection is closed cleanly once the
 * peer has acknowledged every byte and its input is read, and reset
 * (SERVER_CUT) when it ends short of its end, which throws away whatever was
 * still queued. The log gives what was handed to the kernel, what of it had
 * left for the wire and what the peer acknowledged, the two counts read as
 * the last thing before the close: the peer holds between acked and sent.
 * The wire count is exact for a peer that had stopped reading, but no bound:
 * an ACK processed on another CPU releases more (a whole 64 KiB loopback
 * segment) between the count and the close, with this thread never
 * preempted (CI, seed 302434404).
 */
static void conn_close(struct server *s, struct conn *c, enum server_end kind, const char *reason, double now)
{
	struct conn_tally t;

	if (kind == SERVER_CUT)
		net_reset_on_close(c->fd);
	conn_tally(c, &t);
	if (c->sess != NULL)
		side_conn_ends(s, c, kind == SERVER_CUT ? c->sent : t.wire, t.acked, now);
	loop_close(s->loop, c->fd);
	s->ended[kind]++;
	report_close(s, c, kind, reason, now, &t);
	conn_unlink(s, c);
	if (s->o.conns_shared)
		atomic_fetch_sub(s->o.conns_shared, 1);
	tls_conn_free(c->tls);
	free(c->side_acc);
	free(c->moved_hello);
	free(c->tbuf);
	free(c->rmap);
	repbuf_put(c->rep);
	free(c);
	s->fds_out_since = 0; /* an fd came free */
	if (s->accept_paused && s->nconns < s->o.max_conns) {
		/* Freed fds let a paused accept go on. */
		s->accept_paused = 0;
		loop_mod(s->loop, s->lfd, EPOLLIN);
	}
}

/* Why a connection ended on error e: for an endless stream the peer
 * going away is the normal end; for a sized one it left early. */
static const char *error_reason(const struct conn *c, int e)
{
	if (e == ECONNRESET || e == EPIPE)
		return c->limit == UINT64_MAX ? "closed by peer" : "reset by peer";
	return strerror(e);
}

static void conn_timed(struct server *s, struct conn *c)
{
	if (!c->timed) {
		c->timed = 1;
		s->ndeadlines++;
	}
}

static void conn_failed(struct server *s, struct conn *c, int e);
static int conn_discard(struct conn *c, uint64_t cap);

/* A settling connection: closed once the peer has acknowledged every byte, or as reset once
 * the peer reset it (closed with our bytes unread). Returns -1 once c is closed, else 0. */
static int conn_settled(struct server *s, struct conn *c, double now)
{
	int e;

	if (conn_delivered(c) >= c->sent) {
		conn_close(s, c, c->end, c->end_reason, now);
		return -1;
	}
	if ((e = net_socket_error(c->fd)) != 0 || (e = net_tcp_closed(c->fd) ? ECONNRESET : 0) != 0) {
		/* Undelivered bytes on a closed connection: the peer reset it. Its error may be gone
		 * already (TLS's read takes it), so the state is looked at too. */
		conn_failed(s, c, e);
		return -1;
	}
	return 0;
}

/* The peer's FIN came while draining: close once it has acknowledged every byte, else wait
 * for that. Polled at its level a hung-up socket would wake the loop forever; edge-triggered
 * with no interest it wakes it only when its state changes, which is when the ACK of our FIN
 * closes it or the peer's reset does, so that the slot is given back at once (sweep also
 * looks, every SWEEP_MS). Returns -1 once c is closed, else 0. */
static int conn_settle(struct server *s, struct conn *c, double now)
{
	c->state = CONN_SETTLING;
	if (conn_settled(s, c, now) < 0)
		return -1;
	if (c->registered && loop_mod(s->loop, c->fd, EPOLLET) < 0) {
		loop_del(s->loop, c->fd);
		c->registered = 0;
	}
	return 0;
}

/* All bytes are out (or an endless stream met its limit): half-close and
 * read until the peer's EOF, so that nothing it sent can turn our close
 * into a reset that loses data; then settle. kind and reason are how it
 * ends once all is delivered. Returns -1 once c is closed, else 0. */
static int conn_finish(struct server *s, struct conn *c, enum server_end kind, const char *reason, double now)
{
	if (c->waiting_source)
		waiting_unlink(s, c); /* or the source's next event would poll it for EPOLLOUT again */
	pace_unpark(s, c);
	c->shut = shutdown(c->fd, SHUT_WR) == 0;
	c->state = CONN_DRAINING;
	c->end = kind;
	c->end_reason = reason;
	c->deadline = 0; /* --max-time is for sending; draining has its own bound */
	c->drain_until = now + DRAIN_SECONDS;
	c->acked = conn_delivered(c);
	conn_timed(s, c);
	if (c->peer_eof)
		return conn_settle(s, c, now);
	if (c->registered)
		loop_mod(s->loop, c->fd, EPOLLIN | EPOLLRDHUP);
	return 0;
}

/* The source failed under a connection: end it with a reset, not a clean close. */
static int conn_abort(struct server *s, struct conn *c, const char *reason)
{
	conn_close(s, c, SERVER_CUT, reason, clock_now());
	return -1;
}

/* The socket failed with e (0: hung up without an error). */
static void conn_failed(struct server *s, struct conn *c, int e)
{
	enum server_end kind = SERVER_RESET;
	const char *reason = e ? error_reason(c, e) : "closed by peer";

	if (c->state == CONN_DRAINING && conn_delivered(c) >= c->sent) {
		/* Everything arrived; the peer then closed with our FIN unread. */
		kind = c->end;
		reason = c->end_reason;
	} else if (!c->finite && c->state == CONN_SENDING && (e == 0 || e == ECONNRESET || e == EPIPE)) {
		kind = SERVER_CLIENT; /* how a reader ends an endless stream */
	}
	/* What the peer sent before it went is still readable (a request, then a reset found by
	 * a send): counted, so that the log says it came. Bounded: one call's worth of rounds. */
	if (!c->tls && !c->peer_eof && c->state != CONN_CONTROL)
		(void)conn_discard(c, s->o.max_bytes && c->state == CONN_RECEIVING ? s->o.max_bytes : UINT64_MAX);
	conn_close(s, c, kind, reason, clock_now());
}

static void on_source(struct loop *l, int fd, uint32_t events, void *ctx);

/*
 * The stream source has nothing now: park c until it is readable instead
 * of polling for EPOLLOUT, which a writable socket would report forever.
 * The source fd joins the loop once, however many connections wait; its
 * first event wakes them all (on_source). Returns 0, or -1 once c is closed.
 */
static int conn_wait_source(struct server *s, struct conn *c)
{
	if (c->waiting_source)
		return 0;
	if (!s->source_watched) {
		if (loop_add(s->loop, source_fd(s->src), EPOLLIN, on_source, s) < 0) {
			char reason[96];

			snprintf(reason, sizeof(reason), "cannot wait for the source: %s", strerror(errno));
			return conn_abort(s, c, reason);
		}
		s->source_watched = 1;
	}
	c->waiting_source = 1;
	c->wprev = NULL;
	c->wnext = s->waiting;
	if (s->waiting)
		s->waiting->wprev = c;
	s->waiting = c;
	if (c->registered)
		loop_mod(s->loop, c->fd, sending_interest(c));
	return 0;
}

/* The source is readable, at its end, or failed: every parked connection
 * polls for EPOLLOUT again and finds out which with its next source_peek.
 * The source leaves the loop, or a FIFO's hangup would wake us forever. */
static void on_source(struct loop *l, int fd, uint32_t events, void *ctx)
{
	struct server *s = ctx;

	(void)events;
	loop_del(l, fd);
	s->source_watched = 0;
	while (s->waiting) {
		struct conn *c = s->waiting;

		waiting_unlink(s, c);
		loop_mod(l, c->fd, sending_interest(c));
	}
}

/* A TLS call on c failed with rc (its reason in s->tls_err). Returns -1: c is closed. */
static int conn_tls_failed(struct server *s, struct conn *c, int rc)
{
	if (rc == TLS_EIO)
		conn_failed(s, c, errno);
	else
		conn_close(s, c, SERVER_RESET, s->tls_err, clock_now());
	return -1;
}

/* Take the next plaintext for a TLS connection from the source into c->tbuf:
 * the bytes are the connection's from then on, however long TLS takes to send
 * them (a retried TLS write must see the same bytes, which the shared pool
 * does not keep). Returns 1 with bytes, 0 when the connection waits or its
 * stream ended (c->limit set), -1 once closed. */
static int conn_fill_tls(struct server *s, struct conn *c)
{
	uint64_t left = c->limit - c->sent;
	size_t want = left < TLS_BUF ? (size_t)left : TLS_BUF;
	const void *data;
	ssize_t k;

	if (c->rmap == NULL) {
		uint64_t written;

		if ((c->rmap = calloc(1, sizeof(*c->rmap))) == NULL)
			return conn_abort(s, c, "out of memory");
		/* Whatever the handshake wrote carries no plaintext. */
		if (tls_conn_wire_written(c->tls, &written) == 0)
			recmap_mark(c->rmap, written, c->sent);
	}
	if (c->tbuf == NULL && (c->tbuf = malloc(TLS_BUF)) == NULL)
		return conn_abort(s, c, "out of memory");
	if (c->rep != NULL) {
		size_t avail;
		const uint8_t *from = repbuf_at(c->rep, c->sent, &avail);

		k = (ssize_t)(want < avail ? want : avail);
		memcpy(c->tbuf, from, (size_t)k);
	} else if (source_kind(s->src) == SOURCE_FILE) {
		uint64_t off = c->sent % c->fsize;

		if (want > c->fsize - off)
			want = (size_t)(c->fsize - off);
		k = pread(source_fd(s->src), c->tbuf, want, (off_t)off);
		if (k == 0)
			return conn_abort(s, c, "source file shrank");
	} else {
		k = source_peek(s->src, want, &data);
		if (k < 0 && errno == EAGAIN)
			return conn_wait_source(s, c);
		if (k == 0) {
			if (s->o.has_size)
				return conn_abort(s, c, "source ended before --size");
			c->limit = c->sent;
			c->limit_reason = NULL;
			return 0;
		}
		if (k > 0) {
			memcpy(c->tbuf, data, (size_t)k);
			source_consume(s->src, (size_t)k);
		}
	}
	if (k < 0)
		return conn_abort(s, c, strerror(errno));
	c->toff = 0;
	c->tlen = (size_t)k;
	return 1;
}

/* conn_pump's TLS part: one record per write, up to the same byte budget per
 * wakeup, then close_notify once everything is through, so that the client can
 * tell a complete stream from a cut one. Returns 1 when conn_pump should go on
 * to its end-of-data checks, 0 to wait for an event, -1 once closed. */
static int conn_pump_tls(struct server *s, struct conn *c)
{
	for (size_t budget = SEND_BUDGET * SEND_CHUNK; budget > 0;) {
		uint64_t written;
		ssize_t w;
		int rc;

		if (c->tlen == 0 && c->sent >= c->limit)
			break;
		if (c->tlen == 0 && (rc = conn_fill_tls(s, c)) <= 0) {
			if (rc < 0 || c->sent < c->limit)
				return rc;
			break; /* a stream source ended */
		}
		w = tls_write(c->tls, c->tbuf + c->toff, c->tlen, s->tls_err, sizeof(s->tls_err));
		if (w == TLS_WANT_WRITE || w == TLS_WANT_READ)
			return 0; /* the socket is full: wait for EPOLLOUT */
		if (w < 0)
			return conn_tls_failed(s, c, (int)w);
		c->toff += (size_t)w;
		c->tlen -= (size_t)w;
		c->sent += (uint64_t)w;
		loop_moved(s->loop, (size_t)w);
		if (tls_conn_wire_written(c->tls, &written) == 0)
			recmap_mark(c->rmap, written, c->sent);
		budget = (size_t)w < budget ? budget - (size_t)w : 0;
	}
	if (c->tlen > 0 || c->sent < c->limit)
		return 0; /* the budget is spent: EPOLLOUT comes back at once */
	/* A limit that cuts a transfer short gets a reset, not close_notify. */
	if (c->state == CONN_SENDING && !(c->limit_reason != NULL && c->finite)) {
		int rc = tls_shutdown(c->tls, s->tls_err, sizeof(s->tls_err));

		if (rc == TLS_WANT_WRITE || rc == TLS_WANT_READ)
			return 0;
		if (rc != TLS_OK)
			return conn_tls_failed(s, c, rc);
	}
	return 1;
}

/* Send what the socket takes now. Returns 0 while open, -1 once closed. */
static int conn_pump(struct server *s, struct conn *c)
{
	int src_kind = source_kind(s->src);

	if (src_kind == SOURCE_FILE && c->fsize == 0 && c->sent < c->limit)
		return conn_abort(s, c, "source file is empty");
	if (c->tls) {
		int rc = conn_pump_tls(s, c);

		if (rc <= 0)
			return rc;
	}
	for (int round = 0; !c->tls && round < SEND_BUDGET && c->sent < c->limit; round++) {
		uint64_t left = c->limit - c->sent;
		size_t want = left < SEND_CHUNK ? (size_t)left : SEND_CHUNK;

		uint64_t pos = 0;
		ssize_t n;

		if (c->pace_bits > 0) {
			double at = 0;
			uint64_t room = tcp_pace_room(c->start, c->pace_bits, c->sent, clock_now(), &at);

			if (room == 0)
				return pace_park(s, c, at);
			if (want > room)
				want = (size_t)room;
		}
		if (c->rep != NULL) {
			size_t avail;
			const uint8_t *from = repbuf_at(c->rep, c->sent, &avail);

			if (want > avail)
				want = avail;
			n = send(c->fd, from, want, MSG_DONTWAIT | MSG_NOSIGNAL);
		} else {
			if (src_kind == SOURCE_FILE) {
				pos = c->sent % c->fsize;
				if (want > c->fsize - pos)
					want = (size_t)(c->fsize - pos);
			}
			n = source_send(s->src, c->fd, pos, want);
		}
		/* Nothing at an offset below the size we took: the file was
		 * truncated. Waiting for EPOLLOUT again would spin forever. */
		if (n == 0 && src_kind == SOURCE_FILE)
			return conn_abort(s, c, "source file shrank");
		if (n == SOURCE_SEND_WAIT)
			return conn_wait_source(s, c);
		if (n == SOURCE_SEND_EREAD)
			return conn_abort(s, c, strerror(errno));
		if (n == 0) {
			/* A stream source ran dry: the end of an endless
			 * stream, but a short --size "file". */
			if (s->o.has_size)
				return conn_abort(s, c, "source ended before --size");
			c->limit = c->sent;
			c->limit_reason = NULL;
			break;
		}
		if (n < 0) {
			int e = errno;

			if (e == EAGAIN || e == EINTR)
				return 0;
			/* The peer took what it wanted and went before a wakeup read its hello (it
			 * came before the accept; on loopback a MiB goes in one pump): the next
			 * wakeup reads the hello first, and the session hears how this ended. */
			if (!c->side_decided && serve_side_unread(c->fd, c->side_acc))
				return 0;
			conn_failed(s, c, e);
			return -1;
		}
		c->sent += (uint64_t)n;
		loop_moved(s->loop, (size_t)n);
		if ((size_t)n < want)
			return 0; /* the socket buffer is full: wait for EPOLLOUT */
	}
	if (c->sent >= c->limit && c->state == CONN_SENDING) {
		/* A limit below a sized transfer's length cuts it short. */
		if (c->limit_reason != NULL && c->finite)
			return conn_abort(s, c, c->limit_reason);
		if (c->limit_reason != NULL)
			return conn_finish(s, c, SERVER_LIMIT, c->limit_reason, clock_now());
		return conn_finish(s, c, SERVER_COMPLETE, "done", clock_now());
	}
	return 0;
}

/* Read and discard what the peer sent. Returns 1 on EOF, 0 when drained,
 * -1 on error (errno). MSG_TRUNC drops the bytes inside the kernel. */
static int conn_discard(struct conn *c, uint64_t cap)
{
	struct server *s = c->srv;

	for (int round = 0; c->tls && round < SEND_BUDGET * 16; round++) {
		uint64_t room = cap - c->received;
		ssize_t n = tls_read(c->tls, s->tls_rbuf, room < TLS_BUF ? (size_t)room : TLS_BUF,
				     s->tls_err, sizeof(s->tls_err));

		if (n > 0)
			loop_moved(s->loop, (size_t)n);
		if (n > 0 && (c->received += (uint64_t)n) >= cap)
			return 0;
		if (n == 0)
			return 1;
		if (n == TLS_WANT_READ || n == TLS_WANT_WRITE)
			return 0;
		/* A client that got all it wanted may just close: the end for a sender. */
		if (n < 0 && c->state != CONN_RECEIVING && (n == TLS_ETRUNCATED || n == TLS_EIO))
			return 1;
		if (n < 0) {
			errno = n == TLS_EIO ? errno : EPROTO;
			return -1;
		}
	}
	for (int round = 0; !c->tls && round < SEND_BUDGET; round++) {
		uint64_t room = cap - c->received;
		size_t want = room < NET_DISCARD_MAX ? (size_t)room : NET_DISCARD_MAX;
		ssize_t n = net_discard(c->fd, c->srv->scratch, want);

		if (n > 0) {
			c->received += (uint64_t)n;
			loop_moved(s->loop, (size_t)n);
			if (c->received >= cap)
				return 0;
			continue;
		}
		if (n == 0)
			return 1;
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	}
	return 0;
}

/* ---- the side channel (docs/SIDECHANNEL.md; the table and lines are serve_side.c's) ---- */

/* Hand a control connection's queued lines to its socket, asking for EPOLLOUT while some wait.
 * A refusal, once out, half-closes as a finished transfer does. Returns -1 when the socket
 * failed (the caller closes c, or leaves it to its next event), else 0. */
static int control_flush(struct server *s, struct conn *c)
{
	int more = 0;
	long n = serve_side_flush(c->sess, c->fd, &more);

	if (n < 0)
		return -1;
	c->sent += (uint64_t)n;
	if (!more && c->side_closing) {
		c->state = CONN_SENDING; /* conn_finish's drain, as after a transfer's last byte */
		c->side_out_polled = 0;
		conn_finish(s, c, SERVER_COMPLETE, c->side_reason, clock_now());
		return 0;
	}
	if (more != c->side_out_polled && c->registered) {
		c->side_out_polled = more;
		loop_mod(s->loop, c->fd, EPOLLIN | EPOLLRDHUP | (more ? EPOLLOUT : 0));
	}
	return 0;
}

/* c stops being a data stream and carries lines only: the session's, or a refusal's. */
static void control_enter(struct server *s, struct conn *c, struct serve_side_session *ss)
{
	if (c->waiting_source)
		waiting_unlink(s, c);
	c->state = CONN_CONTROL;
	c->sess = ss;
	c->side_role = 1 + SIDE_CTL;
	c->deadline = 0; /* --max-time bounds sending; a session ends with its client */
	conn_timed(s, c); /* the sweep sends its reports and drops it as an orphan */
	/* A stream's EPOLLOUT may still be asked for: unknown, so that the flush sets the interest
	 * (left on with nothing to send, a level-triggered EPOLLOUT spun the loop at 100%). */
	c->side_out_polled = -1;
	if (control_flush(s, c) < 0)
		conn_close(s, c, SERVER_RESET, strerror(errno), clock_now());
}

static void control_refuse(struct server *s, struct conn *c, const char *token, const char *why,
			   const char *reason)
{
	struct serve_side_session *ss = serve_side_refusal(token, why, c);

	if (ss == NULL) {
		conn_close(s, c, SERVER_CUT, "side channel: out of memory", clock_now());
		return;
	}
	c->side_closing = 1;
	c->side_reason = reason;
	control_enter(s, c, ss);
}

/* A data connection (down or up) ends: its last figures go to its session's control connection. */
static void side_conn_ends(struct server *s, struct conn *c, uint64_t wire, uint64_t acked, double now)
{
	struct serve_side_session *ss = c->sess;
	struct side_report r;

	if (c->state == CONN_CONTROL || c->side_role == 1 + SIDE_CTL) {
		/* The session ends: its data connections go on as ordinary ones. */
		for (struct conn *d = s->conns; d != NULL; d = d->next)
			if (d != c && d->sess == ss)
				d->sess = NULL;
		if (ss->listed && ss->pace_waiting > 0)
			atomic_fetch_sub(&s->pace_pending, (long)ss->pace_waiting);
		serve_side_close(&s->sides, ss);
		c->sess = NULL;
		return;
	}
	serve_side_fill(&r, c->fd, c->side_stream, ss, now, wire, acked, c->received);
	r.final = 1;
	c->sess = NULL;
	/* A line the queue cannot take is lost, not the connection: the client waits for it
	 * only as long as its own -w. A failed socket shows on the control's next event. */
	if (serve_side_queue(ss, &r) == 0)
		control_flush(s, ss->ctl);
}

/* The sweep's look at a control connection: the orphan's end, and the iv lines when due. */
static void control_sweep(struct server *s, struct conn *c, double now)
{
	struct serve_side_session *ss = c->sess;

	if (c->side_closing || ss == NULL)
		return;
	if (ss->orphan_until > 0 && now >= ss->orphan_until) {
		conn_close(s, c, SERVER_CUT, "side channel: no data connection within 10 s", now);
		return;
	}
	if (ss->interval_ms == 0 || now < ss->next_report)
		return;
	for (struct conn *d = s->conns; d != NULL; d = d->next) {
		struct conn_tally t;
		struct side_report r;

		if (d == c || d->sess != ss)
			continue;
		conn_tally(d, &t);
		serve_side_fill(&r, d->fd, d->side_stream, ss, now, t.wire, t.acked, d->received);
		if (serve_side_queue(ss, &r) < 0) {
			conn_close(s, c, SERVER_CUT, "side channel: reports not read", now);
			return;
		}
	}
	ss->next_report += ss->interval_ms / 1000.0;
	if (ss->next_report < now)
		ss->next_report = now + ss->interval_ms / 1000.0;
	if (control_flush(s, c) < 0)
		conn_close(s, c, SERVER_RESET, strerror(errno), now);
}

/* A control connection's event: the client says nothing more (what it sends is dropped); its
 * close ends the session. */
static void control_event(struct server *s, struct conn *c, uint32_t events)
{
	if (events & EPOLLIN) {
		int rc = conn_discard(c, UINT64_MAX);

		if (rc != 0) {
			conn_close(s, c, rc == 1 ? SERVER_COMPLETE : SERVER_RESET,
				   rc == 1 ? "side channel: session over" : strerror(errno), clock_now());
			return;
		}
	}
	if (events & (EPOLLERR | EPOLLHUP)) {
		int e = net_socket_error(c->fd);

		conn_close(s, c, SERVER_RESET, e ? strerror(e) : "side channel: closed", clock_now());
		return;
	}
	if ((events & EPOLLOUT) && control_flush(s, c) < 0)
		conn_close(s, c, SERVER_RESET, strerror(errno), clock_now());
}

/* A data connection joins its session: down goes on sending, up stops (our FIN tells the client
 * to drop what was queued) and receives as --discard does. */
static void side_join(struct server *s, struct conn *c, const struct side_hello *h)
{
	struct serve_side_session *ss = serve_side_find(&s->sides, h->token);

	if (ss == NULL || h->version != SIDE_VERSION || h->stream >= ss->streams) {
		conn_close(s, c, SERVER_CUT, ss == NULL ? "side channel: unknown token" : "side channel: bad stream",
			   clock_now());
		return;
	}
	if (h->role == SIDE_DOWN && s->o.discard) {
		conn_close(s, c, SERVER_CUT, "side channel: serve --discard sends nothing", clock_now());
		return;
	}
	c->sess = ss;
	c->side_role = 1 + h->role;
	c->side_stream = h->stream;
	ss->orphan_until = 0;
	if (h->role == SIDE_DOWN && ss->pace_waiting > 0) {
		ss->pace_waiting--;
		atomic_fetch_sub(&s->pace_pending, 1);
	}
	/* The size the answer said is what this connection gets: a --source file that grew since
	 * (this connection took its size at the accept) is sent as it was then, its first bytes.
	 * One that shrank, or bytes already sent past the size, cannot agree: cut (a reset). */
	if (h->role == SIDE_DOWN && ss->said_size && c->state == CONN_SENDING && c->limit != ss->size) {
		if (c->limit < ss->size || c->sent > ss->size) {
			conn_abort(s, c, "source file changed size since the side channel said it");
			return;
		}
		c->limit = ss->size;
	}
	if (h->role == SIDE_DOWN && ss->rate_bps > 0 && c->state == CONN_SENDING) {
		char why[128];

		/* The kernel's pacing where it has it; the schedule in conn_pump holds either way
		 * (and counts from the accept: what went before the hello is on it too). */
		(void)tcp_pace_socket(c->fd, (double)ss->rate_bps, why, sizeof(why));
		c->pace_bits = (double)ss->rate_bps;
	}
	if (h->role == SIDE_DOWN || c->state == CONN_RECEIVING)
		return;
	if (c->waiting_source)
		waiting_unlink(s, c);
	if (!c->shut)
		c->shut = shutdown(c->fd, SHUT_WR) == 0;
	c->state = CONN_RECEIVING;
	c->finite = 0;
	c->limit_reason = NULL;
	if (c->registered)
		loop_mod(s->loop, c->fd, EPOLLIN | EPOLLRDHUP);
}

/* A hello came as c's first bytes. */
/*
 * With loops on several threads, every session lives on one of them (side_home), so that a
 * test's control and data connections, handed to any loops, meet in one table. A connection
 * whose first bytes were a hello on another loop moves there whole: off this loop's epoll and
 * lists, its pointer through the home's pipe, never touched here again. Returns 0 once it is
 * on its way, -1 (errno) when it stays here.
 */
static int side_move_home(struct server *s, struct conn *c, const struct side_hello *h)
{
	struct server *home = s->side_home;
	struct side_hello *copy = malloc(sizeof(*copy));

	if (copy == NULL)
		return -1;
	*copy = *h;
	if (loop_del(s->loop, c->fd) < 0) {
		free(copy);
		return -1;
	}
	c->registered = 0;
	conn_unlink(s, c);
	repbuf_put(c->rep); /* this loop's copies: the home takes its own */
	c->rep = NULL;
	c->moved_hello = copy;
	/* The pipe carries the pointer: one write of its bytes, atomic (under PIPE_BUF). */
	if (write(home->moved[1], &c, sizeof(void *)) == (ssize_t)sizeof(void *))
		return 0;
	/* The home's pipe is full (thousands in flight): it stays, and is cut here. */
	c->moved_hello = NULL;
	free(copy);
	conn_link(s, c);
	if (c->timed)
		s->ndeadlines++;
	conn_close(s, c, SERVER_CUT, "side channel: too many at once", clock_now());
	return 0;
}

static void side_hello(struct server *s, struct conn *c, const struct side_hello *h);
static void on_event(struct loop *l, int fd, uint32_t events, void *ctx);

/* A connection moved here by side_move_home: on this loop's lists and epoll, then its hello
 * answered as if it had come here. */
static void side_adopt(struct server *s, struct conn *c)
{
	struct side_hello *h = c->moved_hello;
	uint32_t interest = c->state == CONN_SENDING ? sending_interest(c) : EPOLLIN | EPOLLRDHUP;

	c->moved_hello = NULL;
	c->waiting_source = 0; /* the pump parks it again on this loop's source if need be */
	conn_link(s, c);
	if (c->timed)
		s->ndeadlines++;
	if (!s->o.discard && source_kind(s->src) == SOURCE_FILE && c->fsize > 0 && c->fsize < REPBUF_SMALL &&
	    c->limit > c->fsize)
		c->rep = repbuf_get(&s->rep_cache, source_fd(s->src), c->fsize);
	if (loop_add(s->loop, c->fd, interest, on_event, c) < 0) {
		free(h);
		conn_close(s, c, SERVER_CUT, strerror(errno), clock_now());
		return;
	}
	c->registered = 1;
	side_hello(s, c, h);
	free(h);
}

static void on_moved(struct loop *l, int fd, uint32_t events, void *ctx)
{
	struct server *s = ctx;
	struct conn *cs[64];
	ssize_t n = read(fd, cs, sizeof(cs));

	(void)l;
	(void)events;
	for (ssize_t i = 0; i < n / (ssize_t)sizeof(void *); i++)
		side_adopt(s, cs[i]);
}

/* What every download connection accepted now will be sent, when it is exact (the side
 * channel's size=, docs/SIDECHANNEL.md): --size, or a file's size (each connection gets the
 * file once, as its size is at the accept), capped by --max-bytes; an endless stream with
 * --max-bytes gets that. Unknown (0) for --discard, an endless stream, and under --max-time,
 * which may cut a connection before its end. As accept_one sets c->limit. */
static int down_size(const struct server *s, uint64_t *size)
{
	uint64_t n = UINT64_MAX;

	if (s->o.discard || s->o.max_time > 0)
		return 0;
	if (s->o.has_size)
		n = s->o.size;
	else if (source_kind(s->src) == SOURCE_FILE)
		n = source_size_now(s->src);
	if (s->o.max_bytes && s->o.max_bytes < n)
		n = s->o.max_bytes;
	*size = n;
	return n != UINT64_MAX;
}

static void side_hello(struct server *s, struct conn *c, const struct side_hello *h)
{
	const char *why = NULL;
	struct serve_side_session *ss;
	uint64_t size = 0;
	int known;

	if (s->side_home != NULL && s->side_home != s && side_move_home(s, c, h) == 0)
		return;
	if (h->role != SIDE_CTL) {
		side_join(s, c, h);
		return;
	}
	if (c->shut)
		return; /* our FIN is out (a whole small file): no answer can follow; it ends as it was */
	if (h->version != SIDE_VERSION) {
		control_refuse(s, c, h->token, "version", "side channel refused: version");
		return;
	}
	if (s->o.side_refuse != NULL) {
		control_refuse(s, c, h->token, s->o.side_refuse, "side channel refused: --threads");
		return;
	}
	if (h->rate_bps > 0 && s->o.discard) {
		control_refuse(s, c, h->token, "discard", "side channel refused: --discard sends nothing to pace");
		return;
	}
	known = down_size(s, &size);
	if ((ss = serve_side_open(&s->sides, h, c, clock_now(), known ? &size : NULL, &why)) == NULL) {
		control_refuse(s, c, h->token, why ? why : "busy", why ? "side channel refused: token in use" :
					"side channel refused: out of memory");
		return;
	}
	if (ss->pace_waiting > 0)
		atomic_fetch_add(&s->pace_pending, (long)ss->pace_waiting);
	control_enter(s, c, ss);
}

/* The first reads of a plain connection: is it a hello? Returns 1 when c was taken care of
 * (a hello, or one still coming), 0 when the ordinary read goes on, 2 when the look found the
 * peer's EOF, 3 its error (errno): the ordinary read would only find them again, or not at all. */
static int side_look(struct server *s, struct conn *c)
{
	struct side_hello h;
	uint64_t taken = 0;
	int rc = serve_side_look(c->fd, &c->side_acc, &h, &taken), e = errno;

	if (rc == SERVE_SIDE_WAIT)
		return c->side_acc != NULL;
	c->side_decided = 1;
	free(c->side_acc);
	c->side_acc = NULL;
	pace_release(s, c); /* a hello paces it from the accept on; anything else is not waited for */
	if (rc < 0) {
		c->received += taken;
		errno = e;
		return 3;
	}
	if (rc != SERVE_SIDE_HELLO) {
		c->received += taken; /* a hello's look-alike was data after all */
		return rc == SERVE_SIDE_EOF ? 2 : 0;
	}
	side_hello(s, c, &h);
	return 1;
}

/* One step of a TLS handshake; once done, the connection starts its work. */
static void conn_handshake(struct server *s, struct conn *c)
{
	int rc = tls_handshake(c->tls, s->tls_err, sizeof(s->tls_err));
	uint32_t interest;

	if (rc == TLS_WANT_READ || rc == TLS_WANT_WRITE) {
		if (loop_mod(s->loop, c->fd, rc == TLS_WANT_READ ? EPOLLIN | EPOLLRDHUP : EPOLLOUT) < 0)
			conn_close(s, c, SERVER_CUT, strerror(errno), clock_now());
		return;
	}
	if (rc != TLS_OK) {
		char why[320];

		snprintf(why, sizeof(why), "TLS handshake failed: %s", s->tls_err);
		conn_close(s, c, SERVER_RESET, why, clock_now());
		return;
	}
	c->handshaking = 0;
	s->tls_handshakes++;
	s->ktls_connections += tls_conn_ktls_send(c->tls) || tls_conn_ktls_recv(c->tls);
	if (c->timed && c->deadline == 0) { /* only the handshake's deadline made it timed */
		c->timed = 0;
		s->ndeadlines--;
	}
	if (c->state == CONN_SENDING && conn_pump(s, c) < 0)
		return;
	interest = c->state == CONN_SENDING ? sending_interest(c) : EPOLLIN | EPOLLRDHUP;
	if (c->registered && loop_mod(s->loop, c->fd, interest) < 0)
		conn_close(s, c, SERVER_CUT, strerror(errno), clock_now());
}

static void on_event(struct loop *l, int fd, uint32_t events, void *ctx)
{
	struct conn *c = ctx;
	struct server *s = c->srv;
	uint64_t cap = s->o.max_bytes && c->state == CONN_RECEIVING ? s->o.max_bytes : UINT64_MAX;
	int rc, looked = 0;

	(void)l;
	(void)fd;
	if (c->state == CONN_SETTLING) {
		conn_settled(s, c, clock_now());
		return;
	}
	if (c->handshaking) {
		conn_handshake(s, c);
		return;
	}
	if (c->state == CONN_CONTROL) {
		control_event(s, c, events);
		return;
	}
	/* A client that sends pays one peek, once; one that only closes finds its EOF there and
	 * pays nothing more than the read that finds it. */
	if ((events & EPOLLIN) && !c->side_decided && (looked = side_look(s, c)) == 1)
		return;
	if (events & EPOLLIN) {
		rc = looked == 2 ? 1 : looked == 3 ? -1 : conn_discard(c, cap);
		if (rc < 0 && c->tls && errno == EPROTO) {
			conn_close(s, c, SERVER_RESET, s->tls_err, clock_now());
			return;
		}
		if (rc < 0) {
			conn_failed(s, c, errno);
			return;
		}
		if (c->state == CONN_RECEIVING && c->received >= cap) {
			/* An upload cut short, with its rest unread: a reset says so. */
			conn_close(s, c, SERVER_CUT, "max-bytes", clock_now());
			return;
		}
		if (rc == 1) {
			c->peer_eof = 1;
			if (c->state == CONN_RECEIVING) {
				conn_close(s, c, SERVER_COMPLETE, "done", clock_now());
				return;
			}
			if (c->state == CONN_DRAINING) {
				conn_settle(s, c, clock_now());
				return;
			}
			/* The peer finished sending but may still read: stop polling its EOF. */
			loop_mod(s->loop, c->fd, sending_interest(c));
		}
	}
	if ((events & (EPOLLERR | EPOLLHUP)) && !(events & EPOLLOUT && c->state == CONN_SENDING)) {
		int e = net_socket_error(c->fd);

		/* Input still to read: closing now would reset, and lose what
		 * the peer has yet to read. The next wakeup reads on. */
		if (e == 0 && (events & EPOLLIN) && !c->peer_eof)
			return;
		conn_failed(s, c, e);
		return;
	}
	if ((events & EPOLLOUT) && c->state == CONN_SENDING)
		conn_pump(s, c);
}

static void refuse(struct server *s, int fd, const char *why)
{
	char peer[64] = "";

	s->refused++;
	if (s->o.name_peers)
		net_peer_name(fd, peer, sizeof(peer));
	s->on_refuse(s->ctx, peer, why);
	net_reset_on_close(fd);
	close(fd);
}

static void accept_one(struct server *s, int fd, double now)
{
	struct conn *c;

	/* With loops on several threads the limit is on all of them together. */
	if (s->o.conns_shared ? atomic_fetch_add(s->o.conns_shared, 1) >= s->o.max_conns :
				s->nconns >= s->o.max_conns) {
		if (s->o.conns_shared)
			atomic_fetch_sub(s->o.conns_shared, 1);
		refuse(s, fd, "max-conns reached");
		return;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		if (s->o.conns_shared)
			atomic_fetch_sub(s->o.conns_shared, 1);
		refuse(s, fd, "out of memory");
		return;
	}
	c->srv = s;
	c->fd = fd;
	c->start = now;
	c->limit = UINT64_MAX;
	if (s->o.max_time > 0) {
		c->deadline = now + s->o.max_time;
		conn_timed(s, c);
	}
	if (s->o.discard) {
		c->state = CONN_RECEIVING;
	} else {
		/* Each connection takes the file's size as it starts: a file
		 * that grew is served whole to the clients that come after. */
		if (source_kind(s->src) == SOURCE_FILE)
			c->fsize = source_size_now(s->src);
		if (s->o.has_size)
			c->limit = s->o.size;
		else if (source_kind(s->src) == SOURCE_FILE)
			c->limit = c->fsize;
		/* A --size past a small file's end repeats it: from memory, not a few bytes a
		 * sendfile. Should that fail, sendfile it is (which then says why). */
		if (source_kind(s->src) == SOURCE_FILE && c->fsize > 0 && c->fsize < REPBUF_SMALL &&
		    c->limit > c->fsize)
			c->rep = repbuf_get(&s->rep_cache, source_fd(s->src), c->fsize);
		c->finite = c->limit != UINT64_MAX;
		if (s->o.max_bytes && s->o.max_bytes < c->limit) {
			c->limit = s->o.max_bytes;
			c->limit_reason = "max-bytes";
		}
	}
	if (s->o.name_peers)
		net_peer_name(fd, c->peer, sizeof(c->peer));
	if (s->o.tls && (c->tls = tls_conn_new(s->o.tls, fd, NULL, s->tls_err, sizeof(s->tls_err))) == NULL) {
		if (c->timed)
			s->ndeadlines--;
		free(c);
		if (s->o.conns_shared)
			atomic_fetch_sub(s->o.conns_shared, 1);
		refuse(s, fd, s->tls_err);
		return;
	}
	conn_link(s, c);
	s->accepted++;
	c->side_decided = c->tls != NULL; /* the side channel is plain TCP's */
	if (c->tls) {
		/* The client speaks first; its hello wakes us. */
		c->handshaking = 1;
		c->handshake_until = now + HANDSHAKE_SECONDS;
		conn_timed(s, c);
		if (loop_add(s->loop, fd, EPOLLIN | EPOLLRDHUP, on_event, c) < 0)
			conn_close(s, c, SERVER_CUT, strerror(errno), now);
		else
			c->registered = 1;
		return;
	}
	/* A paced session's down connection would send its first socket buffer unpaced before its
	 * hello is read (a MiB on loopback): while one is awaited, a new connection waits for its
	 * first bytes, for PACE_HOLD_SECONDS at most. Raw clients pay only then; else one atomic load. */
	if (c->state == CONN_SENDING && pace_pending(s) > 0) {
		c->pace_hold = 1;
		c->hold_until = now + PACE_HOLD_SECONDS;
		conn_timed(s, c);
	}
	/* A new socket is writable: send at once rather than after a wakeup.
	 * A small "file" is then usually complete, and the connection joins
	 * the loop already draining: one epoll_ctl instead of two. */
	if (c->state == CONN_SENDING && !c->pace_hold && conn_pump(s, c) < 0)
		return;
	if (loop_add(s->loop, fd, c->state == CONN_SENDING ? sending_interest(c) : EPOLLIN | EPOLLRDHUP,
		     on_event, c) < 0)
		conn_close(s, c, SERVER_CUT, strerror(errno), now);
	else
		c->registered = 1;
}

/* A new connection to the loop whose turn it is (round robin over the peers, this one among
 * them); kept here when there are none, or when that loop's inbox is full. */
static void dispatch(struct server *s, int fd, double now)
{
	struct server *to = s->npeers > 1 ? s->peers[s->next_peer++ % (unsigned long)s->npeers] : s;

	if (to != s && to->inbox[1] >= 0 && write(to->inbox[1], &fd, sizeof(fd)) == (ssize_t)sizeof(fd))
		return;
	accept_one(s, fd, now);
}

/* accept met a full fd table. Closes on their way often free fds within a moment (a client
 * that went away is reaped on this very wakeup), so the listener first pauses: the clients wait
 * in the queue, and the next close or sweep tries again. Only when no fd has come free for
 * FDS_WAIT_SECONDS is the queue reset, each client taken off with the spare descriptor, so that
 * no client waits on a server that cannot serve it and the listener never spins. */
static void fds_exhausted(struct server *s, int lfd, double now)
{
	int fd = -1;

	if (s->fds_out_since == 0)
		s->fds_out_since = now;
	for (int i = 0; i < 64 && s->spare_fd >= 0 && now - s->fds_out_since >= FDS_WAIT_SECONDS; i++) {
		close(s->spare_fd);
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0)
			refuse(s, fd, "out of file descriptors");
		s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			break; /* the queue is empty */
	}
	s->accept_paused = 1;
	loop_mod(s->loop, lfd, 0);
}

static void on_accept(struct loop *l, int lfd, uint32_t events, void *ctx)
{
	struct server *s = ctx;
	double now = clock_now();

	(void)l;
	(void)events;
	for (int i = 0; i < 64; i++) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd >= 0) {
			s->fds_out_since = 0;
			dispatch(s, fd, now);
			continue;
		}
		if (errno == EMFILE || errno == ENFILE) {
			fds_exhausted(s, lfd, now);
			return;
		}
		if (errno != EINTR && errno != ECONNABORTED)
			return; /* EAGAIN: queue empty */
	}
}

/* --max-time: an endless stream ends as if it met its end, delivered in
 * full; a sized transfer or an upload still going is cut short. */
static void conn_max_time(struct server *s, struct conn *c, double now)
{
	if (c->state == CONN_SENDING && !c->finite)
		conn_finish(s, c, SERVER_LIMIT, "max-time", now);
	else
		conn_close(s, c, SERVER_CUT, "max-time", now);
}

/* A draining or settling connection closes once the peer has every byte
 * and has closed. Progress is looked at (one ioctl) only when its
 * DRAIN_SECONDS run out, so that thousands of stalled readers cost no CPU
 * between sweeps; a settling one, whose peer has closed, at every sweep.
 * Without progress it is closed (all delivered) or cut (the peer stopped
 * reading). */
static void sweep_draining(struct server *s, struct conn *c, double now)
{
	uint64_t delivered;

	if (c->state == CONN_SETTLING && conn_settled(s, c, now) < 0)
		return;
	if (now < c->drain_until)
		return;
	delivered = conn_delivered(c);
	if (delivered >= c->sent)
		conn_close(s, c, c->end, "done (peer did not close)", now);
	else if (delivered > c->acked) {
		c->acked = delivered;
		c->drain_until = now + DRAIN_SECONDS;
	} else
		conn_close(s, c, SERVER_CUT, "peer stopped reading", now);
}

/* The server stops: a connection whose bytes have all been delivered
 * closes as it would have (its input read first, as far as one wakeup
 * goes); everything else is cut, so that no client takes it for whole. */
static void conn_stop(struct server *s, struct conn *c, double now)
{
	if (c->state == CONN_CONTROL) {
		control_flush(s, c); /* the end lines of the data connections stopped before it */
		conn_close(s, c, SERVER_CUT, "server stopped", now);
		return;
	}
	if (c->state == CONN_DRAINING && !c->peer_eof && conn_discard(c, UINT64_MAX) == 1)
		c->peer_eof = 1;
	if ((c->state == CONN_DRAINING || c->state == CONN_SETTLING) && conn_delivered(c) >= c->sent)
		conn_close(s, c, c->end, c->end_reason, now);
	else
		conn_close(s, c, SERVER_CUT, "server stopped", now);
}

static void sweep(struct server *s, double now)
{
	struct conn *c = s->conns, *next;

	for (; c != NULL; c = next) {
		next = c->next;
		if (c->handshaking && now >= c->handshake_until)
			conn_close(s, c, SERVER_CUT, "TLS handshake timed out", now);
		else if (c->state == CONN_DRAINING || c->state == CONN_SETTLING)
			sweep_draining(s, c, now);
		else if (c->state == CONN_CONTROL)
			control_sweep(s, c, now);
		else if (c->deadline > 0 && now >= c->deadline)
			conn_max_time(s, c, now);
		else if (c->pace_hold && (now >= c->hold_until || pace_pending(s) == 0))
			pace_release(s, c);
	}
	if (s->accept_paused && s->spare_fd < 0)
		s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (s->accept_paused && s->spare_fd >= 0) {
		s->accept_paused = 0;
		loop_mod(s->loop, s->lfd, EPOLLIN);
	}
}

/* The inbox is readable: take the connections handed over (a -1 only wakes: server_run then
 * looks at its stop flag). At most a pipe's worth per wakeup, so that clients already here
 * are not starved by a flood. */
static void on_inbox(struct loop *l, int fd, uint32_t events, void *ctx)
{
	struct server *s = ctx;
	int fds[64];
	ssize_t n = read(fd, fds, sizeof(fds));

	(void)l;
	(void)events;
	for (ssize_t i = 0; i < n / (ssize_t)sizeof(int); i++)
		if (fds[i] >= 0)
			accept_one(s, fds[i], clock_now());
}

void server_wake(struct server *s)
{
	int wake = -1;

	if (s->inbox[1] >= 0 && write(s->inbox[1], &wake, sizeof(wake)) < 0)
		return; /* EAGAIN: the pipe is full, so the loop has a wakeup pending anyway */
}

void server_share_accepts(struct server *s, struct server **loops, long n)
{
	s->peers = loops;
	s->npeers = n;
	/* The side channel's sessions all live on this loop, which takes the connections of the
	 * others' hellos through a pipe (two descriptors, on this loop only). Without it each
	 * loop keeps its own sessions: a test whose connections land on two loops then fails. */
	if (n < 2 || pipe2(s->moved, O_NONBLOCK | O_CLOEXEC) < 0)
		return;
	if (loop_add(s->loop, s->moved[0], EPOLLIN, on_moved, s) < 0) {
		close(s->moved[0]);
		close(s->moved[1]);
		s->moved[0] = s->moved[1] = -1;
		return;
	}
	for (long i = 0; i < n; i++)
		loops[i]->side_home = s;
}

struct server *server_new(const struct server_opts *o, int lfd, server_close_fn *on_close,
			  server_refuse_fn *on_refuse, void *ctx)
{
	struct server *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->inbox[0] = s->inbox[1] = -1;
	s->moved[0] = s->moved[1] = -1;
	s->o = *o;
	s->src = o->src;
	s->lfd = lfd;
	s->on_close = on_close;
	s->on_refuse = on_refuse;
	s->ctx = ctx;
	s->loop = loop_new();
	s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	s->scratch = malloc(NET_DISCARD_MAX);
	if (o->tls && (s->tls_rbuf = malloc(TLS_BUF)) == NULL) {
		server_free(s);
		errno = ENOMEM;
		return NULL;
	}
	/* The listening loop keeps a descriptor to spare: without it, a full fd table could never
	 * reset the clients it queues (EMFILE: the fd limit leaves no room for it). */
	if (lfd >= 0 && s->spare_fd < 0 && errno != EMFILE && errno != ENFILE)
		errno = EMFILE;
	if (s->loop == NULL || s->scratch == NULL || (lfd >= 0 && s->spare_fd < 0) ||
	    (lfd >= 0 && loop_add(s->loop, lfd, EPOLLIN, on_accept, s) < 0)) {
		int e = errno;

		server_free(s);
		errno = e;
		return NULL;
	}
	if (o->wakeable && (pipe2(s->inbox, O_NONBLOCK | O_CLOEXEC) < 0 ||
			    loop_add(s->loop, s->inbox[0], EPOLLIN, on_inbox, s) < 0)) {
		int e = errno;

		server_free(s);
		errno = e;
		return NULL;
	}
	loop_set_spin(s->loop, o->busy_poll);
	loop_set_sigmask(s->loop, o->wait_mask);
	return s;
}

/* Whether c has every byte out and waits only for their acknowledgement. */
static int conn_awaits_acks(const struct conn *c)
{
	return (c->state == CONN_DRAINING || c->state == CONN_SETTLING) && conn_delivered(c) < c->sent;
}

/*
 * The stop: before conn_stop classifies them, give the connections whose every byte is out
 * a bounded moment for the acknowledgements on their way. A client that read all 300 MiB
 * through `link --near` had its last ACKs in the link's delay line when the link stopped
 * the server, and the transfer was logged as cut short by the server. Polls the kernel's
 * counters every 5 ms, at most STOP_SETTLE_SECONDS, and only while one still waits.
 */
static void stop_settle(struct server *s)
{
	double until = clock_now() + STOP_SETTLE_SECONDS;
	const struct timespec step = { 0, 5000000L };

	while (clock_now() < until) {
		const struct conn *c = s->conns;

		while (c != NULL && !conn_awaits_acks(c))
			c = c->next;
		if (c == NULL)
			return;
		nanosleep(&step, NULL);
	}
}

/* The poll's timeout (ms, -1: none) shortened to the first parked connection's time. */
static int pace_timeout(const struct server *s, double now, int timeout)
{
	double first = 0;

	for (const struct conn *c = s->paced; c != NULL; c = c->pnext)
		if (first == 0 || c->pace_at < first)
			first = c->pace_at;
	/* Rounded up: a wake a little early would find nothing due and poll again for 0 ms. */
	double ms = first > now ? (double)(int)((first - now) * 1000.0) + 1 : 0;

	return timeout < 0 || ms < timeout ? (int)ms : timeout;
}

/* The parked connections whose time has come send again (conn_pump parks them anew, or
 * finishes or closes them; it never closes another connection). */
static void pace_wake(struct server *s, double now)
{
	struct conn *due = NULL;

	for (struct conn *c = s->paced, *next; c != NULL; c = next) {
		next = c->pnext;
		if (c->pace_at > now)
			continue;
		pace_unpark(s, c);
		c->pnext = due;
		due = c;
	}
	while (due != NULL) {
		struct conn *c = due;

		due = c->pnext;
		c->pnext = NULL;
		if (conn_pump(s, c) == 0 && c->pace_at <= 0 && c->registered && c->state == CONN_SENDING)
			loop_mod(s->loop, c->fd, sending_interest(c)); /* room to wait for again */
	}
}

/* The earliest interval report due on a session asking for them more often than the sweep
 * runs (get -i below 0.1 s); 0 when none. */
static double side_reports_due(const struct server *s)
{
	double due = 0;

	for (const struct serve_side_session *ss = s->sides.head; ss != NULL; ss = ss->next)
		if (SERVE_SIDE_FAST(ss) && (due == 0 || ss->next_report < due))
			due = ss->next_report;
	return due;
}

/* Those sessions' reports, between sweeps. */
static void side_reports(struct server *s, double now)
{
	for (struct serve_side_session *ss = s->sides.head, *next; ss != NULL; ss = next) {
		next = ss->next; /* the report may end this session, never another */
		if (SERVE_SIDE_FAST(ss) && now >= ss->next_report)
			control_sweep(s, ss->ctl, now);
	}
}

int server_run(struct server *s, const volatile sig_atomic_t *stop)
{
	double next_sweep = 0;

	s->start = clock_now();
	while (!*stop) {
		/* A counter, not a walk over every connection on each wakeup. */
		int timeout = s->accept_paused || s->ndeadlines > 0 ? SWEEP_MS : -1;
		double due = s->sides.nfast > 0 ? side_reports_due(s) : 0; /* no walk without them */

		if (due > 0) {
			double ms = (due - clock_now()) * 1000 + 1; /* whole ms, never early */
			int wait = ms < 0 ? 0 : ms > SWEEP_MS ? SWEEP_MS : (int)ms;

			timeout = timeout < 0 || wait < timeout ? wait : timeout;
		}
		if (s->paced != NULL)
			timeout = pace_timeout(s, clock_now(), timeout);
		if (loop_poll(s->loop, timeout) < 0)
			return -1;
		if (s->paced != NULL)
			pace_wake(s, clock_now());
		if (due > 0 && clock_now() >= due)
			side_reports(s, clock_now());
		/* At most one walk over the connections per SWEEP_MS, however
		 * many wakeups the traffic causes. */
		if (timeout >= 0 && clock_now() >= next_sweep) {
			sweep(s, clock_now());
			next_sweep = clock_now() + SWEEP_MS / 1000.0;
		}
	}
	stop_settle(s);
	/* Data connections first, so that their end lines reach their control connections. */
	for (struct conn *c = s->conns, *next; c != NULL; c = next) {
		next = c->next;
		/* Closing c may take a control connection's session, never another connection. */
		if (c->state != CONN_CONTROL)
			conn_stop(s, c, clock_now());
	}
	while (s->conns)
		conn_stop(s, s->conns, clock_now());
	s->cpu_seconds = clock_cpu_seconds(RUSAGE_THREAD); /* this loop's share, for the balance */
	return 0;
}

void server_get_stats(const struct server *s, struct server_stats *st)
{
	st->accepted = s->accepted;
	st->refused = s->refused;
	st->bytes_sent = s->bytes_sent;
	st->bytes_received = s->bytes_received;
	memcpy(st->ended, s->ended, sizeof(st->ended));
	st->seconds = clock_now() - s->start;
	st->tls_handshakes = s->tls_handshakes;
	st->ktls_connections = s->ktls_connections;
	st->cpu_seconds = s->cpu_seconds;
}

void server_free(struct server *s)
{
	if (s == NULL)
		return;
	/* Connections moved here after this loop stopped: cut with the rest. */
	if (s->moved[0] >= 0) {
		struct conn *c;

		while (read(s->moved[0], &c, sizeof(void *)) == (ssize_t)sizeof(void *)) {
			free(c->moved_hello);
			c->moved_hello = NULL;
			conn_link(s, c);
			if (c->timed)
				s->ndeadlines++;
		}
		close(s->moved[0]);
		close(s->moved[1]);
	}
	while (s->conns)
		conn_close(s, s->conns, SERVER_CUT, "server stopped", clock_now());
	/* Connections handed over after this loop stopped: reset, and counted as refused. */
	if (s->inbox[0] >= 0) {
		int fd;

		while (read(s->inbox[0], &fd, sizeof(fd)) == (ssize_t)sizeof(fd))
			if (fd >= 0)
				refuse(s, fd, "server stopped");
		close(s->inbox[0]);
		close(s->inbox[1]);
	}
	loop_free(s->loop);
	repbuf_put(s->rep_cache);
	if (s->spare_fd >= 0)
		close(s->spare_fd);
	free(s->scratch);
	free(s->tls_rbuf);
	free(s);
}
