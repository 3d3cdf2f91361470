/* SPDX-License-Identifier: ISC */
/* test_repbuf.c - a small file repeated in memory: the bytes at every position near the
 * period and the buffer's end, sharing while the file is unchanged, and a changed file giving
 * new connections new bytes while old ones keep theirs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "repbuf.h"

/* A temporary file holding n bytes of pattern seed; its fd (open for reading). */
static int temp_file(size_t n, unsigned seed, uint8_t *content)
{
	char path[] = "/tmp/test_repbuf.XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	for (size_t i = 0; i < n; i++)
		content[i] = (uint8_t)(i * 31 + seed);
	assert_int_equal(pwrite(fd, content, n, 0), (ssize_t)n);
	return fd;
}

static void test_bytes_at_every_position_near_the_edges(void **state)
{
	static const size_t sizes[] = { 1, 2, 3, 4095, 4096, 4097, 65535 };
	uint8_t *content = malloc(REPBUF_SMALL);

	(void)state;
	assert_non_null(content);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k];
		struct repbuf *cache = NULL, *b;
		int fd = temp_file(n, (unsigned)k, content);
		/* Positions around each multiple of the period and past the buffer's end. */
		uint64_t probes[] = { 0, 1, n - 1, n, n + 1, 2 * n - 1, REPBUF_FILL - 1, REPBUF_FILL,
				      REPBUF_FILL + 1, (uint64_t)n * 1000003 + 7, UINT64_MAX - 1 };

		b = repbuf_get(&cache, fd, n);
		assert_non_null(b);
		for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
			size_t len;
			const uint8_t *p = repbuf_at(b, probes[i], &len);

			assert_true(len >= REPBUF_FILL - n + 1);
			for (size_t j = 0; j < len; j += 997)
				assert_int_equal(p[j], content[(probes[i] % n + j) % n]);
			assert_int_equal(p[len - 1], content[(probes[i] % n + len - 1) % n]);
		}
		repbuf_put(b);
		repbuf_put(cache);
		close(fd);
	}
	free(content);
}

static void test_shared_until_the_file_changes(void **state)
{
	uint8_t content[100];
	struct repbuf *cache = NULL, *a, *b, *c;
	struct timespec later[2] = { { 0, UTIME_OMIT }, { 1000000, 0 } };
	size_t len;
	int fd = temp_file(100, 1, content);

	(void)state;
	a = repbuf_get(&cache, fd, 100);
	b = repbuf_get(&cache, fd, 100);
	assert_ptr_equal(a, b);
	/* New bytes and a new change time: a new buffer for new connections only. */
	content[0] = 0xee;
	assert_int_equal(pwrite(fd, content, 1, 0), 1);
	assert_int_equal(futimens(fd, later), 0);
	c = repbuf_get(&cache, fd, 100);
	assert_ptr_not_equal(c, a);
	assert_int_equal(repbuf_at(c, 0, &len)[0], 0xee);
	assert_int_equal(repbuf_at(a, 0, &len)[0], (uint8_t)1);
	/* A file now shorter than the size taken: refused, EIO. */
	assert_int_equal(ftruncate(fd, 50), 0);
	assert_null(repbuf_get(&cache, fd, 100));
	assert_null(repbuf_get(&cache, fd, 0));
	assert_null(repbuf_get(&cache, fd, REPBUF_SMALL));
	repbuf_put(a);
	repbuf_put(b);
	repbuf_put(c);
	repbuf_put(cache);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes_at_every_position_near_the_edges),
		cmocka_unit_test(test_shared_until_the_file_changes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
