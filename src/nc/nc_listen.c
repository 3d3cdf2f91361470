/* SPDX-License-Identifier: ISC */
/* nc_listen.c - "ncpv nc -l": accept TCP or Unix clients (one after another with -k), or UDP peers. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "nc.h"
#include "../cmd/cmd.h"

/* Wait for the first datagram and, unless -k, talk only to its sender. */
static int udp_session(const struct nc_opts *o, int fd, struct nc_totals *t, struct nc_meter *m)
{
	struct sockaddr_storage peer = { 0 }; /* zeroed: the analyzer does not model recvfrom */
	socklen_t len = sizeof(peer);
	char byte;

	for (;;) {
		if (net_wait(fd, POLLIN, -1) < 0) {
			cmd_error("nc", "poll: %s", strerror(errno));
			close(fd);
			return NCPV_EXIT_FAIL;
		}
		if (recvfrom(fd, &byte, 1, MSG_PEEK, (struct sockaddr *)&peer, &len) >= 0)
			break;
		if (errno != EAGAIN && errno != EINTR) {
			cmd_error("nc", "recvfrom: %s", strerror(errno));
			close(fd);
			return NCPV_EXIT_FAIL;
		}
		len = sizeof(peer);
	}
	/* An unnamed (or already gone) Unix datagram sender cannot be answered: stay unconnected. */
	if (!o->keep && len > sizeof(sa_family_t) && connect(fd, (struct sockaddr *)&peer, len) < 0 &&
	    peer.ss_family != AF_UNIX) {
		cmd_error("nc", "connect: %s", strerror(errno));
		close(fd);
		return NCPV_EXIT_FAIL;
	}
	nc_report_peer(o, (struct sockaddr *)&peer, len);
	if (nc_relay(o, fd, NULL, NULL, 0, t, m) < 0) {
		cmd_error("nc", "out of memory");
		return NCPV_EXIT_FAIL;
	}
	return NCPV_EXIT_OK;
}

static int accept_loop(const struct nc_opts *o, int lfd, struct nc_totals *t, struct nc_meter *m)
{
	for (;;) {
		struct sockaddr_storage peer;
		socklen_t len = sizeof(peer);
		struct tls_conn *tls = NULL;
		int fd, rc;

		if (net_wait(lfd, POLLIN, -1) < 0) {
			cmd_error("nc", "poll: %s", strerror(errno));
			return NCPV_EXIT_FAIL;
		}
		fd = accept4(lfd, (struct sockaddr *)&peer, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
				continue;
			cmd_error("nc", "accept: %s", strerror(errno));
			return NCPV_EXIT_FAIL;
		}
		nc_report_peer(o, (struct sockaddr *)&peer, len);
		if (!o->keep) /* nc takes one client, then stops listening */
			close(lfd);
		if (o->tls.on && (tls = nc_tls_start(o, fd, 1, t)) == NULL) {
			close(fd);
			if (!o->keep)
				return NCPV_EXIT_FAIL;
			continue; /* one bad client does not end -k */
		}
		rc = nc_relay(o, fd, tls, NULL, 0, t, m);
		if (rc < 0) {
			cmd_error("nc", "out of memory");
			return NCPV_EXIT_FAIL;
		}
		if (!o->keep)
			return NCPV_EXIT_OK;
		if (rc == 1)
			break;
	}
	close(lfd);
	return NCPV_EXIT_OK;
}

static int listen_unix(const struct nc_opts *o, struct nc_totals *t, struct nc_meter *m)
{
	char err[512];
	int fd = net_unix_listen(o->host, o->udp ? SOCK_DGRAM : SOCK_STREAM, err, sizeof(err));

	if (fd < 0) {
		cmd_error("nc", "%s", err);
		return NCPV_EXIT_FAIL;
	}
	if (o->verbose)
		fprintf(stderr, "Bound on %s\n", o->host);
	if (o->udp)
		return udp_session(o, fd, t, m);
	if (o->verbose)
		fprintf(stderr, "Listening on %s\n", o->host);
	return accept_loop(o, fd, t, m);
}

int nc_listen_main(const struct nc_opts *o, struct nc_totals *t, struct nc_meter *m)
{
	struct net_opts no;
	struct nc_hook hook;
	char err[512], port[16];
	int fd;

	if (o->unix_sock)
		return listen_unix(o, t, m);
	nc_net_opts(o, &hook, &no);
	/* Like nc, a listener without an address takes IPv4's 0.0.0.0. */
	if ((o->host == NULL || !*o->host) && no.family == AF_UNSPEC)
		no.family = AF_INET;
	snprintf(port, sizeof(port), "%d", o->ports[0]);
	fd = net_listen(o->host, port, &no, err, sizeof(err));
	if (fd < 0) {
		cmd_error("nc", "%s", hook.failed ? hook.err : err);
		return NCPV_EXIT_FAIL;
	}
	if (o->udp) {
		nc_report_local(o, fd, "Bound");
		return udp_session(o, fd, t, m);
	}
	nc_report_local(o, fd, "Listening");
	return accept_loop(o, fd, t, m);
}
