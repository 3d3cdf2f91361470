/* SPDX-License-Identifier: ISC */
/* recmap.h - which plaintext a peer can hold, given how far a stream of records got on the wire. */
#ifndef NCPV_RECMAP_H
#define NCPV_RECMAP_H

#include <stdint.h>

/* Marks kept: one per record written. 256 records of up to 16 KiB cover 4 MiB,
 * the kernel's largest default send buffer; older marks are dropped. */
#define RECMAP_MARKS 256
/* The most plaintext a TLS record carries. */
#define RECMAP_RECORD_MAX 16384

/*
 * A ring of marks (wire_end, plain_end): after the writes so far, wire_end bytes
 * had gone to the socket, carrying whole records of plain_end bytes of plaintext.
 * A peer decrypts only whole records, so once it has the first x bytes of the
 * wire it holds between recmap_at_least(x) and recmap_at_most(x) bytes of
 * plaintext. Pure: no allocation, no syscalls. Zero-initialise to start.
 */
struct recmap {
	uint64_t wire[RECMAP_MARKS], plain[RECMAP_MARKS];
	unsigned head, n; /* next slot; marks held */
};

/* After a write: both counts are totals, never smaller than the last mark's. */
void recmap_mark(struct recmap *m, uint64_t wire_end, uint64_t plain_end);

/* Plaintext surely held by a peer that has the first x of wire_total bytes
 * written, of plain_total plaintext. Without a mark at or below x, the bound
 * is that plaintext is never longer than its records, less the record cut at x. */
uint64_t recmap_at_least(const struct recmap *m, uint64_t x, uint64_t wire_total, uint64_t plain_total);

/* Plaintext a peer that has no more than the first x wire bytes can hold:
 * the first mark at or past x, else plain_total; never more than x. */
uint64_t recmap_at_most(const struct recmap *m, uint64_t x, uint64_t plain_total);

#endif
