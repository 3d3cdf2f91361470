/* SPDX-License-Identifier: ISC */
/* client.c - get -u: a socket per stream, the HELLO/START handshake, paced sending (or receiving with
 * --reverse), a REPORT_REQ per stream at each interval, and the final reports that give the totals. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <unistd.h>

#include "pace.h"
#include "sock.h"
#include "stats.h"
#include "udp.h"
#include "wire.h"
#include "../clock.h"
#include "../net.h"

/* How often a HELLO, START or final REPORT_REQ is sent again while no answer comes. */
#define RETRY_NS 200000000u

enum stream_state { ST_HELLO, ST_START, ST_RUN, ST_FINAL, ST_DONE };

/* What one end had counted at an interval's edge: sender and receiver, cumulative. */
struct edge {
	uint64_t sent_packets, sent_bytes, slipped;
	int has_receiver;
	struct udp_report recv;
};

struct stream {
	int fd, state, gso;
	struct udp_header h;
	struct udp_params granted;
	uint64_t seq, sent_bytes;	/* forward: what we sent */
	struct udp_pace pace;
	struct udp_stats *st;		/* reverse: what arrives */
	uint64_t asked_ns;		/* when the last HELLO, START or final request went */
	struct udp_report remote;	/* the latest REPORT */
	int has_remote;
	struct edge prev;		/* at the last interval line */
	struct edge tick;		/* local half captured at the pending tick */
};

struct client {
	const struct udp_client_opts *o;
	const struct udp_events *ev;
	struct udp_result *res;
	struct stream *s;
	int n;
	struct udp_rx rx;
	uint8_t *txbuf;
	uint64_t start_ns, end_ns, rtt_ns;
	uint16_t req;		/* the last REPORT_REQ number */
	int refused, conn_refused;
	int cur;		/* the stream whose socket is being read */
};

static void say(const struct client *c, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(const struct client *c, int error, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	if (c->ev == NULL || c->ev->say == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	c->ev->say(c->ev->ctx, error, line);
}

static void send_params(struct client *c, struct stream *s, int type, uint64_t now)
{
	struct udp_params p = { c->o->reverse ? UDP_FLAG_REVERSE : 0, c->o->length,
				(uint64_t)(c->o->rate / c->n), (uint32_t)(c->o->duration * 1000 + 0.5) };
	uint8_t buf[UDP_WIRE_HELLO];
	size_t len;

	s->h.type = (uint8_t)type;
	if (type == UDP_HELLO)
		s->h.cookie = 0;
	len = udp_wire_write_params(buf, sizeof(buf), &s->h, &p);
	(void)udp_send_one(s->fd, buf, len, NULL, 0);
	s->asked_ns = now;
}

/* flags: 0 for an interval's counters, UDP_FLAG_FINAL (and UDP_FLAG_CUT) for the last ones. */
static void send_req(struct stream *s, uint16_t req, uint32_t flags, uint64_t now)
{
	struct udp_report_req q = { flags, req, s->seq, s->sent_bytes };
	uint8_t buf[UDP_WIRE_REPORT];
	size_t len = udp_wire_write_report_req(buf, sizeof(buf), &s->h, &q);

	(void)udp_send_one(s->fd, buf, len, NULL, 0);
	if (flags & UDP_FLAG_FINAL)
		s->asked_ns = now;
}

static void on_datagram(void *ctx, const uint8_t *buf, size_t len, const struct sockaddr *from, socklen_t fromlen,
			uint64_t now)
{
	struct client *c = ctx;
	struct stream *s = &c->s[c->cur];
	struct udp_header h;
	int type = udp_wire_header(buf, len, &h);

	(void)from;
	(void)fromlen;
	if (type < 0 || h.test_id != s->h.test_id || h.stream != s->h.stream)
		return; /* a connected socket hears only the server: anything else is not this test's */
	if (type == UDP_COOKIE && s->state == ST_HELLO) {
		s->h.cookie = h.cookie;
		s->state = ST_START;
		send_params(c, s, UDP_START, now);
	} else if (type == UDP_STARTED && s->state == ST_START && h.cookie == s->h.cookie) {
		if (udp_wire_params(buf, len, &s->granted) < 0)
			return;
		if (s->granted.flags & 4u) {
			c->refused = 1;
			return;
		}
		if (c->rtt_ns == 0 || now - s->asked_ns > c->rtt_ns)
			c->rtt_ns = now - s->asked_ns;
		s->state = ST_RUN;
	} else if (type == UDP_REPORT && h.cookie == s->h.cookie) {
		struct udp_report r;

		if (udp_wire_report(buf, len, &r) < 0)
			return;
		if (s->has_remote && (uint16_t)(r.req - s->remote.req) >= 0x8000)
			return; /* an older answer than the one we have */
		s->remote = r;
		s->has_remote = 1;
		if ((r.flags & UDP_FLAG_FINAL) && s->state == ST_FINAL && (!c->o->reverse || (r.flags & UDP_FLAG_DONE)))
			s->state = ST_DONE;
	} else if (type == UDP_DATA && s->st && h.cookie == s->h.cookie && s->state >= ST_RUN) {
		struct udp_data d;

		if (udp_wire_data(buf, len, &d) == 0)
			udp_stats_add(s->st, d.seq, d.send_ns, now, len);
	}
}

/* Read every socket poll found readable. -1 when the server's port is closed (ICMP). */
static int read_all(struct client *c, struct pollfd *pfd)
{
	for (int i = 0; i < c->n; i++) {
		if (!(pfd[i].revents & (POLLIN | POLLERR)))
			continue;
		c->cur = i;
		for (int round = 0; round < 16; round++) {
			int got = udp_rx_batch(&c->rx, c->s[i].fd, on_datagram, c);

			if (got < 0 && errno == ECONNREFUSED) {
				c->conn_refused = 1;
				return -1;
			}
			if (got <= 0)
				break;
		}
	}
	return 0;
}

/* Wait until wake_ns at most (0: do not wait) for any socket to be readable, then read. */
static int wait_and_read(struct client *c, struct pollfd *pfd, uint64_t wake_ns, int want_out)
{
	uint64_t now = clock_now_ns();
	struct timespec ts = { 0, 0 };

	if (wake_ns > now) {
		ts.tv_sec = (time_t)((wake_ns - now) / 1000000000u);
		ts.tv_nsec = (long)((wake_ns - now) % 1000000000u);
	}
	for (int i = 0; i < c->n; i++) {
		pfd[i].fd = c->s[i].fd;
		pfd[i].events = POLLIN | (want_out ? POLLOUT : 0);
		pfd[i].revents = 0;
	}
	if (ppoll(pfd, (nfds_t)c->n, &ts, NULL) < 0) {
		if (errno != EINTR)
			return -1;
		return 0;
	}
	return read_all(c, pfd);
}

static int all_in(const struct client *c, int state)
{
	for (int i = 0; i < c->n; i++)
		if (c->s[i].state < state)
			return 0;
	return 1;
}

/* This stream's cumulative counts now (local half) with the latest REPORT (remote half). */
static void capture_local(const struct client *c, const struct stream *s, struct edge *e)
{
	memset(e, 0, sizeof(*e));
	if (c->o->reverse) {
		udp_stats_report(s->st, &e->recv);
		e->has_receiver = 1;
	} else {
		e->sent_packets = s->seq;
		e->sent_bytes = s->sent_bytes;
		e->slipped = s->pace.slipped;
	}
}

static void add_remote(const struct client *c, const struct stream *s, struct edge *e)
{
	if (!s->has_remote)
		return;
	if (c->o->reverse) {
		e->sent_packets = s->remote.packets;
		e->sent_bytes = s->remote.bytes;
		e->slipped = s->remote.late;
	} else {
		e->recv = s->remote;
		e->has_receiver = 1;
	}
}

/* The figures between two edges of one stream. */
static void between(const struct edge *a, const struct edge *b, struct udp_figures *f)
{
	memset(f, 0, sizeof(*f));
	f->sent_packets = b->sent_packets - a->sent_packets;
	f->sent_bytes = b->sent_bytes - a->sent_bytes;
	f->slipped = b->slipped - a->slipped;
	if (!b->has_receiver)
		return;
	f->has_receiver = 1;
	f->packets = b->recv.packets - a->recv.packets;
	f->bytes = b->recv.bytes - a->recv.bytes;
	f->expected = b->recv.expected - a->recv.expected;
	f->lost = f->expected > f->packets ? f->expected - f->packets : 0;
	f->duplicates = b->recv.duplicates - a->recv.duplicates;
	f->out_of_order = b->recv.out_of_order - a->recv.out_of_order;
	f->late = b->recv.late - a->recv.late;
	f->jitter_ms = (double)b->recv.jitter_ns / 1e6;
	f->owd_avg_ms = f->packets ? (double)(int64_t)((uint64_t)b->recv.owd_sum_ns - (uint64_t)a->recv.owd_sum_ns) / (double)f->packets / 1e6 : 0;
	f->owd_min_ms = (double)b->recv.owd_min_ns / 1e6; /* since the start: no per-interval extremes */
	f->owd_max_ms = (double)b->recv.owd_max_ns / 1e6;
	f->recv_span = (double)b->recv.span_ns / 1e9;
}

/* Add one stream's figures into a sum. */
static void accumulate(struct udp_figures *sum, const struct udp_figures *f)
{
	double owd = sum->owd_avg_ms * (double)sum->packets + f->owd_avg_ms * (double)f->packets;
	int first = !sum->has_receiver;

	sum->sent_packets += f->sent_packets;
	sum->sent_bytes += f->sent_bytes;
	sum->slipped += f->slipped;
	if (!f->has_receiver)
		return;
	sum->has_receiver = 1;
	sum->packets += f->packets;
	sum->bytes += f->bytes;
	sum->expected += f->expected;
	sum->lost += f->lost;
	sum->duplicates += f->duplicates;
	sum->out_of_order += f->out_of_order;
	sum->late += f->late;
	sum->owd_avg_ms = sum->packets ? owd / (double)sum->packets : 0;
	if (first || f->jitter_ms > sum->jitter_ms)
		sum->jitter_ms = f->jitter_ms;
	if (first || f->owd_min_ms < sum->owd_min_ms)
		sum->owd_min_ms = f->owd_min_ms;
	if (first || f->owd_max_ms > sum->owd_max_ms)
		sum->owd_max_ms = f->owd_max_ms;
	if (f->recv_span > sum->recv_span)
		sum->recv_span = f->recv_span;
}

/* An interval's line from each stream's tick edge (local) and latest report (remote). */
static void emit_interval(struct client *c, double t0, double t1)
{
	struct udp_figures per[UDP_MAX_STREAMS], sum;

	memset(&sum, 0, sizeof(sum));
	for (int i = 0; i < c->n; i++) {
		struct stream *s = &c->s[i];
		struct edge e = s->tick;

		add_remote(c, s, &e);
		if (!e.has_receiver && s->prev.has_receiver) {
			e.recv = s->prev.recv; /* no answer this time: nothing to add yet */
			e.has_receiver = 0;
		}
		between(&s->prev, &e, &per[i]);
		per[i].start = t0;
		per[i].end = t1;
		if (e.has_receiver)
			s->prev = e;
		else {
			s->prev.sent_packets = e.sent_packets;
			s->prev.sent_bytes = e.sent_bytes;
			s->prev.slipped = e.slipped;
		}
		accumulate(&sum, &per[i]);
	}
	sum.start = t0;
	sum.end = t1;
	if (c->ev && c->ev->interval)
		c->ev->interval(c->ev->ctx, &sum, per, c->n);
}

/* Send what is due by due_by (stamped now) on every stream; the earliest time one wants to send again. */
static uint64_t send_due(struct client *c, uint64_t due_by, uint64_t now, int *blocked)
{
	uint64_t wake = UINT64_MAX;
	uint32_t len = c->o->length;

	*blocked = 0;
	for (int i = 0; i < c->n; i++) {
		struct stream *s = &c->s[i];
		uint64_t due = udp_pace_due(&s->pace, due_by, UDP_SOCK_BATCH);
		int sent;

		if (due > 0) {
			s->h.type = UDP_DATA;
			for (uint64_t k = 0; k < due; k++) {
				struct udp_data d = { s->seq + k, now };

				udp_wire_write_data(c->txbuf + k * len, len, &s->h, &d, 0);
			}
			sent = udp_send_batch(s->fd, c->txbuf, len, (unsigned)due, NULL, 0, &s->gso);
			if (sent < 0) {
				if (errno == ECONNREFUSED)
					c->conn_refused = 1;
				sent = 0;
			}
			if ((uint64_t)sent < due) {
				s->pace.k -= due - (uint64_t)sent; /* still due once the socket has room */
				*blocked = 1;
			}
			s->seq += (uint64_t)sent;
			s->sent_bytes += (uint64_t)sent * len;
		}
		if (udp_pace_wake(&s->pace) < wake)
			wake = udp_pace_wake(&s->pace);
	}
	return wake;
}

static int open_streams(struct client *c, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t sslen;
	struct net_opts no;
	uint32_t test_id;
	int rc;

	memset(&no, 0, sizeof(no));
	no.family = c->o->family;
	no.socktype = SOCK_DGRAM;
	rc = net_resolve(c->o->host, c->o->port, &no, &ss, &sslen, err, errlen);
	if (rc < 0)
		return rc;
	net_format_addr((struct sockaddr *)&ss, sslen, c->res->peer_buf, sizeof(c->res->peer_buf));
	c->res->peer = c->res->peer_buf;
	if (getrandom(&test_id, sizeof(test_id), 0) != (ssize_t)sizeof(test_id))
		test_id = (uint32_t)clock_now_ns() ^ (uint32_t)getpid();
	for (int i = 0; i < c->n; i++) {
		struct stream *s = &c->s[i];

		s->fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (s->fd < 0 || connect(s->fd, (struct sockaddr *)&ss, sslen) < 0) {
			snprintf(err, errlen, "UDP socket to %s: %s", c->res->peer, strerror(errno));
			return NET_ESYS;
		}
		udp_sock_tune(s->fd);
		s->gso = !c->o->no_gso;
		s->h.test_id = test_id;
		s->h.stream = (uint16_t)i;
		if (c->o->reverse && (s->st = malloc(sizeof(*s->st))) == NULL) {
			snprintf(err, errlen, "out of memory");
			return NET_ESYS;
		}
		if (s->st)
			udp_stats_init(s->st);
	}
	return 0;
}

static int handshake(struct client *c, const volatile sig_atomic_t *cancel, struct pollfd *pfd, char *err,
		     size_t errlen)
{
	uint64_t give_up = clock_now_ns() + (uint64_t)(c->o->timeout * 1e9);

	while (!all_in(c, ST_RUN)) {
		uint64_t now = clock_now_ns();

		if (cancel && *cancel)
			return 1;
		if (c->refused) {
			snprintf(err, errlen, "%s refused the test: it runs as many as its --max-tests", c->res->peer);
			return UDP_EREFUSED;
		}
		if (c->conn_refused) {
			snprintf(err, errlen, "%s: connection refused (nothing listens on that UDP port)", c->res->peer);
			return NET_ECONNECT;
		}
		if (now >= give_up) {
			snprintf(err, errlen, "%s: no answer within %g s (is it 'ncpv serve -u'?)", c->res->peer,
				 c->o->timeout);
			return UDP_ENOANSWER;
		}
		for (int i = 0; i < c->n; i++) {
			struct stream *s = &c->s[i];

			if (s->state < ST_RUN && (s->asked_ns == 0 || now - s->asked_ns >= RETRY_NS))
				send_params(c, s, s->state == ST_HELLO ? UDP_HELLO : UDP_START, now);
		}
		if (wait_and_read(c, pfd, now + 20000000u, 0) < 0 && !c->conn_refused) {
			snprintf(err, errlen, "poll: %s", strerror(errno));
			return NET_ESYS;
		}
	}
	return 0;
}

static double secs(const struct client *c, uint64_t t)
{
	return (double)(t - c->start_ns) / 1e9;
}

/* The test's span to a stop at now: the longest stream's (udp_pace_span: whole slots). */
static uint64_t test_span(const struct client *c, uint64_t now)
{
	uint64_t span = 0;

	for (int i = 0; i < c->n; i++)
		if (udp_pace_span(&c->s[i].pace, now) > span)
			span = udp_pace_span(&c->s[i].pace, now);
	return span;
}

/* The test proper: send (or receive) until the end, with interval requests and lines. */
static int run(struct client *c, const volatile sig_atomic_t *cancel, struct pollfd *pfd)
{
	uint64_t tick_ns = c->o->interval > 0 ? (uint64_t)(c->o->interval * 1e9) : 0;
	uint64_t next_tick, pending_until = 0, last_edge, now = 0, asked_end;
	int pending = 0;

	c->start_ns = clock_now_ns();
	/* Each stream's schedule, the server's with --reverse: the test lasts its datagrams' slots. */
	c->end_ns = c->start_ns;
	for (int i = 0; i < c->n; i++) {
		struct stream *s = &c->s[i];
		double rate = c->o->reverse ? (double)s->granted.rate : c->o->rate / c->n;
		uint64_t dur = c->o->reverse ? (uint64_t)s->granted.duration_ms * 1000000u : (uint64_t)(c->o->duration * 1e9);

		udp_pace_init(&s->pace, rate, c->o->length, c->start_ns, UDP_SOCK_BATCH, dur);
		if (c->start_ns + udp_pace_span(&s->pace, UINT64_MAX) > c->end_ns)
			c->end_ns = c->start_ns + udp_pace_span(&s->pace, UINT64_MAX);
	}
	/* Interval edges fall before the time asked; the last interval runs to the end of the span. */
	asked_end = c->start_ns + c->s[0].pace.duration_ns;
	next_tick = tick_ns && c->start_ns + tick_ns < asked_end ? c->start_ns + tick_ns : UINT64_MAX;
	last_edge = c->start_ns;
	if (!c->o->reverse)
		(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL); /* wake on time, not 50 us late */
	for (;;) {
		uint64_t wake = c->end_ns;
		int blocked = 0;

		now = clock_now_ns();
		if ((cancel && *cancel) || c->conn_refused)
			break;
		if (now >= c->end_ns) {
			if (!c->o->reverse && c->o->rate > 0)
				(void)send_due(c, now, now, &blocked); /* woken late: what was due before the end still goes */
			break;
		}
		if (!c->o->reverse) {
			/* At an interval's edge only what was due before it: the rest counts in the next. */
			uint64_t w = send_due(c, now >= next_tick ? next_tick - 1 : now, now, &blocked);

			if (w < wake && !blocked)
				wake = w; /* blocked: wait for room (POLLOUT) instead */
		}
		if (now >= next_tick) {
			if (pending)
				emit_interval(c, secs(c, last_edge - tick_ns), secs(c, last_edge));
			c->req++;
			for (int i = 0; i < c->n; i++) {
				capture_local(c, &c->s[i], &c->s[i].tick);
				send_req(&c->s[i], c->req, 0, now);
			}
			pending = 1;
			last_edge = next_tick;
			next_tick = next_tick + tick_ns < asked_end ? next_tick + tick_ns : UINT64_MAX;
			/* The answers have until then: a round trip and then some, at most half an interval. */
			pending_until = now + (c->rtt_ns * 4 + 20000000u < tick_ns / 2 ? c->rtt_ns * 4 + 20000000u : tick_ns / 2);
		}
		if (pending) {
			int all = 1;

			for (int i = 0; i < c->n; i++)
				if (!c->s[i].has_remote || c->s[i].remote.req != c->req)
					all = 0;
			if (all || now >= pending_until) {
				emit_interval(c, secs(c, last_edge - tick_ns), secs(c, last_edge));
				pending = 0;
			} else if (pending_until < wake)
				wake = pending_until;
		}
		if (next_tick < wake)
			wake = next_tick;
		if (c->o->rate <= 0 && !c->o->reverse && !blocked) {
			/* As fast as possible: only look at the sockets, do not wait. */
			wake = 0;
		}
		if (wait_and_read(c, pfd, wake, blocked) < 0 && !c->conn_refused)
			return -1;
	}
	if (pending)
		emit_interval(c, secs(c, last_edge - tick_ns), secs(c, last_edge));
	c->res->sum.end = secs(c, c->start_ns + test_span(c, now));
	c->res->sum.start = secs(c, last_edge); /* where the last (partial) interval begins */
	return 0;
}

/* After the sending: let the last datagrams land, then ask each stream for its final report. */
static void finish(struct client *c, const volatile sig_atomic_t *cancel, struct pollfd *pfd)
{
	uint64_t linger = c->rtt_ns * 4 + 100000000u, now, until, give_up;
	uint32_t final = UDP_FLAG_FINAL;

	if (linger > 1000000000u)
		linger = 1000000000u;
	until = clock_now_ns() + linger;
	while (clock_now_ns() < until && !(cancel && *cancel))
		if (wait_and_read(c, pfd, until, 0) < 0)
			break;
	give_up = clock_now_ns() + (uint64_t)(c->o->timeout * 1e9);
	/* Interrupted with the server sending: it stops at this request instead of its end. */
	if (c->o->reverse && cancel && *cancel)
		final |= UDP_FLAG_CUT;
	c->req++;
	for (int i = 0; i < c->n; i++)
		c->s[i].state = ST_FINAL;
	while (!all_in(c, ST_DONE) && (now = clock_now_ns()) < give_up && !(cancel && *cancel > 1)) {
		for (int i = 0; i < c->n; i++) {
			struct stream *s = &c->s[i];

			if (s->state == ST_FINAL && now - s->asked_ns >= RETRY_NS)
				send_req(s, c->req, final, now);
		}
		if (wait_and_read(c, pfd, now + 20000000u, 0) < 0 && !c->conn_refused)
			break;
		if (c->conn_refused)
			break;
	}
}

static void totals(struct client *c, double last_start)
{
	struct udp_figures sum;
	struct edge zero;

	memset(&sum, 0, sizeof(sum));
	memset(&zero, 0, sizeof(zero));
	for (int i = 0; i < c->n; i++) {
		struct stream *s = &c->s[i];
		struct edge e;

		if (c->o->reverse && s->has_remote && (s->remote.flags & UDP_FLAG_FINAL))
			udp_stats_expect(s->st, s->remote.packets);
		capture_local(c, s, &e);
		add_remote(c, s, &e);
		if (s->state != ST_DONE) {
			/* No final answer: the receiver's last word (forward), or the sender's (reverse). */
			e.has_receiver = c->o->reverse || s->has_remote;
		}
		s->tick = e;
		between(&zero, &e, &c->res->streams[i]);
		c->res->streams[i].start = 0;
		c->res->streams[i].end = c->res->sum.end;
		accumulate(&sum, &c->res->streams[i]);
	}
	sum.start = 0;
	sum.end = c->res->sum.end;
	/* The last interval line: from the last edge to the end, now with the final counts. */
	if (c->o->interval > 0 && sum.end - last_start > 1e-3) {
		struct udp_figures per[UDP_MAX_STREAMS], isum;

		memset(&isum, 0, sizeof(isum));
		for (int i = 0; i < c->n; i++) {
			between(&c->s[i].prev, &c->s[i].tick, &per[i]);
			per[i].start = last_start;
			per[i].end = sum.end;
			accumulate(&isum, &per[i]);
		}
		isum.start = last_start;
		isum.end = sum.end;
		if (c->ev && c->ev->interval)
			c->ev->interval(c->ev->ctx, &isum, per, c->n);
	}
	c->res->sum = sum;
}

int udp_client_run(const struct udp_client_opts *o, const volatile sig_atomic_t *cancel,
		   const struct udp_events *ev, struct udp_result *res, char *err, size_t errlen)
{
	struct pollfd pfd[UDP_MAX_STREAMS];
	struct client c;
	int rc;

	memset(&c, 0, sizeof(c));
	memset(res, 0, sizeof(*res));
	c.o = o;
	c.ev = ev;
	c.res = res;
	c.n = o->streams < 1 ? 1 : o->streams > UDP_MAX_STREAMS ? UDP_MAX_STREAMS : o->streams;
	c.s = calloc((size_t)c.n, sizeof(*c.s));
	c.txbuf = calloc(UDP_SOCK_BATCH, o->length);
	if (c.s == NULL || c.txbuf == NULL || udp_rx_init(&c.rx, o->reverse ? 32 : 4) < 0) {
		snprintf(err, errlen, "out of memory");
		rc = NET_ESYS;
		goto out;
	}
	for (int i = 0; i < c.n; i++)
		c.s[i].fd = -1;
	rc = open_streams(&c, err, errlen);
	if (rc == 0)
		rc = handshake(&c, cancel, pfd, err, errlen);
	if (rc == 1) {
		res->end = UDP_END_CANCEL;
		rc = 0;
		goto out;
	}
	if (rc < 0)
		goto out;
	res->granted_rate = (double)c.s[0].granted.rate * c.n;
	res->granted_duration = (double)c.s[0].granted.duration_ms / 1000;
	if (run(&c, cancel, pfd) < 0) {
		snprintf(err, errlen, "poll: %s", strerror(errno));
		rc = NET_ESYS;
		goto out;
	}
	res->send_path = o->reverse ? "server" : c.s[0].gso ? "gso" : "sendmmsg";
	if (c.conn_refused) {
		snprintf(err, errlen, "%s: connection refused during the test (the server went away)", res->peer);
		rc = NET_ECONNECT;
		goto out;
	}
	{
		double last_start = res->sum.start;

		finish(&c, cancel, pfd);
		totals(&c, last_start);
	}
	res->end = cancel && *cancel ? UDP_END_CANCEL : all_in(&c, ST_DONE) ? UDP_END_TIME : UDP_END_NOREPORT;
	if (res->end == UDP_END_NOREPORT)
		say(&c, 1, "no final report from %s within %g s: its figures are from its last answer", res->peer,
		    o->timeout);
	for (int i = 0; i < c.n; i++) {
		uint8_t buf[UDP_WIRE_STOP];

		(void)udp_send_one(c.s[i].fd, buf, udp_wire_write_stop(buf, sizeof(buf), &c.s[i].h), NULL, 0);
	}
out:
	if (c.s)
		for (int i = 0; i < c.n; i++) {
			if (c.s[i].fd >= 0)
				close(c.s[i].fd);
			free(c.s[i].st);
		}
	free(c.s);
	free(c.txbuf);
	udp_rx_free(&c.rx);
	return rc;
}
