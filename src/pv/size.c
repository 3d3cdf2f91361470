/* SPDX-License-Identifier: ISC */
/* size.c - pv's expected size: -s, -s @FILE, or what the inputs hold (bytes, or lines with -l). */
#include "pv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The end of block device fd, its offset put back (stdin may be shared); -1 when unknown. */
static off_t block_device_end(int fd)
{
	off_t at = lseek(fd, 0, SEEK_CUR), end = lseek(fd, 0, SEEK_END);

	if (at >= 0)
		lseek(fd, at, SEEK_SET);
	return end;
}

uint64_t pv_size_of_inputs(const struct pv_opts *o)
{
	uint64_t total = 0;
	int n = o->nfiles > 0 ? o->nfiles : 1;

	for (int i = 0; i < n; i++) {
		const char *name = o->nfiles > 0 ? o->files[i] : "-";
		int std = strcmp(name, "-") == 0;
		struct stat st;
		off_t end = -1;

		/* stat, not open: opening a FIFO would block, and would disturb its writer. An
		 * input that is missing or unreadable makes the size unknown, as in pv 1.10 (the
		 * error itself is reported when it is opened for copying). */
		if ((std ? fstat(STDIN_FILENO, &st) : stat(name, &st)) < 0 || (!std && access(name, R_OK) < 0))
			return 0;
		if (S_ISREG(st.st_mode) && o->lines) {
			int fd = std ? STDIN_FILENO : open(name, O_RDONLY | O_CLOEXEC);
			off_t at = std ? lseek(fd, 0, SEEK_CUR) : 0;

			end = fd >= 0 && at >= 0 ? pv_count_lines(fd, at, o->null ? '\0' : '\n') : -1;
			if (fd >= 0 && !std)
				close(fd);
		} else if (S_ISREG(st.st_mode)) {
			end = st.st_size;
		} else if (o->lines) {
			end = -1;
		} else if (S_ISBLK(st.st_mode)) {
			int fd = std ? STDIN_FILENO : open(name, O_RDONLY | O_CLOEXEC);

			if (fd >= 0) {
				end = block_device_end(fd);
				if (!std)
					close(fd);
			}
		}
		if (end < 0)
			return 0;
		total += (uint64_t)end;
	}
	return total;
}

/* The sizes of the regular files under the directory dir (closed here), symbolic links not
 * followed, added to *total, as pv 1.10 counts -s @DIR. 0, or -1 (errno set). */
static int dir_total(int dir, int depth, uint64_t *total)
{
	DIR *d = fdopendir(dir);
	struct dirent *e;
	int rc = 0;

	if (d == NULL) {
		close(dir);
		return -1;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode) && depth < 256) {
			int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

			if (sub >= 0)
				rc = dir_total(sub, depth + 1, total); /* an unreadable one counts nothing */
		} else if (!S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode)) {
			*total += (uint64_t)st.st_size;
		}
	}
	closedir(d);
	return rc;
}

/* -s @FILE: a file's size, a block device's, or (as pv) the files' under a directory. */
static int size_of_path(const char *path, uint64_t *size, char *err, size_t errlen)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		snprintf(err, errlen, "%s: failed to stat file: %s", path, strerror(errno));
		return -1;
	}
	*size = (uint64_t)st.st_size;
	if (S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode)) {
		int fd = open(path, O_RDONLY | O_CLOEXEC | (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0));
		off_t end;

		*size = 0;
		if (fd >= 0 && S_ISDIR(st.st_mode) && dir_total(fd, 0, size) == 0)
			return 0;
		if (fd >= 0 && S_ISBLK(st.st_mode)) {
			end = block_device_end(fd);
			close(fd);
			*size = end > 0 ? (uint64_t)end : 0;
			return 0;
		}
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int pv_size_find(const struct pv_opts *o, int show, uint64_t *size, char *err, size_t errlen)
{
	*size = 0;
	if (o->size_file && size_of_path(o->size_file, size, err, errlen) < 0)
		return -1;
	if (o->size_file && *size > 0)
		return 0;
	/* -s @FILE of no size (an empty directory, /dev/null): the inputs', as in pv 1.10. */
	if (o->has_size && !o->size_file) {
		*size = o->size;
	} else if (!o->lines || show || o->stop_at_size) {
		/* Counting the lines reads every file once more: only when a display shows it, or
		 * when -S stops at it (the data written must not depend on stderr being a terminal). */
		*size = pv_size_of_inputs(o);
	}
	return 0;
}
