/* SPDX-License-Identifier: ISC */
/* proc.c - the only place ncpv calls kill(2), with the PID checked first. */
#include "proc.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>

int proc_signal(pid_t pid, int sig)
{
	if (pid <= 0) {
		errno = EINVAL;
		return -1;
	}
	return kill(pid, sig);
}

int proc_signal_group(pid_t pgid, int sig)
{
	if (pgid <= 1) {
		errno = EINVAL;
		return -1;
	}
	return kill(-pgid, sig);
}

int proc_signal_namespace(int sig)
{
	if (getpid() != 1) {
		errno = EPERM;
		return -1;
	}
	return kill(-1, sig);
}
