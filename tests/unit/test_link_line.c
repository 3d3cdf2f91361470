/* SPDX-License-Identifier: ISC */
/* test_link_line.c - the delay line's event loop over real descriptors (SOCK_SEQPACKET pairs): when packets arrive, in what order, and that an idle line sleeps. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "clock.h"
#include "link/line.h"

#define MS 1000000LL
/* How late a packet may be here. The lower bounds (never early, never faster than the rate)
 * are exact; an upper bound can only say the line is not stuck, because on a loaded machine
 * any wakeup may come late. link.bats measures the lateness itself, as medians. */
#define LATE (150 * MS)
/* Long enough for every packet of a test to leave, even that late. */
#define RUN_MS 400

/* near[0]/far[0] are the test's ends; near[1]/far[1] the line's. */
struct rig {
	int near[2], far[2], wake;
	struct link_line *line;
};

static void rig_up(struct rig *r, const struct link_params p[2])
{
	char err[128];
	int fds[2], one = 1;

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, r->near), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, r->far), 0);
	/* Kernel receive times on the test's ends: when the line wrote each packet. */
	assert_int_equal(setsockopt(r->near[0], SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)), 0);
	assert_int_equal(setsockopt(r->far[0], SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)), 0);
	fds[0] = r->near[1];
	fds[1] = r->far[1];
	r->wake = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	assert_true(r->wake >= 0);
	r->line = link_line_new(p, 1, fds, 0, err, sizeof(err));
	assert_non_null(r->line);
}

static void rig_down(struct rig *r)
{
	link_line_free(r->line);
	close(r->near[0]);
	close(r->near[1]);
	close(r->far[0]);
	close(r->far[1]);
	close(r->wake);
}

/* Run the line until ms from now. */
static void run_for(struct rig *r, long ms)
{
	struct itimerspec its = { .it_value = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * MS } };
	uint64_t n;
	char err[128];

	assert_int_equal(timerfd_settime(r->wake, 0, &its, NULL), 0);
	assert_int_equal(link_line_run(r->line, r->wake, err, sizeof(err)), 0);
	assert_int_equal(read(r->wake, &n, sizeof(n)), (ssize_t)sizeof(n));
}

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Receive one packet from fd: its first byte, and when it arrived (CLOCK_REALTIME ns); -1 if none. */
static int take(int fd, int64_t *at)
{
	unsigned char buf[2048], ctl[CMSG_SPACE(sizeof(struct timespec))];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	ssize_t n = recvmsg(fd, &msg, 0);

	if (n <= 0)
		return -1;
	*at = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			*at = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
		}
	return buf[0];
}

static void send_packet(int fd, unsigned char tag, size_t len)
{
	unsigned char buf[2048];

	memset(buf, tag, len);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
}

static void test_a_packet_waits_its_delay_and_no_longer(void **state)
{
	struct link_params p[2] = { { .delay_ns = 30 * MS }, { .delay_ns = 30 * MS } };
	struct rig r;
	int64_t t0, at;

	(void)state;
	rig_up(&r, p);
	t0 = realtime_ns();
	send_packet(r.near[0], 7, 100);
	run_for(&r, 15);
	/* Not yet, unless this machine kept us off the CPU past its time: then it left on time. */
	if (take(r.far[0], &at) != 7) {
		run_for(&r, RUN_MS);
		assert_int_equal(take(r.far[0], &at), 7);
	}
	assert_true(at - t0 >= 30 * MS);
	/* The line polls the last 0.2 ms: late only by a loaded machine's scheduling. */
	assert_true(at - t0 < 30 * MS + LATE);
	rig_down(&r);
}

static void test_each_direction_has_its_own_delay(void **state)
{
	struct link_params p[2] = { { .delay_ns = 40 * MS }, { .delay_ns = 10 * MS } };
	struct rig r;
	int64_t t0, down, up;

	(void)state;
	rig_up(&r, p);
	t0 = realtime_ns();
	send_packet(r.near[0], 1, 100);
	send_packet(r.far[0], 2, 100);
	run_for(&r, RUN_MS);
	assert_int_equal(take(r.far[0], &down), 1);
	assert_int_equal(take(r.near[0], &up), 2);
	assert_true(up - t0 >= 10 * MS && up - t0 < 10 * MS + LATE);
	assert_true(down - t0 >= 40 * MS && down - t0 < 40 * MS + LATE);
	rig_down(&r);
}

static void test_a_burst_leaves_at_the_rate_in_order(void **state)
{
	/* 1000 bytes at 8 Mbit/s: one every millisecond. */
	struct link_params p[2] = { { .bits_per_s = 8000000, .queue_packets = 100 },
				    { .bits_per_s = 8000000, .queue_packets = 100 } };
	struct rig r;
	int64_t sent, at = 0;

	(void)state;
	rig_up(&r, p);
	sent = realtime_ns();
	for (int k = 0; k < 50; k++)
		send_packet(r.near[0], (unsigned char)k, 1000);
	run_for(&r, RUN_MS);
	/* Packet k never leaves before k transmission times after the burst was sent, however
	 * late the first one left (measuring from the first, a late first made the rate look
	 * too fast on a loaded machine); the last within LATE of its time. */
	for (int k = 0; k < 50; k++) {
		assert_int_equal(take(r.far[0], &at), k);
		assert_true(at - sent >= k * MS - MS / 2);
	}
	assert_true(at - sent < 50 * MS + LATE);
	rig_down(&r);
}

static void test_an_idle_line_sleeps(void **state)
{
	struct link_params p[2] = { { .delay_ns = 10 * MS }, { .delay_ns = 10 * MS } };
	struct rusage before, after;
	struct rig r;
	int64_t at;
	double cpu;

	(void)state;
	rig_up(&r, p);
	/* One packet (a little polling near its time), then nothing. */
	send_packet(r.near[0], 3, 100);
	getrusage(RUSAGE_SELF, &before);
	run_for(&r, 300);
	getrusage(RUSAGE_SELF, &after);
	assert_int_equal(take(r.far[0], &at), 3);
	cpu = (double)(after.ru_utime.tv_sec - before.ru_utime.tv_sec) +
	      (double)(after.ru_utime.tv_usec - before.ru_utime.tv_usec) / 1e6 +
	      (double)(after.ru_stime.tv_sec - before.ru_stime.tv_sec) +
	      (double)(after.ru_stime.tv_usec - before.ru_stime.tv_usec) / 1e6;
	/* A busy loop would use most of the 300 ms. */
	assert_true(cpu < 0.02);
	rig_down(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_packet_waits_its_delay_and_no_longer),
		cmocka_unit_test(test_each_direction_has_its_own_delay),
		cmocka_unit_test(test_a_burst_leaves_at_the_rate_in_order),
		cmocka_unit_test(test_an_idle_line_sleeps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
