/* SPDX-License-Identifier: ISC */
/* sink.c - where get's received bytes go: MSG_TRUNC discard, splice, piped splice or copy,
 * and an output file that replaces FILE only once the transfer succeeds. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net.h"
#include "sink.h"
#include "tls.h"

/* The copy buffer and the most one splice asks for: big enough that
 * per-call costs vanish, small enough to stay in the pipe. */
#define IO_CHUNK (1u << 20)

enum sink_mode { SINK_DISCARD, SINK_SPLICE, SINK_PIPED_SPLICE, SINK_COPY };

struct sink {
	int sock, out, pipe[2];
	int own_out; /* out is ours to close (not stdout) */
	enum sink_mode mode;
	char *buf;   /* scratch for net_discard, or the copy buffer */
	const volatile sig_atomic_t *cancel;
	const char *output; /* borrowed path, for the rename */
	uint64_t in_pipe;   /* bytes spliced into our pipe, not yet out */
	uint64_t partial;   /* after an output error: bytes of that chunk that did get out */
	int waited_output;  /* the last sink_recv waited for the output, not the peer */
	char *tmp;	    /* -o FILE: the file beside FILE that becomes FILE on success */
	int truncate_late;  /* -o through a symlink: truncate once connected */
	struct tls_conn *tls; /* --tls: every byte is read through it */
	char tls_err[256];    /* why the last TLS read failed */
};

static int cancelled(const struct sink *k)
{
	return k->cancel && *k->cancel;
}

/* A write that would block, or a signal: wait for room unless the run
 * was interrupted (a stalled reader must not make us deaf to SIGTERM).
 * 0 to try again, -1 with errno EINTR to give up. */
static int wait_writable(const struct sink *k, int fd)
{
	if (errno == EAGAIN)
		return net_wait_cancel(fd, POLLOUT, -1, k->cancel) < 0 ? -1 : 0;
	if (cancelled(k)) {
		errno = EINTR;
		return -1;
	}
	return 0;
}

/* Write the buffer's first n bytes to the output, waiting for room (a stalled reader
 * still hears the cancel flag); k->partial says how many got out, also when it fails. */
static int write_out(struct sink *k, size_t n)
{
	struct net_write_how how = { .wait = 1, .cancel = k->cancel };
	size_t done;
	int rc = net_write_full(k->out, k->buf, n, &how, &done);

	k->partial = done;
	return rc;
}

/* Move the internal pipe's contents to the output. */
static int flush_pipe(struct sink *k)
{
	while (k->in_pipe > 0) {
		ssize_t n = splice(k->pipe[0], NULL, k->out, NULL, (size_t)k->in_pipe, SPLICE_F_MOVE);

		if (n < 0) {
			if ((errno == EINTR || errno == EAGAIN) && wait_writable(k, k->out) == 0)
				continue;
			return -1;
		}
		k->in_pipe -= (uint64_t)n;
	}
	return 0;
}

/* Receive up to want bytes. Returns bytes (> 0), 0 at EOF, -1 with errno
 * (EAGAIN: nothing now). Output errors come back as -2 with errno. */
void sink_set_tls(struct sink *k, struct tls_conn *tls)
{
	k->tls = tls;
}

const char *sink_tls_error(const struct sink *k)
{
	return k->tls_err;
}

/* A tls_read's result n as sink_recv's: n itself when >= 0, else -1 with errno. */
static ssize_t tls_result(struct sink *k, ssize_t n)
{
	if (n >= 0)
		return n;
	if (n == TLS_WANT_WRITE) { /* a key update to answer: wait for room, briefly */
		net_wait_cancel(k->sock, POLLOUT, 1000, k->cancel);
		errno = EINTR;
	} else {
		errno = n == TLS_WANT_READ ? EAGAIN : n == TLS_EIO ? errno : EPROTO;
	}
	return -1;
}

/* sink_recv over TLS: decrypt into the buffer, then write it out (no splice:
 * the kernel holds ciphertext). */
static ssize_t recv_tls(struct sink *k, size_t want)
{
	ssize_t n = tls_read(k->tls, k->buf, want < IO_CHUNK ? want : IO_CHUNK, k->tls_err,
			     sizeof(k->tls_err));

	if (n > 0 && k->out >= 0 && write_out(k, (size_t)n) < 0)
		return -2;
	return tls_result(k, n);
}

ssize_t sink_probe(struct sink *k)
{
	char probe;

	if (k->tls)
		return tls_result(k, tls_read(k->tls, &probe, 1, k->tls_err, sizeof(k->tls_err)));
	return recv(k->sock, &probe, 1, MSG_PEEK | MSG_DONTWAIT);
}

ssize_t sink_recv(struct sink *k, size_t want)
{
	ssize_t n;

	k->waited_output = 0;
	if (k->tls)
		return recv_tls(k, want);
	switch (k->mode) {
	case SINK_DISCARD:
		return net_discard(k->sock, k->buf, want < NET_DISCARD_MAX ? want : NET_DISCARD_MAX);
	case SINK_SPLICE:
		k->partial = 0;
		n = splice(k->sock, NULL, k->out, NULL, want, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n < 0 && errno == EAGAIN) {
			/* Either side may be the one not ready; wait for whichever. */
			struct pollfd p[2] = { { k->sock, POLLIN, 0 }, { k->out, POLLOUT, 0 } };

			if (poll(p, 2, 0) > 0 && (p[0].revents & POLLIN) && !(p[1].revents & (POLLOUT | POLLERR))) {
				net_wait_cancel(k->out, POLLOUT, 1000, k->cancel);
				k->waited_output = 1;
				errno = EINTR;
			}
			return -1;
		}
		if (n < 0 && errno != EINTR)
			return errno == EPIPE || errno == EBADF ? -2 : -1;
		return n;
	case SINK_PIPED_SPLICE:
		if (want > IO_CHUNK)
			want = IO_CHUNK;
		n = splice(k->sock, NULL, k->pipe[1], NULL, want, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0) {
			k->in_pipe += (uint64_t)n;
			if (flush_pipe(k) < 0) {
				k->partial = (uint64_t)n - k->in_pipe; /* the pipe was empty before */
				return -2;
			}
		}
		return n;
	case SINK_COPY:
		if (want > IO_CHUNK)
			want = IO_CHUNK;
		n = recv(k->sock, k->buf, want, MSG_DONTWAIT);
		if (n > 0 && write_out(k, (size_t)n) < 0)
			return -2;
		return n;
	}
	return -1;
}

/*
 * -o FILE must not lose FILE's old contents to a transfer that never
 * happens or fails half-way (a refused connect, an unknown host, a reset,
 * a full disk). A new or regular FILE is therefore written to a temporary
 * file beside it (same directory, so the rename cannot cross file
 * systems) and renamed over FILE only when the transfer succeeds; on
 * failure the temporary file is removed and FILE is as it was. Anything
 * else (a device, a FIFO, stdout through /dev/stdout, a symlink) is opened
 * in place, without O_TRUNC; a regular file reached through a symlink is
 * truncated only once the connection is up.
 * Returns the fd, or -1 with errno.
 */
static int open_output(struct sink *k, const char *output)
{
	struct stat sb;
	const char *slash = strrchr(output, '/');
	size_t dirlen = slash ? (size_t)(slash - output) + 1 : 0;
	int fd, exists = lstat(output, &sb) == 0;

	if (*output == '\0') {
		errno = ENOENT;
		return -1;
	}
	if (exists ? !S_ISREG(sb.st_mode) : errno != ENOENT) {
		fd = open(output, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
		if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
			k->truncate_late = 1;
		return fd;
	}
	/* rename(2) would replace a FILE we may not write: refuse it as open(2) would. */
	if (exists && access(output, W_OK) < 0)
		return -1;
	k->tmp = malloc(strlen(output) + sizeof("/..ncpv-XXXXXX"));
	if (k->tmp == NULL)
		return -1;
	/* "dir/.name.ncpv-XXXXXX": hidden, and named after what it will become. */
	sprintf(k->tmp, "%.*s.%s.ncpv-XXXXXX", (int)dirlen, output, output + dirlen);
	fd = mkostemp(k->tmp, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		free(k->tmp);
		k->tmp = NULL;
		/* A file we may write in a directory we may not: write it in place. */
		if ((e == EACCES || e == EPERM || e == EROFS) && access(output, W_OK) == 0) {
			k->truncate_late = 1;
			return open(output, O_WRONLY | O_CLOEXEC);
		}
		errno = e;
		return -1;
	}
	/* The mode FILE has, or would get from open(2) under the umask. */
	if (exists) {
		fchmod(fd, sb.st_mode & 07777);
	} else {
		mode_t mask = umask(0);

		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	return fd;
}

struct sink *sink_open(const char *output, const volatile sig_atomic_t *cancel, char *err,
		       size_t errlen)
{
	struct sink *k = calloc(1, sizeof(*k));
	struct stat sb;
	size_t scratch;

	if (k == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	k->sock = k->out = -1;
	k->pipe[0] = k->pipe[1] = -1;
	k->mode = SINK_DISCARD;
	k->cancel = cancel;
	k->output = output;
	/* Scratch for net_discard, or the copy buffer: untouched pages cost no RSS. */
	scratch = IO_CHUNK;
	if (scratch < NET_DISCARD_MAX)
		scratch = NET_DISCARD_MAX;
	k->buf = malloc(scratch);
	if (k->buf == NULL) {
		snprintf(err, errlen, "out of memory");
		sink_free(k);
		return NULL;
	}
	if (output == NULL)
		return k;
	if (strcmp(output, "-") == 0) {
		k->out = STDOUT_FILENO;
	} else {
		k->out = open_output(k, output);
		if (k->out < 0) {
			snprintf(err, errlen, "cannot open output '%s': %s", output, strerror(errno));
			sink_free(k);
			return NULL;
		}
		k->own_out = 1;
	}
	if (fstat(k->out, &sb) == 0 && S_ISFIFO(sb.st_mode)) {
		k->mode = SINK_SPLICE;
	} else if (fstat(k->out, &sb) == 0 && S_ISREG(sb.st_mode) &&
		   !(fcntl(k->out, F_GETFL) & O_APPEND) && pipe2(k->pipe, O_CLOEXEC) == 0) {
		fcntl(k->pipe[1], F_SETPIPE_SZ, IO_CHUNK);
		k->mode = SINK_PIPED_SPLICE;
	} else {
		k->mode = SINK_COPY;
	}
	return k;
}

int sink_connected(struct sink *k, int sock)
{
	k->sock = sock;
	/* From now on, truncating FILE in place loses nothing that will not come. */
	return k->truncate_late && ftruncate(k->out, 0) < 0 ? -1 : 0;
}

uint64_t sink_partial(const struct sink *k)
{
	return k->partial;
}

int sink_waited_output(const struct sink *k)
{
	return k->waited_output;
}

int sink_commit(struct sink *k)
{
	if (k->tmp == NULL)
		return 0;
	if (rename(k->tmp, k->output) < 0)
		return -1;
	free(k->tmp);
	k->tmp = NULL;
	return 0;
}

void sink_free(struct sink *k)
{
	if (k == NULL)
		return;
	if (k->own_out)
		close(k->out);
	if (k->tmp) {
		unlink(k->tmp);
		free(k->tmp);
	}
	if (k->pipe[0] >= 0) {
		close(k->pipe[0]);
		close(k->pipe[1]);
	}
	free(k->buf);
	free(k);
}
