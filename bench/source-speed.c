/* SPDX-License-Identifier: ISC */
/* source-speed.c - how fast the random source makes fresh bytes, against reading /dev/urandom:
 * the generator alone, without TCP in the way. Usage: source-speed [MiB] (default 4096). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "source.h"

/* Bytes per second through source_peek/source_consume, as serve uses them. */
static double random_rate(size_t total)
{
	char err[256];
	struct source *s = source_open("random", err, sizeof(err));
	size_t done = 0;
	volatile unsigned char sink = 0;
	double t0;

	if (s == NULL) {
		fprintf(stderr, "source-speed: %s\n", err);
		exit(1);
	}
	t0 = clock_now();
	while (done < total) {
		const void *data;
		ssize_t n = source_peek(s, 256 * 1024, &data);

		sink ^= ((const unsigned char *)data)[n - 1];
		source_consume(s, (size_t)n);
		done += (size_t)n;
	}
	t0 = clock_now() - t0;
	source_free(s);
	(void)sink;
	return (double)done / t0;
}

static double urandom_rate(size_t total)
{
	static unsigned char buf[256 * 1024];
	int fd = open("/dev/urandom", O_RDONLY);
	size_t done = 0;
	double t0;

	if (fd < 0) {
		perror("source-speed: /dev/urandom");
		exit(1);
	}
	t0 = clock_now();
	while (done < total) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n <= 0) {
			perror("source-speed: read");
			exit(1);
		}
		done += (size_t)n;
	}
	t0 = clock_now() - t0;
	close(fd);
	return (double)done / t0;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 4096;
	double r = random_rate(mib << 20), u = urandom_rate((mib / 8 + 1) << 20);

	printf("random %.0f urandom %.0f\n", r, u);
	return 0;
}
