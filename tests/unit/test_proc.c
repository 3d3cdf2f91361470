/* SPDX-License-Identifier: ISC */
/* test_proc.c - the one function that signals refuses 0 and negative PIDs: nothing is sent. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "proc.h"

static volatile sig_atomic_t got;

static void on_usr1(int sig)
{
	(void)sig;
	got++;
}

/* A signal to 0 would reach our own group, -1 every process: we would see SIGUSR1 here. */
static void test_refuses_zero_and_negative(void **state)
{
	static const pid_t bad[] = { 0, -1, -2, (pid_t)4294967295u, (pid_t)(-2147483647 - 1) };
	struct sigaction sa;

	(void)state;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	got = 0;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		assert_int_equal(proc_signal(bad[i], SIGUSR1), -1);
		assert_int_equal(errno, EINVAL);
	}
	errno = 0;
	assert_int_equal(proc_signal_group(0, SIGUSR1), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(proc_signal_group(1, SIGUSR1), -1); /* -1 would be every process */
	assert_int_equal(proc_signal_group(-5, SIGUSR1), -1);
	/* Not a namespace's init: "everyone" is refused. */
	if (getpid() != 1) {
		errno = 0;
		assert_int_equal(proc_signal_namespace(SIGUSR1), -1);
		assert_int_equal(errno, EPERM);
	}
	assert_int_equal(got, 0);
	/* A real PID still works. */
	assert_int_equal(proc_signal(getpid(), SIGUSR1), 0);
	assert_int_equal(got, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refuses_zero_and_negative),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
