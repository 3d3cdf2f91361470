/* SPDX-License-Identifier: ISC */
/* server.c - serve -u: answer HELLO with an address cookie, keep a bounded table of flows, count what
 * arrives, send reverse flows at their granted rate, forget idle flows, drop whatever is not a test. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "cookie.h"
#include "pace.h"
#include "sock.h"
#include "stats.h"
#include "udp.h"
#include "wire.h"
#include "../clock.h"
#include "../net.h"

struct flow {
	int used, reverse, finished;
	struct sockaddr_storage peer;
	socklen_t peerlen;
	uint32_t test_id;
	uint16_t stream;
	uint64_t cookie;
	struct udp_params granted;
	uint64_t start_ns, heard_ns, end_ns;
	struct udp_stats *st;	/* forward: what arrives */
	struct udp_pace pace;	/* reverse: what we send */
	uint64_t seq, sent_bytes;
};

struct server {
	const struct udp_server_opts *o;
	const struct udp_server_events *ev;
	struct udp_server_stats *st;
	int fd;
	uint8_t key[16];
	struct flow *flows;
	long nflows;
	long last_hit;
	uint8_t out[UDP_WIRE_REPORT];
	uint8_t *txbuf; /* UDP_SOCK_BATCH reverse datagrams */
	int gso;
};

int udp_server_listen(const struct udp_server_opts *o, char *err, size_t errlen)
{
	struct net_opts n;
	int fd;

	memset(&n, 0, sizeof(n));
	n.family = o->family;
	n.socktype = SOCK_DGRAM;
	n.numeric = 0;
	fd = net_listen(o->host, o->port, &n, err, errlen);
	if (fd >= 0)
		udp_sock_tune(fd);
	return fd;
}

static int same_peer(const struct flow *f, const struct sockaddr *sa, socklen_t len)
{
	return f->peerlen == len && memcmp(&f->peer, sa, len) == 0;
}

static struct flow *find_flow(struct server *s, const struct sockaddr *sa, socklen_t len, const struct udp_header *h)
{
	/* The flow of the last datagram first: a test's data comes in runs. */
	for (long k = -1; k < s->o->max_tests; k++) {
		long i = k < 0 ? s->last_hit : k;
		struct flow *f;

		if (i < 0)
			continue;
		f = &s->flows[i];
		if (f->used && f->test_id == h->test_id && f->stream == h->stream && same_peer(f, sa, len)) {
			s->last_hit = i;
			return f;
		}
	}
	return NULL;
}

static void figures(const struct flow *f, struct udp_figures *fig)
{
	memset(fig, 0, sizeof(*fig));
	if (f->reverse) {
		fig->sent_packets = f->seq;
		fig->sent_bytes = f->sent_bytes;
		fig->slipped = f->pace.slipped;
		fig->end = f->seq ? (double)udp_pace_span(&f->pace, clock_now_ns()) / 1e9 : 0;
	} else {
		struct udp_report r;

		udp_stats_report(f->st, &r);
		udp_figures_from_report(fig, &r);
		fig->end = fig->recv_span;
	}
}

static void end_flow(struct server *s, struct flow *f, const char *why)
{
	if (!f->finished && s->ev && s->ev->flow_end) {
		struct udp_flow_end e;
		char peer[80];

		net_format_addr((struct sockaddr *)&f->peer, f->peerlen, peer, sizeof(peer));
		e.peer = peer;
		e.test_id = f->test_id;
		e.stream = f->stream;
		e.reverse = f->reverse;
		e.why = why;
		figures(f, &e.fig);
		s->ev->flow_end(s->ev->ctx, &e);
	}
	f->finished = 1;
}

static void drop_flow(struct server *s, struct flow *f, const char *why)
{
	end_flow(s, f, why);
	free(f->st);
	memset(f, 0, sizeof(*f));
	s->nflows--;
}

static void answer(struct server *s, const uint8_t *out, size_t n, size_t asked, const struct sockaddr *to,
		   socklen_t tolen)
{
	if (n == 0 || n > asked)
		return; /* never more than the request: no amplification */
	s->st->answers++;
	s->st->answer_bytes += n;
	s->st->request_bytes += asked;
	(void)udp_send_one(s->fd, out, n, to, tolen);
}

static uint64_t period_now(void)
{
	return clock_now_ns() / 1000000000u / UDP_COOKIE_PERIOD;
}

/* Bound what a client asks for by the server's limits. */
static void grant(const struct udp_server_opts *o, struct udp_params *p)
{
	double max_ms = o->max_time * 1000;

	if (p->rate == 0 || (o->max_rate > 0 && (double)p->rate > o->max_rate))
		p->rate = (uint64_t)o->max_rate;
	if (p->duration_ms == 0 || p->duration_ms > max_ms)
		p->duration_ms = (uint32_t)max_ms;
	if (p->length < UDP_WIRE_DATA_MIN)
		p->length = UDP_WIRE_DATA_MIN;
	if (p->length > UDP_WIRE_MAX)
		p->length = UDP_WIRE_MAX;
	p->flags &= UDP_FLAG_REVERSE;
}

#define UDP_FLAG_FULL 4u /* STARTED: no room for another flow; the client gives up */

static void on_start(struct server *s, const uint8_t *buf, size_t len, const struct sockaddr *sa, socklen_t salen,
		     struct udp_header *h, uint64_t now)
{
	struct udp_params p;
	struct flow *f;

	if (len < UDP_WIRE_HELLO || udp_wire_params(buf, len, &p) < 0) {
		s->st->truncated++;
		return;
	}
	if (!udp_cookie_ok(s->key, sa, h->test_id, period_now(), h->cookie)) {
		s->st->bad_cookie++;
		return;
	}
	grant(s->o, &p);
	f = find_flow(s, sa, salen, h);
	if (f == NULL && s->nflows < s->o->max_tests && (size_t)salen <= sizeof(f->peer)) {
		for (long i = 0; i < s->o->max_tests; i++)
			if (!s->flows[i].used) {
				f = &s->flows[i];
				break;
			}
		if (f && !(p.flags & UDP_FLAG_REVERSE) && (f->st = malloc(sizeof(*f->st))) == NULL)
			f = NULL;
		if (f) {
			f->used = 1;
			memcpy(&f->peer, sa, salen);
			f->peerlen = salen;
			f->test_id = h->test_id;
			f->stream = h->stream;
			f->cookie = h->cookie;
			f->granted = p;
			f->reverse = (p.flags & UDP_FLAG_REVERSE) != 0;
			f->start_ns = now;
			f->end_ns = now + (uint64_t)p.duration_ms * 1000000u;
			if (f->st)
				udp_stats_init(f->st);
			else {
				/* A reverse flow lasts its datagrams' slots (pace.h), as the client's does. */
				udp_pace_init(&f->pace, (double)p.rate, p.length, now, UDP_SOCK_BATCH,
					      (uint64_t)p.duration_ms * 1000000u);
				f->end_ns = now + udp_pace_span(&f->pace, UINT64_MAX);
			}
			s->nflows++;
			s->st->flows++;
		}
	}
	if (f == NULL) {
		s->st->refused_full++;
		p.flags |= UDP_FLAG_FULL;
	} else {
		f->heard_ns = now;
		p = f->granted;
	}
	h->type = UDP_STARTED;
	answer(s, s->out, udp_wire_write_params(s->out, sizeof(s->out), h, &p), len, sa, salen);
}

static void on_report_req(struct server *s, struct flow *f, const uint8_t *buf, size_t len,
			  const struct sockaddr *sa, socklen_t salen, struct udp_header *h)
{
	struct udp_report_req q;
	struct udp_report r;

	if (udp_wire_report_req(buf, len, &q) < 0) {
		s->st->truncated++;
		return;
	}
	if (f->reverse) {
		uint64_t now = clock_now_ns();
		int cut = (q.flags & UDP_FLAG_FINAL) && (q.flags & UDP_FLAG_CUT);

		memset(&r, 0, sizeof(r));
		r.packets = f->seq;
		r.bytes = f->sent_bytes;
		r.span_ns = f->seq ? udp_pace_span(&f->pace, now) : 0;
		r.late = f->pace.slipped; /* a sender's REPORT: datagrams it let go of behind schedule */
		/* An interrupted client: nothing more is sent (end_flow below), these are the totals. */
		if (cut || (f->pace.k >= f->seq && now >= f->end_ns))
			r.flags |= UDP_FLAG_DONE;
	} else {
		if (q.flags & UDP_FLAG_FINAL)
			udp_stats_expect(f->st, q.sent_packets);
		udp_stats_report(f->st, &r);
	}
	r.flags |= q.flags & UDP_FLAG_FINAL;
	r.req = q.req;
	h->type = UDP_REPORT;
	answer(s, s->out, udp_wire_write_report(s->out, sizeof(s->out), h, &r), len, sa, salen);
	if ((q.flags & UDP_FLAG_FINAL) && (!f->reverse || (r.flags & UDP_FLAG_DONE)))
		end_flow(s, f, f->reverse && (q.flags & UDP_FLAG_CUT) ? "client interrupted" : "final report");
}

static void on_datagram(void *ctx, const uint8_t *buf, size_t len, const struct sockaddr *sa, socklen_t salen,
			uint64_t now)
{
	struct server *s = ctx;
	struct udp_header h;
	struct flow *f;
	int type;

	s->st->datagrams++;
	type = udp_wire_header(buf, len, &h);
	if (type < 0) {
		s->st->not_ours++;
		return;
	}
	switch (type) {
	case UDP_HELLO: {
		struct udp_params p;

		/* Answer only a HELLO at least as long as the COOKIE it gets. */
		if (len < UDP_WIRE_HELLO || udp_wire_params(buf, len, &p) < 0) {
			s->st->truncated++;
			return;
		}
		grant(s->o, &p);
		h.type = UDP_COOKIE;
		h.cookie = udp_cookie(s->key, sa, h.test_id, period_now());
		answer(s, s->out, udp_wire_write_params(s->out, sizeof(s->out), &h, &p), len, sa, salen);
		return;
	}
	case UDP_START:
		on_start(s, buf, len, sa, salen, &h, now);
		return;
	case UDP_DATA:
	case UDP_REPORT_REQ:
	case UDP_STOP:
		break;
	default:
		s->st->not_ours++; /* a server's own types, or types from a later version */
		return;
	}
	f = find_flow(s, sa, salen, &h);
	if (f == NULL) {
		s->st->no_flow++;
		return;
	}
	if (f->cookie != h.cookie) {
		s->st->bad_cookie++;
		return;
	}
	f->heard_ns = now;
	if (type == UDP_DATA) {
		struct udp_data d;

		if (udp_wire_data(buf, len, &d) < 0) {
			s->st->truncated++;
			return;
		}
		if (f->st)
			udp_stats_add(f->st, d.seq, d.send_ns, now, len);
	} else if (type == UDP_REPORT_REQ)
		on_report_req(s, f, buf, len, sa, salen, &h);
	else
		drop_flow(s, f, "stop");
}

/* Send what every reverse flow has due; returns the earliest time one wants to send again. */
static uint64_t send_due(struct server *s, uint64_t now)
{
	uint64_t wake = UINT64_MAX;

	for (long i = 0; i < s->o->max_tests; i++) {
		struct flow *f = &s->flows[i];
		struct udp_header h = { UDP_WIRE_VERSION, UDP_DATA, f->stream, f->test_id, f->cookie };
		uint64_t due;
		int sent;

		/* Past the end only what was due before it (woken late); as fast as possible, nothing. */
		if (!f->used || !f->reverse || f->finished ||
		    (now >= f->end_ns && (f->pace.limit == 0 || f->pace.k >= f->pace.limit)))
			continue;
		due = udp_pace_due(&f->pace, now, UDP_SOCK_BATCH);
		if (due > 0) {
			for (uint64_t k = 0; k < due; k++) {
				struct udp_data d = { f->seq + k, now };

				udp_wire_write_data(s->txbuf + k * f->granted.length, f->granted.length, &h, &d, 0);
			}
			sent = udp_send_batch(s->fd, s->txbuf, f->granted.length, (unsigned)due,
					      (struct sockaddr *)&f->peer, f->peerlen, &s->gso);
			if (sent < 0)
				sent = 0;
			if ((uint64_t)sent < due)
				f->pace.k -= due - (uint64_t)sent; /* the socket was full: those are still due */
			f->seq += (uint64_t)sent;
			f->sent_bytes += (uint64_t)sent * f->granted.length;
			s->st->sent_packets += (uint64_t)sent;
			s->st->sent_bytes += (uint64_t)sent * f->granted.length;
		}
		if (udp_pace_wake(&f->pace) < wake)
			wake = udp_pace_wake(&f->pace);
	}
	return wake;
}

static void expire(struct server *s, uint64_t now)
{
	uint64_t idle = (uint64_t)(s->o->idle * 1e9);

	for (long i = 0; i < s->o->max_tests; i++) {
		struct flow *f = &s->flows[i];

		/* A flow that gave its final report is kept 2 s for a client whose answer was lost. */
		if (f->used && now - f->heard_ns > (f->finished && idle > 2000000000u ? 2000000000u : idle) &&
		    (!f->reverse || now >= f->end_ns))
			drop_flow(s, f, "idle");
	}
}

int udp_server_run(const struct udp_server_opts *o, int fd, const volatile sig_atomic_t *stop,
		   const struct udp_server_events *ev, struct udp_server_stats *st, char *err, size_t errlen)
{
	struct server s;
	struct udp_rx rx;
	uint64_t next_expire = 0;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	memset(st, 0, sizeof(*st));
	s.o = o;
	s.ev = ev;
	s.st = st;
	s.fd = fd;
	s.last_hit = -1;
	s.gso = 0; /* reverse data goes to many peers through one socket: sendmmsg */
	if (getrandom(s.key, sizeof(s.key), 0) != (ssize_t)sizeof(s.key)) {
		snprintf(err, errlen, "no random key for cookies: %s", strerror(errno));
		close(fd);
		return -1;
	}
	s.flows = calloc((size_t)o->max_tests, sizeof(*s.flows));
	s.txbuf = malloc((size_t)UDP_SOCK_BATCH * UDP_WIRE_MAX);
	if (s.flows == NULL || s.txbuf == NULL || udp_rx_init(&rx, 32) < 0) {
		snprintf(err, errlen, "out of memory");
		free(s.flows);
		free(s.txbuf);
		close(fd);
		return -1;
	}
	memset(s.txbuf, 0, (size_t)UDP_SOCK_BATCH * UDP_WIRE_MAX);
	while (!*stop) {
		uint64_t now = clock_now_ns(), wake = send_due(&s, now);
		struct pollfd pfd = { fd, POLLIN, 0 };
		struct timespec ts;
		int got;

		if (now >= next_expire) {
			expire(&s, now);
			next_expire = now + 100000000u;
		}
		if (wake > next_expire)
			wake = next_expire;
		now = clock_now_ns();
		ts.tv_sec = wake > now ? (time_t)((wake - now) / 1000000000u) : 0;
		ts.tv_nsec = wake > now ? (long)((wake - now) % 1000000000u) : 0;
		if (ppoll(&pfd, 1, &ts, NULL) < 0 && errno != EINTR) {
			snprintf(err, errlen, "poll: %s", strerror(errno));
			rc = -1;
			break;
		}
		/* A few batches at most per round, so reverse flows keep their schedule under a flood. */
		for (int round = 0; round < 8; round++) {
			got = udp_rx_batch(&rx, fd, on_datagram, &s);
			if (got <= 0)
				break;
		}
	}
	for (long i = 0; i < o->max_tests; i++)
		if (s.flows[i].used)
			drop_flow(&s, &s.flows[i], "server stopped");
	udp_rx_free(&rx);
	free(s.flows);
	free(s.txbuf);
	close(fd);
	return rc;
}
