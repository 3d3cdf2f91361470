/* SPDX-License-Identifier: ISC */
/* nc.c - "ncpv nc": a drop-in for OpenBSD netcat (Debian's netcat-openbsd) with a built-in meter. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "nc.h"
#include "../addr.h"
#include "../clock.h"
#include "../json.h"
#include "../cmd/cmd.h"
#include "../loop.h"

/* nc exits 1 on every failure, whatever its kind. */
#define NC_FAIL 1
#define UDP_SCAN_SECONDS 3

/* -P's password: $NCPV_PROXY_PASSWORD, else asked on the terminal without echo. */
static int proxy_password(const struct nc_opts *o, char *buf, size_t len)
{
	const char *env = getenv("NCPV_PROXY_PASSWORD");
	struct termios old, quiet;
	int tty;
	ssize_t n;

	if (env) {
		snprintf(buf, len, "%s", env);
		return 0;
	}
	tty = open("/dev/tty", O_RDWR | O_CLOEXEC);
	if (tty < 0) {
		cmd_error("nc", "no password for proxy user %s: set NCPV_PROXY_PASSWORD", o->proxy_user);
		return -1;
	}
	dprintf(tty, "Proxy password for %s@%s: ", o->proxy_user, o->proxy);
	tcgetattr(tty, &old);
	quiet = old;
	quiet.c_lflag &= ~(tcflag_t)ECHO;
	tcsetattr(tty, TCSAFLUSH, &quiet);
	n = read(tty, buf, len - 1);
	tcsetattr(tty, TCSAFLUSH, &old);
	dprintf(tty, "\n");
	close(tty);
	if (n <= 0) {
		cmd_error("nc", "no password read for proxy user %s", o->proxy_user);
		return -1;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	return 0;
}

/* Connect through -x: to the proxy first, then ask it for host:port. */
static int connect_proxy(const struct nc_opts *o, struct net_opts *no, int port, uint8_t *extra,
			 size_t extracap, size_t *extralen)
{
	struct addr_spec at;
	struct proxy_target t;
	char err[512], pass[256] = "";
	int fd;

	if (addr_parse(o->proxy, NULL, o->proxy_proto == PROXY_HTTP ? "3128" : "1080", &at, err,
		       sizeof(err)) < 0 || !at.host[0]) {
		cmd_error("nc", "bad proxy address '%s': %s", o->proxy, at.host[0] ? err : "no host");
		return -1;
	}
	if (o->proxy_user && proxy_password(o, pass, sizeof(pass)) < 0)
		return -1;
	fd = net_connect(at.host, at.port, no, err, sizeof(err));
	if (fd < 0) {
		if (o->verbose || fd == NET_ERESOLVE)
			cmd_error("nc", "proxy %s", err);
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
	if (proxy_handshake(fd, &t, extra, extracap, extralen, err, sizeof(err)) < 0) {
		cmd_error("nc", "%s", err);
		close(fd);
		return -1;
	}
	return fd;
}

/* A connected UDP socket answers "port unreachable" on a later write or read. */
static int udp_probe(const struct nc_opts *o, int fd)
{
	int seconds = o->timeout_ms > 0 ? (o->timeout_ms + 999) / 1000 : UDP_SCAN_SECONDS;

	for (int i = 0; i <= seconds; i++) {
		if (send(fd, "X", 1, MSG_NOSIGNAL) != 1 && errno == ECONNREFUSED)
			return -1;
		if (i < seconds && net_wait(fd, POLLERR, 1000) > 0 && net_socket_error(fd) == ECONNREFUSED)
			return -1;
	}
	return 0;
}

static int connect_unix(const struct nc_opts *o, struct nc_totals *t, struct nc_meter *m)
{
	char err[512], local[sizeof(((struct sockaddr_un *)0)->sun_path)] = "";
	int fd, rc = 0;

	if (o->udp) {
		/* A datagram client needs a name of its own for replies: -s, or a temporary one. */
		struct sockaddr_un sun;
		socklen_t len;

		if (o->source)
			snprintf(local, sizeof(local), "%s", o->source);
		else {
			int tmp;

			snprintf(local, sizeof(local), "/tmp/nc.XXXXXXXXXX");
			if ((tmp = mkstemp(local)) < 0) {
				cmd_error("nc", "mkstemp: %s", strerror(errno));
				return NC_FAIL;
			}
			close(tmp);
			unlink(local);
		}
		fd = net_unix_listen(local, SOCK_DGRAM, err, sizeof(err));
		if (fd >= 0 && (net_unix_addr(o->host, &sun, &len) < 0 ||
				connect(fd, (struct sockaddr *)&sun, len) < 0)) {
			snprintf(err, sizeof(err), "%s: %s", o->host, strerror(errno));
			close(fd);
			fd = -1;
		}
	} else {
		fd = net_unix_connect(o->host, SOCK_STREAM, err, sizeof(err));
	}
	if (fd < 0) {
		cmd_error("nc", "%s", err);
		rc = NC_FAIL;
	} else if (o->scan) {
		close(fd);
	} else if (nc_relay(o, fd, NULL, 0, t, m) < 0) {
		cmd_error("nc", "out of memory");
		rc = NC_FAIL;
	}
	if (o->udp && !o->source && local[0])
		unlink(local);
	return rc;
}

/* One destination port: connect (maybe through a proxy), then scan, pass or relay. */
static int connect_port(const struct nc_opts *o, int port, struct nc_totals *t, struct nc_meter *m)
{
	struct net_opts no;
	struct nc_hook hook;
	char err[512], ps[16];
	uint8_t extra[8192];
	size_t extralen = 0;
	int fd;

	nc_net_opts(o, &hook, &no);
	no.bind_host = o->source;
	no.bind_port = o->source_port;
	snprintf(ps, sizeof(ps), "%d", port);
	if (o->proxy) {
		fd = connect_proxy(o, &no, port, extra, sizeof(extra), &extralen);
		if (fd < 0)
			return -1;
	} else {
		fd = net_connect(o->host, ps, &no, err, sizeof(err));
		if (fd == NET_ERESOLVE) {
			const char *why = strstr(err, ": ");

			cmd_error("nc", "getaddrinfo for host \"%s\" port %s: %s", o->host, ps, why ? why + 2 : err);
			return -2;
		}
		if (fd < 0) {
			if (hook.failed)
				cmd_error("nc", "%s", hook.err);
			else if (o->verbose)
				cmd_error("nc", "connect to %s port %s (%s) failed: %s", o->host, ps,
					  o->udp ? "udp" : "tcp", fd == NET_ETIMEDOUT ? strerror(ETIMEDOUT) : strerror(errno));
			return -1;
		}
		if (o->udp && o->scan && udp_probe(o, fd) < 0) {
			close(fd);
			return -1;
		}
	}
	nc_report_connected(o, fd, o->host, port);
	if (o->scan) {
		close(fd);
		return 0;
	}
	if (o->fdpass) {
		/* The receiver (ssh's ProxyUseFdpass) expects an ordinary blocking socket. */
		int rc = net_set_nonblock(fd, 0) < 0 ? -1 : nc_pass_fd(fd);

		close(fd);
		return rc < 0 ? -2 : 0;
	}
	if (nc_relay(o, fd, extra, extralen, t, m) < 0) {
		cmd_error("nc", "out of memory");
		return -2;
	}
	return 0;
}

static int connect_main(const struct nc_opts *o, struct nc_totals *t, struct nc_meter *m)
{
	int rc = NC_FAIL;

	if (o->unix_sock)
		return connect_unix(o, t, m);
	for (int i = 0; i < o->nports; i++) {
		int r;

		if (i > 0)
			clock_sleep(o->interval);
		r = connect_port(o, o->ports[i], t, m);
		if (r == 0)
			rc = 0;
		else if (r == -2)
			return NC_FAIL; /* name lookups and fd passing fail for every port alike */
	}
	return rc;
}

static void print_json(const struct nc_totals *t, int rc)
{
	double secs = clock_now() - t->start;
	char line[256];
	struct json j;

	json_init(&j, line, sizeof(line));
	json_object(&j, NULL);
	json_uint(&j, "sent", t->sent);
	json_uint(&j, "received", t->received);
	json_uint(&j, "bytes", (unsigned long long)t->sent + t->received);
	json_fixed(&j, "seconds", secs, 6);
	json_fixed(&j, "rate", secs > 0 ? (double)(t->sent + t->received) / secs : 0, 0);
	json_int(&j, "exit", rc);
	json_end(&j);
	fprintf(stderr, "%s\n", json_text(&j));
}

int cmd_nc(int argc, char **argv)
{
	struct nc_opts *o = calloc(1, sizeof(*o));
	struct nc_totals t = { .start = clock_now() };
	struct nc_meter *m;
	int rc;

	if (o == NULL) {
		cmd_error("nc", "out of memory");
		return NC_FAIL;
	}
	rc = nc_parse_options(argc, argv, o);
	if (rc != 0) {
		free(o);
		return rc > 0 ? NCPV_EXIT_OK : NC_FAIL;
	}
	m = nc_meter_new(o);
	rc = o->listen ? nc_listen_main(o, &t, m) : connect_main(o, &t, m);
	if (m) {
		nc_meter_tick(m, &t, 1);
		nc_meter_free(m);
	}
	if (o->json)
		print_json(&t, rc);
	free(o);
	return rc;
}
