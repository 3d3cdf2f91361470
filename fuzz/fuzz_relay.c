/* SPDX-License-Identifier: ISC */
/* fuzz_relay.c - schedule fuzzer for nc's relay (src/nc/nc_relay.c) through a fake I/O layer.
 *
 * The input picks the options (-C -i -u -d -N -l -q 0), the buffer size, how much stdin and the
 * peer send, and then a schedule: each fake call (poll, read, write, send) takes one byte that
 * decides whether it is interrupted (EINTR, as a signal would), would block (EAGAIN), or moves
 * a short or full amount; two more bytes can make the peer reset or stdout fail at a given call.
 * When the schedule runs out every call succeeds in full, so every run ends.
 * poll reports POLLHUP as Linux does: also on an input not polled for POLLIN that still has data.
 *
 * Invariants (abort on breach):
 *  - no read of 0 bytes is ever asked for, and nothing is read after a read returned 0 (EOF);
 *  - nothing is sent after the write side was shut down or the socket closed; one close;
 *  - the peer receives a prefix of stdin as -C transforms it (LF -> CRLF), stdout a prefix of
 *    what the peer sent; a UDP datagram is at most 16 KiB;
 *  - every byte read is either delivered or counted in totals.dropped (so a report can say
 *    whether all arrived), and sent/received count exactly what moved;
 *  - a TCP client without faults delivers everything both ways (UDP and listeners may stop
 *    early by nc's rules); a poll that could never return (nothing to wait for) is a hang.
 */
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>

#include "fuzz.h"
#include "../src/nc/nc.h"

enum { FD_IN = 100, FD_OUT = 101, FD_NET = 102 };
#define HDR 10
#define UDP_DATAGRAM_MAX 16384
#define MAX_CALLS 10000000L

struct fake {
	const uint8_t *sched;
	size_t slen, spos;
	long calls, fault_at;
	int fault_kind; /* 0 none, 1 peer resets, 2 stdout fails */
	int faulted, udp;
	const uint8_t *in, *netin;
	size_t in_len, in_pos, netin_len, netin_pos;
	int in_eof, netin_eof, wr_shut, rd_shut, closes;
	uint8_t *peer, *out;
	size_t peer_len, out_len;
	int stalled;
};

static uint8_t step(struct fake *f)
{
	if (++f->calls > MAX_CALLS)
		abort(); /* the relay spins without end */
	if (f->fault_kind && f->calls >= f->fault_at)
		f->faulted = 1;
	return f->spos < f->slen ? f->sched[f->spos++] : 0xff;
}

/* How much of len a call moves, or -1 with errno set (EINTR or EAGAIN). */
static ssize_t amount(struct fake *f, size_t len)
{
	uint8_t b = step(f);

	if (b < 16) {
		errno = EINTR;
		return -1;
	}
	if (b < 40) {
		errno = EAGAIN;
		return -1;
	}
	return (ssize_t)(len * (size_t)(b - 39) / 216 + 1 > len ? len : len * (size_t)(b - 39) / 216 + 1);
}

/* One call moving up to len bytes (at most limit; all of len when whole) from src to dst: -1
 * with err once the fault of kind `fault` struck, or as the schedule says (EINTR, EAGAIN). */
static ssize_t transfer(struct fake *f, int fault, int err, void *dst, const void *src, size_t len,
			size_t limit, int whole)
{
	ssize_t n;

	if (f->faulted && f->fault_kind == fault) {
		errno = err;
		return -1;
	}
	if ((n = amount(f, len)) < 0)
		return n;
	if (whole)
		n = (ssize_t)len;
	if ((size_t)n > limit)
		n = (ssize_t)limit;
	memcpy(dst, src, (size_t)n);
	return n;
}

static ssize_t fake_read(void *ctx, int fd, void *buf, size_t len)
{
	struct fake *f = ctx;
	ssize_t n;

	if (len == 0)
		abort(); /* read(2) of 0 bytes returns 0: it would be taken for EOF */
	if (fd == FD_IN) {
		if (f->in_eof)
			abort(); /* read after EOF */
		n = transfer(f, -1, 0, buf, f->in + f->in_pos, len, f->in_len - f->in_pos, 0);
		if (n >= 0) {
			f->in_pos += (size_t)n;
			f->in_eof = n == 0;
		}
		return n;
	}
	if (fd != FD_NET || f->closes || f->rd_shut || f->netin_eof)
		abort();
	if (f->udp && f->netin_pos == f->netin_len && !f->faulted) {
		errno = EAGAIN; /* a datagram socket never ends: nothing more comes */
		return -1;
	}
	n = transfer(f, 1, ECONNRESET, buf, f->netin + f->netin_pos, len, f->netin_len - f->netin_pos, 0);
	if (n >= 0) {
		f->netin_pos += (size_t)n;
		f->netin_eof = n == 0;
	}
	return n;
}

static ssize_t fake_write(void *ctx, int fd, const void *buf, size_t len)
{
	struct fake *f = ctx;
	ssize_t n;

	if (fd != FD_OUT || len == 0)
		abort();
	n = transfer(f, 2, EPIPE, f->out + f->out_len, buf, len, len, 0);
	if (n > 0)
		f->out_len += (size_t)n;
	return n;
}

static ssize_t fake_send(void *ctx, int fd, const void *buf, size_t len, int flags)
{
	struct fake *f = ctx;
	ssize_t n;

	(void)flags;
	if (fd != FD_NET || f->closes || f->wr_shut || len == 0)
		abort(); /* nothing after the end */
	if (f->udp && len > UDP_DATAGRAM_MAX)
		abort();
	/* A datagram goes whole or not at all. */
	n = transfer(f, 1, ECONNRESET, f->peer + f->peer_len, buf, len, len, f->udp);
	if (n > 0)
		f->peer_len += (size_t)n;
	return n;
}

/* Can fd ever have something to report? */
static int ready(const struct fake *f, const struct pollfd *p, int i)
{
	if (p->fd < 0 || p->events == 0)
		return 0;
	if (i == 2 && f->udp && f->netin_pos == f->netin_len && !(f->faulted && f->fault_kind == 1))
		return 0; /* UDP: the peer has nothing more to send */
	return 1;
}

static int fake_poll(void *ctx, struct pollfd *pfd, nfds_t n, int timeout_ms)
{
	struct fake *f = ctx;
	uint8_t b = step(f);
	int count = 0, any = 0;

	(void)timeout_ms;
	if (b < 8) {
		errno = EINTR;
		return -1;
	}
	for (nfds_t i = 0; i < n; i++)
		any |= ready(f, &pfd[i], (int)i);
	if (!any) {
		if (!f->udp)
			abort(); /* TCP with nothing to wait for: a hang */
		f->stalled = 1; /* nc -u waits for replies that never come */
		errno = EBADF;
		return -1;
	}
	for (nfds_t i = 0; i < n; i++) {
		/* Low bits withhold readiness; all withheld means all ready. */
		int on = ready(f, &pfd[i], (int)i) && !(b & (1u << i) && b < 0x80);

		pfd[i].revents = on ? pfd[i].events : 0;
		/* A closed pipe without data reports POLLHUP alone, as Linux does. */
		if (on && i == 0 && f->in_pos == f->in_len && (b & 0x10))
			pfd[i].revents = POLLHUP;
		/*
		 * Linux reports POLLHUP whatever was asked for, data or not: on stdin, whose writer is
		 * gone (all of it is written from the start), and on a TCP socket after SHUT_WR, the
		 * peer's FIN being there from the start too. An input not polled for POLLIN sees it.
		 */
		if (!on && pfd[i].fd >= 0 && pfd[i].events == 0 && (b & 0x20) &&
		    (i == 0 || (i == 2 && !f->udp && f->wr_shut))) {
			pfd[i].revents = POLLHUP;
			on = 1;
		}
		count += on;
	}
	if (count == 0)
		for (nfds_t i = 0; i < n; i++)
			if (ready(f, &pfd[i], (int)i)) {
				pfd[i].revents = pfd[i].events;
				count++;
			}
	return count;
}

static int fake_shutdown(void *ctx, int fd, int how)
{
	struct fake *f = ctx;

	if (fd != FD_NET || f->closes)
		abort();
	if (how == SHUT_WR || how == SHUT_RDWR)
		f->wr_shut = 1;
	if (how == SHUT_RD || how == SHUT_RDWR)
		f->rd_shut = 1;
	return 0;
}

static int fake_close(void *ctx, int fd)
{
	struct fake *f = ctx;

	if (fd != FD_NET)
		abort();
	f->closes++;
	return 0;
}

static void fake_sleep(void *ctx, double seconds)
{
	(void)ctx;
	(void)seconds;
}

/* The bytes a -C relay puts on the wire for in[0..len): LF not after CR becomes CRLF. */
static size_t crlf(const uint8_t *in, size_t len, uint8_t *out)
{
	size_t n = 0;
	int prev_cr = 0;

	for (size_t i = 0; i < len; i++) {
		if (in[i] == '\n' && !prev_cr)
			out[n++] = '\r';
		out[n++] = in[i];
		prev_cr = in[i] == '\r';
	}
	return n;
}

/* Data with a line feed (or carriage return) about every `every` bytes. */
static void make_data(uint8_t *buf, size_t len, uint32_t seed, unsigned every)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (uint8_t)('a' + x % 26);
		if (x / 26 % (every + 1) == 0)
			buf[i] = x & 0x100 ? '\r' : '\n';
	}
}

static struct nc_opts opts; /* large (the port list): not on the stack */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t bufsizes[] = { 16, 17, 31, 64, 100, 255, 1024, 4096, 0 };
	struct nc_totals t;
	struct nc_io io;
	struct fake f;
	uint8_t *in, *netin, *want;
	size_t want_len, in_len, netin_len;
	uint8_t flags;
	int rc;

	if (size < HDR)
		return 0;
	flags = data[0];
	memset(&opts, 0, sizeof(opts));
	opts.crlf = flags & 1;
	opts.interval = flags & 2 ? 0.5 : 0;
	opts.udp = (flags & 4) != 0;
	opts.no_stdin = (flags & 8) != 0;
	opts.shutdown_on_eof = (flags & 16) != 0;
	opts.listen = (flags & 32) != 0;
	opts.quit_after = flags & 64 || opts.udp ? 0 : -1; /* nc -u needs -q to end */
	opts.timeout_ms = -1;
	opts.ttl = opts.minttl = opts.tos = -1;
	in_len = (size_t)(data[2] | data[3] << 8) % 40000;
	netin_len = (size_t)(data[4] | data[5] << 8) % 40000;
	in = malloc(in_len + 1);
	netin = malloc(netin_len + 1);
	want = malloc(2 * in_len + 1);
	memset(&f, 0, sizeof(f));
	f.peer = malloc(2 * in_len + 1);
	f.out = malloc(netin_len + 1);
	if (!in || !netin || !want || !f.peer || !f.out)
		abort();
	make_data(in, in_len, data[7], data[6] % 64);
	make_data(netin, netin_len, data[7] + 1u, data[6] / 64 * 20);
	f.sched = data + HDR;
	f.slen = size - HDR;
	f.fault_kind = data[8] % 8 == 1 ? 1 : data[8] % 8 == 2 ? 2 : 0;
	f.fault_at = 1 + data[9] * 4;
	f.udp = opts.udp;
	f.in = in;
	f.in_len = in_len;
	f.netin = netin;
	f.netin_len = netin_len;
	io = (struct nc_io){ fake_read, fake_write, fake_send, fake_poll, fake_shutdown, fake_close,
			     fake_sleep, &f, FD_IN, FD_OUT, bufsizes[data[1] % 9] };
	memset(&t, 0, sizeof(t));

	rc = nc_relay_io(&opts, &io, FD_NET, NULL, 0, &t, NULL);

	want_len = opts.crlf ? crlf(in, f.in_pos, want) : f.in_pos;
	if (!opts.crlf)
		memcpy(want, in, f.in_pos);
	if (rc < 0 || f.closes != 1)
		abort();
	if (f.peer_len > want_len || memcmp(f.peer, want, f.peer_len) != 0)
		abort(); /* the peer got something stdin did not say */
	if (f.out_len > f.netin_pos || memcmp(f.out, netin, f.out_len) != 0)
		abort(); /* stdout got something the peer did not send */
	if (t.sent != f.peer_len || t.received != f.netin_pos)
		abort();
	if (t.dropped != (want_len - f.peer_len) + (f.netin_pos - f.out_len))
		abort(); /* bytes read, neither delivered nor counted as lost */
	if (!opts.udp && !opts.listen && !f.fault_kind) {
		/* A TCP client with healthy ends delivers everything both ways. */
		if (!opts.no_stdin && (f.in_pos != in_len || f.peer_len != want_len))
			abort();
		if (f.netin_pos != netin_len || f.out_len != netin_len)
			abort();
	}
	if (f.stalled && !opts.udp)
		abort();
	free(in);
	free(netin);
	free(want);
	free(f.peer);
	free(f.out);
	return 0;
}
