/* SPDX-License-Identifier: ISC */
/* eta.h - how long a bench takes: every run of its plan priced by a guess before
 * the first run, then by what the runs done so far took. Pure: no clock, no I/O;
 * the caller says when a run ends and how long it took. */
#ifndef NCPV_BENCH_ETA_H
#define NCPV_BENCH_ETA_H

#include <stddef.h>

#define ETA_TESTS 2	  /* 0: stream, 1: files */
#define ETA_METHODS 32	  /* as MAX_METHODS of session.h */

struct bench_eta {
	double guess[ETA_TESTS][ETA_METHODS]; /* the plan's seconds for one run */
	long left[ETA_TESTS][ETA_METHODS];    /* runs not yet ended */
	long done[ETA_TESTS][ETA_METHODS];    /* runs ended */
	double spent[ETA_TESTS][ETA_METHODS]; /* their seconds */
};

/* The plan's guess of one files run: count downloads by the method named
 * (builtins from a table measured on loopback; others 10 ms each), plus
 * the start and the stop. */
double eta_files_guess(const char *method, unsigned long long count);

/* No runs planned. */
void eta_init(struct bench_eta *e);

/* test (0 stream, 1 files) will run method runs times, each about guess seconds. */
void eta_plan(struct bench_eta *e, int test, size_t method, long runs, double guess);

/* A run of method ended after seconds. */
void eta_done(struct bench_eta *e, int test, size_t method, double seconds);

/* The method's runs left will not happen (skipped, or the bench stopped). */
void eta_drop(struct bench_eta *e, int test, size_t method);

/* What one more run of method will take: the mean of its runs so far; before
 * its first, its guess. */
double eta_price(const struct bench_eta *e, int test, size_t method);

/* Seconds of the plan left: every run not yet ended at its price, less
 * elapsed of the one running (test, method) (none when test < 0). When the
 * running one knows how far it is (done: its share, 0..1; below 0: not known)
 * and is its method's first, its method's runs are priced by its pace so far,
 * elapsed / done, weighed by done against the guess.
 * Never below 0. */
double eta_left(const struct bench_eta *e, int test, size_t method, double elapsed, double done);

/* Seconds of the whole plan by the guesses of test (-1: every test). */
double eta_planned(const struct bench_eta *e, int test);

#endif
