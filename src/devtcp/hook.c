/* SPDX-License-Identifier: ISC */
/* hook.c - what the interposed functions share: symbol lookup, re-entry guard, claim test, fd identity. */
#include "hook.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dial.h"
#include "path.h"

/* Set while this thread is inside the library's own work (resolving, connecting). */
static __thread int busy __attribute__((tls_model("initial-exec")));

/* Descriptors below this number get an identity slot; others keep the kernel's. */
#define IDENT_SLOTS 4096

/* Per fd: the socket's real inode and the path identity to report instead. */
static struct {
	uint64_t real_ino, path_ino;
} ident[IDENT_SLOTS];

void *devtcp_next(void **slot, const char *name, const char *version)
{
	void *f = __atomic_load_n(slot, __ATOMIC_RELAXED);

	if (f == NULL) {
		f = dlsym(RTLD_NEXT, name);
		if (f == NULL && version != NULL)
			f = dlvsym(RTLD_NEXT, name, version);
		__atomic_store_n(slot, f, __ATOMIC_RELAXED);
	}
	return f;
}

/* Turn "tcp/HOST/PORT" relative to a descriptor (or the cwd) for /dev into an
 * absolute path in out. Returns 1 when the directory is /dev. */
static int absolute_below_dev(int dirfd, const char *rel, char *out, size_t cap)
{
	char dir[PATH_MAX], link[64];
	ssize_t n;

	if (dirfd == AT_FDCWD) {
		if (getcwd(dir, sizeof(dir)) == NULL)
			return 0;
	} else {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
		if ((n = readlink(link, dir, sizeof(dir) - 1)) < 0)
			return 0;
		dir[n] = '\0';
	}
	if (strcmp(dir, "/dev") != 0)
		return 0;
	return snprintf(out, cap, "/dev/%s", rel) < (int)cap;
}

/* Returns the absolute device path for (dirfd, path), or NULL for an ordinary path. */
static const char *device_path(int dirfd, const char *path, char *buf, size_t cap)
{
	if (path == NULL || busy)
		return NULL;
	if (devtcp_path_claims(path))
		return path;
	if (path[0] != '/' && devtcp_path_claims_relative(path) &&
	    absolute_below_dev(dirfd, path, buf, cap))
		return buf;
	return NULL;
}

static void remember(int fd, const char *path)
{
	struct stat st;

	if (fd < 0 || fd >= IDENT_SLOTS || fstat(fd, &st) < 0)
		return;
	__atomic_store_n(&ident[fd].real_ino, (uint64_t)st.st_ino, __ATOMIC_RELAXED);
	__atomic_store_n(&ident[fd].path_ino, devtcp_path_ino(path), __ATOMIC_RELAXED);
}

int devtcp_claim_open(int dirfd, const char *path, int flags, int *fd)
{
	char buf[PATH_MAX];
	const char *dev = device_path(dirfd, path, buf, sizeof(buf));
	struct devtcp_path p;
	int rc, saved;

	if (dev == NULL || (flags & O_PATH))
		return 0;
	busy = 1;
	rc = devtcp_path_parse(dev, &p);
	if (rc == 0) {
		busy = 0;
		return 0;
	}
	*fd = rc < 0 ? -1 : devtcp_dial(&p, dev, flags);
	saved = errno;
	if (*fd >= 0)
		remember(*fd, dev);
	busy = 0;
	errno = saved;
	return 1;
}

int devtcp_claim_stat(int dirfd, const char *path, struct stat *st, int *result)
{
	char buf[PATH_MAX];
	const char *dev = device_path(dirfd, path, buf, sizeof(buf));
	struct devtcp_path p;
	int rc;

	if (dev == NULL)
		return 0;
	busy = 1;
	rc = devtcp_path_parse(dev, &p);
	busy = 0;
	if (rc == 0)
		return 0;
	*result = rc < 0 ? -1 : 0;
	if (rc > 0 && st != NULL) {
		memset(st, 0, sizeof(*st));
		st->st_dev = makedev(0, 0);
		st->st_ino = (ino_t)devtcp_path_ino(dev);
		st->st_mode = S_IFSOCK | 0666;
		st->st_nlink = 1;
		st->st_uid = getuid();
		st->st_gid = getgid();
		st->st_blksize = 4096;
	}
	return 1;
}

void devtcp_fix_identity(int fd, dev_t *dev, uint64_t *ino, int is_socket, uint64_t real_ino)
{
	uint64_t path_ino;

	if (!is_socket || fd < 0 || fd >= IDENT_SLOTS ||
	    __atomic_load_n(&ident[fd].real_ino, __ATOMIC_RELAXED) != real_ino)
		return;
	if ((path_ino = __atomic_load_n(&ident[fd].path_ino, __ATOMIC_RELAXED)) == 0)
		return;
	*dev = makedev(0, 0);
	*ino = path_ino;
}

int devtcp_empty_path(const char *path)
{
	return path == NULL || path[0] == '\0';
}
