/* SPDX-License-Identifier: ISC */
/* dial.c - open a device path's endpoint as open(2) would: connect, or listen and accept one client. */
#include "dial.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../clock.h"
#include "../net.h"
#include "../units.h"

static int verbose(void)
{
	const char *v = getenv(DEVTCP_ENV_VERBOSE);

	return v != NULL && *v != '\0' && strcmp(v, "0") != 0;
}

/* One line on stderr when NCPV_DEVTCP_VERBOSE is set (like nc -v); errno kept. */
static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	char line[512];
	int n, saved = errno;
	va_list ap;

	if (!verbose())
		return;
	n = snprintf(line, sizeof(line), "ncpv devtcp: ");
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, (size_t)n) < 0) {
		/* nowhere left to say it */
	}
	errno = saved;
}

/* The timeout in ms from the environment: 0 for none, -1 (EINVAL) when malformed. */
static int timeout_ms(void)
{
	const char *s = getenv(DEVTCP_ENV_TIMEOUT);
	double secs;

	if (s == NULL || *s == '\0')
		return 0;
	if (units_parse_seconds(s, &secs) < 0 || secs > 86400.0) {
		errno = EINVAL;
		return -1;
	}
	return secs > 0 ? (int)ceil(secs * 1000.0) : 0;
}

/* Map a net_* failure to the errno open(2) callers know. */
static int fail(int rc, const char *path, const char *err)
{
	int e = rc == NET_ERESOLVE ? ENXIO : rc == NET_ETIMEDOUT ? ETIMEDOUT : errno;

	note("%s: %s", path, err);
	errno = e ? e : EIO;
	return -1;
}

/* Wait for and accept one client on lfd within ms (0: forever); lfd is closed. */
static int accept_one(int lfd, const char *path, int ms)
{
	double deadline = ms > 0 ? clock_now_ms() + ms : 0;
	char who[128];
	int fd;

	for (;;) {
		int left = -1, rc;

		if (deadline > 0 && (left = (int)(deadline - clock_now_ms())) < 0)
			left = 0;
		rc = net_wait(lfd, POLLIN, left);
		if (rc == 0) {
			close(lfd);
			note("%s: timed out waiting for a client", path);
			errno = ETIMEDOUT;
			return -1;
		}
		if (rc < 0)
			break;
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd >= 0) {
			close(lfd);
			if (verbose())
				note("connection from %s", net_peer_name(fd, who, sizeof(who)));
			return fd;
		}
		/* The client may have gone between poll and accept: wait again. */
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNABORTED && errno != EINTR)
			break;
	}
	{
		int saved = errno;

		close(lfd);
		note("%s: accept: %s", path, strerror(saved));
		errno = saved;
	}
	return -1;
}

int devtcp_dial(const struct devtcp_path *p, const char *path, int flags)
{
	struct net_opts o = { .family = AF_UNSPEC, .socktype = SOCK_STREAM };
	char err[256], where[128];
	int fd, ms;

	if (flags & O_DIRECTORY) {
		errno = ENOTDIR;
		return -1;
	}
	if ((ms = timeout_ms()) < 0) {
		note("%s: invalid %s '%s': expected seconds", path, DEVTCP_ENV_TIMEOUT,
		     getenv(DEVTCP_ENV_TIMEOUT));
		return -1;
	}
	o.timeout_ms = ms;
	{
		unsigned char bin[sizeof(struct in6_addr)];

		/* A literal address skips the resolver's per-call interface query. */
		o.numeric = inet_pton(AF_INET, p->at.host, bin) == 1 ||
			    inet_pton(AF_INET6, p->at.host, bin) == 1;
	}
	if (p->kind == DEVTCP_UDP)
		o.socktype = SOCK_DGRAM;
	if (p->kind == DEVTCP_LISTEN) {
		if ((fd = net_listen(p->at.host, p->at.port, &o, err, sizeof(err))) < 0)
			return fail(fd, path, err);
		if (verbose())
			note("listening on %s", net_local_name(fd, where, sizeof(where)));
		if ((fd = accept_one(fd, path, ms)) < 0)
			return -1;
	} else {
		if ((fd = net_connect(p->at.host, p->at.port, &o, err, sizeof(err))) < 0)
			return fail(fd, path, err);
		if (verbose())
			note("connected to %s", net_peer_name(fd, where, sizeof(where)));
	}
	if ((!(flags & O_NONBLOCK) && net_set_nonblock(fd, 0) < 0) ||
	    (!(flags & O_CLOEXEC) && fcntl(fd, F_SETFD, 0) < 0)) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}
