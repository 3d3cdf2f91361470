/* SPDX-License-Identifier: ISC */
/* pv_eio_shim.c - an LD_PRELOAD shim for tests/e2e/pv_parity.bats: read() from a file whose
 * path ends in "eio-input" fails with EIO for offsets in [EIO_AT, EIO_AT + EIO_LEN), and a read
 * that starts before EIO_AT stops there, as a disk with a bad range does. Other reads pass. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ssize_t read(int fd, void *buf, size_t count)
{
	static ssize_t (*real_read)(int, void *, size_t);
	const char *at_s = getenv("EIO_AT"), *len_s = getenv("EIO_LEN");
	char link[64], path[512];
	ssize_t k;

	if (real_read == NULL)
		real_read = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if (at_s && len_s && (k = readlink(link, path, sizeof(path) - 1)) > 9) {
		off_t at = atoll(at_s), len = atoll(len_s), pos;

		path[k] = '\0';
		if (strcmp(path + k - 9, "eio-input") == 0 && (pos = lseek(fd, 0, SEEK_CUR)) >= 0) {
			if (pos >= at && pos < at + len) {
				errno = EIO;
				return -1;
			}
			if (pos < at && (off_t)count > at - pos)
				count = (size_t)(at - pos);
		}
	}
	return real_read(fd, buf, count);
}
