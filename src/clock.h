/* SPDX-License-Identifier: ISC */
/* clock.h - the monotonic clock and sleeping: the one place that calls clock_gettime and nanosleep. */
#ifndef NCPV_CLOCK_H
#define NCPV_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC since an arbitrary start, in nanoseconds, seconds or milliseconds. Inline:
 * the event loop reads it on every busy-poll round. */
static inline uint64_t clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline double clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline double clock_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* seconds as a timespec; zero for negative or NaN, capped at 1e15 s. Pure. */
struct timespec clock_timespec(double seconds);

/* Sleep for seconds (<= 0: return at once). Returns 0, or -1 with errno EINTR when a signal
 * handler ran first (the caller decides whether to sleep the rest: see its flags first). */
int clock_sleep(double seconds);

/* CPU seconds (user + system) that getrusage(who) reports: RUSAGE_SELF, RUSAGE_CHILDREN or
 * RUSAGE_THREAD (the calling thread). 0 when it fails. */
double clock_cpu_seconds(int who);

#endif
