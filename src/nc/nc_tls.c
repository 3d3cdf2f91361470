/* SPDX-License-Identifier: ISC */
/* nc_tls.c - "ncpv nc --ssl": the handshake, then the relay through an nc_io that speaks TLS on the socket. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "nc.h"
#include "../clock.h"

/* The relay's calls on the network socket go through the TLS connection; stdin,
 * stdout and the clock go to the system calls the plain relay makes. */
struct tls_io {
	struct tls_conn *c; /* owned: freed when the relay closes fd */
	int fd;
};

/* errno for a failed TLS call: TLS's "try again" is EAGAIN (a retry passes the
 * same bytes again, moved perhaps: OpenSSL allows that); an I/O error keeps its own. */
static void set_errno(ssize_t code)
{
	if (code == TLS_WANT_READ || code == TLS_WANT_WRITE)
		errno = EAGAIN;
	else if (code != TLS_EIO)
		errno = EPROTO;
}

/* A close_notify is the end, and so (as for ncat) is a stream cut without one. */
static ssize_t tls_io_read(void *ctx, int fd, void *buf, size_t len)
{
	struct tls_io *t = ctx;
	char err[256];
	ssize_t got;

	if (fd != t->fd)
		return nc_system_io.read(nc_system_io.ctx, fd, buf, len);
	got = tls_read(t->c, buf, len, err, sizeof(err));
	if (got >= 0 || got == TLS_ETRUNCATED)
		return got > 0 ? got : 0;
	set_errno(got);
	return -1;
}

static ssize_t tls_io_write(void *ctx, int fd, const void *buf, size_t len)
{
	(void)ctx;
	return nc_system_io.write(nc_system_io.ctx, fd, buf, len);
}

static ssize_t tls_io_send(void *ctx, int fd, const void *buf, size_t len, int flags)
{
	struct tls_io *t = ctx;
	char err[256];
	ssize_t w;

	if (fd != t->fd)
		return nc_system_io.send(nc_system_io.ctx, fd, buf, len, flags);
	w = tls_write(t->c, buf, len, err, sizeof(err));
	if (w >= 0)
		return w;
	set_errno(w);
	return -1;
}

/* Bytes OpenSSL already holds are invisible to poll: do not wait for them. */
static int tls_io_poll(void *ctx, struct pollfd *pfd, nfds_t n, int timeout_ms)
{
	struct tls_io *t = ctx;
	int ready = 0, rc;

	for (nfds_t i = 0; i < n; i++)
		if (pfd[i].fd == t->fd && (pfd[i].events & POLLIN) && tls_pending(t->c) > 0)
			ready = 1;
	rc = nc_system_io.poll(nc_system_io.ctx, pfd, n, ready ? 0 : timeout_ms);
	if (rc < 0 || !ready)
		return rc;
	for (nfds_t i = 0; i < n; i++)
		if (pfd[i].fd == t->fd && (pfd[i].events & POLLIN) && !(pfd[i].revents & POLLIN)) {
			pfd[i].revents |= POLLIN;
			rc++;
		}
	return rc;
}

/* The network's write side is done: close_notify first. */
static int tls_io_shutdown(void *ctx, int fd, int how)
{
	struct tls_io *t = ctx;
	char err[256];

	if (fd == t->fd && how != SHUT_RD)
		tls_shutdown(t->c, err, sizeof(err));
	return nc_system_io.shutdown(nc_system_io.ctx, fd, how);
}

static int tls_io_close(void *ctx, int fd)
{
	struct tls_io *t = ctx;
	char err[256];

	if (fd == t->fd && t->c) {
		tls_shutdown(t->c, err, sizeof(err)); /* once: nothing if -N sent it */
		tls_conn_free(t->c);
		t->c = NULL;
	}
	return nc_system_io.close(nc_system_io.ctx, fd);
}

static void tls_io_sleep(void *ctx, double seconds)
{
	(void)ctx;
	nc_system_io.sleep(nc_system_io.ctx, seconds);
}

int nc_relay_tls(const struct nc_opts *o, int fd, int server, struct nc_totals *t,
		 const struct nc_events *ev, char *err, size_t errlen)
{
	const char *name = server ? NULL : o->ssl_name ? o->ssl_name : o->host;
	struct tls_io tio = { NULL, fd };
	struct nc_io io = nc_system_io;
	char why[512];
	int rc;

	/* A blocking socket would let OpenSSL wait inside a read for a record that is
	 * not coming (after a session ticket, say), deaf to poll and to -w. */
	if (net_set_nonblock(fd, 1) < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		close(fd);
		return -2;
	}
	tio.c = tls_conn_new(o->tls_ctx, fd, name, err, errlen);
	if (tio.c == NULL) {
		close(fd);
		return -2;
	}
	rc = tls_handshake_wait(tio.c, o->timeout_ms > 0 ? clock_now() + o->timeout_ms / 1000.0 : 0, NULL,
				why, sizeof(why));
	if (rc != TLS_OK) {
		if (rc == TLS_EUNKNOWN_CA && tls_conn_peer_fingerprint(tio.c))
			snprintf(err, errlen, "TLS handshake failed: %s; its SHA-256 is %s: trust its CA "
				 "with --ssl-trustfile, or leave out --ssl-verify", why,
				 tls_conn_peer_fingerprint(tio.c));
		else
			snprintf(err, errlen, "TLS handshake failed: %s", why);
		tls_conn_free(tio.c);
		close(fd);
		return -2;
	}
	t->tls_conns++;
	t->ktls_conns += tls_conn_ktls_send(tio.c) || tls_conn_ktls_recv(tio.c);
	if (o->verbose) {
		tls_conn_describe(tio.c, why, sizeof(why));
		nc_say(ev, 0, "TLS connection: %s", why);
	}
	io.read = tls_io_read;
	io.write = tls_io_write;
	io.send = tls_io_send;
	io.poll = tls_io_poll;
	io.shutdown = tls_io_shutdown;
	io.close = tls_io_close;
	io.sleep = tls_io_sleep;
	io.ctx = &tio;
	return nc_relay_io(o, &io, fd, NULL, 0, t, ev);
}
