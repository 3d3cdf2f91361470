/* SPDX-License-Identifier: ISC */
/* nc_connect.c - the nc client: each port in turn (maybe through a proxy), then scan, pass or relay. */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "nc.h"
#include "../addr.h"
#include "../clock.h"

#define UDP_SCAN_SECONDS 3

/* A failed connect with -v, as nc words it: "connect to HOST [(IP) ]port PORT (tcp) failed: WHY".
 * The IP is named when HOST is a name (not with -n); nc's own timeout says "timed out" and the
 * errno it is left with. Run as "ncpv nc", a timeout is "failed: Connection timed out". */
static void say_connect_failed(const struct nc_opts *o, const struct nc_events *ev, const char *host,
			       const char *port, int code, int err_no)
{
	struct net_opts no = { .family = o->family, .socktype = o->udp ? SOCK_DGRAM : SOCK_STREAM,
			       .numeric = o->numeric };
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char ip[NI_MAXHOST] = "", ipwords[NI_MAXHOST + 4] = "", unused[256];
	const char *proto = o->udp ? "udp" : "tcp";

	if (!o->numeric && net_resolve(host, port, &no, &ss, &len, unused, sizeof(unused)) == 0 &&
	    getnameinfo((struct sockaddr *)&ss, len, ip, sizeof(ip), NULL, 0, NI_NUMERICHOST) == 0 &&
	    strcmp(ip, host) != 0)
		snprintf(ipwords, sizeof(ipwords), "(%s) ", ip);
	if (code == NET_ETIMEDOUT && o->prog)
		nc_say(ev, 1, "connect to %s %sport %s (%s) timed out: %s", host, ipwords, port, proto,
		       strerror(EINPROGRESS));
	else
		nc_say(ev, 1, "connect to %s %sport %s (%s) failed: %s", host, ipwords, port, proto,
		       strerror(code == NET_ETIMEDOUT ? ETIMEDOUT : err_no));
}

/* Connect through -x: to the proxy first, then ask it for host:port. */
static int connect_proxy(const struct nc_opts *o, const struct nc_events *ev, struct net_opts *no, int port,
			 uint8_t *extra, size_t extracap, size_t *extralen)
{
	struct addr_spec at;
	struct proxy_target t;
	struct proxy_failure why;
	char err[512], pass[256] = "";
	int fd, bad;

	bad = addr_parse(o->proxy, NULL, o->proxy_proto == PROXY_HTTP ? "3128" : "1080", &at, err, sizeof(err));
	if (o->prog && (o->proxy[0] == '\0' || (bad == 0 && !at.host[0]))) { /* nc asks getaddrinfo for "" */
		nc_say(ev, 1, "getaddrinfo for host \"\" port %s: %s",
		       bad == 0 ? at.port : o->proxy_proto == PROXY_HTTP ? "3128" : "1080", gai_strerror(EAI_NONAME));
		return -1;
	}
	if (bad < 0 || !at.host[0]) {
		nc_say(ev, 1, "bad proxy address '%s': %s", o->proxy, at.host[0] ? err : "no host");
		return -1;
	}
	if (o->proxy_user && (ev == NULL || ev->password == NULL || ev->password(ev->ctx, pass, sizeof(pass)) < 0))
		return -1;
	fd = net_connect(at.host, at.port, no, err, sizeof(err));
	if (fd < 0 && fd != NET_ERESOLVE && (o->source || o->source_port) &&
	    (errno == EADDRINUSE || errno == EADDRNOTAVAIL))
		return -2; /* as without a proxy: fatal, said even without -v (errno says why) */
	if (fd < 0 && o->prog) { /* nc connects to the proxy as to any host, and says so alike */
		if (fd == NET_ERESOLVE)
			nc_say(ev, 1, "getaddrinfo for host \"%s\" port %s: %s", at.host, at.port, nc_words_gai(err));
		else if (o->verbose)
			say_connect_failed(o, ev, at.host, at.port, fd, errno);
		return -1;
	}
	if (fd < 0) {
		if (o->verbose || fd == NET_ERESOLVE)
			nc_say(ev, 1, "proxy %s", err);
		return -1;
	}
	memset(&t, 0, sizeof(t));
	t.proto = o->proxy_proto;
	t.host = o->host;
	t.port = (uint16_t)port;
	t.user = o->proxy_user;
	t.pass = pass;
	t.numeric = o->numeric;
	t.timeout_ms = o->timeout_ms;
	t.http_200_only = 1; /* nc refuses "201 Created" and the like */
	if (proxy_handshake(fd, &t, extra, extracap, extralen, err, sizeof(err), &why) < 0) {
		char words[512];

		if (o->prog)
			nc_words_proxy(&why, err, words, sizeof(words));
		nc_say(ev, 1, "%s", o->prog ? words : err);
		close(fd);
		return -1;
	}
	return fd;
}

/* -s and -p as nc checks them before connecting: each must resolve in the destination's family
 * (its first address). 0, or -1 with nc's "getaddrinfo: ..." in err. */
static int source_resolves(const struct nc_opts *o, const char *port, char *err, size_t errlen)
{
	struct addrinfo hints, *dst, *src;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = o->family;
	hints.ai_socktype = o->udp ? SOCK_DGRAM : SOCK_STREAM;
	hints.ai_flags = o->numeric ? AI_NUMERICHOST : 0;
	if (getaddrinfo(o->host, port, &hints, &dst) != 0)
		return 0; /* the connect says why, as before */
	hints.ai_family = dst->ai_family;
	hints.ai_flags |= AI_PASSIVE;
	freeaddrinfo(dst);
	rc = getaddrinfo(o->source, o->source_port, &hints, &src);
	if (rc != 0) {
		snprintf(err, errlen, "getaddrinfo: %s", gai_strerror(rc));
		return -1;
	}
	freeaddrinfo(src);
	return 0;
}

/* A connected UDP socket answers "port unreachable" on a later write or read. As Debian's nc, two
 * "X" at once, then one a second: a receiver counting datagrams sees the same number. */
static int udp_probe(const struct nc_opts *o, int fd)
{
	int seconds = o->timeout_ms > 0 ? (o->timeout_ms + 999) / 1000 : UDP_SCAN_SECONDS;

	if (send(fd, "X", 1, MSG_NOSIGNAL) != 1)
		return -1;
	for (int i = 0; i <= seconds; i++) {
		if (send(fd, "X", 1, MSG_NOSIGNAL) != 1 && errno == ECONNREFUSED)
			return -1;
		if (i < seconds && net_wait(fd, POLLERR, 1000) > 0 && net_socket_error(fd) == ECONNREFUSED)
			return -1;
	}
	return 0;
}

static int connect_unix(const struct nc_opts *o, const struct nc_events *ev, struct nc_totals *t, char *err,
			size_t errlen)
{
	char local[sizeof(((struct sockaddr_un *)0)->sun_path)] = "", dir[32] = "";
	int fd, rc = 0;

	if (o->udp) {
		/* A datagram client needs a name of its own for replies: -s, or, as Debian's nc, one in
		 * a private directory (no other user can take or watch the name), removed at exit. */
		struct sockaddr_un sun;
		socklen_t len;

		if (o->source)
			snprintf(local, sizeof(local), "%s", o->source);
		else {
			snprintf(dir, sizeof(dir), "/tmp/nc-XXXXXX");
			if (mkdtemp(dir) == NULL) {
				snprintf(err, errlen, "mkdtemp: %s", strerror(errno));
				return -1;
			}
			snprintf(local, sizeof(local), "%s/recv.sock", dir);
		}
		fd = net_unix_listen(local, SOCK_DGRAM, err, errlen);
		if (fd >= 0 && (net_unix_addr(o->host, &sun, &len) < 0 ||
				connect(fd, (struct sockaddr *)&sun, len) < 0)) {
			snprintf(err, errlen, "%s: %s", o->host, strerror(errno));
			close(fd);
			fd = -1;
		}
	} else {
		fd = net_unix_connect(o->host, SOCK_STREAM, err, errlen);
	}
	if (fd < 0) {
		rc = -1;
	} else if (o->scan) {
		close(fd);
	} else if (nc_relay(o, fd, NULL, 0, t, ev) < 0) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
	}
	if (dir[0]) {
		unlink(local);
		rmdir(dir);
	}
	return rc;
}

/* One destination port: connect (maybe through a proxy), then scan, pass or relay. Returns 0,
 * -1 for a port that failed (said through ev when nc says it), -2 for a failure every port would
 * share (err says why). */
static int connect_port(const struct nc_opts *o, const struct nc_events *ev, int port, struct nc_totals *t,
			char *fatal, size_t fatallen)
{
	struct net_opts no;
	struct nc_hook hook;
	char err[512], ps[16];
	uint8_t extra[8192];
	size_t extralen = 0;
	int fd, rc;

	nc_net_opts(o, &hook, &no);
	no.bind_host = o->source;
	no.bind_port = o->source_port;
	no.bind_exclusive = 1; /* as nc: -p PORT in TIME_WAIT fails to bind */
	snprintf(ps, sizeof(ps), "%d", port);
	if (o->proxy) {
		fd = connect_proxy(o, ev, &no, port, extra, sizeof(extra), &extralen);
		if (fd == -2) {
			snprintf(fatal, fatallen, "bind failed: %s", strerror(errno));
			return -2;
		}
		if (fd < 0)
			return -1;
	} else {
		if ((o->source || o->source_port) && source_resolves(o, ps, fatal, fatallen) < 0)
			return -2;
		fd = net_connect(o->host, ps, &no, err, sizeof(err));
		if (fd == NET_ERESOLVE) {
			snprintf(fatal, fatallen, "getaddrinfo for host \"%s\" port %s: %s", o->host, ps,
				 nc_words_gai(err));
			return -2;
		}
		if (fd < 0 && (o->source || o->source_port) && (errno == EADDRINUSE || errno == EADDRNOTAVAIL)) {
			/* nc: a -s or -p it cannot bind is fatal and said even without -v. */
			snprintf(fatal, fatallen, "bind failed: %s", strerror(errno));
			return -2;
		}
		if (fd < 0) {
			if (hook.failed)
				nc_say(ev, 1, "%s", hook.err);
			else if (o->verbose)
				say_connect_failed(o, ev, o->host, ps, fd, errno);
			return -1;
		}
		/* As Debian's nc: -v probes a UDP port with "X" datagrams (a closed one fails, silently);
		 * without -v, -z takes every UDP port for open at once. */
		if (o->udp && o->verbose && udp_probe(o, fd) < 0) {
			close(fd);
			return -1;
		}
	}
	nc_report_connected(o, ev, fd, o->host, port);
	if (o->fdpass) {
		/* As Debian's nc: the socket goes as it is, non-blocking (ssh sets its own flags), even
		 * with -z. */
		rc = nc_pass_fd(fd, fatal, fatallen);
		close(fd);
		return rc < 0 ? -2 : 0;
	}
	if (o->scan) {
		close(fd);
		return 0;
	}
	if (o->ssl && extralen > 0) {
		/* The proxy's reply carried bytes of the server's: TLS must see them first. */
		nc_say(ev, 1, "TLS through the proxy: the server spoke before the handshake");
		close(fd);
		return -1;
	}
	rc = o->ssl ? nc_relay_tls(o, fd, 0, t, ev, err, sizeof(err)) : nc_relay(o, fd, extra, extralen, t, ev);
	if (rc == -2) {
		nc_say(ev, 1, "%s", err); /* this port failed; the next may not */
		return -1;
	}
	if (rc < 0) {
		snprintf(fatal, fatallen, "out of memory");
		return -2;
	}
	return 0;
}

int nc_connect_main(const struct nc_opts *o, const struct nc_events *ev, struct nc_totals *t, char *err,
		    size_t errlen)
{
	int rc = -1;

	err[0] = '\0';
	if (o->unix_sock)
		return connect_unix(o, ev, t, err, errlen);
	if (!*o->host) { /* not the local host: nc's getaddrinfo refuses an empty name */
		snprintf(err, errlen, "getaddrinfo for host \"\" port %d: %s", o->ports[0], gai_strerror(EAI_NONAME));
		return -1;
	}
	for (int i = 0; i < o->nports; i++) {
		int r;

		if (i > 0 && !o->scan) /* Debian's nc scans (-z) without -i's pause */
			clock_sleep(o->interval);
		r = connect_port(o, ev, o->ports[i], t, err, errlen);
		if (r == 0)
			rc = 0;
		else if (r == -2)
			return -1; /* name lookups and fd passing fail for every port alike */
	}
	return rc;
}
