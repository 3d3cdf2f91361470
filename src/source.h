/* SPDX-License-Identifier: ISC */
/* source.h - where sent bytes come from: fresh random data, zeros, a file, or a device. */
#ifndef NCPV_SOURCE_H
#define NCPV_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum source_kind {
	SOURCE_RANDOM, /* xoshiro256+ seeded from getrandom(2); never repeats a buffer */
	SOURCE_ZERO,   /* zero bytes */
	SOURCE_FILE,   /* a regular file: sent with sendfile(2) at a caller's offset */
	SOURCE_STREAM, /* anything else readable (/dev/urandom, a FIFO): read into a shared pool */
	SOURCE_REPEAT  /* -Z: one block of random data in a memfd, sent over and over with sendfile(2) */
};

/* -Z's block: large enough that a link's compressor with a window of a few MiB or less sees
 * no repeat inside it; small enough to stay in the page cache's warm pages (1-16 MiB measured
 * alike on loopback, docs/BENCHMARKS.md). */
#define SOURCE_REPEAT_BLOCK ((size_t)4 * 1024 * 1024)

struct source;

/* spec: "random", "urandom", "zero", or a path. Returns NULL with a
 * one-line reason in err. The source owns its pool and any fd it opened. */
struct source *source_open(const char *spec, char *err, size_t errlen);
/* -Z: block bytes of random data (seeded from getrandom(2)) in a memfd, sent from it with
 * sendfile(2): no copy of the bytes per send, and no generator, at the price of data that
 * repeats every block bytes. NULL with err as source_open. */
struct source *source_open_repeat(size_t block, char *err, size_t errlen);
void source_free(struct source *s);

enum source_kind source_kind(const struct source *s);
const char *source_name(const struct source *s);

/* The open file (SOURCE_FILE, SOURCE_STREAM; -1 for the others, SOURCE_REPEAT's too): poll
 * it for POLLIN after source_peek fails with EAGAIN. Borrowed. */
int source_fd(const struct source *s);
/* SOURCE_FILE only: its size when opened. */
uint64_t source_size(const struct source *s);
/* SOURCE_FILE only: its size now (fstat), for a sender that snapshots the
 * size per transfer; the size when opened if fstat fails. */
uint64_t source_size_now(const struct source *s);

/*
 * Bytes ready to send, shared by every connection of the process: *data
 * points at up to max fresh bytes, valid until the next call on s. Report
 * how many were really sent with source_consume, so that no byte of a
 * random or stream source is ever sent twice. Returns the count (> 0), 0
 * at the end of a stream source, or -1 with errno on a read error.
 * A stream source never blocks (it is O_NONBLOCK once opened): with no
 * bytes ready now it fails with errno EAGAIN; wait for source_fd to be
 * readable and ask again. Only source_open may block (a FIFO with no
 * writer yet). Not for SOURCE_FILE, whose bytes depend on each
 * connection's offset.
 */
ssize_t source_peek(struct source *s, size_t max, const void **data);
void source_consume(struct source *s, size_t n);

/* What source_send returns when it sent nothing and the socket is not to blame. */
#define SOURCE_SEND_WAIT (-2)  /* a stream source has nothing now: poll source_fd for POLLIN */
#define SOURCE_SEND_EREAD (-3) /* reading the source failed: errno says why */

/*
 * One non-blocking send of up to max bytes of s to the socket sock: for a
 * SOURCE_FILE, sendfile(2) from the file's offset pos (the caller keeps
 * pos + max within the size it took); for the others source_peek, send(2)
 * and source_consume of what went out (pos is ignored). Returns the bytes
 * sent (> 0); for SOURCE_REPEAT, sendfile(2) from the block's next offset (pos is
 * ignored: every offset of it is as good); 0 at the source's end (a stream that ended, or a file with
 * nothing at pos: it shrank); SOURCE_SEND_WAIT; SOURCE_SEND_EREAD with
 * errno; or -1 with errno from the socket (EAGAIN: it is full). Never
 * raises SIGPIPE for a send(2); sendfile(2) does, so callers ignore it.
 */
ssize_t source_send(struct source *s, int sock, uint64_t pos, size_t max);

/* Fill buf with fresh pseudo-random bytes from a generator seeded once from
 * getrandom(2) (exposed for tests and benchmarks). len is any size. */
void source_random_fill(struct source *s, void *buf, size_t len);

#endif
