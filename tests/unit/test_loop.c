/* SPDX-License-Identifier: ISC */
/* test_loop.c - the epoll loop: dispatch, and stop signals that still get through under load. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/epoll.h>
#include <cmocka.h>

#include "clock.h"
#include "loop.h"

static volatile sig_atomic_t got_signal;

static void on_usr1(int sig)
{
	(void)sig;
	got_signal = 1;
}

static void count_event(struct loop *l, int fd, uint32_t events, void *ctx)
{
	(void)l;
	(void)fd;
	(void)events;
	++*(int *)ctx;
}

/* A pipe with unread data is readable on every poll: the case where
 * epoll_pwait never sleeps, so the kernel never delivers a signal there. */
static void test_signal_delivered_while_always_ready(void **state)
{
	struct sigaction sa;
	sigset_t block, during_wait, saved;
	struct loop *l = loop_new();
	int p[2], calls = 0;

	(void)state;
	assert_non_null(l);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "x", 1), 1);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &saved);
	during_wait = saved;
	sigdelset(&during_wait, SIGUSR1);
	loop_set_sigmask(l, &during_wait);
	assert_int_equal(loop_add(l, p[0], EPOLLIN, count_event, &calls), 0);

	got_signal = 0;
	raise(SIGUSR1); /* blocked: stays pending until the loop lets it in */
	assert_int_equal(got_signal, 0);
	for (int i = 0; i < 3 && !got_signal; i++)
		assert_true(loop_poll(l, 1000) >= 0);
	assert_int_equal(got_signal, 1);
	assert_true(calls >= 1);

	sigprocmask(SIG_SETMASK, &saved, NULL);
	loop_free(l);
	close(p[0]);
	close(p[1]);
}

static void test_deleted_fd_is_not_dispatched(void **state)
{
	struct loop *l = loop_new();
	int p[2], calls = 0;

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "x", 1), 1);
	assert_int_equal(loop_add(l, p[0], EPOLLIN, count_event, &calls), 0);
	assert_int_equal(loop_poll(l, 1000), 1);
	assert_int_equal(calls, 1);
	assert_int_equal(loop_del(l, p[0]), 0);
	assert_int_equal(loop_poll(l, 10), 0);
	assert_int_equal(calls, 1);
	loop_free(l);
	close(p[0]);
	close(p[1]);
}

/* The busy-poll window: poll again inside it, sleep past it, and after a
 * long wait sleep at once until a wait is short again. */
static void test_spin_window(void **state)
{
	struct loop_spin sp = { .window = 1.0 };
	double t = clock_now() - 5; /* a wait that began 5 s ago */

	(void)state;
	assert_true(loop_spin_again(&sp, t));
	assert_true(loop_spin_again(&sp, t + 0.9));
	assert_false(loop_spin_again(&sp, t + 1.1));
	loop_spin_done(&sp); /* 5 s: long, so cold */
	assert_false(loop_spin_again(&sp, clock_now()));
	loop_spin_done(&sp); /* began just now: short, so hot again */
	assert_true(loop_spin_again(&sp, clock_now()));
	loop_spin_done(&sp);
	sp = (struct loop_spin){ .window = 0 };
	assert_false(loop_spin_again(&sp, clock_now()));
}

/* A read that brings less than min_bytes (a link's packet or two) makes the
 * next wait sleep; one that brings a loopback segment keeps the polling. */
static void test_spin_min_bytes(void **state)
{
	struct loop_spin sp = { .window = 1.0, .min_bytes = 8192 };

	(void)state;
	assert_true(loop_spin_again(&sp, clock_now()));
	loop_spin_took(&sp, 1448); /* a short wait, one packet: not worth polling for */
	assert_false(loop_spin_again(&sp, clock_now()));
	loop_spin_took(&sp, 8192); /* a short wait, enough bytes: poll again */
	assert_true(loop_spin_again(&sp, clock_now()));
	loop_spin_took(&sp, 65536);
	sp = (struct loop_spin){ .window = 1.0 }; /* min_bytes 0: any read keeps it */
	loop_spin_took(&sp, 1);
	assert_true(loop_spin_again(&sp, clock_now()));
}

struct mover {
	int fd;
	size_t moved;
};

/* A pipe's reader that says it moved m->moved bytes, as serve's handlers do. */
static void move_event(struct loop *l, int fd, uint32_t events, void *ctx)
{
	struct mover *m = ctx;
	char buf[64];

	(void)events;
	assert_true(read(fd, buf, sizeof(buf)) > 0);
	loop_moved(l, m->moved);
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The loop's own busy-poll (serve): a wakeup whose handlers moved a packet's worth
 * sleeps through the next wait; one that moved a loopback segment polls it for the
 * window. Through ncpv link serve polled between 1448-byte segments on every wakeup. */
static void test_loop_spin_follows_bytes_moved(void **state)
{
	static const size_t moved[] = { 1448, 65536, 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(moved) / sizeof(moved[0]); i++) {
		struct loop *l = loop_new();
		struct mover m = { .moved = moved[i] };
		int p[2];
		double cpu;

		assert_non_null(l);
		assert_int_equal(pipe(p), 0);
		m.fd = p[0];
		assert_int_equal(loop_add(l, p[0], EPOLLIN, move_event, &m), 0);
		loop_set_spin(l, 0.3);
		assert_int_equal(write(p[1], "x", 1), 1);
		assert_int_equal(loop_poll(l, 1000), 1);
		cpu = cpu_now();
		assert_int_equal(loop_poll(l, 400), 0); /* nothing comes: spin, or sleep at once */
		cpu = cpu_now() - cpu;
		if (moved[i] == 1448)
			assert_true(cpu < 0.03);
		else /* a loopback segment, or an event that moved nothing: the window is polled */
			assert_true(cpu > 0.03);
		loop_free(l);
		close(p[0]);
		close(p[1]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signal_delivered_while_always_ready),
		cmocka_unit_test(test_deleted_fd_is_not_dispatched),
		cmocka_unit_test(test_spin_window),
		cmocka_unit_test(test_spin_min_bytes),
		cmocka_unit_test(test_loop_spin_follows_bytes_moved),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
