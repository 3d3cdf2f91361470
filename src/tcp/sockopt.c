/* SPDX-License-Identifier: ISC */
/* sockopt.c - set the test's socket options, read back what the kernel granted, and name the
 * setting and the kernel's reason when it refuses one. */
#include "sockopt.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CC_PROC "/proc/sys/net/ipv4/tcp_"

void sockopt_init(struct sockopt_want *w)
{
	memset(w, 0, sizeof(*w));
	w->tos = -1;
}

/* One /proc file's first line into buf, its newline dropped. */
static int read_line(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (len == 0)
		return -1;
	buf[0] = '\0';
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int sockopt_cc_available(char *buf, size_t len)
{
	return read_line(CC_PROC "available_congestion_control", buf, len);
}

int sockopt_cc_allowed(char *buf, size_t len)
{
	return read_line(CC_PROC "allowed_congestion_control", buf, len);
}

int sockopt_cc_listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	if (n == 0)
		return 0;
	for (const char *p = list; *p;) {
		size_t w;

		p += strspn(p, " \t");
		w = strcspn(p, " \t");
		if (w == n && memcmp(p, name, n) == 0)
			return 1;
		p += w;
	}
	return 0;
}

int sockopt_check_cc_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= SOCKOPT_CC_MAX || strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") != n)
		return -1;
	return 0;
}

int sockopt_parse_tos(const char *s, int *tos)
{
	static const struct {
		const char *name;
		int dscp;
	} classes[] = {
		{ "cs0", 0 },	{ "cs1", 8 },	{ "cs2", 16 },	{ "cs3", 24 },	{ "cs4", 32 },	{ "cs5", 40 },
		{ "cs6", 48 },	{ "cs7", 56 },	{ "af11", 10 }, { "af12", 12 }, { "af13", 14 }, { "af21", 18 },
		{ "af22", 20 }, { "af23", 22 }, { "af31", 26 }, { "af32", 28 }, { "af33", 30 }, { "af41", 34 },
		{ "af42", 36 }, { "af43", 38 }, { "ef", 46 },	{ "le", 1 },
	};
	char *end;
	long v;

	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (strcasecmp(s, classes[i].name) == 0) {
			*tos = classes[i].dscp << 2;
			return 0;
		}
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || v < 0 || v > 255)
		return -1;
	*tos = (int)v;
	return 0;
}

/* err = "SETTING: strerror (hint)", errno kept; returns -1. */
static int refuse(char *err, size_t errlen, const char *setting, const char *hint)
{
	int e = errno;

	snprintf(err, errlen, "%s: %s%s", setting, strerror(e), hint ? hint : "");
	errno = e;
	return -1;
}

static int set_int(int fd, int level, int name, int v)
{
	return setsockopt(fd, level, name, &v, sizeof(v));
}

static int get_int(int fd, int level, int name, int *v)
{
	socklen_t len = sizeof(*v);

	return getsockopt(fd, level, name, v, &len);
}

static int apply_congestion(int fd, const char *name, char *err, size_t errlen)
{
	char setting[64], list[256], hint[300];
	int e;

	snprintf(setting, sizeof(setting), "congestion control '%.20s'", name);
	if (sockopt_check_cc_name(name) < 0) {
		errno = EINVAL;
		return refuse(err, errlen, setting, " (a name is 1 to 15 of a-z, 0-9, _ and -)");
	}
	if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, (socklen_t)strlen(name)) == 0)
		return 0;
	e = errno;
	hint[0] = '\0';
	/* The kernel's reason alone ("No such file or directory") does not say what to pick. */
	if (e == EPERM && sockopt_cc_allowed(list, sizeof(list)) == 0)
		snprintf(hint, sizeof(hint), " (allowed without CAP_NET_ADMIN: %s)", list);
	else if (sockopt_cc_available(list, sizeof(list)) == 0)
		snprintf(hint, sizeof(hint), " (available: %s)", list);
	errno = e;
	return refuse(err, errlen, setting, hint);
}

static int tos_level(int family, int *name)
{
	*name = family == AF_INET6 ? IPV6_TCLASS : IP_TOS;
	return family == AF_INET6 ? IPPROTO_IPV6 : IPPROTO_IP;
}

int sockopt_apply(int fd, int family, const struct sockopt_want *w, struct sockopt_got *got,
		  char *err, size_t errlen)
{
	char setting[64];

	if (w->congestion && apply_congestion(fd, w->congestion, err, errlen) < 0)
		return -1;
	/* Buffers before connect: the window scale is fixed by the SYN. */
	if (w->sndbuf > 0 && set_int(fd, SOL_SOCKET, SO_SNDBUF, w->sndbuf) < 0) {
		snprintf(setting, sizeof(setting), "send buffer %d B", w->sndbuf);
		return refuse(err, errlen, setting, NULL);
	}
	if (w->rcvbuf > 0 && set_int(fd, SOL_SOCKET, SO_RCVBUF, w->rcvbuf) < 0) {
		snprintf(setting, sizeof(setting), "receive buffer %d B", w->rcvbuf);
		return refuse(err, errlen, setting, NULL);
	}
	if (w->mss > 0 && set_int(fd, IPPROTO_TCP, TCP_MAXSEG, w->mss) < 0) {
		snprintf(setting, sizeof(setting), "MSS %d", w->mss);
		return refuse(err, errlen, setting, errno == EINVAL ? " (the kernel takes 88 to 32767)" : NULL);
	}
	if (w->nodelay && set_int(fd, IPPROTO_TCP, TCP_NODELAY, 1) < 0)
		return refuse(err, errlen, "no-delay", NULL);
	if (w->tos >= 0) {
		int name, level = tos_level(family, &name);

		if (set_int(fd, level, name, w->tos) < 0) {
			snprintf(setting, sizeof(setting), "TOS 0x%02x", (unsigned)w->tos);
			return refuse(err, errlen, setting, NULL);
		}
	}
	if (w->pacing_rate > 0) {
		/* unsigned long since Linux 4.20; an older kernel takes only the u32 form. */
		unsigned long rate = (unsigned long)w->pacing_rate;

		if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &rate, sizeof(rate)) < 0) {
			uint32_t r32 = w->pacing_rate > UINT32_MAX ? UINT32_MAX : (uint32_t)w->pacing_rate;

			if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &r32, sizeof(r32)) < 0) {
				snprintf(setting, sizeof(setting), "pacing rate %llu B/s",
					 (unsigned long long)w->pacing_rate);
				return refuse(err, errlen, setting, NULL);
			}
		}
	}
	if (got)
		sockopt_read(fd, family, got);
	return 0;
}

int sockopt_read(int fd, int family, struct sockopt_got *got)
{
	socklen_t len = sizeof(got->congestion) - 1;
	unsigned long rate = 0;
	int name, level = tos_level(family, &name);
	int rc = 0;

	memset(got, 0, sizeof(*got));
	if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, got->congestion, &len) < 0)
		rc = -1;
	got->congestion[sizeof(got->congestion) - 1] = '\0';
	if (get_int(fd, SOL_SOCKET, SO_SNDBUF, &got->sndbuf) < 0 || get_int(fd, SOL_SOCKET, SO_RCVBUF, &got->rcvbuf) < 0 ||
	    get_int(fd, IPPROTO_TCP, TCP_MAXSEG, &got->mss) < 0 || get_int(fd, IPPROTO_TCP, TCP_NODELAY, &got->nodelay) < 0)
		rc = -1;
	if (get_int(fd, level, name, &got->tos) < 0)
		got->tos = -1;
	len = sizeof(rate);
	if (getsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &rate, &len) == 0) {
		uint32_t r32;

		memcpy(&r32, &rate, sizeof(r32)); /* an old kernel's u32 form fills only the first bytes */
		got->pacing_rate = len == sizeof(r32) ? r32 : (uint64_t)rate;
	}
	return rc;
}
