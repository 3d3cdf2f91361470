/* SPDX-License-Identifier: ISC */
/* open.c - the interposed open family (open, openat, their 64-bit and fortified
 * names, creat) and stdio's fopen/freopen, which glibc opens without calling open. */
#undef _FORTIFY_SOURCE /* we define open() itself, not its fortified inline wrapper */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hook.h"

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*open2_fn)(const char *, int);
typedef int (*openat2_fn)(int, const char *, int);
typedef int (*creat_fn)(const char *, mode_t);
typedef FILE *(*fopen_fn)(const char *, const char *);
typedef FILE *(*freopen_fn)(const char *, const char *, FILE *);

static void *next_open, *next_open64, *next_openat, *next_openat64, *next___open_2,
	*next___open64_2, *next___openat_2, *next___openat64_2, *next_creat, *next_creat64,
	*next_fopen, *next_fopen64, *next_freopen, *next_freopen64;

int open64(const char *path, int flags, ...) DEVTCP_EXPORT;
int openat64(int dirfd, const char *path, int flags, ...) DEVTCP_EXPORT;
int __open_2(const char *path, int flags) DEVTCP_EXPORT;
int __open64_2(const char *path, int flags) DEVTCP_EXPORT;
int __openat_2(int dirfd, const char *path, int flags) DEVTCP_EXPORT;
int __openat64_2(int dirfd, const char *path, int flags) DEVTCP_EXPORT;
int creat64(const char *path, mode_t mode) DEVTCP_EXPORT;
FILE *fopen64(const char *path, const char *mode) DEVTCP_EXPORT;
FILE *freopen64(const char *path, const char *mode, FILE *stream) DEVTCP_EXPORT;

/* The mode argument exists only when the flags say a file may be created. */
#define MODE_ARG(flags, m)                                                \
	do {                                                              \
		va_list ap_;                                              \
		(m) = 0;                                                  \
		if ((flags) & (O_CREAT | __O_TMPFILE)) {                  \
			va_start(ap_, flags);                             \
			(m) = (mode_t)va_arg(ap_, int);                   \
			va_end(ap_);                                      \
		}                                                         \
	} while (0)

DEVTCP_EXPORT int open(const char *path, int flags, ...)
{
	mode_t m;
	int fd;

	if (devtcp_open_hook(AT_FDCWD, path, flags, &fd))
		return fd;
	MODE_ARG(flags, m);
	return NEXT(open_fn, open)(path, flags, m);
}

DEVTCP_EXPORT int open64(const char *path, int flags, ...)
{
	mode_t m;
	int fd;

	if (devtcp_open_hook(AT_FDCWD, path, flags, &fd))
		return fd;
	MODE_ARG(flags, m);
	return NEXT(open_fn, open64)(path, flags, m);
}

DEVTCP_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t m;
	int fd;

	if (devtcp_open_hook(dirfd, path, flags, &fd))
		return fd;
	MODE_ARG(flags, m);
	return NEXT(openat_fn, openat)(dirfd, path, flags, m);
}

DEVTCP_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t m;
	int fd;

	if (devtcp_open_hook(dirfd, path, flags, &fd))
		return fd;
	MODE_ARG(flags, m);
	return NEXT(openat_fn, openat64)(dirfd, path, flags, m);
}

DEVTCP_EXPORT int __open_2(const char *path, int flags)
{
	int fd;

	if (devtcp_open_hook(AT_FDCWD, path, flags, &fd))
		return fd;
	return NEXT(open2_fn, __open_2)(path, flags);
}

DEVTCP_EXPORT int __open64_2(const char *path, int flags)
{
	int fd;

	if (devtcp_open_hook(AT_FDCWD, path, flags, &fd))
		return fd;
	return NEXT(open2_fn, __open64_2)(path, flags);
}

DEVTCP_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	int fd;

	if (devtcp_open_hook(dirfd, path, flags, &fd))
		return fd;
	return NEXT(openat2_fn, __openat_2)(dirfd, path, flags);
}

DEVTCP_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	int fd;

	if (devtcp_open_hook(dirfd, path, flags, &fd))
		return fd;
	return NEXT(openat2_fn, __openat64_2)(dirfd, path, flags);
}

DEVTCP_EXPORT int creat(const char *path, mode_t mode)
{
	int fd;

	if (devtcp_open_hook(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, &fd))
		return fd;
	return NEXT(creat_fn, creat)(path, mode);
}

DEVTCP_EXPORT int creat64(const char *path, mode_t mode)
{
	int fd;

	if (devtcp_open_hook(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, &fd))
		return fd;
	return NEXT(creat_fn, creat64)(path, mode);
}

/*
 * fopen's mode as open(2) flags, and the mode fdopen/freopen should see for a
 * socket: "r", "w" or "r+" ('a' is "w": appending means nothing on a socket;
 * 'x' is dropped: the path never exists as a file). -1 (EINVAL) when bad.
 */
static int stdio_flags(const char *mode, char plain[4])
{
	int flags, rw = strchr(mode, '+') != NULL;

	switch (mode[0]) {
	case 'r':
		flags = rw ? O_RDWR : O_RDONLY;
		break;
	case 'w':
	case 'a':
		flags = (rw ? O_RDWR : O_WRONLY) | O_CREAT;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	if (strchr(mode, 'e') != NULL)
		flags |= O_CLOEXEC;
	snprintf(plain, 4, "%s%s", rw ? "r+" : mode[0] == 'r' ? "r" : "w",
		 flags & O_CLOEXEC ? "e" : "");
	return flags;
}

/* fopen for a device path: 1 with *out (NULL and errno on failure), or 0. */
static int claim_fopen(const char *path, const char *mode, FILE **out)
{
	char plain[4];
	int flags, fd;

	if (!devtcp_maybe_device(path) || mode == NULL || (flags = stdio_flags(mode, plain)) < 0)
		return 0; /* an ordinary path, or a bad mode for libc to report */
	if (!devtcp_open_hook(AT_FDCWD, path, flags, &fd))
		return 0;
	*out = NULL;
	if (fd >= 0 && (*out = fdopen(fd, plain)) == NULL) {
		int saved = errno;

		close(fd);
		errno = saved;
	}
	return 1;
}

DEVTCP_EXPORT FILE *fopen(const char *path, const char *mode)
{
	FILE *f;

	if (claim_fopen(path, mode, &f))
		return f;
	return NEXT(fopen_fn, fopen)(path, mode);
}

DEVTCP_EXPORT FILE *fopen64(const char *path, const char *mode)
{
	FILE *f;

	if (claim_fopen(path, mode, &f))
		return f;
	return NEXT(fopen_fn, fopen64)(path, mode);
}

/* freopen for a device path: reopen the stream on /dev/null with the right
 * mode (libc keeps its descriptor number), then put the socket in its place. */
static int claim_freopen(const char *path, const char *mode, FILE *stream, freopen_fn next,
			 FILE **out)
{
	char plain[4];
	int flags, fd, saved;

	if (!devtcp_maybe_device(path) || mode == NULL || (flags = stdio_flags(mode, plain)) < 0)
		return 0;
	if (!devtcp_open_hook(AT_FDCWD, path, flags, &fd))
		return 0;
	*out = NULL;
	if (fd < 0) {
		saved = errno;
		fclose(stream); /* as a failed freopen does */
		errno = saved;
		return 1;
	}
	if ((*out = next("/dev/null", plain, stream)) != NULL &&
	    dup3(fd, fileno(*out), flags & O_CLOEXEC) < 0) {
		saved = errno;
		fclose(*out);
		*out = NULL;
		errno = saved;
	}
	saved = errno;
	close(fd);
	errno = saved;
	return 1;
}

DEVTCP_EXPORT FILE *freopen(const char *path, const char *mode, FILE *stream)
{
	freopen_fn next = NEXT(freopen_fn, freopen);
	FILE *f;

	if (claim_freopen(path, mode, stream, next, &f))
		return f;
	return next(path, mode, stream);
}

DEVTCP_EXPORT FILE *freopen64(const char *path, const char *mode, FILE *stream)
{
	freopen_fn next = NEXT(freopen_fn, freopen64);
	FILE *f;

	if (claim_freopen(path, mode, stream, next, &f))
		return f;
	return next(path, mode, stream);
}
