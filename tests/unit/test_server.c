/* SPDX-License-Identifier: ISC */
/* test_server.c - the connection server without the command: a loopback client in a thread,
 * the close reports through the callback, and how each kind of end looks to the client. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>
#include <cmocka.h>

#include "net.h"
#include "server.h"
#include "source.h"

struct client {
	int port;
	const char *request;	 /* sent first, NULL: nothing */
	uint64_t stop_after;	 /* set the stop flag once this many bytes arrived (0: never) */
	volatile sig_atomic_t *stop;
	uint64_t got;
	int eof;		 /* 1: clean end of file, 0: reset */
};

struct reports {
	int n;
	struct server_close last;
	char reason[64];
	volatile sig_atomic_t stop;
};

static void on_close(void *ctx, const struct server_close *c)
{
	struct reports *r = ctx;

	r->n++;
	r->last = *c;
	snprintf(r->reason, sizeof(r->reason), "%s", c->reason);
	r->last.reason = r->reason;
	r->last.peer = "";
	r->stop = 1;
}

static void on_refuse(void *ctx, const char *peer, const char *reason)
{
	(void)ctx;
	(void)peer;
	(void)reason;
	fail_msg("unexpected refusal");
}

static void *client_main(void *arg)
{
	struct client *c = arg;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)c->port) };
	char buf[65536];
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return NULL;
	if (c->request)
		(void)!write(fd, c->request, strlen(c->request));
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n == 0)
			c->eof = 1;
		if (n <= 0)
			break;
		c->got += (uint64_t)n;
		if (c->stop_after && c->got >= c->stop_after)
			*c->stop = 1;
	}
	close(fd);
	return NULL;
}

/* Serve one client c with options o until the first close report. */
static void serve_one(struct server_opts *o, struct client *c, struct reports *r)
{
	char err[256], name[64];
	int lfd = net_listen("127.0.0.1", "0", &(struct net_opts){ .family = AF_INET }, err, sizeof(err));
	struct server *s;
	pthread_t t;

	assert_true(lfd >= 0);
	net_local_name(lfd, name, sizeof(name));
	c->port = (int)strtol(strrchr(name, ':') + 1, NULL, 10);
	memset(r, 0, sizeof(*r));
	if (c->stop_after)
		c->stop = &r->stop;
	o->max_conns = 10;
	s = server_new(o, lfd, on_close, on_refuse, r);
	assert_non_null(s);
	assert_int_equal(pthread_create(&t, NULL, client_main, c), 0);
	assert_int_equal(server_run(s, &r->stop), 0);
	pthread_join(t, NULL);
	server_free(s);
	close(lfd);
}

static struct source *open_source(const char *spec)
{
	char err[256];
	struct source *src = source_open(spec, err, sizeof(err));

	assert_non_null(src);
	return src;
}

static void test_sized_transfer_completes(void **state)
{
	struct server_opts o = { .src = open_source("zero"), .has_size = 1, .size = 300001 };
	struct client c = { 0 };
	struct reports r;

	(void)state;
	serve_one(&o, &c, &r);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.last.end, SERVER_COMPLETE);
	assert_string_equal(r.last.reason, "done");
	assert_int_equal(r.last.sent, 300001);
	assert_int_equal(c.got, 300001);
	assert_true(c.eof);
	source_free(o.src);
}

/* Issue 12 defect 5, in the engine: a request left unread must not turn the end into a reset. */
static void test_max_bytes_ends_an_endless_stream_cleanly(void **state)
{
	struct server_opts o = { .src = open_source("random"), .max_bytes = 1048576 };
	struct client c = { .request = "GET / HTTP/1.0\r\n\r\n" };
	struct reports r;

	(void)state;
	serve_one(&o, &c, &r);
	assert_int_equal(r.last.end, SERVER_LIMIT);
	assert_string_equal(r.last.reason, "max-bytes");
	assert_int_equal(c.got, 1048576);
	assert_true(c.eof);
	assert_int_equal(r.last.sent, c.got);
	source_free(o.src);
}

/* Issue 12 defect 6, in the engine: a stop cuts a sized transfer with a reset. */
static void test_stop_cuts_a_sized_transfer(void **state)
{
	struct server_opts o = { .src = open_source("zero"), .has_size = 1, .size = (uint64_t)1 << 34 };
	struct client c = { .stop_after = 100000 };
	struct reports r;

	(void)state;
	serve_one(&o, &c, &r);
	assert_int_equal(r.last.end, SERVER_CUT);
	assert_string_equal(r.last.reason, "server stopped");
	assert_false(c.eof);
	/* The client holds between what it acknowledged and what serve handed to its kernel. */
	assert_true(r.last.acked <= c.got);
	assert_true(c.got <= r.last.sent);
	assert_true(c.got < o.size);
	source_free(o.src);
}

static void test_end_names(void **state)
{
	(void)state;
	assert_string_equal(server_end_name(SERVER_COMPLETE), "completed");
	assert_string_equal(server_end_name(SERVER_CLIENT), "client");
	assert_string_equal(server_end_name(SERVER_LIMIT), "limit");
	assert_string_equal(server_end_name(SERVER_RESET), "reset");
	assert_string_equal(server_end_name(SERVER_CUT), "cut");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sized_transfer_completes),
		cmocka_unit_test(test_max_bytes_ends_an_endless_stream_cleanly),
		cmocka_unit_test(test_stop_cuts_a_sized_transfer),
		cmocka_unit_test(test_end_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
