/* SPDX-License-Identifier: ISC */
/* nc_relay.c - the two-way copy between stdio and the socket, with OpenBSD nc's half-close rules. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "nc.h"
#include "../clock.h"
#include "../loop.h"

/* Large enough that a gigabit stream costs few system calls; nc's own 16 KiB
 * buffer is one reason `nc | pv` is slower than one process. */
#define RELAY_BUF ((size_t)256 * 1024)
/* One stdin read becomes one datagram in UDP mode: keep it under any MTU-free limit. */
#define UDP_SEND_MAX 16384
#define UDP_RECV_MAX 65536
/* How long the close waits for the peer to take what the kernel still holds for it, without -w. */
#define LINGER_SECONDS 10

enum { P_STDIN, P_NETOUT, P_NETIN, P_STDOUT, P_COUNT };

struct buffer {
	uint8_t *data;
	size_t off, len, cap;
};

struct relay {
	const struct nc_opts *o;
	const struct nc_io *io;
	struct pollfd pfd[P_COUNT];
	struct buffer up;   /* stdin -> network */
	struct buffer down; /* network -> stdout */
	uint8_t *scratch;   /* -C: raw stdin before LF -> CRLF */
	int prev_cr;	    /* -C: the last byte read was CR */
	int telnet_state;
	long packets;
	int stop_keep;	    /* Debian: -q in listen mode ends -k too */
	struct nc_totals *t;
	const struct nc_events *ev;
	double next_tick;   /* when ev->tick wants its next call, 0 any time */
	size_t send_max;    /* -O: the most one send() may offer (0: no limit) */
	int fin_sent;	    /* -N: our FIN is out (shutdown(SHUT_WR)) */
	int net_fin;	    /* the peer's FIN was read: it sends nothing more */
};

size_t nc_telnet_answers(const uint8_t *buf, size_t len, int *state, uint8_t *out, size_t outcap)
{
	/* state: 0 plain, 1 after IAC, or the verb (WILL 251 .. DONT 254) awaiting its option. */
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		uint8_t c = buf[i];

		if (*state == 0) {
			if (c == 255)
				*state = 1;
		} else if (*state == 1) {
			*state = c >= 251 && c <= 254 ? c : 0;
		} else {
			if (n + 3 <= outcap) {
				out[n++] = 255;
				out[n++] = *state == 251 || *state == 252 ? 254 : 252; /* DONT : WONT */
				out[n++] = c;
			}
			*state = 0;
		}
	}
	return n;
}

static ssize_t sys_read(void *ctx, int fd, void *buf, size_t len)
{
	(void)ctx;
	return read(fd, buf, len);
}

static ssize_t sys_write(void *ctx, int fd, const void *buf, size_t len)
{
	(void)ctx;
	return write(fd, buf, len);
}

static ssize_t sys_send(void *ctx, int fd, const void *buf, size_t len, int flags)
{
	(void)ctx;
	return send(fd, buf, len, flags);
}

static int sys_poll(void *ctx, struct pollfd *pfd, nfds_t n, int timeout_ms)
{
	(void)ctx;
	return poll(pfd, n, timeout_ms);
}

static int sys_shutdown(void *ctx, int fd, int how)
{
	(void)ctx;
	return shutdown(fd, how);
}

static int sys_close(void *ctx, int fd)
{
	(void)ctx;
	return close(fd);
}

/* All of s seconds, a signal notwithstanding. */
static void sys_sleep(void *ctx, double s)
{
	double end = clock_now() + s;

	(void)ctx;
	while (clock_sleep(end - clock_now()) < 0)
		;
}

const struct nc_io nc_system_io = {
	sys_read, sys_write, sys_send, sys_poll, sys_shutdown, sys_close, sys_sleep,
	NULL, STDIN_FILENO, STDOUT_FILENO, 0
};

/*
 * Room at the end of b for a read that needs at least need bytes, moving the
 * data to the front when the tail is shorter than that or than the gap at the
 * front (so a slow reader cannot shrink the tail to nothing). 0 means no room:
 * the caller must not read, as read(2) of 0 bytes returns 0, which is EOF.
 */
static size_t room(struct buffer *b, size_t need)
{
	size_t tail;

	if (b->len == 0)
		b->off = 0;
	tail = b->cap - b->off - b->len;
	if (b->off > 0 && (tail < need || tail < b->off)) {
		memmove(b->data, b->data + b->off, b->len);
		b->off = 0;
		tail = b->cap - b->len;
	}
	return tail < need ? 0 : tail;
}

/* Read stdin into the up buffer (translating LF to CRLF with -C). A full
 * buffer returns -1 with EAGAIN, never 0, which means end of input. */
static ssize_t fill_from_stdin(struct relay *r)
{
	struct buffer *b = &r->up;
	size_t space = room(b, r->o->crlf ? 2 : 1);
	ssize_t n;

	/* One read, one datagram; the datagram starts at b->off, so the room
	 * left at the tail still bounds the read. */
	if (r->o->udp && space > UDP_SEND_MAX - b->len)
		space = b->len >= UDP_SEND_MAX ? 0 : UDP_SEND_MAX - b->len;
	if (r->o->crlf)
		space /= 2; /* each byte read may become two */
	if (space == 0) {
		errno = EAGAIN;
		return -1;
	}
	if (!r->o->crlf) {
		n = r->io->read(r->io->ctx, r->io->in_fd, b->data + b->off + b->len, space);
		if (n > 0)
			b->len += (size_t)n;
		return n;
	}
	n = r->io->read(r->io->ctx, r->io->in_fd, r->scratch, space);
	for (ssize_t i = 0; i < n; i++) {
		uint8_t c = r->scratch[i];

		if (c == '\n' && !r->prev_cr)
			b->data[b->off + b->len++] = '\r';
		b->data[b->off + b->len++] = c;
		r->prev_cr = c == '\r';
	}
	return n;
}

/* Send from the up buffer; with -i, one line then a pause. -1 is fatal. */
static int drain_to_net(struct relay *r)
{
	struct buffer *b = &r->up;
	size_t n = b->len;
	const uint8_t *lf = NULL;
	ssize_t w;

	if (r->o->interval > 0 && (lf = memchr(b->data + b->off, '\n', b->len)) != NULL)
		n = (size_t)(lf - (b->data + b->off)) + 1;
	if (r->send_max > 0 && n > r->send_max)
		n = r->send_max;
	w = r->io->send(r->io->ctx, r->pfd[P_NETOUT].fd, b->data + b->off, n, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (w < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	b->off += (size_t)w;
	b->len -= (size_t)w;
	r->t->sent += (uint64_t)w;
	if (lf && (size_t)w == n)
		r->io->sleep(r->io->ctx, r->o->interval);
	return 0;
}

static int drain_to_stdout(struct relay *r)
{
	struct buffer *b = &r->down;
	ssize_t w = r->io->write(r->io->ctx, r->io->out_fd, b->data + b->off, b->len);

	if (w < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	b->off += (size_t)w;
	b->len -= (size_t)w;
	return 0;
}

/* Read from the network; returns what read() did. */
static ssize_t fill_from_net(struct relay *r)
{
	struct buffer *b = &r->down;
	size_t space = room(b, 1);
	ssize_t n;

	if (space == 0) {
		errno = EAGAIN;
		return -1;
	}
	n = r->io->read(r->io->ctx, r->pfd[P_NETIN].fd, b->data + b->off + b->len, space);

	if (n > 0) {
		if (r->o->telnet) {
			uint8_t answers[3 * 64];
			size_t k = nc_telnet_answers(b->data + b->off + b->len, (size_t)n, &r->telnet_state,
						     answers, sizeof(answers));

			if (k > 0 && r->io->send(r->io->ctx, r->pfd[P_NETIN].fd, answers, k, MSG_NOSIGNAL) < 0)
				nc_say(r->ev, 0, "nc: telnet answer: %s", strerror(errno));
		}
		b->len += (size_t)n;
		r->t->received += (uint64_t)n;
	}
	return n;
}

/* Throw away what b holds (its destination failed), counting it. */
static void drop(struct relay *r, struct buffer *b)
{
	r->t->dropped += b->len;
	b->len = 0;
}

/*
 * Stop reading the network. No shutdown(SHUT_RD), unlike OpenBSD's nc: on Linux it changes nothing
 * on the wire, but once our FIN is out, data from the peer then draws an RST that throws away
 * what the kernel still holds for the peer (linger() below cannot read it away any more).
 */
static void net_in_gone(struct relay *r)
{
	r->pfd[P_NETIN].fd = -1;
}

/* The states nc ends in; see the README's half-close section. */
static int finished(const struct relay *r)
{
	int inputs_gone = r->pfd[P_STDIN].fd < 0 && r->pfd[P_NETIN].fd < 0 && r->up.len == 0 &&
			  r->down.len == 0;
	int outputs_gone = r->pfd[P_NETOUT].fd < 0 && r->pfd[P_STDOUT].fd < 0;
	/* A listener is done when its client's side has ended, stdin or not. */
	int client_gone = r->o->listen && r->pfd[P_NETIN].fd < 0 && r->up.len == 0 && r->down.len == 0;

	return inputs_gone || outputs_gone || client_gone;
}

static void set_interest(struct relay *r)
{
	int udp = r->o->udp;

	size_t up_max = udp && UDP_SEND_MAX < r->up.cap / 2 ? UDP_SEND_MAX : r->up.cap / 2;

	r->pfd[P_STDIN].events = r->up.len < up_max ? POLLIN : 0;
	r->pfd[P_NETOUT].events = r->up.len > 0 ? POLLOUT : 0;
	r->pfd[P_NETIN].events = (udp ? r->down.len == 0 : r->down.len < r->down.cap) ? POLLIN : 0;
	r->pfd[P_STDOUT].events = r->down.len > 0 ? POLLOUT : 0;
}

/*
 * poll(2) reports POLLHUP whether it was asked for or not, and never POLLIN where it was not asked
 * for: an input whose buffer is full would look hung up while its pipe or socket still holds data
 * (the last 64 KiB of a closed stdin pipe; the rest of the socket's receive queue once both sides
 * sent FIN). Taken for the end, that data was lost with exit 0. Such an input sits this poll out
 * (its buffer is drained meanwhile, so some other entry is always waited on) and is read to its
 * real end once there is room.
 */
static int poll_wanted(struct relay *r, int timeout_ms)
{
	struct pollfd ask[P_COUNT];
	int n;

	memcpy(ask, r->pfd, sizeof(ask));
	if (ask[P_STDIN].events == 0)
		ask[P_STDIN].fd = -1;
	if (ask[P_NETIN].events == 0)
		ask[P_NETIN].fd = -1;
	n = r->io->poll(r->io->ctx, ask, P_COUNT, timeout_ms);
	for (int i = 0; i < P_COUNT; i++)
		r->pfd[i].revents = n < 0 ? 0 : ask[i].revents;
	return n;
}

/* Poll timeout: the idle limit (-w) and the meter's next refresh. */
static int wait_ms(const struct relay *r, double last_activity)
{
	double now = clock_now(), until = 0;

	if (r->o->timeout_ms > 0)
		until = last_activity + r->o->timeout_ms / 1000.0;
	if (r->next_tick > 0 && (until == 0 || r->next_tick < until))
		until = r->next_tick;
	if (until == 0)
		return -1;
	return until <= now ? 0 : (int)((until - now) * 1000) + 1;
}

/* React to what poll said about each end, in nc's order. */
static void handle_conditions(struct relay *r)
{
	struct pollfd *p = r->pfd;

	/* A reset after our FIN (poll says POLLERR before any read does): as in move_data. */
	if (p[P_NETIN].fd >= 0 && (p[P_NETIN].revents & POLLERR) && r->fin_sent && r->io->close == sys_close &&
	    net_socket_error(p[P_NETIN].fd) == ECONNRESET)
		r->t->reset_after_fin++;
	for (int i = 0; i < P_COUNT; i++)
		if (p[i].revents & (POLLERR | POLLNVAL))
			p[i].fd = -1;
	/* A hang-up ends an input only where POLLIN was asked for and not given. */
	if ((p[P_STDIN].events & POLLIN) && (p[P_STDIN].revents & POLLHUP) &&
	    !(p[P_STDIN].revents & POLLIN))
		p[P_STDIN].fd = -1;
	if ((p[P_NETIN].events & POLLIN) && (p[P_NETIN].revents & POLLHUP) &&
	    !(p[P_NETIN].revents & POLLIN))
		p[P_NETIN].fd = -1;
	if (p[P_NETOUT].revents & POLLHUP) {
		if (p[P_NETOUT].fd >= 0 && r->o->shutdown_on_eof)
			r->fin_sent |= r->io->shutdown(r->io->ctx, p[P_NETOUT].fd, SHUT_WR) == 0;
		p[P_NETOUT].fd = -1;
	}
	if (p[P_STDOUT].revents & POLLHUP)
		p[P_STDOUT].fd = -1;
	if (p[P_NETOUT].fd < 0) {
		p[P_STDIN].fd = -1;
		drop(r, &r->up); /* nowhere to send it */
	}
	if (p[P_STDOUT].fd < 0) {
		net_in_gone(r);
		drop(r, &r->down);
	}
}

static void move_data(struct relay *r)
{
	struct pollfd *p = r->pfd;
	ssize_t n;

	if ((p[P_STDIN].revents & (POLLIN | POLLHUP)) && p[P_STDIN].fd >= 0 && p[P_STDIN].events) {
		n = fill_from_stdin(r);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			p[P_STDIN].fd = -1;
	}
	if (r->up.len > 0 && p[P_NETOUT].fd >= 0 && (p[P_NETOUT].revents & POLLOUT || p[P_STDIN].revents))
		if (drain_to_net(r) < 0) {
			p[P_NETOUT].fd = -1;
			p[P_STDIN].fd = -1;
			drop(r, &r->up);
		}
	if ((p[P_NETIN].revents & (POLLIN | POLLHUP)) && p[P_NETIN].fd >= 0 && p[P_NETIN].events) {
		n = fill_from_net(r);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			net_in_gone(r);
		r->net_fin |= n == 0;
		/* A reset after our FIN: the peer closed with data unread, perhaps ours
		 * (its kernel had acknowledged it all the same). */
		if (n < 0 && errno == ECONNRESET && r->fin_sent)
			r->t->reset_after_fin++;
		/* Debian's nc ignores -W under -k. */
		if (n > 0 && r->o->recvlimit > 0 && !r->o->keep && ++r->packets >= r->o->recvlimit) {
			net_in_gone(r);
			p[P_STDIN].fd = -1;
		}
	}
	if (r->down.len > 0 && p[P_STDOUT].fd >= 0)
		if (drain_to_stdout(r) < 0) {
			p[P_STDOUT].fd = -1;
			drop(r, &r->down);
		}
	/* stdin gone and its data sent: the network's write side is done. */
	if (p[P_STDIN].fd < 0 && r->up.len == 0) {
		if (p[P_NETOUT].fd >= 0 && r->o->shutdown_on_eof)
			r->fin_sent |= r->io->shutdown(r->io->ctx, p[P_NETOUT].fd, SHUT_WR) == 0;
		p[P_NETOUT].fd = -1;
		/* Debian: with -q, a listener (or UDP) stops reading too, and -k ends. */
		if ((r->o->listen || r->o->udp) && p[P_NETIN].fd >= 0 && r->o->quit_after >= 0 &&
		    r->down.len == 0) {
			net_in_gone(r);
			r->stop_keep = 1;
		}
	}
	if (p[P_NETIN].fd < 0 && r->down.len == 0)
		p[P_STDOUT].fd = -1;
}

/* Tell the caller the totals moved; remember when it wants to hear again. */
static void tick(struct relay *r)
{
	if (r->ev && r->ev->tick)
		r->next_tick = r->ev->tick(r->ev->ctx, r->t, 0);
}

/*
 * Bytes of ours the peer has not acknowledged. SIOCOUTQ counts our FIN too
 * (it takes a sequence number) until it is acknowledged: "1 bytes sent were
 * never acknowledged" after a peer read everything and reset was that FIN.
 */
static uint64_t unacked_data(int fd)
{
	uint64_t q = net_unacked(fd);
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (q > 0 && getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0 &&
	    (ti.tcpi_state == TCP_FIN_WAIT1 || ti.tcpi_state == TCP_CLOSING || ti.tcpi_state == TCP_LAST_ACK))
		q--;
	return q;
}

/*
 * Closing a TCP socket with unread data in its receive queue, or that data then reaches, makes
 * Linux answer with an RST and throw away what it still holds for the peer: `nc -l -q 0` whose
 * client kept sending delivered 195 KB of the 4 MiB that send() had taken, with exit 0. So, while
 * the kernel holds bytes for the peer (unsent or unacknowledged), read and discard what the peer
 * sends, for at most -w (else LINGER_SECONDS). Returns how many bytes it still held when it gave
 * up or the connection was reset: 0 means the peer acknowledged everything.
 *
 * Once the peer's FIN is read, nothing more can come to draw that RST, and close() leaves the
 * kernel to deliver the rest: nc closes at once, as OpenBSD's nc does, and the bytes still
 * unacknowledged go to *unconfirmed, not to the return value. The acknowledgements are the next
 * hop's: through -x, the proxy's TCP, which acknowledges bytes the far server may never read
 * (issue 22: 10 s of waiting and exit 1 for 4 bytes that a server which had closed never read).
 */
static uint64_t linger(const struct relay *r, int fd, uint64_t *unconfirmed)
{
	double until = clock_now() + (r->o->timeout_ms > 0 ? r->o->timeout_ms / 1000.0 : LINGER_SECONDS);
	uint64_t left = unacked_data(fd), held = left;
	int reading = !r->net_fin;

	*unconfirmed = 0;
	while (left > 0 && clock_now() < until) {
		struct pollfd p = { fd, POLLIN, 0 };

		if (!reading) {
			*unconfirmed = left;
			return 0;
		}
		if (poll(&p, 1, 10) > 0) {
			ssize_t n = read(fd, r->down.data, r->down.cap);

			if (n == 0)
				reading = 0; /* the peer's FIN: nothing more can come to answer with an RST */
			else if (n < 0 && errno != EAGAIN && errno != EINTR)
				return held; /* reset: the kernel threw away what it held */
		}
		held = left;
		left = unacked_data(fd);
	}
	if (left == 0 && net_socket_error(fd) != 0)
		return held; /* reset while not reading */
	return left;
}

int nc_relay(const struct nc_opts *o, int fd, const uint8_t *initial, size_t initlen,
	     struct nc_totals *t, const struct nc_events *ev)
{
	return nc_relay_io(o, NULL, fd, initial, initlen, t, ev);
}

int nc_relay_io(const struct nc_opts *o, const struct nc_io *io, int fd, const uint8_t *initial,
		size_t initlen, struct nc_totals *t, const struct nc_events *ev)
{
	struct relay r;
	double last_activity = clock_now();
	size_t bufsize;

	memset(&r, 0, sizeof(r));
	r.o = o;
	r.io = io ? io : &nc_system_io;
	r.t = t;
	r.ev = ev;
	bufsize = r.io->bufsize ? r.io->bufsize : RELAY_BUF;
	r.up.cap = bufsize;
	r.down.cap = bufsize > initlen + UDP_RECV_MAX ? bufsize : initlen + UDP_RECV_MAX;
	r.up.data = malloc(r.up.cap);
	r.down.data = malloc(r.down.cap);
	r.scratch = o->crlf ? malloc(r.up.cap / 2) : NULL;
	if (r.up.data == NULL || r.down.data == NULL || (o->crlf && r.scratch == NULL)) {
		free(r.up.data);
		free(r.down.data);
		free(r.scratch);
		r.io->close(r.io->ctx, fd);
		errno = ENOMEM;
		return -1;
	}
	if (initlen > 0)
		memcpy(r.down.data, initial, initlen);
	r.down.len = initlen;
	t->received += initlen;
	if (o->sndbuf > 0 && !o->udp) {
		/*
		 * -O fixes the send buffer (the kernel doubles the value and stops autotuning it). An
		 * offer larger than that buffer is taken as one segment as large as loopback's MSS, and
		 * the room for the next send then waits for the peer's delayed ACK (40 ms): 40 MB took
		 * 18 s. Offering at most the buffer's size keeps the ACKs flowing (docs/BENCHMARKS.md).
		 */
		int sb = 0;
		socklen_t sl = sizeof(sb);

		if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sb, &sl) == 0 && sb > 0)
			r.send_max = (size_t)sb;
	}
	r.pfd[P_STDIN].fd = o->no_stdin ? -1 : r.io->in_fd;
	r.pfd[P_NETOUT].fd = fd;
	r.pfd[P_NETIN].fd = fd;
	r.pfd[P_STDOUT].fd = r.io->out_fd;
	tick(&r);
	for (;;) {
		int n;

		if (finished(&r))
			break;
		set_interest(&r);
		n = poll_wanted(&r, wait_ms(&r, last_activity));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		tick(&r);
		if (n == 0) {
			if (o->timeout_ms > 0 && clock_now() >= last_activity + o->timeout_ms / 1000.0)
				break; /* -w: idle for too long */
			continue;
		}
		last_activity = clock_now();
		handle_conditions(&r);
		move_data(&r);
	}
	drop(&r, &r.up); /* what -w or a poll failure left behind */
	drop(&r, &r.down);
	if (r.io->close == sys_close && !o->udp && !o->unix_sock) {
		uint64_t unconfirmed;

		t->unacked += linger(&r, fd, &unconfirmed);
		t->unconfirmed += unconfirmed;
	}
	r.io->close(r.io->ctx, fd);
	if (o->quit_after > 0) {
		double until = clock_now() + o->quit_after;

		while (clock_now() < until) {
			double left = until - clock_now(), step = ev && ev->tick ? 1 : left;

			r.io->sleep(r.io->ctx, left < step ? left : step);
			tick(&r);
		}
	}
	free(r.up.data);
	free(r.down.data);
	free(r.scratch);
	return r.stop_keep;
}
