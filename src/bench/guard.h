/* SPDX-License-Identifier: ISC */
/* guard.h - the bench's children die with it, however it dies. Every child
 * carries a mark in its environment (NCPV_BENCH_OWNER=PID.STARTTIME, which
 * its own children inherit); a small supervisor process kills everything
 * marked when the bench's end of a pipe closes (SIGKILL included), and the
 * next bench kills whatever is marked by a bench that no longer runs. */
#ifndef NCPV_GUARD_H
#define NCPV_GUARD_H

#include <stddef.h>
#include <sys/types.h>

#define GUARD_ENV "NCPV_BENCH_OWNER"

struct bench_guard {
	pid_t pid;		/* the supervisor; 0 when not running */
	int fd;			/* our end of its pipe; -1 when closed */
	char mark[64];		/* "PID.STARTTIME" of this bench */
};

/* Mark this process's environment (so every child inherits the mark) and
 * start the supervisor. Returns 0, or -1 with a reason in err. */
int guard_start(struct bench_guard *g, char *err, size_t errlen);

/* In a child between fork and exec: die with the parent (PR_SET_PDEATHSIG,
 * and exit at once if parent, its pid before the fork, is already gone). */
void guard_child(pid_t parent);

/* Close the pipe (the supervisor kills what is left of ours) and reap the
 * supervisor. Safe to repeat. */
void guard_stop(struct bench_guard *g);

/* Kill every process marked by a bench that is no longer running (a bench
 * killed together with its supervisor). Returns how many were killed. */
int guard_sweep(void);

#endif
