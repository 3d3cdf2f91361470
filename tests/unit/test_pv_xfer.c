/* SPDX-License-Identifier: ISC */
/* test_pv_xfer.c - pv's data path: line limits keep the rest, -A's tail, -X, TCP into /dev/null. */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "pv/xfer.h"

static struct pv_xfer *path(int out, int count_lines, int discard)
{
	struct pv_xfer_opts o;

	memset(&o, 0, sizeof(o));
	o.buffer_size = 64;
	o.no_splice = 1;
	o.count_lines = count_lines;
	o.eol = '\n';
	o.discard = discard;
	return pv_xfer_new(out, &o);
}

/* -L or -S in line mode: a step stops after max_lines lines, and what it read past them
 * goes out on the next steps without being lost or counted twice. */
static void test_line_limit_keeps_the_rest(void **state)
{
	int in[2], out[2];
	uint64_t bytes = 0, lines = 0;
	char got[32] = { 0 };
	struct pv_xfer *x;

	(void)state;
	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	assert_int_equal(write(in[1], "one\ntwo\nthree\n", 14), 14);
	close(in[1]);
	x = path(out[1], 1, 0);
	assert_non_null(x);
	pv_xfer_set_input(x, in[0]);
	assert_int_equal(pv_xfer_step(x, UINT64_MAX, 1, &bytes, &lines), PV_STEP_MOVED);
	assert_int_equal(lines, 1);
	assert_int_equal(bytes, 4);
	assert_int_equal(pv_xfer_step(x, UINT64_MAX, 1, &bytes, &lines), PV_STEP_MOVED);
	assert_int_equal(lines, 2);
	assert_int_equal(pv_xfer_step(x, UINT64_MAX, UINT64_MAX, &bytes, &lines), PV_STEP_MOVED);
	assert_int_equal(lines, 3);
	assert_int_equal(bytes, 14);
	assert_int_equal(pv_xfer_step(x, UINT64_MAX, UINT64_MAX, &bytes, &lines), PV_STEP_EOF);
	assert_int_equal(read(out[0], got, sizeof(got)), 14);
	assert_string_equal(got, "one\ntwo\nthree\n");
	pv_xfer_free(x);
	close(in[0]);
	close(out[0]);
	close(out[1]);
}

/* -A's tail holds the last bytes written once it is kept (pv keeps it from its first
 * display on: bytes before that are not); -X counts them and writes nothing. */
static void test_last_written_and_discard(void **state)
{
	int in[2];
	uint64_t bytes = 0, lines = 0;
	const unsigned char *last;
	size_t len;
	struct pv_xfer *x;

	(void)state;
	assert_int_equal(pipe(in), 0);
	assert_int_equal(write(in[1], "abc", 3), 3);
	x = path(-1, 0, 1);
	assert_non_null(x);
	pv_xfer_set_input(x, in[0]);
	assert_int_equal(pv_xfer_step(x, UINT64_MAX, UINT64_MAX, &bytes, &lines), PV_STEP_MOVED);
	(void)pv_xfer_last(x, &len);
	assert_int_equal(len, 0); /* not kept yet */
	pv_xfer_keep_last(x);
	assert_int_equal(write(in[1], "def", 3), 3);
	close(in[1]);
	assert_int_equal(pv_xfer_step(x, UINT64_MAX, UINT64_MAX, &bytes, &lines), PV_STEP_MOVED);
	assert_int_equal(bytes, 6);
	last = pv_xfer_last(x, &len);
	assert_int_equal(len, 3);
	assert_memory_equal(last, "def", 3);
	assert_int_equal(pv_xfer_buffer_percent(x), 0);
	pv_xfer_free(x);
	close(in[0]);
}

/* The eight-at-a-time count agrees with a byte-by-byte one at every length and alignment,
 * with the eol byte and its neighbours (0x7f, 0x80, 0xff) mixed in. */
static void test_count_byte_matches_naive(void **state)
{
	unsigned char buf[300];
	unsigned seed = 12345;

	(void)state;
	for (int round = 0; round < 200; round++) {
		static const unsigned char pick[] = { 0, '\n', 0x7f, 0x80, 0xff, 1, 'a' };

		for (size_t i = 0; i < sizeof(buf); i++) {
			seed = seed * 1103515245u + 12345u;
			buf[i] = pick[(seed >> 16) % sizeof(pick)];
		}
		for (size_t off = 0; off < 9; off++) {
			for (size_t n = 0; off + n <= sizeof(buf); n += 7) {
				for (int k = 0; k < 3; k++) {
					unsigned char c = k == 0 ? '\n' : k == 1 ? 0 : 0xff;
					uint64_t want = 0;

					for (size_t i = 0; i < n; i++)
						want += buf[off + i] == c;
					assert_int_equal(pv_count_byte(buf + off, n, c), want);
				}
			}
		}
	}
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* -T: what was read and waits for a full output is the buffer in use. Half the 64-byte
 * buffer waits for a pipe that takes nothing (the step gives up when a timer interrupts
 * its wait): 50%. */
static void test_buffer_percent_counts_what_waits(void **state)
{
	int in[2], out[2];
	char fill[4096];
	uint64_t bytes = 0, lines = 0;
	struct sigaction sa;
	struct itimerval it = { .it_value = { .tv_sec = 0, .tv_usec = 50000 } };
	struct pv_xfer *x;

	(void)state;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm; /* no SA_RESTART: the wait ends with EINTR */
	assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe2(out, O_NONBLOCK), 0);
	memset(fill, 'f', sizeof(fill));
	while (write(out[1], fill, sizeof(fill)) > 0)
		;
	assert_int_equal(write(in[1], fill, 32), 32);
	close(in[1]);
	x = path(out[1], 0, 0);
	assert_non_null(x);
	pv_xfer_set_input(x, in[0]);
	assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
	assert_int_equal(pv_xfer_step(x, UINT64_MAX, UINT64_MAX, &bytes, &lines), PV_STEP_MOVED);
	assert_int_equal(bytes, 0);
	assert_int_equal(pv_xfer_buffer_percent(x), 50);
	pv_xfer_free(x);
	for (int fd = 0; fd < 2; fd++) {
		close(in[fd]);
		close(out[fd]);
	}
}

/* A loopback TCP connection: *server is the accepted end, *client the connecting one. */
static void tcp_pair(int *server, int *client)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(l >= 0);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&a, &len), 0);
	*client = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(*client >= 0);
	assert_int_equal(connect(*client, (struct sockaddr *)&a, sizeof(a)), 0);
	*server = accept(l, NULL, NULL);
	assert_true(*server >= 0);
	close(l);
}

/* From a TCP connection into /dev/null the bytes are received without a copy (MSG_TRUNC) and
 * still counted to the end; into a pipe, from a pipe, or when the bytes are needed (-C, -A, -T:
 * no_splice), they are read as before. */
static void test_tcp_into_null_is_received_without_a_copy(void **state)
{
	struct pv_xfer_opts o;
	uint64_t bytes = 0, lines = 0;
	int sv, cl, null = open("/dev/null", O_WRONLY), p[2];
	struct pv_xfer *x;
	enum pv_step st;

	(void)state;
	assert_true(null >= 0);
	tcp_pair(&sv, &cl);
	assert_int_equal(write(cl, "hello, world", 12), 12);
	close(cl);
	memset(&o, 0, sizeof(o));
	o.buffer_size = 5;
	x = pv_xfer_new(null, &o);
	assert_non_null(x);
	assert_true(pv_xfer_output_is_null(x));
	pv_xfer_set_input(x, sv);
	assert_true(pv_xfer_input_dropped(x));
	for (int i = 0; i < 20 && (st = pv_xfer_step(x, UINT64_MAX, UINT64_MAX, &bytes, &lines)) != PV_STEP_EOF;
	     i++)
		assert_int_equal(st, PV_STEP_MOVED);
	assert_int_equal(bytes, 12);
	assert_int_equal(pipe(p), 0);
	pv_xfer_set_input(x, p[0]);
	assert_false(pv_xfer_input_dropped(x)); /* a pipe splices instead */
	pv_xfer_free(x);
	o.no_splice = 1;
	x = pv_xfer_new(null, &o);
	assert_non_null(x);
	pv_xfer_set_input(x, sv);
	assert_false(pv_xfer_input_dropped(x));
	pv_xfer_free(x);
	o.no_splice = 0;
	x = pv_xfer_new(p[1], &o);
	assert_non_null(x);
	assert_false(pv_xfer_output_is_null(x));
	pv_xfer_set_input(x, sv);
	assert_false(pv_xfer_input_dropped(x));
	pv_xfer_free(x);
	close(sv);
	close(p[0]);
	close(p[1]);
	close(null);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_limit_keeps_the_rest),
		cmocka_unit_test(test_last_written_and_discard),
		cmocka_unit_test(test_count_byte_matches_naive),
		cmocka_unit_test(test_buffer_percent_counts_what_waits),
		cmocka_unit_test(test_tcp_into_null_is_received_without_a_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
