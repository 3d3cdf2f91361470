/* SPDX-License-Identifier: ISC */
/* watchfd.h - pv -d: another process's open files and how far it has read or written them. */
#ifndef NCPV_PV_WATCHFD_H
#define NCPV_PV_WATCHFD_H

#include <stdint.h>
#include <sys/types.h>

/* The most descriptors one watch follows. */
#define PV_WATCH_MAX 64

/* One watched descriptor, as /proc shows it now. */
struct pv_watch_fd {
	int fd;
	char path[512];	 /* what it is open on (readlink of /proc/PID/fd/FD) */
	uint64_t pos;	 /* its offset: bytes read or written so far */
	uint64_t size;	 /* the file's (or block device's) size; 0 unknown */
	dev_t dev;	 /* with ino: the same open file, not a reused number */
	ino_t ino;
	int regular;	 /* open on a regular file or a block device (what pv follows) */
};

/* Whether pid exists: 0, or -1 with errno (ESRCH, EPERM). */
int pv_watch_pid_alive(pid_t pid);

/* The descriptors of pid open on regular files or block devices, ascending, into fds (at most
 * max). Their count, or -1 with errno. */
int pv_watch_list(pid_t pid, int *fds, int max);

/* Read descriptor fd of pid into w. 0, or -1 with errno (ENOENT: it is closed; w->path is
 * empty when the descriptor could not be read at all, set when only stat or fdinfo failed). */
int pv_watch_read(pid_t pid, int fd, struct pv_watch_fd *w);

#endif
