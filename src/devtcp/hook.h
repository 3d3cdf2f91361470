/* SPDX-License-Identifier: ISC */
/* hook.h - what the interposed functions share: the next definition of each
 * symbol, the re-entry guard, the claim test, and the identity of opened sockets.
 * Process-wide state lives here because a preloaded library has nowhere else to
 * keep it: resolved symbol addresses and a small fd table, both lock-free. */
#ifndef NCPV_DEVTCP_HOOK_H
#define NCPV_DEVTCP_HOOK_H

#include <stdint.h>
#include <sys/stat.h>

#include "path.h"

#define DEVTCP_EXPORT __attribute__((visibility("default")))

/* The next definition of name (libc's, or another preload's), looked up once
 * with dlsym(RTLD_NEXT) and kept in *slot; version is tried with dlvsym for
 * names libc keeps only as compatibility symbols (NULL for none). */
void *devtcp_next(void **slot, const char *name, const char *version);

#define NEXT(type, name) ((type)devtcp_next(&next_##name, #name, NULL))
#define NEXT_COMPAT(type, name, ver) ((type)devtcp_next(&next_##name, #name, ver))

/* The cheap first look, inlined into every hook (a few byte compares, no call):
 * could path, absolute or relative, name a device? */
static inline int devtcp_maybe_device(const char *path)
{
	return path != 0 && (devtcp_path_claims(path) ||
			     (path[0] != '/' && devtcp_path_claims_relative(path)));
}

/*
 * The decision each open-like hook makes first. Returns 0 when path (relative
 * to dirfd) is an ordinary one, so the caller passes the call on unchanged.
 * Returns 1 when it names a device path: then *fd is the socket (or -1 with
 * errno), already remembered for fstat. Inside the library's own work (name
 * resolution reads /etc/hosts through these same hooks) it always returns 0.
 */
int devtcp_claim_open(int dirfd, const char *path, int flags, int *fd);

/*
 * The same decision for stat-like hooks: returns 0 for an ordinary path, or 1
 * with *result 0 (and st filled as a socket with the path's identity) or -1
 * with errno for a malformed port. Never connects. st may be NULL (access).
 */
int devtcp_claim_stat(int dirfd, const char *path, struct stat *st, int *result);

/* What the hooks call: the inline look first, the full claim only for candidates. */
static inline int devtcp_open_hook(int dirfd, const char *path, int flags, int *fd)
{
	return devtcp_maybe_device(path) && devtcp_claim_open(dirfd, path, flags, fd);
}

static inline int devtcp_stat_hook(int dirfd, const char *path, struct stat *st, int *result)
{
	return devtcp_maybe_device(path) && devtcp_claim_stat(dirfd, path, st, result);
}

/* For fstat: when fd is a socket this library opened, replace the kernel's
 * device and inode in st by the path's identity (cp compares the two). */
void devtcp_fix_identity(int fd, dev_t *dev, uint64_t *ino, int is_socket, uint64_t real_ino);

/* path is NULL or "" (fstatat's AT_EMPTY_PATH; a separate function because
 * libc's headers declare these paths non-null, and NULL is possible). */
int devtcp_empty_path(const char *path);

#endif
