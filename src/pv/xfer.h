/* SPDX-License-Identifier: ISC */
/* xfer.h - pv's data path: one input at a time to one output, by splice or read/write. */
#ifndef NCPV_PV_XFER_H
#define NCPV_PV_XFER_H

#include <stddef.h>
#include <stdint.h>

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

/*
 * Caller-owned. pv_xfer_init allocates the buffer; pv_xfer_free releases
 * it. Descriptors are borrowed: the caller opens and closes them.
 */
struct pv_xfer {
	int in, out;
	int in_splice;		/* splice may be tried for this input */
	int no_splice;		/* -C, or something needs the bytes themselves */
	int out_pipe;		/* the output is a pipe */
	int count_lines;	/* -l: count eol bytes */
	unsigned char eol;	/* '\n', or '\0' with -0 */
	int sync;		/* -Y: fdatasync after each write */
	int discard;		/* -X: read, count, write nothing */
	int skip_errors;	/* -E */
	unsigned char *buf;
	size_t size;		/* buffer size */
	size_t pend_off, pend_len; /* read but not yet written */
	size_t tail_off, tail_len; /* line mode: read, beyond the line limit, not yet counted */
	unsigned char last[DISPLAY_LAST_MAX]; /* the last bytes written, for -A */
	size_t last_len;
	uint64_t skip, skip_at, skip_len; /* -E: next skip size, and the range last skipped */
	int skip_errno;
};

/* Set up for output fd out with a read/write buffer of size bytes. 0, or -1 (ENOMEM). */
int pv_xfer_init(struct pv_xfer *x, int out, size_t size);
void pv_xfer_free(struct pv_xfer *x);

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

/* Bytes waiting in the buffer, as a percentage of it (-T); -1 when splicing. */
int pv_xfer_buffer_percent(const struct pv_xfer *x);

/* Grow a pipe towards size bytes of capacity (fewer, larger splices); errors ignored. */
void pv_xfer_grow_pipe(int fd, size_t size);

#endif
