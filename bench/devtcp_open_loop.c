/* SPDX-License-Identifier: ISC */
/* devtcp_open_loop.c - benchmark helper: time N open/close (or stat, or fopen/fclose)
 * calls on an ordinary file and print nanoseconds per call, to price the preload. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n, i;
	double t0;
	struct stat st;

	if (argc != 4 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: %s open|stat|fopen COUNT PATH\n", argv[0]);
		return 2;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		if (strcmp(argv[1], "open") == 0) {
			int fd = open(argv[3], O_RDONLY | O_CLOEXEC);

			if (fd < 0 || close(fd) < 0)
				return 1;
		} else if (strcmp(argv[1], "stat") == 0) {
			if (stat(argv[3], &st) < 0)
				return 1;
		} else {
			FILE *f = fopen(argv[3], "re");

			if (f == NULL || fclose(f) != 0)
				return 1;
		}
	}
	printf("%.1f\n", (now_ns() - t0) / (double)n);
	return 0;
}
