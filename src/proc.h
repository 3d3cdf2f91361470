/* SPDX-License-Identifier: ISC */
/* proc.h - the only place ncpv calls kill(2): one process, one group, or a namespace's all. */
#ifndef NCPV_PROC_H
#define NCPV_PROC_H

#include <sys/types.h>

/*
 * kill(2) reads 0 as "my process group" and -1 as "every process I may signal", so
 * a PID that wrapped on its way from the command line (4294967295 cast to pid_t is
 * -1) must never reach it. These refuse such values instead of signalling them.
 */

/* Signal the process pid (sig 0: only check that it exists). pid must be > 0;
 * otherwise -1 with errno EINVAL and nothing is sent. 0, or -1 with kill's errno. */
int proc_signal(pid_t pid, int sig);

/* Signal every process of the group pgid, a group we made (setpgid): pgid must be
 * > 1; otherwise -1 with errno EINVAL. 0, or -1 with kill's errno. */
int proc_signal_group(pid_t pgid, int sig);

/* Signal every process but ourselves, allowed only to the init (PID 1) of a PID
 * namespace we made, where "every process" is that namespace's. Anywhere else -1
 * with errno EPERM and nothing is sent. */
int proc_signal_namespace(int sig);

#endif
