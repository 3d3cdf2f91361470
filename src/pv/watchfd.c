/* SPDX-License-Identifier: ISC */
/* watchfd.c - pv -d: another process's open files and how far it has read or written them. */
#include "watchfd.h"
#include "../proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int pv_watch_pid_alive(pid_t pid)
{
	return proc_signal(pid, 0);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int pv_watch_list(pid_t pid, int *fds, int max)
{
	char dir[64], link[96];
	struct dirent *e;
	struct stat st;
	DIR *d;
	int n = 0;

	snprintf(dir, sizeof(dir), "/proc/%ld/fd", (long)pid);
	if ((d = opendir(dir)) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL && n < max) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);

		if (*end != '\0' || end == e->d_name)
			continue;
		snprintf(link, sizeof(link), "%s/%ld", dir, fd);
		/* stat follows the link to the file itself; pipes, sockets and terminals are left out. */
		if (stat(link, &st) == 0 && (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)))
			fds[n++] = (int)fd;
	}
	closedir(d);
	qsort(fds, (size_t)n, sizeof(fds[0]), cmp_int);
	return n;
}

/* "pos:" from /proc/PID/fdinfo/FD. */
static int read_pos(pid_t pid, int fd, uint64_t *pos)
{
	char path[96], buf[256], *end;
	unsigned long long v;
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/proc/%ld/fdinfo/%d", (long)pid, fd);
	if ((f = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0 || strncmp(buf, "pos:", 4) != 0) {
		errno = EIO;
		return -1;
	}
	buf[n] = '\0';
	errno = 0;
	v = strtoull(buf + 4, &end, 10);
	if (end == buf + 4 || errno != 0) {
		errno = EIO;
		return -1;
	}
	*pos = v;
	return 0;
}

int pv_watch_read(pid_t pid, int fd, struct pv_watch_fd *w)
{
	char link[96];
	struct stat st;
	ssize_t n;

	memset(w, 0, sizeof(*w));
	w->fd = fd;
	snprintf(link, sizeof(link), "/proc/%ld/fd/%d", (long)pid, fd);
	if ((n = readlink(link, w->path, sizeof(w->path) - 1)) < 0)
		return -1;
	w->path[n] = '\0';
	if (stat(link, &st) < 0)
		return -1;
	w->dev = st.st_dev;
	w->ino = st.st_ino;
	w->regular = S_ISREG(st.st_mode) || S_ISBLK(st.st_mode);
	if (S_ISREG(st.st_mode)) {
		struct stat lst;

		/* A descriptor open for writing (its /proc link has the owner's w bit, as pv 1.10.5
		 * looks) is a file still growing: its size now is no goal, so no size, as pv. */
		if (lstat(link, &lst) < 0 || !(lst.st_mode & S_IWUSR))
			w->size = (uint64_t)st.st_size;
	} else if (S_ISBLK(st.st_mode)) {
		int b = open(link, O_RDONLY | O_CLOEXEC);

		if (b >= 0) {
			off_t end = lseek(b, 0, SEEK_END);

			w->size = end > 0 ? (uint64_t)end : 0;
			close(b);
		}
	}
	return read_pos(pid, fd, &w->pos);
}
