/* SPDX-License-Identifier: ISC */
/* test_bench_session.c - the bench's engine (src/bench/session.c) driven without
 * the command: the estimate it words, the results after a stop, a failed
 * --connect coming back as a fault with the reason in the caller's buffer. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <unistd.h>

#include "net.h"
#include "bench/session.h"

static volatile sig_atomic_t stop;

/* One user method whose tool (sh) is on every PATH. */
static void one_method(struct bench_opts *o)
{
	char err[128];

	memset(o, 0, sizeof(*o));
	o->tests = BENCH_STREAM | BENCH_FILES;
	o->duration = 60;
	o->repeat = 3;
	o->count = 200;
	o->size = 4096;
	o->no_latency = 1;
	assert_int_equal(method_parse_user("mine=sh -c true {host} {port}", &o->methods[0], err, sizeof(err)), 0);
	o->nmethods = 1;
}

static void test_estimate_is_worded_in_minutes(void **state)
{
	struct bench_opts o;
	struct bench b;
	char msg[256];

	(void)state;
	one_method(&o);
	bench_init(&b, &o, NULL, &stop);
	bench_estimate(&b, msg, sizeof(msg));
	/* 1 method x 3 runs x (60 s + 0.15 s to start and stop) = 180 s: 3 min; files: 3 runs x
	 * (0.05 s + 200 downloads x 10 ms for a method of one's own) = 6.15 s; the whole, both. */
	assert_string_equal(msg, "1 method x 3 runs: the stream test takes about 3 min, the files test about 6 s "
				 "(200 downloads a run): about 3 min in all");
	b.tests = BENCH_FILES; /* as after --connect to a server that never closes */
	bench_estimate(&b, msg, sizeof(msg));
	assert_string_equal(msg, "1 method x 3 runs: the files test takes about 6 s (200 downloads a run)");
	bench_free(&b);
}

static void test_a_stop_marks_what_never_ran_skipped(void **state)
{
	struct bench_opts o;
	struct bench b;
	struct bench_result r[3];

	(void)state;
	one_method(&o);
	bench_init(&b, &o, NULL, &stop);
	memset(r, 0, sizeof(r));
	r[0].nruns = 2;			 /* ran twice, then the stop */
	r[1].status = BENCH_FAILED;	 /* failed its one run */
	r[1].nruns = 1;
	r[2].status = BENCH_OK;		 /* never reached */
	b.results[0].results = r;
	b.results[0].n = 3;
	b.ntests = 1;
	assert_int_equal(bench_failed(&b), 1);
	assert_int_equal(bench_mark_interrupted(&b), 3);
	assert_int_equal(r[0].status, BENCH_OK);
	assert_int_equal(r[1].status, BENCH_FAILED);
	assert_int_equal(r[2].status, BENCH_SKIPPED);
	assert_string_equal(r[2].reason, "interrupted before its first run");
	b.ntests = 0; /* r is on the stack */
	bench_free(&b);
}

static void test_baseline_follows_the_transport(void **state)
{
	struct bench_opts o;

	(void)state;
	memset(&o, 0, sizeof(o));
	assert_string_equal(bench_baseline(&o), "nc-pv");
	o.tls = 1;
	assert_string_equal(bench_baseline(&o), "s_client");
	o.baseline = "mine";
	assert_string_equal(bench_baseline(&o), "mine");
}

/* A refused --connect: the engine says why in err and prints nothing. */
static void test_refused_connect_is_a_fault_with_its_reason(void **state)
{
	struct bench_opts o;
	struct bench b;
	char err[1024];
	struct sockaddr_in sa = { 0 };
	socklen_t len = sizeof(sa);
	int fd = net_listen("127.0.0.1", "0", NULL, err, sizeof(err)), port;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	port = ntohs(sa.sin_port);
	close(fd); /* nothing listens there now */
	one_method(&o);
	snprintf(o.remote.host, sizeof(o.remote.host), "127.0.0.1");
	snprintf(o.remote.port, sizeof(o.remote.port), "%d", port);
	o.connect = "the-spec";
	bench_init(&b, &o, NULL, &stop);
	assert_int_equal(bench_setup(&b, err, sizeof(err)), BENCH_FAULT_CONNECT);
	assert_int_equal(b.net_error, NET_ECONNECT);
	assert_true(strncmp(err, "--connect the-spec: ", 20) == 0);
	bench_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_estimate_is_worded_in_minutes),
		cmocka_unit_test(test_a_stop_marks_what_never_ran_skipped),
		cmocka_unit_test(test_baseline_follows_the_transport),
		cmocka_unit_test(test_refused_connect_is_a_fault_with_its_reason),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
