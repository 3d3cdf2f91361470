/* SPDX-License-Identifier: ISC */
/* msg-zerocopy.c - does MSG_ZEROCOPY spare the sender anything on this machine? One TCP
 * connection to ADDR:PORT (a sink such as `ncpv serve --discard`), SECONDS of 256 KiB sends from
 * one buffer, plain or with MSG_ZEROCOPY (completions reaped from the error queue, the buffer
 * reused only once the kernel is done with it: 8 buffers in turn). Prints the rate, the
 * sender's CPU per GiB (this thread's), and how many completions the kernel marked
 * SO_EE_CODE_ZEROCOPY_COPIED: loopback and veth deliver locally, where the kernel copies anyway.
 * usage: msg-zerocopy ADDR PORT SECONDS plain|zerocopy   (make build/bench/msg-zerocopy) */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CHUNK ((size_t)256 * 1024)
#define NBUF 8

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Reap completions: the highest send number done goes to *done; copied ones are counted. */
static void reap(int fd, uint32_t *done, uint64_t *copied, uint64_t *notes)
{
	for (;;) {
		char ctl[128];
		struct msghdr m = { .msg_control = ctl, .msg_controllen = sizeof(ctl) };
		struct cmsghdr *c;

		if (recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return;
		for (c = CMSG_FIRSTHDR(&m); c != NULL; c = CMSG_NXTHDR(&m, c)) {
			struct sock_extended_err e;

			memcpy(&e, CMSG_DATA(c), sizeof(e));
			if (e.ee_origin != SO_EE_ORIGIN_ZEROCOPY)
				continue;
			*done = e.ee_data + 1;
			*notes += 1;
			if (e.ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
				*copied += e.ee_data - e.ee_info + 1;
		}
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int zc, fd, one = 1;
	double secs, t0;
	uint64_t bytes = 0, copied = 0, notes = 0;
	uint32_t sent = 0, done = 0;
	struct rusage r0, r1;
	char *buf;

	if (argc != 5 || inet_pton(AF_INET, argv[1], &a.sin_addr) != 1) {
		fprintf(stderr, "usage: msg-zerocopy ADDR PORT SECONDS plain|zerocopy\n");
		return 2;
	}
	a.sin_port = htons((uint16_t)strtoul(argv[2], NULL, 10));
	secs = strtod(argv[3], NULL);
	zc = strcmp(argv[4], "zerocopy") == 0;
	if ((buf = malloc((size_t)CHUNK * NBUF)) == NULL)
		return 1;
	for (size_t i = 0, x = 88172645463325252ULL; i < (size_t)CHUNK * NBUF; i++) {
		x ^= x << 13; /* xorshift: filler that no compressor shrinks */
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = (char)x;
	}
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    (zc && setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)) < 0)) {
		perror("msg-zerocopy");
		return 1;
	}
	getrusage(RUSAGE_THREAD, &r0);
	t0 = now();
	while (now() - t0 < secs) {
		ssize_t n;

		if (zc) {
			reap(fd, &done, &copied, &notes);
			if (sent - done >= NBUF) { /* every buffer still the kernel's: wait for a completion */
				struct pollfd p = { .fd = fd, .events = 0 };

				poll(&p, 1, 100);
				continue;
			}
		}
		n = send(fd, buf + (size_t)(sent % NBUF) * CHUNK, CHUNK, zc ? MSG_ZEROCOPY : 0);
		if (n < 0 && errno == ENOBUFS) { /* optmem_max: too many pending notifications */
			reap(fd, &done, &copied, &notes);
			continue;
		}
		if (n < 0) {
			perror("send");
			return 1;
		}
		bytes += (uint64_t)n;
		sent++;
	}
	double el = now() - t0;

	getrusage(RUSAGE_THREAD, &r1);
	double cpu = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec + r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
		     (r1.ru_utime.tv_usec - r0.ru_utime.tv_usec + r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e6;
	printf("%s %.2f Gbit/s, sender CPU %.3f s/GiB, sends %u, completions %llu, copied sends %llu\n", argv[4],
	       bytes * 8 / el / 1e9, cpu / (bytes / 1073741824.0), sent, (unsigned long long)notes,
	       (unsigned long long)copied);
	close(fd);
	free(buf);
	return 0;
}
