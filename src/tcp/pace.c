/* SPDX-License-Identifier: ISC */
/* pace.c - a paced TCP sender's schedule (pure) and the kernel's pacing rate. */
#include "pace.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

uint64_t tcp_pace_room(double start, double bits, uint64_t sent, double now, double *at)
{
	double rate = bits / 8;
	double allowed = rate * (now - start) + rate * TCP_PACE_BURST_SECONDS;

	/* At least 2 ms of the rate (1 B to 16 KiB) a call: not a send per byte that comes due. */
	double least = rate * 0.002 < 1 ? 1 : rate * 0.002 > 16384 ? 16384 : rate * 0.002;

	if (allowed >= (double)sent + least)
		return (uint64_t)(allowed - (double)sent);
	*at = start + ((double)sent + least - (allowed - rate * (now - start))) / rate;
	return 0;
}

int tcp_pace_socket(int fd, double bits, char *err, size_t errlen)
{
	double bytes = bits / 8;
	int rc;

	/* The 32-bit form where it fits: kernels before 4.20 take no other. */
	if (bytes < 4294967295.0) {
		uint32_t v = bytes < 1 ? 1 : (uint32_t)bytes;

		rc = setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &v, sizeof(v));
	} else {
		uint64_t v = (uint64_t)bytes;

		rc = setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &v, sizeof(v));
	}
	if (rc < 0) {
		int e = errno;

		snprintf(err, errlen, "--rate %.0f bit/s: SO_MAX_PACING_RATE refused: %s", bits, strerror(e));
		errno = e;
	}
	return rc;
}
