/* SPDX-License-Identifier: ISC */
/* nc_listen.c - "ncpv nc -l": accept TCP or Unix clients (one after another with -k), or UDP peers. */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "nc.h"

/* Wait for the first datagram and, unless -k, talk only to its sender. */
static int udp_session(const struct nc_opts *o, const struct nc_events *ev, int fd, struct nc_totals *t,
		       char *err, size_t errlen)
{
	struct sockaddr_storage peer = { 0 }; /* zeroed: the analyzer does not model recvfrom */
	socklen_t len = sizeof(peer);
	char byte;

	for (;;) {
		if (net_wait(fd, POLLIN, -1) < 0) {
			snprintf(err, errlen, "poll: %s", strerror(errno));
			close(fd);
			return -1;
		}
		if (recvfrom(fd, &byte, 1, MSG_PEEK, (struct sockaddr *)&peer, &len) >= 0)
			break;
		if (errno != EAGAIN && errno != EINTR) {
			snprintf(err, errlen, "recvfrom: %s", strerror(errno));
			close(fd);
			return -1;
		}
		len = sizeof(peer);
	}
	/* An unnamed (or already gone) Unix datagram sender cannot be answered: stay unconnected. */
	if (!o->keep && len > sizeof(sa_family_t) && connect(fd, (struct sockaddr *)&peer, len) < 0 &&
	    peer.ss_family != AF_UNIX) {
		snprintf(err, errlen, "connect: %s", strerror(errno));
		close(fd);
		return -1;
	}
	nc_report_peer(o, ev, (struct sockaddr *)&peer, len);
	if (nc_relay(o, fd, NULL, 0, t, ev) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static int accept_loop(const struct nc_opts *o, const struct nc_events *ev, int lfd, struct nc_totals *t,
		       char *err, size_t errlen)
{
	for (;;) {
		struct sockaddr_storage peer;
		socklen_t len = sizeof(peer);
		int fd, rc;

		if (net_wait(lfd, POLLIN, -1) < 0) {
			snprintf(err, errlen, "poll: %s", strerror(errno));
			return -1;
		}
		fd = accept4(lfd, (struct sockaddr *)&peer, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
				continue;
			snprintf(err, errlen, "accept: %s", strerror(errno));
			return -1;
		}
		nc_report_peer(o, ev, (struct sockaddr *)&peer, len);
		if (!o->keep) /* nc takes one client, then stops listening */
			close(lfd);
		rc = o->ssl ? nc_relay_tls(o, fd, 1, t, ev, err, errlen) : nc_relay(o, fd, NULL, 0, t, ev);
		if (rc == -2 && !o->keep)
			return -1; /* the handshake failed: err says why */
		if (rc == -2) {
			nc_say(ev, 1, "%s", err); /* one bad client does not end -k */
			err[0] = '\0';
			continue;
		}
		if (rc < 0) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (!o->keep)
			return 0;
		if (rc == 1)
			break;
	}
	close(lfd);
	return 0;
}

static int listen_unix(const struct nc_opts *o, const struct nc_events *ev, struct nc_totals *t, char *err,
		       size_t errlen)
{
	struct stat st;
	int fd;

	/* As nc, a socket left by an earlier listener is replaced, so `nc -lU PATH` works twice in a
	 * row. Anything else at PATH is refused: nc would delete a regular file there too. */
	if (o->host[0] != '@' && lstat(o->host, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, errlen, "%s: exists and is not a socket; not removed", o->host);
			return -1;
		}
		unlink(o->host);
	}
	fd = net_unix_listen(o->host, o->udp ? SOCK_DGRAM : SOCK_STREAM, err, errlen);
	if (fd < 0 && o->prog) /* nc's words: the reason alone */
		snprintf(err, errlen, "%s", strerror(errno));
	if (fd < 0)
		return -1;
	if (o->verbose)
		nc_say(ev, 0, "Bound on %s", o->host);
	if (o->udp)
		return udp_session(o, ev, fd, t, err, errlen);
	if (o->verbose)
		nc_say(ev, 0, "Listening on %s", o->host);
	return accept_loop(o, ev, fd, t, err, errlen);
}

int nc_listen_main(const struct nc_opts *o, const struct nc_events *ev, struct nc_totals *t, char *err,
		   size_t errlen)
{
	struct net_opts no;
	struct nc_hook hook;
	char port[16];
	int fd;

	if (o->unix_sock)
		return listen_unix(o, ev, t, err, errlen);
	if (o->host && !*o->host) { /* an empty address is not "any": nc's getaddrinfo refuses it */
		snprintf(err, errlen, "getaddrinfo: %s", gai_strerror(EAI_NONAME));
		return -1;
	}
	nc_net_opts(o, &hook, &no);
	hook.listening = 1;
	/* Like nc, a listener without an address takes IPv4's 0.0.0.0. */
	if (o->host == NULL && no.family == AF_UNSPEC)
		no.family = AF_INET;
	snprintf(port, sizeof(port), "%d", o->ports[0]);
	fd = net_listen(o->host, port, &no, err, errlen);
	if (fd < 0) {
		int err_no = errno;

		if (hook.failed)
			snprintf(err, errlen, "%s", hook.err);
		else if (o->prog && fd == NET_ERESOLVE) /* nc's words */
			snprintf(err, errlen, "getaddrinfo: %s", nc_words_gai(err));
		else if (o->prog)
			snprintf(err, errlen, "%s", strerror(err_no));
		return -1;
	}
	if (o->udp) {
		nc_report_local(o, ev, fd, "Bound");
		return udp_session(o, ev, fd, t, err, errlen);
	}
	nc_report_local(o, ev, fd, "Listening");
	return accept_loop(o, ev, fd, t, err, errlen);
}
