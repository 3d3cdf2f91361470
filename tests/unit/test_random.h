/* SPDX-License-Identifier: ISC */
/* test_random.h - a seeded xorshift32 for generated unit tests: the same cases for a seed on
 * every libc (rand() is libc's own, and lint refuses it). One state per test binary. */
#ifndef NCPV_TEST_RANDOM_H
#define NCPV_TEST_RANDOM_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static uint32_t test_random_state = 1;

static inline void test_seed(unsigned seed)
{
	test_random_state = (uint32_t)seed | 1u; /* xorshift never leaves 0 */
}

/* 0 .. 2^31-1, like rand(). */
static inline int test_rand(void)
{
	uint32_t x = test_random_state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	test_random_state = x;
	return (int)(x & 0x7fffffffu);
}

/* The seed to use once per binary: NCPV_TEST_SEED if set (to rerun a failure), else the time. */
static inline unsigned test_seed_env(void)
{
	const char *env = getenv("NCPV_TEST_SEED");

	return env ? (unsigned)strtoul(env, NULL, 10) : (unsigned)time(NULL);
}

#endif
