/* SPDX-License-Identifier: ISC */
/* pv.h - the pv engine: options struct, the copy run (inputs to the output, -L, -S, -U), the size
 * of the inputs and the rate limiter. It never prints: messages go through struct pv_events,
 * errors that stop a run into a caller's buffer. */
#ifndef NCPV_PV_PV_H
#define NCPV_PV_PV_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "../display.h"
#include "../meter.h"
#include "xfer.h"

/* The most -d options one command line takes (further processes go as arguments). */
#define PV_WATCH_OPTS 16

/* Everything pv's command line says; filled once by pv_parse_options (src/cmd/pv_opts.c).
 * The strings point into argv, which must outlive the struct. */
struct pv_opts {
	struct display_opts disp;
	int numeric, quiet, force, wait, lines, null, stats, cursor;
	int no_splice, skip_errors, stop_at_size, sync, discard, sparse, direct;
	int has_size, has_width, height;
	double delay_start, interval, avg_window;
	uint64_t size, rate_limit, buffer_size, skip_block;
	const char *size_arg, *rate_arg, *buffer_arg; /* read once -k is known */
	const char *output, *pidfile, *size_file;
	const char *store_file;	/* -U FILE: all input there first, then to the output */
	char **files; /* borrowed from argv */
	int nfiles;
	const char *watch[PV_WATCH_OPTS]; /* each -d PID[:FD], as given (checked) */
	int nwatch;
	char action;	 /* the last of -d, -R, -Q, -U given (0: none): pv runs that one */
	long remote_pid; /* -R PID: send our options to that pv (0: not) */
	long query_pid;	/* -Q PID: show that pv's progress (0: not) */
	int interval_given; /* -i was on the command line (for -R) */
	int window_title;	/* -x windowtitle: the display also in the terminal's title */
	int process_title;	/* -x processtitle: ... and as the process title (ps) */
	const char *extra_format; /* -x ...:FORMAT, or NULL for the main display's */
	const char *extra_spec;	/* -x's whole argument (what pv -R forwards), or NULL */
};

/* The largest -B: a bigger request is served with this (pv would allocate it). */
#define PV_BUFFER_MAX ((uint64_t)1 << 30)
/* Read/write buffer when -B is not given: big enough for few system calls, small enough
 * that it and the page cache pages it is copied to stay in the CPU cache: 256 KiB cost 2.4x
 * the system time per byte of 128 KiB writing a file here (bench/pv-shapes.sh). pv's size. */
#define PV_BUFFER_DEFAULT ((size_t)128 * 1024)

/* What went wrong on the way, as bits (the command makes pv's exit status of them). */
enum pv_fault {
	PV_FAULT_ACCESS = 1 << 0,   /* an input, the output or -U's file could not be opened or stat()ed */
	PV_FAULT_SAME = 1 << 1,	    /* an input is the output */
	PV_FAULT_CLOSE = 1 << 2,    /* an input could not be closed */
	PV_FAULT_TRANSFER = 1 << 3, /* reading or writing failed (or -E skipped data) */
	PV_FAULT_MEMORY = 1 << 4    /* no memory for the buffer */
};

struct pv_run;

/* -L's bucket (limit.c): rate per second (0: no limit), the credit, and when it was counted. */
struct pv_limit {
	uint64_t rate;
	double tokens, at;
};

/*
 * What the engine hands its caller while it runs (any member may be NULL):
 * say: a line for stderr, without the "pv: " prefix or a newline (error: 1 for
 *   a failure, 0 for a warning; pv words both the same).
 * tick: called before every step of the copy (a function call per buffer); the
 *   command serves its signal flags there (draws when its timer fired, answers
 *   pv -R / -Q through pv_run_set_*).
 */
struct pv_events {
	void (*say)(void *ctx, int error, const char *line);
	void (*tick)(void *ctx, struct pv_run *r);
	void *ctx;
};

/* One run: the command reads it to draw; only the engine and pv_run_set_* write it. */
struct pv_run {
	const struct pv_opts *o;
	const struct pv_events *ev;
	const volatile sig_atomic_t *cancel; /* a signal's flag: set, the run stops (NULL: never) */
	struct pv_xfer_opts xo;
	struct pv_xfer *x;	/* the data path (for -T and -A too) */
	struct meter meter;	/* what went out, over time */
	int out, store;		/* the output (-1: -X), -U's file (-1: none) */
	uint64_t size;		/* expected total (bytes or lines); 0 unknown */
	uint64_t count;		/* bytes, or lines in line mode */
	struct pv_limit limit;	/* -L now (pv -R may change it) */
	double begin;		/* start of this pass (for -D and -Q) */
	int started;		/* the first byte (line) went by (-W) */
	int opened;		/* inputs that could be opened */
	int write_failed;	/* the output refused data (the run stopped) */
	int reader_gone;	/* ... because its reader went away (EPIPE): no error, as in pv */
	unsigned faults;	/* enum pv_fault bits */
};

/*
 * Expected size (pv's -s, -s @FILE, or the inputs'): into *size. -s @DIR is the sum of the
 * sizes of the files under DIR, as in pv 1.10. Counting the lines of
 * the inputs reads them once more, so in line mode only when show (a display wants it)
 * or -S stops at it. 0, or -1 when -s @FILE cannot be stat()ed (err says why).
 */
int pv_size_find(const struct pv_opts *o, int show, uint64_t *size, char *err, size_t errlen);

/* The size of the inputs, when every one of them is a regular file or block device; in
 * line mode (as pv 1.10 does) the lines in them, when they are all regular files; else 0. */
uint64_t pv_size_of_inputs(const struct pv_opts *o);

/*
 * Open the output (-o, or stdout; none with -X) and -U's file, refusing an input that is
 * one of them, then the data path. 0, or the pv_fault bit that stops the run with err
 * saying why (nothing is left open then). r is the caller's; size from pv_size_find.
 */
int pv_run_open(struct pv_run *r, const struct pv_opts *o, uint64_t size, const struct pv_events *ev,
		const volatile sig_atomic_t *cancel, char *err, size_t errlen);

/* Start the clock (-D, -L, the meter) at now: just before the copy, after the display is set up. */
void pv_run_start(struct pv_run *r, double now);

/* Copy every input in turn (into -U's file, when there is one) until they end, the output
 * fails, -S's size is reached or *cancel is set. Faults are added to r->faults. */
void pv_run_copy(struct pv_run *r);

/* -U: after pv_run_copy, the stored file to the output as a second pass with its own count.
 * 0, or -1 (err says why). */
int pv_run_forward(struct pv_run *r, char *err, size_t errlen);

/* After the last pass: the data path's end (-O's trailing hole), -U's file closed.
 * 0, or -1 (err says why; PV_FAULT_TRANSFER is added). The output stays open. */
int pv_run_finish(struct pv_run *r, char *err, size_t errlen);

/* Free what pv_run_open made, closing the output (when it is not stdout). 0, or -1 when the
 * close failed (errno kept): the last write may have been lost. */
int pv_run_close(struct pv_run *r);

/* pv -R: a new rate (the bucket starts empty) or size. */
void pv_run_set_rate(struct pv_run *r, uint64_t rate, double now);
void pv_run_set_size(struct pv_run *r, uint64_t size);

/*
 * -L (limit.c, pure): how many bytes (lines) may go at now. Credit accrues at l->rate but
 * never beyond PV_RATE_SLICE seconds' worth (an idle input earns no burst), and is spent in
 * chunks of PV_RATE_CHUNK seconds' worth (at most PV_BUFFER_DEFAULT) so that slow rates do
 * not cost a system call per byte. Returns 0 with *wait the seconds to sleep while short.
 * pv_limit_start empties the bucket at now; pv_limit_spend takes n off.
 */
#define PV_RATE_SLICE 0.1
#define PV_RATE_CHUNK 0.005
void pv_limit_start(struct pv_limit *l, uint64_t rate, double now);
uint64_t pv_limit_allow(struct pv_limit *l, double now, double *wait);
void pv_limit_spend(struct pv_limit *l, uint64_t n);

#endif
