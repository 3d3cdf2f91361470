/* SPDX-License-Identifier: ISC */
/* batch.c - "get --count": many whole downloads over parallel connections on one epoll loop,
 * each slot a connection that starts the next transfer when its server closes; latencies kept
 * for the command's summary. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "get_engine.h"
#include "../clock.h"
#include "../loop.h"
#include "../units.h"

struct slot {
	int fd;
	double start, last;
	uint64_t bytes;
	struct batch *b;
	struct tls_conn *tls; /* --tls */
	int handshaking;
};

/* A transfer still open after this long gets one notice that the server may never close. */
#define ENDLESS_NOTICE_S 5.0
/* Descriptors kept back from --parallel: stdio, epoll, and what libc opens (resolver, locale). */
#define FD_RESERVE 16

struct batch {
	const struct get_opts *o;
	const struct get_events *ev;
	struct get_batch_result *r;
	long parallel;	   /* o->parallel, capped by the open-file limit */
	struct loop *loop;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	struct slot *slots;
	double *latency;   /* seconds, one per finished transfer */
	void *scratch;	   /* NET_DISCARD_MAX bytes for net_discard */
	long started, active;
	int noticed;	   /* the endless-server notice was given */
	struct get_totals t;
	double next_tick;  /* when ev->tick wants to be called again; 0: not */
	struct tls_ctx *tls; /* --tls: one context, so sessions resume */
	char tls_err[256];
};

static void slot_start(struct batch *b, struct slot *s, double now);

static void say(const struct batch *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct batch *b, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (b->ev == NULL || b->ev->say == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	b->ev->say(b->ev->ctx, line);
}

static void tick(struct batch *b, enum get_tick when, double now)
{
	if (b->ev && b->ev->tick)
		b->next_tick = b->ev->tick(b->ev->ctx, &b->t, when, now);
}

static void slot_end(struct batch *b, struct slot *s, int ok, const char *why, double now)
{
	struct get_batch_result *r = b->r;

	tls_conn_free(s->tls);
	s->tls = NULL;
	loop_close(b->loop, s->fd);
	s->fd = -1;
	b->active--;
	if (ok && b->o->has_size && s->bytes != b->o->size) {
		ok = 0;
		why = "size differs from --size";
	}
	if (ok) {
		b->latency[r->done++] = now - s->start;
	} else {
		r->failed++;
		if (r->first_error[0] == '\0')
			snprintf(r->first_error, sizeof(r->first_error), "%s", why);
	}
	if (b->started < b->o->count && !*b->o->cancel)
		slot_start(b, s, now);
}

/* A TLS call failed with rc: end the slot with its reason. */
static void slot_tls_failed(struct batch *b, struct slot *s, int rc)
{
	char why[300];

	snprintf(why, sizeof(why), "%s%s", s->handshaking ? "TLS handshake: " : "",
		 rc == TLS_EIO ? strerror(errno) : b->tls_err);
	slot_end(b, s, 0, why, clock_now());
}

/* One step of a slot's TLS: the handshake, then reads until nothing is ready.
 * The server's close_notify ends a transfer; we answer it, so that OpenSSL keeps
 * the session for the next connection to resume. */
static void on_slot_tls(struct batch *b, struct slot *s)
{
	char scratch_err[64];

	s->last = clock_now();
	if (s->handshaking) {
		int rc = tls_handshake(s->tls, b->tls_err, sizeof(b->tls_err));

		if (rc == TLS_WANT_READ || rc == TLS_WANT_WRITE) {
			loop_mod(b->loop, s->fd, rc == TLS_WANT_READ ? EPOLLIN | EPOLLRDHUP : EPOLLOUT);
			return;
		}
		if (rc != TLS_OK) {
			slot_tls_failed(b, s, rc);
			return;
		}
		s->handshaking = 0;
		b->r->handshakes++;
		b->r->resumed += tls_conn_resumed(s->tls);
		b->r->ktls += tls_conn_ktls_recv(s->tls);
		loop_mod(b->loop, s->fd, EPOLLIN | EPOLLRDHUP);
	}
	for (;;) {
		ssize_t n = tls_read(s->tls, b->scratch, NET_DISCARD_MAX, b->tls_err, sizeof(b->tls_err));

		if (n > 0) {
			s->bytes += (uint64_t)n;
			b->t.bytes += (uint64_t)n;
		} else if (n == 0) {
			tls_shutdown(s->tls, scratch_err, sizeof(scratch_err));
			slot_end(b, s, 1, NULL, clock_now());
			return;
		} else if (n == TLS_WANT_READ || n == TLS_WANT_WRITE) {
			return;
		} else {
			slot_tls_failed(b, s, (int)n);
			return;
		}
	}
}

static void on_slot(struct loop *l, int fd, uint32_t events, void *ctx)
{
	struct slot *s = ctx;
	struct batch *b = s->b;

	(void)l;
	(void)fd;
	if (s->tls) {
		on_slot_tls(b, s);
		return;
	}
	for (;;) {
		ssize_t n = net_discard(s->fd, b->scratch, NET_DISCARD_MAX);

		if (n > 0) {
			s->bytes += (uint64_t)n;
			b->t.bytes += (uint64_t)n;
			/* Past --size it can only fail: say so now rather than when it ends, if ever. */
			if (b->o->has_size && s->bytes > b->o->size) {
				slot_end(b, s, 0, "the server sent more than --size", clock_now());
				return;
			}
			/* The peer's FIN was in before this wakeup, so everything it sent
			 * was queued ahead of it: a short read emptied the queue, and the
			 * read that would return 0 can be skipped. */
			if ((size_t)n < NET_DISCARD_MAX && (events & EPOLLRDHUP) && !(events & EPOLLERR)) {
				slot_end(b, s, 1, NULL, clock_now());
				return;
			}
			continue;
		}
		if (n == 0) {
			slot_end(b, s, 1, NULL, clock_now());
			return;
		}
		if (errno == EAGAIN) {
			s->last = clock_now();
			return;
		}
		if (errno != EINTR) {
			char why[128];

			snprintf(why, sizeof(why), "%s", strerror(errno));
			slot_end(b, s, 0, why, clock_now());
			return;
		}
	}
}

static void slot_start(struct batch *b, struct slot *s, double now)
{
	const struct get_opts *o = b->o;

	b->started++;
	s->bytes = 0;
	s->start = s->last = now;
	s->fd = net_connect_start((struct sockaddr *)&b->addr, b->addrlen, SOCK_STREAM);
	/* Over TLS the client speaks first: it waits for the connect to finish. */
	if (s->fd >= 0 && b->tls) {
		s->tls = tls_conn_new(b->tls, s->fd, o->tls_name, b->tls_err, sizeof(b->tls_err));
		s->handshaking = 1;
	}
	if (s->fd < 0 || (b->tls && s->tls == NULL) ||
	    loop_add(b->loop, s->fd, b->tls ? EPOLLOUT : EPOLLIN | EPOLLRDHUP, on_slot, s) < 0) {
		char why[256];

		snprintf(why, sizeof(why), "connect: %.230s",
			 b->tls && s->fd >= 0 && s->tls == NULL ? b->tls_err : strerror(errno));
		tls_conn_free(s->tls);
		s->tls = NULL;
		if (s->fd >= 0)
			close(s->fd);
		s->fd = -1;
		b->r->failed++;
		if (b->r->first_error[0] == '\0')
			snprintf(b->r->first_error, sizeof(b->r->first_error), "%s", why);
		return;
	}
	b->active++;
}

/* How many connections the open-file limit leaves room for, after raising
 * the soft limit to the hard one (as serve does); -1 when unknown. */
static long fd_room(void)
{
	long limit = net_raise_fd_limit();
	int lowest = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0); /* the lowest free number */
	long room;

	if (lowest >= 0)
		close(lowest);
	if (limit < 0)
		return -1;
	room = limit - (lowest > 0 ? lowest : 3) - FD_RESERVE;
	return room < 1 ? 1 : room;
}

/* Once: a transfer has gone on for long without the server closing it.
 * --count measures whole transfers, each ended by the server's close, so
 * an endless server (serve without --size) never lets one finish. */
static void endless_notice(struct batch *b, const struct slot *s, double now)
{
	char amount[32];

	b->noticed = 1;
	say(b, "a transfer is still open after %.0f s and %s: the server has not closed it; "
	       "--count waits for each close (an endless server? serve --size N sends N bytes and closes)",
	    now - s->start, units_format_iec(amount, sizeof(amount), (double)s->bytes));
}

/* The slots turn until every transfer is made, -t passes or *cancel is set. 1 when -t ended it. */
static int run_slots(struct batch *b)
{
	const struct get_opts *o = b->o;
	double deadline = o->duration > 0 ? b->t.start + o->duration : 0;

	for (long i = 0; i < b->parallel && b->started < o->count; i++) {
		b->slots[i].b = b;
		b->slots[i].fd = -1;
		slot_start(b, &b->slots[i], clock_now());
	}
	while (b->active > 0 && !*o->cancel) {
		double now = clock_now();
		int wait = b->next_tick > 0 ? (int)((b->next_tick - now) * 1000) + 1 : 250;

		if (wait > 250)
			wait = 250;
		if (loop_poll(b->loop, wait < 0 ? 0 : wait) < 0 && errno != EINTR)
			break;
		now = clock_now();
		if (b->next_tick > 0 && now >= b->next_tick)
			tick(b, GET_TICK_LIVE, now);
		if (deadline > 0 && now >= deadline)
			return 1;
		for (long i = 0; i < b->parallel; i++) {
			struct slot *s = &b->slots[i];

			/* A transfer silent for longer than -w fails, so one stuck server cannot hang us. */
			if (s->fd >= 0 && o->timeout > 0 && now - s->last > o->timeout)
				slot_end(b, s, 0, "timed out", now);
			else if (s->fd >= 0 && !b->noticed && now - s->start > ENDLESS_NOTICE_S)
				endless_notice(b, s, now);
		}
		/* Refill slots whose connect failed at once. */
		for (long i = 0; i < b->parallel && b->started < o->count && !*o->cancel; i++)
			if (b->slots[i].fd < 0 && b->slots[i].b)
				slot_start(b, &b->slots[i], now);
	}
	return 0;
}

enum get_end get_batch(const struct get_opts *o, const struct get_events *ev, struct get_batch_result *r,
		       char *err, size_t errlen)
{
	struct batch b;
	enum get_end end = GET_END_FAILED;
	long room;
	int rc, timed_out;

	memset(&b, 0, sizeof(b));
	memset(r, 0, sizeof(*r));
	b.o = o;
	b.ev = ev;
	b.r = r;
	b.parallel = o->parallel;
	rc = net_resolve(o->at.host, o->at.port, &o->net, &b.addr, &b.addrlen, err, errlen);
	if (rc < 0) {
		r->net_error = rc;
		return GET_END_NET;
	}
	net_format_addr((struct sockaddr *)&b.addr, b.addrlen, r->peer, sizeof(r->peer));
	if (o->tls && (b.tls = tls_ctx_client(o->tls, &r->tls_error, err, errlen)) == NULL)
		return GET_END_TLS;
	b.loop = loop_new();
	if (b.loop)
		loop_set_spin(b.loop, o->busy_poll);
	room = fd_room();
	if (room > 0 && b.parallel > room) {
		say(&b, "--parallel %ld capped at %ld: the open-file limit (ulimit -n) is %ld", b.parallel, room,
		    net_raise_fd_limit());
		b.parallel = room;
	}
	b.slots = calloc((size_t)b.parallel, sizeof(*b.slots));
	b.latency = calloc((size_t)o->count, sizeof(*b.latency));
	b.scratch = malloc(NET_DISCARD_MAX);
	if (b.loop == NULL || b.slots == NULL || b.latency == NULL || b.scratch == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	b.t.start = clock_now();
	tick(&b, GET_TICK_START, b.t.start);
	timed_out = run_slots(&b);
	/* Transfers still open at --time or a signal were cut, not failed. */
	for (long i = 0; i < b.parallel; i++)
		if (b.slots[i].b && b.slots[i].fd >= 0) {
			tls_conn_free(b.slots[i].tls);
			b.slots[i].tls = NULL;
			loop_close(b.loop, b.slots[i].fd);
			b.slots[i].fd = -1;
			r->cut++;
		}
	r->bytes = b.t.bytes;
	r->seconds = clock_now() - b.t.start;
	tick(&b, GET_TICK_END, clock_now());
	stats_summarize(b.latency, (size_t)r->done, &r->latency);
	end = *o->cancel ? GET_END_INTERRUPTED : timed_out ? GET_END_TIME : GET_END_EOF;
out:
	for (long i = 0; b.slots && i < b.parallel; i++)
		tls_conn_free(b.slots[i].tls);
	tls_ctx_free(b.tls);
	free(b.slots);
	free(b.latency);
	free(b.scratch);
	loop_free(b.loop);
	return end;
}
