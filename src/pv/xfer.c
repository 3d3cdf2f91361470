/* SPDX-License-Identifier: ISC */
/* xfer.c - pv's data path: one input at a time to one output, by splice or read/write. */
#include "xfer.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../net.h"

/* -E skips grow from one byte up to this, doubling on each error in a row. */
#define SKIP_MAX 512

/* -K: turn O_DIRECT on or off for fd; 0, or -1 (the file system may not have it). */
static int set_direct(int fd, int on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -1;
	return fcntl(fd, F_SETFL, on ? fl | O_DIRECT : fl & ~O_DIRECT);
}

static int is_pipe(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

/* The output is /dev/null (the same character device, however reached): what is written there
 * goes nowhere. */
static int is_null(int fd)
{
	struct stat st, null;

	return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && stat("/dev/null", &null) == 0 &&
	       S_ISCHR(null.st_mode) && st.st_rdev == null.st_rdev;
}

/* A TCP connection: recv(MSG_TRUNC) takes its bytes off the connection without copying them. */
static int is_tcp(int fd)
{
	int type = 0, domain = 0;
	socklen_t len = sizeof(type), dlen = sizeof(domain);

	return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM &&
	       getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &dlen) == 0 &&
	       (domain == AF_INET || domain == AF_INET6);
}

struct pv_xfer {
	int in, out;
	struct pv_xfer_opts o;	/* as given, but no_splice also set by -K and -O, and
				 * sparse only where the output can seek */
	int in_splice;		/* splice may be tried for this input */
	int out_pipe;		/* the output is a pipe */
	int out_null;		/* the output is /dev/null */
	int in_drop;		/* a TCP input into /dev/null: received, counted, never copied */
	int hole_at_end;	/* the last thing done to the output was a seek */
	unsigned char *buf;	/* o.buffer_size bytes */
	size_t pend_off, pend_len; /* read but not yet written */
	size_t tail_off, tail_len; /* line mode: read, beyond the line limit, not yet counted */
	unsigned char last[DISPLAY_LAST_MAX]; /* the last bytes written, for -A */
	size_t last_len;
	int keep_last;		/* last[] is kept (from the first display on, as pv) */
	uint64_t skip, skip_at, skip_len; /* -E: next skip size, and the range last skipped */
	int skip_errno;
};

struct pv_xfer *pv_xfer_new(int out, const struct pv_xfer_opts *o)
{
	struct pv_xfer *x = calloc(1, sizeof(*x));

	if (x == NULL)
		return NULL;
	x->in = -1;
	x->out = out;
	x->o = *o;
	if (x->o.direct)
		x->o.no_splice = 1; /* the page cache is what -K avoids: read and write, not splice */
	/* -O needs an output that can seek; elsewhere it writes as usual. */
	x->o.sparse = o->sparse && out >= 0 && lseek(out, 0, SEEK_CUR) >= 0;
	if (x->o.sparse)
		x->o.no_splice = 1;
	x->out_pipe = out >= 0 && is_pipe(out);
	x->out_null = out >= 0 && is_null(out);
	/* Page-aligned, as O_DIRECT (-K) requires of the memory it reads into and writes from. */
	if (posix_memalign((void **)&x->buf, 4096, x->o.buffer_size) != 0)
		x->buf = NULL;
	if (x->o.direct && out >= 0)
		(void)set_direct(out, 1);
	if (x->buf == NULL) {
		free(x);
		errno = ENOMEM;
		return NULL;
	}
	return x;
}

void pv_xfer_free(struct pv_xfer *x)
{
	if (x == NULL)
		return;
	free(x->buf);
	free(x);
}

int pv_xfer_output(const struct pv_xfer *x)
{
	return x->out;
}

int pv_xfer_output_is_pipe(const struct pv_xfer *x)
{
	return x->out_pipe;
}

int pv_xfer_output_is_null(const struct pv_xfer *x)
{
	return x->out_null;
}

int pv_xfer_input_dropped(const struct pv_xfer *x)
{
	return x->in_drop;
}

const unsigned char *pv_xfer_last(const struct pv_xfer *x, size_t *len)
{
	*len = x->last_len;
	return x->last;
}

void pv_xfer_skipped(const struct pv_xfer *x, uint64_t *at, uint64_t *len, int *err)
{
	*at = x->skip_at;
	*len = x->skip_len;
	*err = x->skip_errno;
}

void pv_xfer_set_input(struct pv_xfer *x, int in)
{
	if (x->o.direct)
		(void)set_direct(in, 1); /* refused by pipes and some file systems: then cached */
	x->in = in;
	x->pend_off = x->pend_len = x->tail_len = 0;
	x->skip = 1;
	/* splice needs a pipe on one side; the bytes are never seen then. */
	x->in_splice = !x->o.no_splice && !x->o.count_lines && !x->o.discard && !x->o.sync &&
		       (x->out_pipe || is_pipe(in));
	/* From a TCP connection into /dev/null the bytes need not reach our memory at all (where
	 * nothing needs them: the same conditions as splice's). pv reads and writes them. */
	x->in_drop = !x->in_splice && x->out_null && !x->o.no_splice && !x->o.count_lines &&
		     !x->o.sync && !x->o.skip_errors && is_tcp(in);
}

void pv_xfer_grow_pipe(int fd, size_t size)
{
	int cur = fcntl(fd, F_GETPIPE_SZ);

	if (cur > 0 && (size_t)cur < size)
		(void)fcntl(fd, F_SETPIPE_SZ, (int)size);
}

int pv_xfer_buffer_percent(const struct pv_xfer *x)
{
	if (x->in_splice || x->o.buffer_size == 0)
		return -1;
	return (int)(x->pend_len * 100 / x->o.buffer_size);
}

void pv_xfer_keep_last(struct pv_xfer *x)
{
	x->keep_last = 1;
}

/* Keep the tail of what went out, for -A. */
static void remember_last(struct pv_xfer *x, const unsigned char *p, size_t n)
{
	size_t cap = sizeof(x->last);

	if (!x->keep_last)
		return;

	if (n >= cap) {
		memcpy(x->last, p + n - cap, cap);
		x->last_len = cap;
		return;
	}
	if (x->last_len + n > cap) {
		size_t drop = x->last_len + n - cap;

		memmove(x->last, x->last + drop, x->last_len - drop);
		x->last_len -= drop;
	}
	memcpy(x->last + x->last_len, p, n);
	x->last_len += n;
}

uint64_t pv_count_byte(const unsigned char *p, size_t n, unsigned char c)
{
	const uint64_t ones = 0x0101010101010101u, low7 = 0x7f7f7f7f7f7f7f7fu;
	const uint64_t pattern = ones * c;
	uint64_t total = 0;
	size_t i = 0;

	/* Eight bytes at a time: a byte equal to c becomes 0 after the XOR, and only a zero
	 * byte keeps its high bit clear in (v & 0x7f..) + 0x7f.. | v. Exact, no false hits;
	 * -0 on NUL-dense data is one line per byte, where a memchr per line costs 10x. */
	for (; i + 8 <= n; i += 8) {
		uint64_t v, z;

		memcpy(&v, p + i, 8);
		v ^= pattern;
		z = ~(((v & low7) + low7) | v) & ~low7;
		total += ((z >> 7) * ones) >> 56;
	}
	for (; i < n; i++)
		total += p[i] == c;
	return total;
}

static uint64_t count_eol(const unsigned char *p, size_t n, unsigned char eol, uint64_t limit,
			  size_t *cut)
{
	const unsigned char *end = p + n, *q = p;
	uint64_t c;

	*cut = n;
	/* Usually the buffer holds fewer lines than the limit: count them at full speed. */
	c = pv_count_byte(p, n, eol);
	if (c < limit)
		return c;
	c = 0;
	while (q < end && (q = memchr(q, eol, (size_t)(end - q))) != NULL) {
		q++;
		if (++c == limit) {
			*cut = (size_t)(q - p);
			break;
		}
	}
	return c;
}

int64_t pv_count_lines(int fd, off_t at, unsigned char eol)
{
	static unsigned char buf[1 << 16];
	int64_t lines = 0;
	ssize_t n;

	while ((n = pread(fd, buf, sizeof(buf), at)) > 0) {
		lines += (int64_t)pv_count_byte(buf, (size_t)n, eol);
		at += n;
	}
	return n < 0 ? -1 : lines;
}

static enum pv_step splice_step(struct pv_xfer *x, uint64_t max, uint64_t *bytes)
{
	size_t want = max < (1u << 30) ? (size_t)max : (1u << 30);
	ssize_t n = splice(x->in, NULL, x->out, NULL, want, SPLICE_F_MORE);

	if (n > 0) {
		*bytes += (uint64_t)n;
		return PV_STEP_MOVED;
	}
	if (n == 0)
		return PV_STEP_EOF;
	if (errno == EAGAIN) {
		net_wait_once(x->in, POLLIN, -1);
		net_wait_once(x->out, POLLOUT, -1);
		return PV_STEP_AGAIN;
	}
	if (errno == EINTR)
		return PV_STEP_AGAIN;
	if (errno == EINVAL || errno == ENOSYS || errno == EBADF) {
		/* This pair cannot splice (or no longer can): copy instead. */
		x->in_splice = 0;
		return PV_STEP_MOVED;
	}
	/* EPIPE and friends concern the output; anything else, the input. */
	if (errno == EPIPE || errno == ENOSPC || errno == EDQUOT || errno == EFBIG)
		return PV_STEP_WRITE_ERR;
	return PV_STEP_READ_ERR;
}

/* -E: replace an unreadable range with zeros and move past it. */
/* -O works in blocks of this many bytes: a block of zeros becomes a hole. */
#define SPARSE_BLOCK 4096

static int all_zero(const unsigned char *p, size_t n)
{
	return n > 0 && p[0] == 0 && memcmp(p, p + 1, n - 1) == 0;
}

/* The length of the run of whole zero blocks at p (0 when the first block has data). */
static size_t zero_run(const unsigned char *p, size_t n)
{
	size_t k = 0;

	while (k + SPARSE_BLOCK <= n && all_zero(p + k, SPARSE_BLOCK))
		k += SPARSE_BLOCK;
	/* A short zero tail is a hole too when it ends the buffer. */
	if (k < n && n - k < SPARSE_BLOCK && all_zero(p + k, n - k))
		k = n;
	return k;
}

/* The length of the run of blocks with data at p, up to the next zero block. */
static size_t data_run(const unsigned char *p, size_t n)
{
	size_t k = 0;

	do
		k += SPARSE_BLOCK;
	while (k + SPARSE_BLOCK <= n && !all_zero(p + k, SPARSE_BLOCK));
	return k < n ? k : n;
}

int pv_xfer_finish(struct pv_xfer *x)
{
	off_t end;

	/* Ending on a hole: the length that the skipped zeros stand for. */
	if (!x->hole_at_end)
		return 0;
	end = lseek(x->out, 0, SEEK_CUR);
	return end < 0 || ftruncate(x->out, end) < 0 ? -1 : 0;
}

static enum pv_step skip_error(struct pv_xfer *x, uint64_t max)
{
	off_t at = lseek(x->in, 0, SEEK_CUR);
	size_t n = x->skip;

	x->skip_errno = errno;
	if (at < 0)
		return PV_STEP_READ_ERR;
	/* -Z: on to the next block boundary instead of growing skips. */
	if (x->o.skip_block > 0)
		n = (size_t)(x->o.skip_block - (uint64_t)at % x->o.skip_block);
	if (n > max)
		n = (size_t)max;
	if (n > x->o.buffer_size)
		n = x->o.buffer_size;
	if (lseek(x->in, (off_t)n, SEEK_CUR) < 0)
		return PV_STEP_READ_ERR;
	memset(x->buf, 0, n);
	x->pend_off = 0;
	x->pend_len = n;
	x->skip_at = (uint64_t)at;
	x->skip_len = n;
	if (x->skip < SKIP_MAX)
		x->skip *= 2;
	return PV_STEP_SKIPPED;
}

enum pv_step pv_xfer_step(struct pv_xfer *x, uint64_t max, uint64_t max_lines, uint64_t *bytes,
			  uint64_t *lines)
{
	if (max == 0)
		return PV_STEP_MOVED;
	int fresh = x->pend_len == 0; /* bytes not counted yet */

	if (x->pend_len == 0 && x->tail_len > 0) {
		/* Line mode: what a line limit held back last time goes first. */
		x->pend_off = x->tail_off;
		x->pend_len = x->tail_len;
		x->tail_len = 0;
	} else if (x->pend_len == 0) {
		size_t want = max < x->o.buffer_size ? (size_t)max : x->o.buffer_size;
		ssize_t n;

		if (x->in_splice)
			return splice_step(x, max, bytes);
		if (x->o.direct && want >= 4096)
			want &= ~(size_t)4095; /* O_DIRECT reads whole blocks */
		n = x->in_drop ? recv(x->in, x->buf, want, MSG_TRUNC) : read(x->in, x->buf, want);
		if (n < 0 && errno == EINVAL && x->o.direct && set_direct(x->in, 0) == 0)
			n = read(x->in, x->buf, want); /* an unaligned length: this read without O_DIRECT */
		if (n == 0)
			return PV_STEP_EOF;
		if (n < 0) {
			if (errno == EAGAIN)
				net_wait_once(x->in, POLLIN, -1);
			if (errno == EINTR || errno == EAGAIN)
				return PV_STEP_AGAIN;
			if (x->o.skip_errors)
				return skip_error(x, max);
			return PV_STEP_READ_ERR;
		}
		x->skip = 1;
		if (x->in_drop) {
			*bytes += (uint64_t)n; /* nothing to write: /dev/null would drop it */
			return PV_STEP_MOVED;
		}
		x->pend_off = 0;
		x->pend_len = (size_t)n;
	}
	if (x->o.count_lines && fresh) {
		size_t cut;

		*lines += count_eol(x->buf + x->pend_off, x->pend_len, x->o.eol, max_lines, &cut);
		/* Past max_lines (-L or -S in line mode): the rest waits for the next step. */
		x->tail_off = x->pend_off + cut;
		x->tail_len = x->pend_len - cut;
		x->pend_len = cut;
	}
	while (x->pend_len > 0) {
		ssize_t n;

		size_t zeros = x->o.sparse ? zero_run(x->buf + x->pend_off, x->pend_len) : 0;

		if (x->o.discard) {
			n = (ssize_t)x->pend_len;
		} else if (zeros > 0) {
			/* -O: a hole instead of written zeros; the file's length is set at the end. */
			if (lseek(x->out, (off_t)zeros, SEEK_CUR) < 0)
				return PV_STEP_WRITE_ERR;
			n = (ssize_t)zeros;
			x->hole_at_end = 1;
		} else {
			size_t len = x->o.sparse ? data_run(x->buf + x->pend_off, x->pend_len) : x->pend_len;

			n = write(x->out, x->buf + x->pend_off, len);
			if (n < 0 && errno == EINVAL && x->o.direct && set_direct(x->out, 0) == 0)
				n = write(x->out, x->buf + x->pend_off, len); /* the unaligned tail */
			x->hole_at_end = 0;
			if (n < 0) {
				if (errno == EAGAIN)
					net_wait_once(x->out, POLLOUT, -1);
				if (errno == EINTR || errno == EAGAIN)
					return PV_STEP_MOVED;
				return PV_STEP_WRITE_ERR;
			}
			if (x->o.sync && fdatasync(x->out) < 0 && errno != EINVAL && errno != EROFS)
				return PV_STEP_WRITE_ERR;
		}
		remember_last(x, x->buf + x->pend_off, (size_t)n);
		x->pend_off += (size_t)n;
		x->pend_len -= (size_t)n;
		*bytes += (uint64_t)n;
	}
	return PV_STEP_MOVED;
}
