/* SPDX-License-Identifier: ISC */
/* stat.c - the interposed stat and access families: a device path looks like
 * a socket (without connecting), and fstat on an opened one shows the same identity. */
#undef _FORTIFY_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "hook.h"

typedef int (*stat_fn)(const char *, struct stat *);
typedef int (*stat64_fn)(const char *, struct stat64 *);
typedef int (*fstat_fn)(int, struct stat *);
typedef int (*fstat64_fn)(int, struct stat64 *);
typedef int (*fstatat_fn)(int, const char *, struct stat *, int);
typedef int (*fstatat64_fn)(int, const char *, struct stat64 *, int);
typedef int (*xstat_fn)(int, const char *, struct stat *);
typedef int (*xstat64_fn)(int, const char *, struct stat64 *);
typedef int (*fxstat_fn)(int, int, struct stat *);
typedef int (*fxstat64_fn)(int, int, struct stat64 *);
typedef int (*fxstatat_fn)(int, int, const char *, struct stat *, int);
typedef int (*fxstatat64_fn)(int, int, const char *, struct stat64 *, int);
typedef int (*statx_fn)(int, const char *, int, unsigned int, struct statx *);
typedef int (*access_fn)(const char *, int);
typedef int (*faccessat_fn)(int, const char *, int, int);

static void *next_stat, *next_stat64, *next_lstat, *next_lstat64, *next_fstat, *next_fstat64,
	*next_fstatat, *next_fstatat64, *next___xstat, *next___xstat64, *next___lxstat,
	*next___lxstat64, *next___fxstat, *next___fxstat64, *next___fxstatat, *next___fxstatat64,
	*next_statx, *next_access, *next_faccessat, *next_euidaccess, *next_eaccess;

/* glibc before 2.33 compiled stat() into calls to these; old binaries still make them. */
#define GLIBC_COMPAT "GLIBC_2.2.5"
int __xstat(int ver, const char *path, struct stat *st) DEVTCP_EXPORT;
int __xstat64(int ver, const char *path, struct stat64 *st) DEVTCP_EXPORT;
int __lxstat(int ver, const char *path, struct stat *st) DEVTCP_EXPORT;
int __lxstat64(int ver, const char *path, struct stat64 *st) DEVTCP_EXPORT;
int __fxstat(int ver, int fd, struct stat *st) DEVTCP_EXPORT;
int __fxstat64(int ver, int fd, struct stat64 *st) DEVTCP_EXPORT;
int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags) DEVTCP_EXPORT;
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags) DEVTCP_EXPORT;

/* A device path's stat result in the 64-bit layout (the same fields). */
static void widen(const struct stat *s, struct stat64 *d)
{
	memset(d, 0, sizeof(*d));
	d->st_dev = s->st_dev;
	d->st_ino = s->st_ino;
	d->st_mode = s->st_mode;
	d->st_nlink = s->st_nlink;
	d->st_uid = s->st_uid;
	d->st_gid = s->st_gid;
	d->st_blksize = s->st_blksize;
}

static int claim64(int dirfd, const char *path, struct stat64 *st, int *rc)
{
	struct stat s;

	if (!devtcp_stat_hook(dirfd, path, &s, rc))
		return 0;
	if (*rc == 0)
		widen(&s, st);
	return 1;
}

/* fstat's answer for a socket this library opened carries the path's identity. */
static void fix(int fd, struct stat *st)
{
	uint64_t ino = st->st_ino;

	if (!S_ISSOCK(st->st_mode))
		return;
	devtcp_fix_identity(fd, &st->st_dev, &ino, 1, st->st_ino);
	st->st_ino = (ino_t)ino;
}

static void fix64(int fd, struct stat64 *st)
{
	uint64_t ino = st->st_ino;

	if (!S_ISSOCK(st->st_mode))
		return;
	devtcp_fix_identity(fd, &st->st_dev, &ino, 1, st->st_ino);
	st->st_ino = ino;
}

#define PATH_STAT(next_call, dirfd)                          \
	do {                                                             \
		int rc_;                                                 \
		if (devtcp_stat_hook(dirfd, path, st, &rc_))            \
			return rc_;                                      \
		return next_call;                                        \
	} while (0)

#define PATH_STAT64(next_call, dirfd)                                    \
	do {                                                             \
		int rc_;                                                 \
		if (claim64(dirfd, path, st, &rc_))                      \
			return rc_;                                      \
		return next_call;                                        \
	} while (0)

DEVTCP_EXPORT int stat(const char *path, struct stat *st)
{
	PATH_STAT(NEXT(stat_fn, stat)(path, st), AT_FDCWD);
}

DEVTCP_EXPORT int lstat(const char *path, struct stat *st)
{
	PATH_STAT(NEXT(stat_fn, lstat)(path, st), AT_FDCWD);
}

DEVTCP_EXPORT int stat64(const char *path, struct stat64 *st)
{
	PATH_STAT64(NEXT(stat64_fn, stat64)(path, st), AT_FDCWD);
}

DEVTCP_EXPORT int lstat64(const char *path, struct stat64 *st)
{
	PATH_STAT64(NEXT(stat64_fn, lstat64)(path, st), AT_FDCWD);
}

DEVTCP_EXPORT int __xstat(int ver, const char *path, struct stat *st)
{
	PATH_STAT(NEXT_COMPAT(xstat_fn, __xstat, GLIBC_COMPAT)(ver, path, st),
		  AT_FDCWD);
}

DEVTCP_EXPORT int __lxstat(int ver, const char *path, struct stat *st)
{
	PATH_STAT(
		  NEXT_COMPAT(xstat_fn, __lxstat, GLIBC_COMPAT)(ver, path, st), AT_FDCWD);
}

DEVTCP_EXPORT int __xstat64(int ver, const char *path, struct stat64 *st)
{
	PATH_STAT64(NEXT_COMPAT(xstat64_fn, __xstat64, GLIBC_COMPAT)(ver, path, st), AT_FDCWD);
}

DEVTCP_EXPORT int __lxstat64(int ver, const char *path, struct stat64 *st)
{
	PATH_STAT64(NEXT_COMPAT(xstat64_fn, __lxstat64, GLIBC_COMPAT)(ver, path, st), AT_FDCWD);
}

/* fstatat(fd, "", st, AT_EMPTY_PATH) is fstat(fd). */
#define IS_FD_STAT(path, flags) ((flags) & AT_EMPTY_PATH && devtcp_empty_path(path))

DEVTCP_EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	int rc;

	if (devtcp_stat_hook(dirfd, path, st, &rc))
		return rc;
	rc = NEXT(fstatat_fn, fstatat)(dirfd, path, st, flags);
	if (rc == 0 && IS_FD_STAT(path, flags))
		fix(dirfd, st);
	return rc;
}

DEVTCP_EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	int rc;

	if (claim64(dirfd, path, st, &rc))
		return rc;
	rc = NEXT(fstatat64_fn, fstatat64)(dirfd, path, st, flags);
	if (rc == 0 && IS_FD_STAT(path, flags))
		fix64(dirfd, st);
	return rc;
}

DEVTCP_EXPORT int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags)
{
	int rc;

	if (devtcp_stat_hook(dirfd, path, st, &rc))
		return rc;
	return NEXT_COMPAT(fxstatat_fn, __fxstatat, GLIBC_COMPAT)(ver, dirfd, path, st, flags);
}

DEVTCP_EXPORT int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags)
{
	int rc;

	if (claim64(dirfd, path, st, &rc))
		return rc;
	return NEXT_COMPAT(fxstatat64_fn, __fxstatat64, GLIBC_COMPAT)(ver, dirfd, path, st, flags);
}

DEVTCP_EXPORT int fstat(int fd, struct stat *st)
{
	int rc = NEXT(fstat_fn, fstat)(fd, st);

	if (rc == 0)
		fix(fd, st);
	return rc;
}

DEVTCP_EXPORT int fstat64(int fd, struct stat64 *st)
{
	int rc = NEXT(fstat64_fn, fstat64)(fd, st);

	if (rc == 0)
		fix64(fd, st);
	return rc;
}

DEVTCP_EXPORT int __fxstat(int ver, int fd, struct stat *st)
{
	int rc = NEXT_COMPAT(fxstat_fn, __fxstat, GLIBC_COMPAT)(ver, fd, st);

	if (rc == 0)
		fix(fd, st);
	return rc;
}

DEVTCP_EXPORT int __fxstat64(int ver, int fd, struct stat64 *st)
{
	int rc = NEXT_COMPAT(fxstat64_fn, __fxstat64, GLIBC_COMPAT)(ver, fd, st);

	if (rc == 0)
		fix64(fd, st);
	return rc;
}

DEVTCP_EXPORT int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *sx)
{
	struct stat s;
	int rc;

	if (devtcp_stat_hook(dirfd, path, &s, &rc)) {
		if (rc == 0) {
			memset(sx, 0, sizeof(*sx));
			sx->stx_mask = STATX_TYPE | STATX_MODE | STATX_NLINK | STATX_UID | STATX_GID |
				       STATX_INO | STATX_SIZE | STATX_BLOCKS;
			sx->stx_mode = (unsigned short)s.st_mode;
			sx->stx_ino = s.st_ino;
			sx->stx_nlink = 1;
			sx->stx_uid = s.st_uid;
			sx->stx_gid = s.st_gid;
			sx->stx_blksize = (unsigned int)s.st_blksize;
		}
		return rc;
	}
	rc = NEXT(statx_fn, statx)(dirfd, path, flags, mask, sx);
	if (rc == 0 && IS_FD_STAT(path, flags) && (sx->stx_mask & STATX_INO)) {
		dev_t dev = makedev(sx->stx_dev_major, sx->stx_dev_minor);
		uint64_t ino = sx->stx_ino;

		devtcp_fix_identity(dirfd, &dev, &ino, S_ISSOCK(sx->stx_mode), sx->stx_ino);
		sx->stx_ino = ino;
		sx->stx_dev_major = major(dev);
		sx->stx_dev_minor = minor(dev);
	}
	return rc;
}

/* A device path can be read and written, never executed. */
static int device_access(int rc, int mode)
{
	if (rc == 0 && (mode & X_OK)) {
		errno = EACCES;
		return -1;
	}
	return rc;
}

DEVTCP_EXPORT int access(const char *path, int mode)
{
	int rc;

	if (devtcp_stat_hook(AT_FDCWD, path, NULL, &rc))
		return device_access(rc, mode);
	return NEXT(access_fn, access)(path, mode);
}

DEVTCP_EXPORT int faccessat(int dirfd, const char *path, int mode, int flags)
{
	int rc;

	if (devtcp_stat_hook(dirfd, path, NULL, &rc))
		return device_access(rc, mode);
	return NEXT(faccessat_fn, faccessat)(dirfd, path, mode, flags);
}

DEVTCP_EXPORT int euidaccess(const char *path, int mode)
{
	int rc;

	if (devtcp_stat_hook(AT_FDCWD, path, NULL, &rc))
		return device_access(rc, mode);
	return NEXT(access_fn, euidaccess)(path, mode);
}

DEVTCP_EXPORT int eaccess(const char *path, int mode)
{
	int rc;

	if (devtcp_stat_hook(AT_FDCWD, path, NULL, &rc))
		return device_access(rc, mode);
	return NEXT(access_fn, eaccess)(path, mode);
}
