/* SPDX-License-Identifier: ISC */
/* test_get_engine.c - get's engine without the command: a loopback server in a thread, and what
 * comes back: the end reason, the counts, the ticks in order, never an exit code or a print. */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "clock.h"
#include "get/get_engine.h"
#include "net.h"

/* Accepts `conns` connections one after another; sends each `bytes` zero bytes, then closes
 * it, or (hold) keeps the last one open until the client goes. */
struct server {
	int lfd, conns, hold;
	size_t bytes;
	char port[8];
	pthread_t thread;
};

static void *serve_main(void *arg)
{
	struct server *s = arg;
	static const char zeros[4096];

	for (int i = 0; i < s->conns; i++) {
		int fd = accept(s->lfd, NULL, NULL);
		char sink[64];

		if (fd < 0)
			break;
		for (size_t left = s->bytes; left > 0;) {
			ssize_t n = write(fd, zeros, left < sizeof(zeros) ? left : sizeof(zeros));

			if (n <= 0)
				break;
			left -= (size_t)n;
		}
		if (s->hold && i == s->conns - 1)
			while (read(fd, sink, sizeof(sink)) > 0) /* until the client closes */
				;
		close(fd);
	}
	return NULL;
}

/* A listener on a free loopback port, answered by answer in a thread. */
static void serve_with(struct server *s, void *(*answer)(void *))
{
	struct net_opts no = { .family = AF_INET };
	char err[256], name[64];

	s->lfd = net_listen("127.0.0.1", "0", &no, err, sizeof(err));
	assert_true(s->lfd >= 0);
	net_set_nonblock(s->lfd, 0);
	net_local_name(s->lfd, name, sizeof(name));
	snprintf(s->port, sizeof(s->port), "%s", strrchr(name, ':') + 1);
	assert_int_equal(pthread_create(&s->thread, NULL, answer, s), 0);
}

static void serve_start(struct server *s, int conns, size_t bytes, int hold)
{
	memset(s, 0, sizeof(*s));
	s->conns = conns;
	s->bytes = bytes;
	s->hold = hold;
	serve_with(s, serve_main);
}

static void serve_end(struct server *s)
{
	pthread_join(s->thread, NULL);
	close(s->lfd);
}

/* The ticks seen, in order, and a flag to set on the first one. */
struct seen {
	enum get_tick when[64];
	int n;
	uint64_t last_bytes;
	volatile sig_atomic_t *cancel_at_start;
};

static double on_tick(void *ctx, const struct get_totals *t, enum get_tick when, double now)
{
	struct seen *s = ctx;

	(void)now;
	if (s->n < 64)
		s->when[s->n++] = when;
	s->last_bytes = t->bytes;
	if (when == GET_TICK_START && s->cancel_at_start)
		*s->cancel_at_start = 1;
	return 0;
}

static void opts_for(struct get_opts *o, const struct server *s, volatile sig_atomic_t *cancel)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->at.host, sizeof(o->at.host), "127.0.0.1");
	snprintf(o->at.port, sizeof(o->at.port), "%s", s ? s->port : "1");
	o->net.family = AF_INET;
	o->net.timeout_ms = 5000;
	o->net.cancel = o->cancel = cancel;
	o->timeout = 5;
	o->parallel = 1;
}

/* A whole download: EOF, every byte counted, START first and END last. */
static void test_stream_to_the_close(void **state)
{
	volatile sig_atomic_t cancel = 0;
	struct seen seen = { .n = 0 };
	const struct get_events ev = { NULL, on_tick, &seen };
	struct server s;
	struct get_opts o;
	struct get_result r;
	char err[256] = "";

	(void)state;
	serve_start(&s, 1, 300000, 0);
	opts_for(&o, &s, &cancel);
	assert_int_equal(get_stream(&o, &ev, &r, err, sizeof(err)), GET_END_EOF);
	serve_end(&s);
	assert_int_equal(r.bytes, 300000);
	assert_true(r.began);
	assert_string_equal(get_end_name(GET_END_EOF), "eof");
	assert_true(seen.n >= 2);
	assert_int_equal(seen.when[0], GET_TICK_START);
	assert_int_equal(seen.when[seen.n - 1], GET_TICK_END);
	assert_int_equal(seen.last_bytes, 300000);
	get_result_free(&r);
}

/* The server closes before --size: a short stream, still named "eof" in --json. */
static void test_short_of_size(void **state)
{
	volatile sig_atomic_t cancel = 0;
	struct server s;
	struct get_opts o;
	struct get_result r;
	char err[256];

	(void)state;
	serve_start(&s, 1, 4000, 0);
	opts_for(&o, &s, &cancel);
	o.has_size = 1;
	o.size = 5000;
	assert_int_equal(get_stream(&o, NULL, &r, err, sizeof(err)), GET_END_SHORT);
	serve_end(&s);
	assert_int_equal(r.bytes, 4000);
	assert_string_equal(get_end_name(GET_END_SHORT), "eof");
	assert_false(get_end_failed(GET_END_SHORT));
	get_result_free(&r);
}

/* Nothing listens: a failure before the transfer, the net_* code kept, the reason in err. */
static void test_refused(void **state)
{
	volatile sig_atomic_t cancel = 0;
	struct server s;
	struct get_opts o;
	struct get_result r;
	char err[256] = "";

	(void)state;
	/* A port that was just free: listen, read it back, close. */
	serve_start(&s, 0, 0, 0);
	serve_end(&s);
	opts_for(&o, &s, &cancel);
	assert_int_equal(get_stream(&o, NULL, &r, err, sizeof(err)), GET_END_NET);
	assert_int_equal(r.net_error, NET_ECONNECT);
	assert_false(r.began);
	assert_non_null(strstr(err, "refused"));
	assert_true(get_end_failed(GET_END_NET));
	assert_null(get_end_name(GET_END_NET));
	get_result_free(&r);
}

/* The cancel flag set once the transfer began, with a server that never closes. */
static void test_cancel(void **state)
{
	volatile sig_atomic_t cancel = 0;
	struct seen seen = { .cancel_at_start = &cancel };
	const struct get_events ev = { NULL, on_tick, &seen };
	struct server s;
	struct get_opts o;
	struct get_result r;
	char err[256];

	(void)state;
	serve_start(&s, 1, 1000, 1);
	opts_for(&o, &s, &cancel);
	assert_int_equal(get_stream(&o, &ev, &r, err, sizeof(err)), GET_END_INTERRUPTED);
	serve_end(&s);
	assert_string_equal(get_end_name(GET_END_INTERRUPTED), "interrupted");
	get_result_free(&r);
}

/* --count: every transfer made and counted, each one's latency kept. */
static void test_batch(void **state)
{
	volatile sig_atomic_t cancel = 0;
	struct server s;
	struct get_opts o;
	struct get_batch_result r;
	char err[256];

	(void)state;
	serve_start(&s, 6, 2000, 0);
	opts_for(&o, &s, &cancel);
	o.count = 6;
	o.parallel = 2;
	assert_int_equal(get_batch(&o, NULL, &r, err, sizeof(err)), GET_END_EOF);
	serve_end(&s);
	assert_int_equal(r.done, 6);
	assert_int_equal(r.failed, 0);
	assert_int_equal(r.bytes, 12000);
	assert_int_equal(r.latency.n, 6);
}

/* Segments one at a time at some 30 MB/s for 0.3 s, as through ncpv link (a bounded number, each
 * its own send with TCP_NODELAY), then a 100-byte tail with the connection held open for 3 s. */
#define TRICKLE_SENDS 6000
#define TRICKLE_SEGMENT 1448
#define TRICKLE_TAIL 100

static void *trickle_main(void *arg)
{
	struct server *s = arg;
	static const char zeros[TRICKLE_SEGMENT];
	struct timespec gap = { 0, 200000 };
	struct pollfd p;
	int one = 1, fd = accept(s->lfd, NULL, NULL);

	if (fd < 0)
		return NULL;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (int i = 0; i < TRICKLE_SENDS; i++) {
		if (write(fd, zeros, sizeof(zeros)) != (ssize_t)sizeof(zeros))
			break;
		if (i % 4 == 3) /* 4 segments, then a gap */
			nanosleep(&gap, NULL);
	}
	(void)!write(fd, zeros, TRICKLE_TAIL);
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	poll(&p, 1, 3000); /* until the client closes, or 3 s */
	close(fd);
	return NULL;
}

/* get -b of exactly what came: the tail sits under the receiver's low-water mark (tcp/lowat.h)
 * with no FIN behind it, and is read after the mark's bounded wait, not at the close 3 s later. */
static void test_tail_under_the_mark(void **state)
{
	volatile sig_atomic_t cancel = 0;
	struct server s;
	struct get_opts o;
	struct get_result r;
	char err[256];
	double start;

	(void)state;
	memset(&s, 0, sizeof(s));
	serve_with(&s, trickle_main);
	opts_for(&o, &s, &cancel);
	o.max_bytes = (uint64_t)TRICKLE_SENDS * TRICKLE_SEGMENT + TRICKLE_TAIL;
	start = clock_now();
	assert_int_equal(get_stream(&o, NULL, &r, err, sizeof(err)), GET_END_BYTES);
	assert_true(clock_now() - start < 2.0);
	serve_end(&s);
	assert_int_equal(r.bytes, o.max_bytes);
	get_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream_to_the_close),
		cmocka_unit_test(test_short_of_size),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_batch),
		cmocka_unit_test(test_tail_under_the_mark),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests_name("get engine", tests, NULL, NULL);
}
