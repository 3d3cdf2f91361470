/* SPDX-License-Identifier: ISC */
/* repbuf.h - a small source file's content, repeated in memory to fill a buffer, for serve.
 * A --size transfer longer than its file sends the file again and again; with a file of a
 * few bytes, sendfile(2) from it moved a few bytes a call (1 byte a call for a 1-byte file:
 * 13 KB/s a client, and clients stalled for 40 s under load). Connections that start while
 * the file has the same identity, size and time of change share one buffer; each keeps the
 * one it started with, so a file that changes later does not change their bytes. */
#ifndef NCPV_REPBUF_H
#define NCPV_REPBUF_H

#include <stddef.h>
#include <stdint.h>

/* Files shorter than this are served from a repbuf; the buffer holds whole copies of the
 * file, at least REPBUF_FILL bytes of them (less than REPBUF_FILL + REPBUF_SMALL in all). */
#define REPBUF_SMALL ((uint64_t)64 * 1024)
#define REPBUF_FILL ((size_t)64 * 1024)

struct repbuf;

/*
 * A reference to the repeated content of the file open on fd, whose size the caller took
 * as fsize (1 to REPBUF_SMALL - 1): *cache's when it was made from the same file, size
 * and change time, else a new one, which then replaces *cache (the old one lives on for
 * the connections that hold it). NULL with errno on failure (EIO: the file is shorter
 * than fsize now). Release with repbuf_put.
 */
struct repbuf *repbuf_get(struct repbuf **cache, int fd, uint64_t fsize);

/* Give back one reference (NULL: nothing). */
void repbuf_put(struct repbuf *b);

/* The bytes that follow byte pos of the endless repetition of the file: their address,
 * and in *len how many there are in a row (at least REPBUF_FILL - fsize + 1). */
const uint8_t *repbuf_at(const struct repbuf *b, uint64_t pos, size_t *len);

#endif
