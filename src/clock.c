/* SPDX-License-Identifier: ISC */
/* clock.c - seconds as a timespec, and a sleep given in seconds (the clock itself is inline in clock.h). */
#include "clock.h"

#include <sys/resource.h>

struct timespec clock_timespec(double seconds)
{
	struct timespec ts = { 0, 0 };
	long ns;

	if (!(seconds > 0))
		return ts;
	/* Past what time_t holds on any platform we build for: a sleep "forever" is long enough. */
	if (seconds > 1e15)
		seconds = 1e15;
	ts.tv_sec = (time_t)seconds;
	ns = (long)((seconds - (double)ts.tv_sec) * 1e9);
	ts.tv_nsec = ns < 0 ? 0 : ns > 999999999 ? 999999999 : ns;
	return ts;
}

int clock_sleep(double seconds)
{
	struct timespec ts = clock_timespec(seconds);

	if (ts.tv_sec == 0 && ts.tv_nsec == 0)
		return 0;
	return nanosleep(&ts, NULL);
}

double clock_cpu_seconds(int who)
{
	struct rusage ru;

	if (getrusage(who, &ru) < 0)
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec / 1e6;
}
