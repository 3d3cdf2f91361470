/* SPDX-License-Identifier: ISC */
/* nc_sock.c - "ncpv nc" sockets: per-socket options, nc's -v wording, fd passing. */
#include <errno.h>
#include <stdarg.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "nc.h"

/* IP_MINTTL / IPV6_MINHOPCOUNT are missing from older libc headers. */
#ifndef IP_MINTTL
#define IP_MINTTL 21
#endif
#ifndef IPV6_MINHOPCOUNT
#define IPV6_MINHOPCOUNT 73
#endif

void nc_say(const struct nc_events *ev, int error, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (ev == NULL || ev->say == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	ev->say(ev->ctx, error, line);
}

static int set_int(int fd, int level, int name, int value, const char *what, char *err, size_t errlen)
{
	if (setsockopt(fd, level, name, &value, sizeof(value)) == 0)
		return 0;
	snprintf(err, errlen, "set %s: %s", what, strerror(errno));
	return -1;
}

int nc_socket_hook(int fd, const struct sockaddr *sa, void *ctx)
{
	struct nc_hook *h = ctx;
	const struct nc_opts *o = h->o;
	int v6 = sa->sa_family == AF_INET6, ip = v6 || sa->sa_family == AF_INET;
	char *e = h->err;
	size_t el = sizeof(h->err);
	int rc = 0;

	/* nc lets a second listener bind the same address and port (the kernel spreads clients). */
	if (h->listening)
		rc |= set_int(fd, SOL_SOCKET, SO_REUSEPORT, 1, "SO_REUSEPORT", e, el);
	if (o->broadcast)
		rc |= set_int(fd, SOL_SOCKET, SO_BROADCAST, 1, "SO_BROADCAST", e, el);
	if (o->debug)
		rc |= set_int(fd, SOL_SOCKET, SO_DEBUG, 1, "SO_DEBUG", e, el);
	if (o->rcvbuf)
		rc |= set_int(fd, SOL_SOCKET, SO_RCVBUF, o->rcvbuf, "TCP receive buffer size", e, el);
	if (o->sndbuf)
		rc |= set_int(fd, SOL_SOCKET, SO_SNDBUF, o->sndbuf, "TCP send buffer size", e, el);
	if (ip && o->ttl >= 0)
		rc |= v6 ? set_int(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, o->ttl, "IPv6 unicast hops", e, el)
			 : set_int(fd, IPPROTO_IP, IP_TTL, o->ttl, "IP TTL", e, el);
	if (ip && o->minttl >= 0)
		rc |= v6 ? set_int(fd, IPPROTO_IPV6, IPV6_MINHOPCOUNT, o->minttl, "IPv6 min hop count", e, el)
			 : set_int(fd, IPPROTO_IP, IP_MINTTL, o->minttl, "IP min TTL", e, el);
	if (ip && o->tos >= 0)
		rc |= v6 ? set_int(fd, IPPROTO_IPV6, IPV6_TCLASS, o->tos, "IPv6 traffic class", e, el)
			 : set_int(fd, IPPROTO_IP, IP_TOS, o->tos, "IP ToS", e, el);
	if (rc) {
		h->failed = 1;
		errno = EINVAL;
		return -1;
	}
	return 0;
}

void nc_net_opts(const struct nc_opts *o, struct nc_hook *h, struct net_opts *n)
{
	memset(n, 0, sizeof(*n));
	memset(h, 0, sizeof(*h));
	h->o = o;
	n->family = o->family;
	n->socktype = o->udp ? SOCK_DGRAM : SOCK_STREAM;
	n->timeout_ms = o->timeout_ms;
	n->numeric = o->numeric;
	n->backlog = 1;
	n->hook = nc_socket_hook;
	n->hook_ctx = h;
}

/* Host and port of an address as nc -v prints them: names unless -n. */
static void name_of(const struct nc_opts *o, const struct sockaddr *sa, socklen_t len, char *host,
		    size_t hostlen, char *port, size_t portlen)
{
	int flags = NI_NUMERICSERV | (o->numeric ? NI_NUMERICHOST : 0);

	if (sa->sa_family == AF_UNIX) {
		snprintf(host, hostlen, "%s", o->host ? o->host : "");
		port[0] = '\0';
		return;
	}
	if (getnameinfo(sa, len, host, (socklen_t)hostlen, port, (socklen_t)portlen, flags) != 0) {
		snprintf(host, hostlen, "?");
		snprintf(port, portlen, "?");
	}
}

void nc_report_local(const struct nc_opts *o, const struct nc_events *ev, int fd, const char *verb)
{
	struct sockaddr_storage ss = { 0 }; /* zeroed: the analyzer does not model getsockname */
	socklen_t len = sizeof(ss);
	char host[NI_MAXHOST], port[NI_MAXSERV];

	if (!o->verbose || getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return;
	name_of(o, (struct sockaddr *)&ss, len, host, sizeof(host), port, sizeof(port));
	if (port[0])
		nc_say(ev, 0, "%s on %s %s", verb, host, port);
	else
		nc_say(ev, 0, "%s on %s", verb, host);
}

void nc_report_peer(const struct nc_opts *o, const struct nc_events *ev, const struct sockaddr *sa,
		    socklen_t len)
{
	char host[NI_MAXHOST], port[NI_MAXSERV];

	if (!o->verbose)
		return;
	name_of(o, sa, len, host, sizeof(host), port, sizeof(port));
	if (port[0])
		nc_say(ev, 0, "Connection received on %s %s", host, port);
	else
		nc_say(ev, 0, "Connection received on %s", host);
}

void nc_report_connected(const struct nc_opts *o, const struct nc_events *ev, int fd, const char *host,
			 int port)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char ip[NI_MAXHOST] = "";
	const char *proto = o->udp ? "udp" : "tcp";
	struct servent *sv = o->numeric ? NULL : getservbyport(htons((uint16_t)port), proto);

	if (!o->verbose)
		return;
	/* Through a proxy the peer is the proxy: name only the destination. */
	if (!o->proxy && getpeername(fd, (struct sockaddr *)&ss, &len) == 0)
		getnameinfo((struct sockaddr *)&ss, len, ip, sizeof(ip), NULL, 0, NI_NUMERICHOST);
	if (ip[0] && !o->numeric && strcmp(host, ip) != 0) /* nc: -n names no address twice */
		nc_say(ev, 0, "Connection to %s (%s) %d port [%s/%s] succeeded!", host, ip, port, proto,
		       sv ? sv->s_name : "*");
	else
		nc_say(ev, 0, "Connection to %s %d port [%s/%s] succeeded!", host, port, proto,
		       sv ? sv->s_name : "*");
}

int nc_pass_fd(int fd, char *err, size_t errlen)
{
	char byte = 0;
	struct iovec iov = { &byte, 1 };
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} control;
	struct msghdr mh;

	if (isatty(STDOUT_FILENO)) {
		snprintf(err, errlen, "Cannot pass file descriptor to tty");
		return -1;
	}
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	net_msg_control(&mh, control.buf, sizeof(control.buf), SOL_SOCKET, SCM_RIGHTS, &fd, sizeof(int));
	while (sendmsg(STDOUT_FILENO, &mh, 0) < 0) {
		if (errno != EINTR) {
			snprintf(err, errlen, "sendmsg: %s", strerror(errno));
			return -1;
		}
	}
	return 0;
}
