/* SPDX-License-Identifier: ISC */
/* xfer.h - pv's data path: one input at a time to one output, by splice or read/write. */
#ifndef NCPV_PV_XFER_H
#define NCPV_PV_XFER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../display.h"

/* What one pv_xfer_step did. */
enum pv_step {
	PV_STEP_MOVED,	   /* some bytes went out (possibly 0 if only read) */
	PV_STEP_EOF,	   /* the input ended; nothing is pending */
	PV_STEP_AGAIN,	   /* interrupted by a signal before anything moved */
	PV_STEP_READ_ERR,  /* reading failed; errno kept; the input should be dropped */
	PV_STEP_SKIPPED,   /* -E: a read error was skipped; skip_at/skip_len/skip_errno say where */
	PV_STEP_WRITE_ERR  /* writing failed; errno kept (EPIPE: the reader went away) */
};

/* How the data path is set up; fixed for the whole run. */
struct pv_xfer_opts {
	size_t buffer_size;	/* read/write buffer, bytes */
	int no_splice;		/* -C, or something needs the bytes themselves */
	int count_lines;	/* -l: count eol bytes */
	unsigned char eol;	/* '\n', or '\0' with -0 */
	int sync;		/* -Y: fdatasync after each write */
	int discard;		/* -X: read, count, write nothing */
	int skip_errors;	/* -E */
	uint64_t skip_block;	/* -Z BYTES: with -E, skip to the next multiple of BYTES; 0 adapts */
	int sparse;		/* -O: seek over 4 KiB blocks of zeros instead of writing them */
	int direct;		/* -K: O_DIRECT on input and output where they take it */
};

/* The data path's state, opaque: only the functions below touch it. */
struct pv_xfer;

/*
 * A data path writing to out (borrowed: the caller opens and closes it, and
 * every input). Returns NULL with errno ENOMEM. Free with pv_xfer_free.
 */
struct pv_xfer *pv_xfer_new(int out, const struct pv_xfer_opts *o);
void pv_xfer_free(struct pv_xfer *x);

/* The output descriptor, whether it is a pipe (then worth growing), and whether it is /dev/null
 * (then an input pipe is worth growing, and a TCP input is received without a copy). */
int pv_xfer_output(const struct pv_xfer *x);
int pv_xfer_output_is_pipe(const struct pv_xfer *x);
int pv_xfer_output_is_null(const struct pv_xfer *x);
/* Whether the input set last is received without being copied: a TCP connection into
 * /dev/null (recv with MSG_TRUNC), where nothing needs the bytes themselves. */
int pv_xfer_input_dropped(const struct pv_xfer *x);

/* The last bytes written (for -A): *len of them, valid until the next step. */
const unsigned char *pv_xfer_last(const struct pv_xfer *x, size_t *len);
/* From now on keep the last bytes written for pv_xfer_last. pv 1.10 starts keeping them when
 * its display is first drawn, so bytes written before that never show (the line has dots). */
void pv_xfer_keep_last(struct pv_xfer *x);

/* After PV_STEP_SKIPPED: where the skipped range starts, its length, and the read's errno. */
void pv_xfer_skipped(const struct pv_xfer *x, uint64_t *at, uint64_t *len, int *err);

/* Start reading fd (borrowed). Decides whether splice can be used for it. */
void pv_xfer_set_input(struct pv_xfer *x, int in);

/*
 * Move at most max bytes (and at most max_lines eol bytes in line mode;
 * pass UINT64_MAX for no limit). Adds what went out to *bytes and *lines.
 * Blocks in the system calls; a signal without SA_RESTART makes it return
 * PV_STEP_AGAIN or a partial count.
 */
enum pv_step pv_xfer_step(struct pv_xfer *x, uint64_t max, uint64_t max_lines, uint64_t *bytes,
			  uint64_t *lines);

/* After the last step: with -O, give the output the length its trailing hole stands for.
 * 0, or -1 with errno. */
int pv_xfer_finish(struct pv_xfer *x);

/* Bytes waiting in the buffer, as a percentage of it (-T); -1 when splicing. */
int pv_xfer_buffer_percent(const struct pv_xfer *x);

/* How many bytes of p[0..n) equal c (the lines of a buffer). Pure. */
uint64_t pv_count_byte(const unsigned char *p, size_t n, unsigned char c);

/* Line mode's size: the eol bytes in regular file fd from offset at on, read with pread so
 * that a shared stdin keeps its offset. The count, or -1 (errno kept). */
int64_t pv_count_lines(int fd, off_t at, unsigned char eol);

/* Grow a pipe towards size bytes of capacity (fewer, larger splices); errors ignored. */
void pv_xfer_grow_pipe(int fd, size_t size);

#endif
