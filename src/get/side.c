/* SPDX-License-Identifier: ISC */
/* side.c - get's half of the side channel: the control connection, its reader thread, and the
 * data connections of --server-view, --reverse and --bidir run through get_stream. */
#include "get_side.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../clock.h"

/* What is read of the control connection at once while looking for serve's answer. */
#define ANSWER_CHUNK ((size_t)256 * 1024)
/* How long the answer and the end lines are waited for without -w. */
#define SIDE_WAIT_SECONDS 10.0

struct session {
	int fd;
	char token[SIDE_TOKEN_LEN + 1];
	const struct get_side_events *sev;
	const volatile sig_atomic_t *cancel;
	pthread_t tid;
	int started;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	int stop, closed;		/* stop: asked by the run; closed: serve's EOF or an error */
	struct side_report ends[2];
	int have_end[2];
	int unanswered;			/* serve's EOF came before any answer: its FIN went before it
					 * read the hello (a transfer its socket buffers held whole) */
	int has_size;			/* the answer's size=: each down connection's bytes */
	uint64_t size;
	char line[SIDE_LINE_MAX];	/* a report line's beginning */
	size_t len;
};

static int make_token(char out[SIDE_TOKEN_LEN + 1])
{
	unsigned char raw[SIDE_TOKEN_LEN / 2];
	size_t got = 0;

	while (got < sizeof(raw)) {
		ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);

		if (n < 0 && errno != EINTR)
			return -1;
		if (n > 0)
			got += (size_t)n;
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

/* Send all of buf on a non-blocking socket, waiting for room until the deadline. */
static int send_all(int fd, const char *buf, size_t len, double until, const volatile sig_atomic_t *cancel)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -1;
		if (*cancel || clock_now() >= until) {
			errno = ETIMEDOUT;
			return -1;
		}
		net_wait_cancel(fd, POLLOUT, net_ms_until(until, clock_now()), cancel);
	}
	return 0;
}

/* Take the report lines in ss->line[0..len): each parsed one goes to the callee and, if final,
 * into ends. A line that does not parse is skipped (a newer serve's). */
static void take_lines(struct session *ss)
{
	size_t off = 0;

	for (;;) {
		struct side_report r;
		char *nl = memchr(ss->line + off, '\n', ss->len - off);

		if (nl == NULL)
			break;
		if (side_parse_report(ss->line + off, (size_t)(nl - ss->line) + 1 - off, &r) > 0) {
			if (ss->sev && ss->sev->report)
				ss->sev->report(ss->sev->ctx, &r);
			if (r.final && r.stream < 2) {
				pthread_mutex_lock(&ss->lock);
				ss->ends[r.stream] = r;
				ss->have_end[r.stream] = 1;
				pthread_cond_broadcast(&ss->changed);
				pthread_mutex_unlock(&ss->lock);
			}
		}
		off = (size_t)(nl - ss->line) + 1;
	}
	memmove(ss->line, ss->line + off, ss->len - off);
	ss->len -= off;
	if (ss->len == sizeof(ss->line))
		ss->len = 0; /* no newline in a whole line's room: not a line of ours */
}

/* The reader thread: the control connection's lines until the run stops or serve closes. */
static void *reader_main(void *arg)
{
	struct session *ss = arg;

	for (;;) {
		ssize_t n;
		int stop;

		pthread_mutex_lock(&ss->lock);
		stop = ss->stop;
		pthread_mutex_unlock(&ss->lock);
		if (stop)
			break;
		n = recv(ss->fd, ss->line + ss->len, sizeof(ss->line) - ss->len, 0);
		if (n > 0) {
			ss->len += (size_t)n;
			take_lines(ss);
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			struct pollfd p = { .fd = ss->fd, .events = POLLIN };

			poll(&p, 1, 50); /* short: the stop flag is looked at between waits */
			continue;
		}
		break;
	}
	pthread_mutex_lock(&ss->lock);
	ss->closed = 1;
	pthread_cond_broadcast(&ss->changed);
	pthread_mutex_unlock(&ss->lock);
	return NULL;
}

/* Find serve's answer in what the control connection brings: whatever serve had queued before
 * the hello comes first and is dropped; the answer is found by the token. 0 with the bytes
 * after it kept as the start of the report lines, or -1 with err. */
static int await_answer(struct session *ss, const struct get_opts *o, uint64_t rate, double until, const char *peer,
			char *err, size_t errlen)
{
	size_t keep = SIDE_LINE_MAX, have = 0;
	char *buf = malloc(ANSWER_CHUNK + keep);

	if (buf == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (;;) {
		ssize_t n = recv(ss->fd, buf + have, ANSWER_CHUNK, 0);
		char *at;

		if (n == 0) {
			/* serve answers while it sends: a transfer it handed its kernel whole, FIN and all,
			 * before it read the hello (serve --size 1K) ends without one. */
			ss->unanswered = 1;
			snprintf(err, errlen, "%s closed without answering the side channel: it had sent everything "
				 "before the hello came (ncpv serve answers while still sending: an endless stream, or "
				 "more than the socket buffers hold)", peer);
			break;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			snprintf(err, errlen, "%s did not answer the side channel: %s", peer, strerror(errno));
			break;
		}
		if (n < 0) {
			double now = clock_now();

			if (*o->cancel || now >= until) {
				snprintf(err, errlen, "%s did not answer the side channel within %g s: is it ncpv serve?",
					 peer, o->timeout > 0 ? o->timeout : SIDE_WAIT_SECONDS);
				break;
			}
			net_wait_cancel(ss->fd, POLLIN, net_ms_until(until, now), o->cancel);
			continue;
		}
		have += (size_t)n;
		at = memmem(buf, have, ss->token, SIDE_TOKEN_LEN);
		/* The line starts a little before its token: "\0ncpv-side 1 ok " */
		if (at != NULL && at - buf >= SIDE_MAGIC_LEN + 5) {
			struct side_answer a;
			char *start = at;
			int rc = SIDE_MALFORMED;

			for (int back = 0; back < 24 && start > buf; back++)
				if (*--start == '\0' && (rc = side_parse_answer(start, have - (size_t)(start - buf), &a)) != SIDE_MALFORMED)
					break;
			if (rc == SIDE_PARTIAL)
				continue;
			if (rc > 0 && a.ok && a.rate_bps != rate) {
				/* A serve from before rate= skips the key and answers a bare ok: it would
				 * send unpaced, and the run would measure something else than asked. */
				if (a.rate_bps == 0)
					snprintf(err, errlen, "%s does not pace downloads (get --rate): it is an ncpv "
						 "serve older than that", peer);
				else
					snprintf(err, errlen, "%s would pace at %llu bit/s, not the %llu asked", peer,
						 (unsigned long long)a.rate_bps, (unsigned long long)rate);
				break;
			}
			if (rc > 0 && a.ok) {
				ss->has_size = a.has_size;
				ss->size = a.size;
				size_t rest = have - (size_t)(start - buf) - (size_t)rc;

				if (rest > sizeof(ss->line))
					rest = sizeof(ss->line);
				memcpy(ss->line, start + rc, rest);
				ss->len = rest;
				free(buf);
				return 0;
			}
			if (rc > 0) {
				snprintf(err, errlen, "%s refused the side channel: %s", peer,
					 strcmp(a.reason, "threads") == 0 ? "it runs serve --threads N > 1 (sessions need --threads 1)" :
					 strcmp(a.reason, "version") == 0 ? "it speaks another version of it" :
					 strcmp(a.reason, "discard") == 0 ? "it runs serve --discard, which sends nothing to pace" :
					 a.reason);
				break;
			}
		}
		/* Keep only a tail that may hold the answer's beginning. */
		if (have > keep) {
			memmove(buf, buf + have - keep, keep);
			have = keep;
		}
	}
	free(buf);
	return -1;
}

/* Connect the control connection and say hello; 0 or an end with err (r->net_error). */
static enum get_end open_session(struct session *ss, const struct get_opts *o, unsigned streams,
				 unsigned interval_ms, uint64_t rate, struct get_side_result *r, char *err, size_t errlen)
{
	/* ask=size: a download's total for the progress line (serve says it when it knows). */
	struct side_hello h = { .version = SIDE_VERSION, .role = SIDE_CTL, .interval_ms = interval_ms,
				.streams = streams, .rate_bps = rate, .ask_size = 1 };
	double until = clock_now() + (o->timeout > 0 ? o->timeout : SIDE_WAIT_SECONDS);
	struct net_opts net = o->net;
	char line[SIDE_LINE_MAX];
	size_t early = 0;
	int n;

	if (make_token(ss->token) < 0) {
		snprintf(err, errlen, "cannot make the side channel's token: %s", strerror(errno));
		return GET_END_FAILED;
	}
	memcpy(h.token, ss->token, sizeof(h.token));
	n = side_format_hello(line, sizeof(line), &h);
	/* The hello goes as early as it can, at the connect: serve sends from its accept on, and a
	 * file it hands its kernel whole (FIN included) before it reads the hello gets no answer
	 * (a 3 MB file on loopback, 19 times in 20 when the hello went after the connect's wait;
	 * 1 to 3 in 20 now). */
	if (n > 0) {
		net.early = line;
		net.early_len = (size_t)n;
		net.early_sent = &early;
	}
	net.connected_to = r->peer; /* named even when a reset came with the handshake */
	net.connected_to_len = sizeof(r->peer);
	ss->fd = net_connect(o->at.host, o->at.port, &net, err, errlen);
	if (ss->fd < 0) {
		r->net_error = ss->fd;
		return GET_END_NET;
	}
	if (n < 0 || send_all(ss->fd, line + early, (size_t)n - early, until, o->cancel) < 0) {
		snprintf(err, errlen, "side channel to %s: %s", r->peer, n < 0 ? "bad hello" : strerror(errno));
		return GET_END_FAILED;
	}
	if (await_answer(ss, o, rate, until, r->peer, err, errlen) < 0)
		return *o->cancel ? GET_END_INTERRUPTED : GET_END_FAILED;
	take_lines(ss); /* lines that came with the answer */
	return GET_END_EOF;
}

static void session_end(struct session *ss);

/* One direction: its own options, with the hello sent first on its connection. */
struct lane {
	struct get_opts o;
	struct get_interval_out out;	 /* -i: the records, marked with this lane's stream */
	const struct get_interval_out *caller_out;
	long stream;
	char hello[SIDE_LINE_MAX];
	const struct get_events *ev;
	struct get_side_dir *d;
};

/* A record of this lane's: its stream is the side channel's stream + 1. */
static void lane_interval(void *ctx, const struct get_interval *streams, long n, const struct get_interval *sum)
{
	struct lane *l = ctx;
	struct get_interval rec = streams[0];

	(void)n;
	(void)sum;
	rec.stream = l->stream + 1;
	l->caller_out->interval(l->caller_out->ctx, &rec, 1, NULL);
}

static int lane_init(struct lane *l, const struct get_opts *o, const struct session *ss, enum side_role role,
		     unsigned stream)
{
	struct side_hello h = { .version = SIDE_VERSION, .role = role, .streams = 1, .stream = stream };
	int n;

	memcpy(h.token, ss->token, sizeof(h.token));
	if ((n = side_format_hello(l->hello, sizeof(l->hello), &h)) < 0)
		return -1;
	l->o = *o;
	l->o.hello = l->hello;
	l->o.hello_len = (size_t)n;
	l->o.send = role == SIDE_UP;
	l->stream = (long)stream;
	l->caller_out = o->interval_out;
	l->out = (struct get_interval_out){ lane_interval, l };
	l->o.interval_out = o->interval_out ? &l->out : NULL;
	if (role == SIDE_UP)
		l->o.output = NULL; /* an upload writes nothing */
	else if (ss->has_size) {
		l->o.server_size = l->d->size = ss->size;
		l->o.has_server_size = l->d->have_size = 1;
	}
	l->d->ran = 1;
	return 0;
}

static void lane_run(struct lane *l)
{
	l->d->end = get_stream(&l->o, l->ev, &l->d->r, l->d->err, sizeof(l->d->err));
}

static void *lane_main(void *arg)
{
	lane_run(arg);
	return NULL;
}

/* After the streams: serve's end lines, for -w (10 s without it) at most. */
static void await_ends(struct session *ss, const struct get_opts *o, struct get_side_result *r)
{
	double until = clock_now() + (o->timeout > 0 ? o->timeout : SIDE_WAIT_SECONDS);
	struct get_side_dir *dirs[2] = { r->down.ran ? &r->down : &r->up, r->down.ran && r->up.ran ? &r->up : NULL };

	pthread_mutex_lock(&ss->lock);
	for (;;) {
		int want = 0;
		struct timespec ts;

		for (int i = 0; i < 2; i++)
			want += dirs[i] != NULL && !get_end_failed(dirs[i]->end) && !ss->have_end[i];
		if (want == 0 || ss->closed || *o->cancel || clock_now() >= until)
			break;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50 * 1000000L; /* short: a signal's flag is looked at between waits */
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&ss->changed, &ss->lock, &ts);
	}
	for (int i = 0; i < 2; i++)
		if (dirs[i] != NULL && ss->have_end[i]) {
			dirs[i]->server = ss->ends[i];
			dirs[i]->have_server = 1;
		}
	ss->stop = 1;
	pthread_mutex_unlock(&ss->lock);
}

/* --server-view whose control connection serve closed unanswered: what it sent there was the
 * whole transfer, dropped unseen; the download runs again as a plain get, without serve's view
 * (said once through ev, as the summary's server line says it). */
static enum get_end view_unanswered(struct session *ss, const struct get_opts *o, const struct get_events *ev,
				    struct get_side_result *r, struct lane *l, char *err, size_t errlen)
{
	char note[320];

	session_end(ss);
	snprintf(note, sizeof(note), "%s closed before it read the side channel's hello (it had sent everything: "
		 "a transfer its socket buffers held): no server view; downloading again without it", r->peer);
	if (ev && ev->say)
		ev->say(ev->ctx, note);
	if (lane_init(l, o, ss, SIDE_DOWN, 0) < 0) {
		snprintf(err, errlen, "side channel: bad hello");
		return GET_END_FAILED;
	}
	l->o.hello = NULL; /* a plain download: no hello, nothing to answer */
	l->o.hello_len = 0;
	l->ev = ev;
	l->d->no_session = 1;
	lane_run(l);
	if (get_end_failed(l->d->end))
		snprintf(err, errlen, "%s", l->d->err);
	return l->d->end;
}

enum get_end get_side_run(const struct get_opts *o, enum get_side_mode mode, unsigned interval_ms,
			  const struct get_events *ev, const struct get_side_events *sev, struct get_side_result *r,
			  char *err, size_t errlen)
{
	struct session ss = { .fd = -1, .sev = sev, .cancel = o->cancel };
	struct lane lanes[2] = { { .d = &r->down }, { .d = &r->up } };
	unsigned streams = mode == GET_SIDE_BIDIR ? 2 : 1;
	enum get_end end;

	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&ss.lock, NULL);
	pthread_cond_init(&ss.changed, NULL);
	end = open_session(&ss, o, streams, interval_ms, 0, r, err, errlen);
	if (end == GET_END_EOF && pthread_create(&ss.tid, NULL, reader_main, &ss) == 0)
		ss.started = 1;
	else if (end == GET_END_EOF) {
		snprintf(err, errlen, "cannot start the side channel's reader");
		end = GET_END_FAILED;
	}
	if (end == GET_END_FAILED && ss.unanswered && mode == GET_SIDE_VIEW && !*o->cancel)
		return view_unanswered(&ss, o, ev, r, &lanes[0], err, errlen);
	if (end == GET_END_EOF) {
		/* Stream 0: the download (or --reverse's upload); stream 1: --bidir's upload. */
		int down = mode != GET_SIDE_REVERSE, up = mode != GET_SIDE_VIEW;
		struct lane *first = down ? &lanes[0] : &lanes[1];
		pthread_t other;
		int threaded = 0;

		if ((down && lane_init(&lanes[0], o, &ss, SIDE_DOWN, 0) < 0) ||
		    (up && lane_init(&lanes[1], o, &ss, SIDE_UP, down ? 1 : 0) < 0)) {
			snprintf(err, errlen, "side channel: bad hello");
			end = GET_END_FAILED;
		} else if (down && up) {
			/* Both at once: the upload on a thread of its own, neither with progress events. */
			threaded = pthread_create(&other, NULL, lane_main, &lanes[1]) == 0;
			if (!threaded) {
				snprintf(err, errlen, "cannot start --bidir's upload");
				end = GET_END_FAILED;
				lanes[1].d->ran = 0;
			}
			lane_run(&lanes[0]);
			if (threaded)
				pthread_join(other, NULL);
		} else {
			first->ev = ev;
			lane_run(first);
		}
		if (end == GET_END_EOF) {
			struct get_side_dir *d[2] = { &r->down, &r->up };

			/* --bidir cut by a signal while one direction was still connecting (its thread
			 * late under load) and the other moving data: that one was interrupted, not
			 * failed, and the run ends as an interrupted one (its summary, its status). */
			for (int i = 0; down && up && *o->cancel && i < 2; i++)
				if (d[i]->ran && !d[i]->r.began && get_end_failed(d[i]->end) && d[1 - i]->r.began)
					d[i]->end = GET_END_INTERRUPTED;
			/* The first direction that failed is the run's failure, else the first's end. */
			end = first->d->end;
			for (int i = 1; i >= 0; i--)
				if (d[i]->ran && get_end_failed(d[i]->end)) {
					end = d[i]->end;
					/* serve --discard closes a download's connection at its hello. */
					snprintf(err, errlen, "%s%s%s", down && up ? (i ? "upload: " : "download: ") : "",
						 d[i]->err, i == 0 && d[i]->r.bytes == 0 && d[i]->r.began ?
						 " (serve --discard sends nothing: --bidir and --server-view need a serve that sends)" : "");
				}
			await_ends(&ss, o, r);
		}
	}
	session_end(&ss);
	return end;
}

void get_side_free(struct get_side_result *r)
{
	get_result_free(&r->down.r);
	get_result_free(&r->up.r);
}

/* The run's session over: its reader stopped, its connection closed. */
static void session_end(struct session *ss)
{
	if (ss->started) {
		pthread_mutex_lock(&ss->lock);
		ss->stop = 1;
		pthread_mutex_unlock(&ss->lock);
		pthread_join(ss->tid, NULL);
	}
	if (ss->fd >= 0)
		close(ss->fd);
	pthread_mutex_destroy(&ss->lock);
	pthread_cond_destroy(&ss->changed);
}

enum get_end get_side_paced(const struct get_opts *o, long n, const struct get_events *ev, struct get_result *rs,
			    char *err, size_t errlen)
{
	struct session ss = { .fd = -1, .cancel = o->cancel };
	struct get_side_result side;
	struct get_opts co = *o, po = *o;
	char (*lines)[SIDE_LINE_MAX] = NULL;
	const char **hellos = NULL;
	size_t *lens = NULL;
	enum get_end end;
	uint64_t rate = o->rate >= (double)SIDE_RATE_MAX ? SIDE_RATE_MAX : (uint64_t)llround(o->rate);

	memset(&side, 0, sizeof(side));
	memset(rs, 0, sizeof(*rs));
	if (n < 1 || n > SIDE_MAX_STREAMS || rate == 0) {
		snprintf(err, errlen, "--rate on a download: %ld streams at %.0f bit/s cannot be asked for", n, o->rate);
		return GET_END_FAILED;
	}
	pthread_mutex_init(&ss.lock, NULL);
	pthread_cond_init(&ss.changed, NULL);
	co.net.bind_port = NULL; /* --cport is the data connection's */
	end = open_session(&ss, &co, (unsigned)n, 0, rate, &side, err, errlen);
	if (end == GET_END_NET)
		rs->net_error = side.net_error;
	if (end == GET_END_EOF && pthread_create(&ss.tid, NULL, reader_main, &ss) == 0)
		ss.started = 1; /* serve's end lines are read and dropped: no reset at the close */
	else if (end == GET_END_EOF) {
		snprintf(err, errlen, "cannot start the side channel's reader");
		end = GET_END_FAILED;
	}
	lines = calloc((size_t)n, sizeof(*lines));
	hellos = calloc((size_t)n, sizeof(*hellos));
	lens = calloc((size_t)n, sizeof(*lens));
	if (end == GET_END_EOF && (lines == NULL || hellos == NULL || lens == NULL)) {
		snprintf(err, errlen, "out of memory");
		end = GET_END_FAILED;
	}
	for (long i = 0; end == GET_END_EOF && i < n; i++) {
		struct side_hello h = { .version = SIDE_VERSION, .role = SIDE_DOWN, .streams = 1,
					.stream = (unsigned)i };
		int len;

		memcpy(h.token, ss.token, sizeof(h.token));
		if ((len = side_format_hello(lines[i], sizeof(lines[i]), &h)) < 0) {
			snprintf(err, errlen, "side channel: bad hello");
			end = GET_END_FAILED;
			break;
		}
		hellos[i] = lines[i];
		lens[i] = (size_t)len;
	}
	if (end == GET_END_EOF) {
		po.hello = hellos[0];
		po.hello_len = lens[0];
		po.hellos = hellos;
		po.hello_lens = lens;
		po.server_size = ss.size; /* each stream's: the progress line's total (one stream) */
		po.has_server_size = ss.has_size;
		end = n == 1 ? get_stream(&po, ev, rs, err, errlen) : get_parallel(&po, n, rs, err, errlen);
	} else if (end != GET_END_NET && end != GET_END_INTERRUPTED) {
		char why[512];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "--rate on a download needs ncpv serve to pace it: %s", why);
		end = GET_END_FAILED;
	}
	session_end(&ss);
	free(lines);
	free(hellos);
	free(lens);
	return end;
}
