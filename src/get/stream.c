/* SPDX-License-Identifier: ISC */
/* stream.c - one get stream: connect, the TLS handshake, then receive into a sink or upload from
 * a source, with the clock, the -t deadline, the -w idle timer and the waits in between. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include "get_engine.h"
#include "../clock.h"
#include "../tcp/lowat.h"
#include "../tcp/pace.h"
#include "../loop.h"
#include "../sink.h"
#include "../source.h"

/* The most one source_send asks for: per-call costs vanish, the socket buffer stays the limit. */
#define SEND_CHUNK (1u << 20)
/* One TLS write: four records, so a retry after TLS_WANT_WRITE is cheap to repeat. */
#define TLS_CHUNK ((size_t)64 * 1024)
/* A read after a wait that brings less than LOOP_SPIN_MIN_BYTES makes get sleep
 * instead of busy-polling. Through ncpv link at 1 Gbit/s, polling between such
 * packets took 45% more of get's CPU for no more rate (docs/BENCHMARKS.md, issue 24). */

/* One stream's moving parts, and the progress events' state. */
struct stream {
	const struct get_opts *o;
	const struct get_events *ev;
	struct get_totals t;
	double next_tick; /* when ev->tick wants to be called again; 0: not */
	int sock;
	struct tls_conn *tls;
	struct sink *sink; /* receive: the output; send: a discarding sink for the server's close */
	struct source *src;
	void *scratch;	   /* --tls --send: TLS_CHUNK bytes of a file source's plaintext */
	const char *peer;
	int have_tcp0;	   /* tcp0: TCP's counters read at the connect (at --omit's end once past it) */
	struct tcpstate tcp0;
	struct get_result *r;
	int ival_on;	   /* -i or --omit: iv runs */
	struct get_ival iv;
};

const char *get_end_name(enum get_end end)
{
	static const char *const names[] = {
		[GET_END_EOF] = "eof", [GET_END_TIME] = "time", [GET_END_BYTES] = "bytes",
		[GET_END_INTERRUPTED] = "interrupted", [GET_END_SHORT] = "eof",
	};

	return end <= GET_END_SHORT ? names[end] : NULL;
}

static void tick(struct stream *s, enum get_tick when, double now)
{
	if (s->ev && s->ev->tick)
		s->next_tick = s->ev->tick(s->ev->ctx, &s->t, when, now);
}

/* The earlier of two deadlines, where 0 is none. */
static double earliest(double a, double b)
{
	return a > 0 && (b <= 0 || a < b) ? a : b;
}

/* A TLS server says nothing until the client's hello: a plain get to one hears silence.
 * After this long with not one byte, get says so once (or -w's message does, if sooner). */
#define GET_TLS_HINT_AFTER 3.0
#define GET_TLS_HINT "a TLS server stays silent until the client speaks TLS: if it is one, add --tls"

/* -w after the connect: the peer has moved nothing for that long (nc's -w). */
static int idle_timeout(const struct stream *s, double last_io, double now, char *err, size_t errlen,
			int sending, int tls_hint)
{
	const struct get_opts *o = s->o;

	if (o->timeout <= 0 || now - last_io < o->timeout)
		return 0;
	snprintf(err, errlen, "%s %s: timed out: %s for %g s (-w)%s%s", sending ? "send to" : "receive from",
		 s->peer, sending ? "the server took nothing" : "nothing received", o->timeout,
		 tls_hint ? "; " : "", tls_hint ? GET_TLS_HINT : "");
	return 1;
}

/* Close the interval running at now: hand its record to -i's callback, and at --omit's end
 * start the results there. */
static void ival_take(struct stream *s, double now, int last)
{
	struct tcpstate tcp;
	int have = s->have_tcp0 && s->sock >= 0 && tcpstate_read(s->sock, &tcp) == 0;
	struct get_interval rec;

	if (get_ival_close(&s->iv, now, s->t.bytes, have ? &tcp : NULL, last, &rec)) {
		s->r->omitted_bytes = s->t.bytes;
		s->r->omitted_seconds = rec.end;
		if (have)
			s->tcp0 = tcp;
	}
	rec.stream = 1;
	if (s->o->interval > 0 && s->o->interval_out)
		s->o->interval_out->interval(s->o->interval_out->ctx, &rec, 1, NULL);
}

/* The live progress line's time, or an interval's end, has come. */
static void tick_due(struct stream *s, double now)
{
	if (s->next_tick > 0 && now >= s->next_tick)
		tick(s, GET_TICK_LIVE, now);
	if (s->ival_on && s->iv.next > 0 && now >= s->iv.next)
		ival_take(s, now, 0);
}

/* When the waits must wake: the progress line's next time or the next interval's end. */
static double next_wake(const struct stream *s)
{
	return s->ival_on ? earliest(s->next_tick, s->iv.next) : s->next_tick;
}

static enum get_end receive(struct stream *s, char *err, size_t errlen)
{
	const struct get_opts *o = s->o;
	double start = s->t.start, deadline = o->duration > 0 ? start + o->duration : 0;
	double last_io = start, tls_hint_at = o->tls ? 0 : start + GET_TLS_HINT_AFTER;
	uint64_t cap = o->max_bytes ? o->max_bytes : UINT64_MAX;
	struct loop_spin spin = { .window = o->busy_poll, .min_bytes = LOOP_SPIN_MIN_BYTES };
	/* A plain socket's wake-ups follow the rate (tcp/lowat.h); TLS reads whole records. */
	struct tcp_lowat lowat = { .mark = 1 };
	int marking = s->tls == NULL;

	for (;;) {
		uint64_t left = cap - s->t.bytes;
		size_t want = left < (1u << 30) ? (size_t)left : (1u << 30);
		ssize_t n;
		int again, moved;
		double now;

		/* With --size, take no byte past it into the output: once it is all here, only
		 * look (MSG_PEEK) whether the server sends more or ends. */
		if (o->has_size && o->size - s->t.bytes < want)
			want = (size_t)(o->size - s->t.bytes);
		if (o->has_size && want == 0) {
			n = sink_probe(s->sink);
			if (n > 0) {
				snprintf(err, errlen, "receive from %s: the server sent more than --size (%llu bytes)",
					 s->peer, (unsigned long long)o->size);
				return GET_END_FAILED;
			}
		} else {
			n = sink_recv(s->sink, want);
		}
		again = n < 0 && errno == EAGAIN; /* read now: the tick may print */
		/* Waiting for our own output is not the peer being idle. */
		moved = n > 0 || sink_waited_output(s->sink);
		if (n > 0) {
			loop_spin_took(&spin, (size_t)n);
			s->t.bytes += (uint64_t)n;
			if (s->t.bytes >= cap)
				return GET_END_BYTES;
		} else if (n == 0) {
			return GET_END_EOF;
		} else if (n == -2) {
			/* The count reported is what the output holds, exactly. */
			s->t.bytes += sink_partial(s->sink);
			if (errno == EINTR && *o->cancel)
				return GET_END_INTERRUPTED; /* while the output was blocked */
			snprintf(err, errlen, "cannot write output: %s", strerror(errno));
			return GET_END_FILE;
		} else if (errno != EAGAIN && errno != EINTR) {
			snprintf(err, errlen, "receive from %s: %s", s->peer,
				 errno == EPROTO && s->tls ? sink_tls_error(s->sink) :
				 errno == ECONNRESET ? "connection reset by peer" : strerror(errno));
			return GET_END_FAILED;
		}
		now = clock_now();
		if (moved)
			last_io = now;
		if (marking && tcp_lowat_update(&lowat, s->sock, s->t.bytes, now) < 0)
			marking = 0; /* refused: every byte wakes, as without it */
		if (*o->cancel)
			return GET_END_INTERRUPTED;
		if (deadline > 0 && now >= deadline)
			return GET_END_TIME;
		if (idle_timeout(s, last_io, now, err, errlen, 0, tls_hint_at > 0 && s->t.bytes == 0))
			return GET_END_IDLE;
		if (tls_hint_at > 0 && now >= tls_hint_at) {
			if (s->t.bytes == 0 && s->ev && s->ev->say) {
				char line[256];

				snprintf(line, sizeof(line), "nothing received from %s in %g s: %s", s->peer,
					 GET_TLS_HINT_AFTER, GET_TLS_HINT);
				s->ev->say(s->ev->ctx, line);
			}
			tls_hint_at = 0;
		}
		tick_due(s, now);
		if (again) {
			double until = earliest(earliest(next_wake(s), deadline), tls_hint_at);

			int wait_ms;

			/* With a mark, a wake-up brings a mark's worth: polling after it finds single segments. */
			if (lowat.mark <= 1 && loop_spin_again(&spin, now))
				continue;
			if (o->timeout > 0)
				until = earliest(until, last_io + o->timeout);
			wait_ms = until > 0 ? net_ms_until(until, now) : -1;
			if (lowat.mark > 1 && (wait_ms < 0 || wait_ms > TCP_LOWAT_STALL_MS))
				wait_ms = TCP_LOWAT_STALL_MS;
			if (net_wait_cancel(s->sock, POLLIN, wait_ms, o->cancel) == 0 && lowat.mark > 1)
				tcp_lowat_off(&lowat, s->sock, s->t.bytes, clock_now());
		}
	}
}

/* source_send over TLS, with its results: bytes, 0 at the source's end, SOURCE_SEND_WAIT,
 * SOURCE_SEND_EREAD, or -1 with errno (EAGAIN: wait for room; EPROTO: a TLS failure, its
 * reason in why). A file's bytes are read into scratch (TLS_CHUNK bytes) at pos, so a retry
 * after TLS_WANT_WRITE passes the same bytes; a stream's stay in the source until sent. */
static ssize_t tls_source_send(struct tls_conn *tls, struct source *src, uint64_t pos, size_t want,
			       void *scratch, char *why, size_t whylen)
{
	const void *data = scratch;
	ssize_t n, w;

	if (want > TLS_CHUNK)
		want = TLS_CHUNK;
	if (source_kind(src) == SOURCE_FILE)
		n = pread(source_fd(src), scratch, want, (off_t)pos);
	else if ((n = source_peek(src, want, &data)) < 0 && errno == EAGAIN)
		return SOURCE_SEND_WAIT;
	if (n <= 0)
		return n < 0 ? SOURCE_SEND_EREAD : 0;
	w = tls_write(tls, data, (size_t)n, why, whylen);
	if (w > 0 && source_kind(src) != SOURCE_FILE)
		source_consume(src, (size_t)w);
	if (w >= 0)
		return w;
	errno = w == TLS_WANT_READ || w == TLS_WANT_WRITE ? EAGAIN : w == TLS_EIO ? errno : EPROTO;
	return -1;
}

/* Send close_notify, waiting a little for room if the socket is full. */
static void tls_close_notify(struct stream *s)
{
	char err[256];

	for (int i = 0; i < 10 && tls_shutdown(s->tls, err, sizeof(err)) == TLS_WANT_WRITE; i++)
		net_wait_cancel(s->sock, POLLOUT, 100, s->o->cancel);
}

/* After the upload: half-close (after TLS's close_notify), then wait for the server's close:
 * only then is every byte known to be read. A server that neither closes nor sends for -w
 * leaves that unknown. The drain reads the raw socket even over TLS: it only waits for the end. */
static enum get_end await_close(struct stream *s, enum get_end end, char *err, size_t errlen)
{
	const struct get_opts *o = s->o;

	if (s->tls)
		tls_close_notify(s);
	shutdown(s->sock, SHUT_WR);
	for (double last = clock_now();;) {
		ssize_t n = sink_recv(s->sink, NET_DISCARD_MAX);
		double now = clock_now();

		if (n == 0)
			break;
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			/* A reset now means the server closed with our bytes unread. */
			snprintf(err, errlen, "%s %s before reading everything sent", s->peer,
				 errno == ECONNRESET ? "reset the connection" : strerror(errno));
			return GET_END_FAILED;
		}
		if (n > 0)
			last = now;
		if (*o->cancel)
			break;
		if (o->timeout > 0 && now - last >= o->timeout) {
			snprintf(err, errlen, "%s did not close the connection within %g s (-w) of the "
				 "upload's end: it may not have read everything", s->peer, o->timeout);
			return GET_END_IDLE;
		}
		if (n < 0)
			net_wait_cancel(s->sock, POLLIN, o->timeout > 0 ? net_ms_until(last + o->timeout, now) : -1,
					o->cancel);
	}
	return end;
}

static enum get_end upload(struct stream *s, char *err, size_t errlen)
{
	const struct get_opts *o = s->o;
	char why[256]; /* a TLS write's failure */
	double deadline = o->duration > 0 ? s->t.start + o->duration : 0;
	double last_io = s->t.start;
	uint64_t cap = o->max_bytes ? o->max_bytes : UINT64_MAX;
	enum get_end end = GET_END_EOF;

	if (source_kind(s->src) == SOURCE_FILE && source_size(s->src) < cap)
		cap = source_size(s->src);
	while (s->t.bytes < cap) {
		uint64_t left = cap - s->t.bytes;
		size_t want = left < SEND_CHUNK ? (size_t)left : SEND_CHUNK;
		/* What to wait for when nothing moved: room in the socket, or
		 * bytes from a stream source (a FIFO whose writer is slow). */
		int wait_fd = -1;
		short wait_for = POLLOUT;
		ssize_t n;
		double now;

		if (o->rate > 0) {
			double at = 0, t0 = clock_now();
			uint64_t room = tcp_pace_room(s->t.start, o->rate, s->t.bytes, t0, &at);

			if (room == 0) {
				if (*o->cancel) {
					end = GET_END_INTERRUPTED;
					break;
				}
				if (deadline > 0 && t0 >= deadline) {
					end = GET_END_TIME;
					break;
				}
				tick_due(s, t0);
				at = earliest(earliest(next_wake(s), deadline), at);
				net_wait_cancel(s->sock, POLLIN, net_ms_until(at, t0), o->cancel);
				continue;
			}
			if (room < want)
				want = (size_t)room;
		}
		n = s->tls ? tls_source_send(s->tls, s->src, s->t.bytes, want, s->scratch, why, sizeof(why))
			   : source_send(s->src, s->sock, s->t.bytes, want);
		if (n == -1 && s->tls && errno == EPROTO) {
			snprintf(err, errlen, "send to %s: %s", s->peer, why);
			return GET_END_FAILED;
		}
		if (n == 0 && source_kind(s->src) == SOURCE_FILE) {
			/* Nothing at an offset below the size it had when opened: the
			 * file was truncated under us. What the server got is not the file. */
			net_reset_on_close(s->sock);
			/* The count sent is the command's "(after N bytes)": said once. */
			snprintf(err, errlen, "source file shrank: '%s' is shorter than the %llu bytes it had when the upload began",
				 o->source, (unsigned long long)source_size(s->src));
			return GET_END_FILE;
		}
		if (n == SOURCE_SEND_WAIT) {
			wait_fd = source_fd(s->src);
			wait_for = POLLIN;
			n = 0;
		} else if (n == SOURCE_SEND_EREAD) {
			snprintf(err, errlen, "cannot read source '%s': %s", o->source, strerror(errno));
			return GET_END_FILE;
		}
		if (n > 0)
			s->t.bytes += (uint64_t)n;
		else if (n == 0 && wait_fd < 0)
			break;
		else if (n < 0 && errno == EAGAIN)
			wait_fd = s->sock;
		else if (n < 0 && errno != EINTR) {
			snprintf(err, errlen, "send to %s: %s", s->peer,
				 errno == EPIPE || errno == ECONNRESET ? "connection reset by peer" : strerror(errno));
			return GET_END_FAILED;
		}
		now = clock_now();
		/* A silent source is ours to wait for; only a peer taking nothing is idle. */
		if (n > 0 || wait_for == POLLIN)
			last_io = now;
		if (*o->cancel) {
			end = GET_END_INTERRUPTED;
			break;
		}
		if (deadline > 0 && now >= deadline) {
			end = GET_END_TIME;
			break;
		}
		if (idle_timeout(s, last_io, now, err, errlen, 1, 0))
			return GET_END_IDLE;
		tick_due(s, now);
		if (wait_fd >= 0) {
			double until = earliest(next_wake(s), deadline);

			if (wait_fd == s->sock && o->timeout > 0)
				until = earliest(until, last_io + o->timeout);
			net_wait_cancel(wait_fd, wait_for, until > 0 ? net_ms_until(until, now) : -1, o->cancel);
		}
	}
	if (o->max_bytes && s->t.bytes >= o->max_bytes)
		end = GET_END_BYTES;
	return await_close(s, end, err, errlen);
}

/* --tls: the handshake on the connected socket, bounded by -w. */
static enum get_end start_tls(struct stream *s, struct get_result *r, char *err, size_t errlen)
{
	const struct get_opts *o = s->o;
	char why[512];
	int rc;

	if (net_set_nonblock(s->sock, 1) < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return GET_END_FAILED;
	}
	if ((s->tls = tls_conn_new(r->tls_ctx, s->sock, o->tls_name, err, errlen)) == NULL)
		return GET_END_FAILED;
	rc = tls_handshake_wait(s->tls, o->timeout > 0 ? clock_now() + o->timeout : 0, o->cancel, why,
				sizeof(why));
	if (rc == TLS_OK)
		return GET_END_EOF;
	if (rc == TLS_EUNKNOWN_CA && tls_conn_peer_fingerprint(s->tls))
		snprintf(err, errlen, "TLS handshake with %s: %s; to accept exactly this certificate: --pin %s",
			 s->peer, why, tls_conn_peer_fingerprint(s->tls));
	else
		snprintf(err, errlen, "TLS handshake with %s: %s", s->peer, why);
	r->tls_error = rc;
	tls_conn_free(s->tls);
	s->tls = NULL;
	return *o->cancel ? GET_END_FAILED : GET_END_TLS;
}

/* The socket settings, applied by net_connect's hook to each socket before its connect. */
struct sock_hook {
	const struct sockopt_want *want;
	char err[256]; /* why the kernel refused one ("" while none did) */
};

static int apply_sock(int fd, const struct sockaddr *sa, void *ctx)
{
	struct sock_hook *h = ctx;

	return sockopt_apply(fd, sa->sa_family, h->want, NULL, h->err, sizeof(h->err));
}

/* What the connected socket uses (the negotiated MSS, the granted buffers), and TCP's counters
 * at the start, from which the transfer's figures are differences. */
static void read_socket(struct stream *s, struct get_result *r)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len = sizeof(ss);

	if (getsockname(s->sock, (struct sockaddr *)&ss, &len) == 0 && sockopt_read(s->sock, ss.ss_family, &r->sock) == 0)
		r->have_sock = 1;
	s->have_tcp0 = tcpstate_read(s->sock, &s->tcp0) == 0;
	/* Nothing comes in before the handshake: what the counter holds at this reading came after
	 * it and belongs to the transfer. serve sends from its accept on, so a short download is
	 * often all in (FIN too) by now, and the difference from this reading said 0 received. */
	s->tcp0.bytes_received = 0;
}

/* Everything before the first byte: the source or the output, the connection, TLS. */
static enum get_end open_stream(struct stream *s, struct get_result *r, char *err, size_t errlen)
{
	const struct get_opts *o = s->o;
	struct net_opts net = o->net;
	struct sock_hook hook = { .want = o->sock };
	enum get_end end;

	if (o->tls && (r->tls_ctx = tls_ctx_client(o->tls, &r->tls_error, err, errlen)) == NULL)
		return GET_END_TLS;
	if (o->tls && (s->scratch = malloc(TLS_CHUNK)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return GET_END_FAILED;
	}
	if (o->send && (s->src = o->zerocopy ? source_open_repeat(SOURCE_REPEAT_BLOCK, err, errlen) :
					     source_open(o->source, err, errlen)) == NULL)
		return GET_END_FILE;
	/* An upload reads nothing but the server's close: a discarding sink. */
	if ((s->sink = sink_open(o->send ? NULL : o->output, o->cancel, err, errlen)) == NULL)
		return GET_END_FILE;
	if (o->sock) {
		net.hook = apply_sock;
		net.hook_ctx = &hook;
	}
	net.connected_to = r->peer; /* named even when a reset came with the handshake */
	net.connected_to_len = sizeof(r->peer);
	s->sock = net_connect(o->at.host, o->at.port, &net, err, errlen);
	if (s->sock < 0 && hook.err[0]) {
		snprintf(err, errlen, "%s", hook.err);
		r->sock_refused = 1;
		return GET_END_FAILED;
	}
	if (s->sock < 0) {
		r->net_error = s->sock;
		return GET_END_NET;
	}
	read_socket(s, r);
	if (o->send && o->rate > 0) {
		if (tcp_pace_socket(s->sock, o->rate, err, errlen) < 0)
			return GET_END_FAILED;
		r->paced = 1;
	}
	/* A fresh socket takes a line at once: a short send means it failed. */
	if (o->hello && send(s->sock, o->hello, o->hello_len, MSG_NOSIGNAL) != (ssize_t)o->hello_len) {
		snprintf(err, errlen, "send to %s: %s", r->peer, strerror(errno));
		return GET_END_FAILED;
	}
	if (o->tls && (end = start_tls(s, r, err, errlen)) != GET_END_EOF)
		return end;
	if (sink_connected(s->sink, s->sock) < 0) {
		snprintf(err, errlen, "cannot truncate output '%s': %s", o->output, strerror(errno));
		return GET_END_FILE;
	}
	if (s->tls && !o->send)
		sink_set_tls(s->sink, s->tls);
	return GET_END_EOF;
}

/* What the stream will reach if it goes as asked: the least of -s (or without it, the size
 * serve said through the side channel), -b and an uploaded file's size; 0 when none is known
 * (an endless server, a random source). */
static uint64_t known_size(const struct stream *s)
{
	const struct get_opts *o = s->o;
	uint64_t size = o->has_size ? o->size : !o->send && o->has_server_size ? o->server_size : 0;

	if (o->send && s->src && source_kind(s->src) == SOURCE_FILE && (size == 0 || source_size(s->src) < size))
		size = source_size(s->src);
	if (o->max_bytes && (size == 0 || o->max_bytes < size))
		size = o->max_bytes;
	return size;
}

enum get_end get_stream(const struct get_opts *o, const struct get_events *ev, struct get_result *r,
			char *err, size_t errlen)
{
	struct stream s = { .o = o, .ev = ev, .sock = -1, .r = r };
	enum get_end end;

	memset(r, 0, sizeof(*r));
	s.peer = r->peer;
	end = open_stream(&s, r, err, errlen);
	if (!get_end_failed(end)) {
		r->began = 1;
		s.t.start = clock_now();
		s.t.size = known_size(&s);
		s.ival_on = o->interval > 0 || o->omit > 0;
		if (s.ival_on)
			get_ival_start(&s.iv, o, s.t.start, 0, s.have_tcp0 ? &s.tcp0 : NULL);
		tick(&s, GET_TICK_START, s.t.start);
		end = o->send ? upload(&s, err, errlen) : receive(&s, err, errlen);
		r->bytes = s.t.bytes;
		{
			double now = clock_now();

			r->seconds = now - s.t.start;
			if (s.ival_on)
				ival_take(&s, now, 1);
		}
		if (s.have_tcp0 && s.sock >= 0) {
			struct tcpstate last;

			if (tcpstate_read(s.sock, &last) == 0) {
				tcpstate_delta(&s.tcp0, &last, r->seconds - r->omitted_seconds, &r->tcp);
				r->have_tcp = 1;
			}
		}
		tick(&s, get_end_failed(end) ? GET_TICK_FAILED : GET_TICK_END, clock_now());
		if (end == GET_END_EOF && o->has_size && r->bytes != o->size)
			end = GET_END_SHORT;
		/* Only a whole transfer (or one stopped as asked: -t, -b) replaces FILE. A signal
		 * stops a download counted to nowhere as asked, but one kept with -o is not whole:
		 * FILE stays as it was (issue 22). */
		if (!get_end_failed(end) && end != GET_END_SHORT &&
		    !(end == GET_END_INTERRUPTED && o->output && !o->send) && sink_commit(s.sink) < 0) {
			snprintf(err, errlen, "cannot replace output '%s': %s", o->output, strerror(errno));
			end = GET_END_FILE;
		}
	}
	r->tls = s.tls; /* the summary describes it; get_result_free releases it */
	free(s.scratch);
	if (s.sock >= 0)
		close(s.sock);
	sink_free(s.sink);
	source_free(s.src);
	return end;
}

void get_result_free(struct get_result *r)
{
	tls_conn_free(r->tls);
	tls_ctx_free(r->tls_ctx);
	r->tls = NULL;
	r->tls_ctx = NULL;
}
