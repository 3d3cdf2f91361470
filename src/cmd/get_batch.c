/* SPDX-License-Identifier: ISC */
/* get_batch.c - "ncpv get --count": many whole downloads over parallel
 * connections on one epoll loop, summarised as transfers/s and latency. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cmd.h"
#include "get.h"
#include "../clock.h"
#include "../json.h"
#include "../loop.h"
#include "../stats.h"
#include "../transfer.h"
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
	long parallel;	   /* o->parallel, capped by the open-file limit */
	struct loop *loop;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	struct slot *slots;
	double *latency;   /* seconds, one per finished transfer */
	void *scratch;	   /* NET_DISCARD_MAX bytes for net_discard */
	long started, done, failed, short_count, active, cut;
	int noticed;	   /* the endless-server notice was given */
	struct progress p;
	char first_error[256];
	const volatile sig_atomic_t *stop; /* the signal flag: start no more */
	struct tls_ctx *tls;		   /* --tls: one context, so sessions resume */
	long handshakes, resumed, ktls;
	char tls_err[256];
};

static void slot_start(struct batch *b, struct slot *s, double now);

static void slot_end(struct batch *b, struct slot *s, int ok, const char *why, double now)
{
	tls_conn_free(s->tls);
	s->tls = NULL;
	loop_close(b->loop, s->fd);
	s->fd = -1;
	b->active--;
	if (ok && b->o->has_size && s->bytes != b->o->size) {
		ok = 0;
		b->short_count++;
		why = "size differs from --size";
	}
	if (ok) {
		b->latency[b->done++] = now - s->start;
	} else {
		b->failed++;
		if (b->first_error[0] == '\0')
			snprintf(b->first_error, sizeof(b->first_error), "%s", why);
	}
	if (b->started < b->o->count && !*b->stop)
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
		b->handshakes++;
		b->resumed += tls_conn_resumed(s->tls);
		b->ktls += tls_conn_ktls_recv(s->tls);
		loop_mod(b->loop, s->fd, EPOLLIN | EPOLLRDHUP);
	}
	for (;;) {
		ssize_t n = tls_read(s->tls, b->scratch, NET_DISCARD_MAX, b->tls_err, sizeof(b->tls_err));

		if (n > 0) {
			s->bytes += (uint64_t)n;
			meter_add(&b->p.meter, (uint64_t)n);
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
			meter_add(&b->p.meter, (uint64_t)n);
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
	b->started++;
	s->bytes = 0;
	s->start = s->last = now;
	s->fd = net_connect_start((struct sockaddr *)&b->addr, b->addrlen, SOCK_STREAM);
	/* Over TLS the client speaks first: it waits for the connect to finish. */
	if (s->fd >= 0 && b->tls) {
		s->tls = tls_conn_new(b->tls, s->fd, b->o->tls.sni ? b->o->tls.sni : b->o->at.host,
				      b->tls_err, sizeof(b->tls_err));
		s->handshaking = 1;
	}
	if (s->fd < 0 || (b->tls && s->tls == NULL) ||
	    loop_add(b->loop, s->fd, b->tls ? EPOLLOUT : EPOLLIN | EPOLLRDHUP, on_slot, s) < 0) {
		char why[256];

		snprintf(why, sizeof(why), "connect: %.230s", b->tls && s->fd >= 0 && s->tls == NULL ? b->tls_err : strerror(errno));
		tls_conn_free(s->tls);
		s->tls = NULL;
		if (s->fd >= 0)
			close(s->fd);
		s->fd = -1;
		b->failed++;
		if (b->first_error[0] == '\0')
			snprintf(b->first_error, sizeof(b->first_error), "%s", why);
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
	if (b->o->quiet)
		return;
	if (b->p.shown)
		fputc('\n', stderr);
	cmd_error("get", "a transfer is still open after %.0f s and %s: the server has not closed it; "
		  "--count waits for each close (an endless server? serve --size N sends N bytes and closes)",
		  now - s->start, units_format_iec(amount, sizeof(amount), (double)s->bytes));
}

int get_run_batch(const struct get_opts *o, const volatile sig_atomic_t *stop)
{
	struct batch b;
	struct stats_summary lat;
	char err[512], peer[64], text[256], line[1024], tls[128] = "";
	struct json j;
	struct transfer sum;
	double elapsed, deadline;
	long room;
	int rc, timed_out = 0;

	memset(&b, 0, sizeof(b));
	b.o = o;
	b.parallel = o->parallel;
	b.stop = stop;
	rc = net_resolve(o->at.host, o->at.port, &o->net, &b.addr, &b.addrlen, err, sizeof(err));
	if (rc < 0) {
		cmd_error("get", "%s", err);
		return cmd_net_exit(rc);
	}
	net_format_addr((struct sockaddr *)&b.addr, b.addrlen, peer, sizeof(peer));
	if (o->tls.on && (b.tls = cmd_tls_ctx("get", &o->tls, 0, &rc)) == NULL)
		return rc;
	b.loop = loop_new();
	if (b.loop)
		loop_set_spin(b.loop, o->busy_poll);
	room = fd_room();
	if (room > 0 && b.parallel > room) {
		if (!o->quiet)
			cmd_error("get", "--parallel %ld capped at %ld: the open-file limit (ulimit -n) is %ld",
				  b.parallel, room, net_raise_fd_limit());
		b.parallel = room;
	}
	b.slots = calloc((size_t)b.parallel, sizeof(*b.slots));
	b.latency = calloc((size_t)o->count, sizeof(*b.latency));
	b.scratch = malloc(NET_DISCARD_MAX);
	if (b.loop == NULL || b.slots == NULL || b.latency == NULL || b.scratch == NULL) {
		cmd_error("get", "out of memory");
		rc = NCPV_EXIT_FAIL;
		goto out;
	}
	get_progress_init(&b.p, o, clock_now());
	deadline = o->duration > 0 ? b.p.meter.start + o->duration : 0;
	for (long i = 0; i < b.parallel && b.started < o->count; i++) {
		b.slots[i].b = &b;
		b.slots[i].fd = -1;
		slot_start(&b, &b.slots[i], clock_now());
	}
	while (b.active > 0 && !*b.stop) {
		double now = clock_now();
		int wait = b.p.show ? (int)((b.p.next - now) * 1000) + 1 : 250;

		if (wait > 250)
			wait = 250;
		if (loop_poll(b.loop, wait < 0 ? 0 : wait) < 0 && errno != EINTR)
			break;
		now = clock_now();
		progress_tick(&b.p, now);
		if (deadline > 0 && now >= deadline) {
			timed_out = 1;
			break;
		}
		for (long i = 0; i < b.parallel; i++) {
			struct slot *s = &b.slots[i];

			/* A transfer silent for longer than -w fails, so one stuck server cannot hang us. */
			if (s->fd >= 0 && o->timeout > 0 && now - s->last > o->timeout)
				slot_end(&b, s, 0, "timed out", now);
			else if (s->fd >= 0 && !b.noticed && now - s->start > ENDLESS_NOTICE_S)
				endless_notice(&b, s, now);
		}
		/* Refill slots whose connect failed at once. */
		for (long i = 0; i < b.parallel && b.started < o->count && !*b.stop; i++)
			if (b.slots[i].fd < 0 && b.slots[i].b)
				slot_start(&b, &b.slots[i], now);
	}
	/* Transfers still open at --time or a signal were cut, not failed. */
	for (long i = 0; b.slots && i < b.parallel; i++)
		if (b.slots[i].b && b.slots[i].fd >= 0) {
			tls_conn_free(b.slots[i].tls);
			b.slots[i].tls = NULL;
			loop_close(b.loop, b.slots[i].fd);
			b.slots[i].fd = -1;
			b.cut++;
		}
	elapsed = clock_now() - b.p.meter.start;
	sum = (struct transfer){ .received = b.p.meter.bytes, .seconds = elapsed, .transfers = b.done };
	if (b.p.shown)
		progress_draw(&b.p, clock_now(), 1);
	stats_summarize(b.latency, (size_t)b.done, &lat);
	if (b.tls)
		snprintf(tls, sizeof(tls), "; TLS: %ld handshakes, %ld resumed, kTLS on %ld", b.handshakes,
			 b.resumed, b.ktls);
	if (o->json) {
		json_init(&j, line, sizeof(line));
		json_object(&j, NULL);
		json_string(&j, "direction", "receive");
		json_string(&j, "peer", peer);
		json_int(&j, "transfers", b.done);
		json_int(&j, "failed", b.failed);
		transfer_json(&j, &sum, TRANSFER_BATCH);
		if (b.done > 0) {
			json_object(&j, "latency_ms");
			json_fixed(&j, "p50", lat.median * 1e3, 3);
			json_fixed(&j, "p90", lat.p90 * 1e3, 3);
			json_fixed(&j, "p99", lat.p99 * 1e3, 3);
			json_fixed(&j, "max", lat.max * 1e3, 3);
			json_end(&j);
		} else {
			json_null(&j, "latency_ms"); /* as on stderr: no transfer finished, nothing measured */
		}
		json_int(&j, "cut", b.cut);
		if (b.tls) {
			json_object(&j, "tls");
			json_int(&j, "handshakes", b.handshakes);
			json_int(&j, "resumed", b.resumed);
			json_int(&j, "ktls", b.ktls);
			json_end(&j);
		}
		json_end(&j);
		printf("%s\n", json_text(&j));
	}
	fflush(stdout);
	if (!o->quiet) {
		fprintf(stderr, "%ld transfers (%ld failed) from %s %s; ", b.done, b.failed, peer,
			transfer_text(text, sizeof(text), &sum, TRANSFER_BATCH));
		/* No finished transfer, no latency: zeros would read as a measured 0 ms. */
		if (b.done > 0)
			fprintf(stderr, "latency ms p50 %.3f p90 %.3f p99 %.3f max %.3f%s\n", lat.median * 1e3,
				lat.p90 * 1e3, lat.p99 * 1e3, lat.max * 1e3, tls);
		else
			fprintf(stderr, "no latency: no transfer finished%s\n", tls);
	}
	rc = NCPV_EXIT_OK;
	if (b.failed > 0) {
		cmd_error("get", "%ld of %ld transfers failed (first: %s)", b.failed, o->count, b.first_error);
		rc = NCPV_EXIT_FAIL;
	} else if (*b.stop) {
		/* The N transfers asked for were not all made: that is a short run (exit 1). */
		cmd_error("get", "interrupted after %ld of %ld transfers (%ld cut short)", b.done, o->count,
			  b.cut);
		rc = NCPV_EXIT_FAIL;
	} else if (timed_out && b.done == 0 && b.cut > 0) {
		cmd_error("get", "no transfer finished within --time: the server closed none of %ld "
			  "(an endless server? serve --size N sends N bytes and closes)", b.cut);
		rc = NCPV_EXIT_FAIL;
	}
out:
	for (long i = 0; b.slots && i < b.parallel; i++)
		tls_conn_free(b.slots[i].tls);
	tls_ctx_free(b.tls);
	free(b.slots);
	free(b.latency);
	free(b.scratch);
	loop_free(b.loop);
	return rc;
}

