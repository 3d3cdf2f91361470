/* SPDX-License-Identifier: ISC */
/* path.h - recognise /dev/tcp/HOST/PORT, /dev/udp/HOST/PORT and /dev/tcp-listen/[ADDR/]PORT (pure). */
#ifndef NCPV_DEVTCP_PATH_H
#define NCPV_DEVTCP_PATH_H

#include <stdint.h>

#include "../addr.h"

enum devtcp_kind {
	DEVTCP_TCP = 1,	  /* /dev/tcp/HOST/PORT: connect */
	DEVTCP_UDP,	  /* /dev/udp/HOST/PORT: a connected datagram socket */
	DEVTCP_LISTEN	  /* /dev/tcp-listen/[ADDR/]PORT: wait for one client */
};

/* A parsed device path; host and port are copies owned by the struct. An
 * empty host (listening only) means every local address. */
struct devtcp_path {
	enum devtcp_kind kind;
	struct addr_spec at;
};

/*
 * The cheap test every hooked call makes first: nonzero when path starts
 * with one of the three prefixes. Costs a few byte compares on other paths.
 */
static inline int devtcp_path_claims(const char *path)
{
	return path != 0 && path[0] == '/' && path[1] == 'd' && path[2] == 'e' && path[3] == 'v' &&
	       path[4] == '/' &&
	       ((path[5] == 't' && path[6] == 'c' && path[7] == 'p' &&
		 (path[8] == '/' || (path[8] == '-' && __builtin_strncmp(path + 9, "listen/", 7) == 0))) ||
		(path[5] == 'u' && path[6] == 'd' && path[7] == 'p' && path[8] == '/'));
}

/*
 * The same test for a path relative to the directory /dev ("tcp/HOST/PORT",
 * as programs open names below a directory descriptor).
 */
static inline int devtcp_path_claims_relative(const char *rel)
{
	return rel != 0 &&
	       ((rel[0] == 't' && rel[1] == 'c' && rel[2] == 'p' &&
		 (rel[3] == '/' || (rel[3] == '-' && __builtin_strncmp(rel + 4, "listen/", 7) == 0))) ||
		(rel[0] == 'u' && rel[1] == 'd' && rel[2] == 'p' && rel[3] == '/'));
}

/*
 * Parse a claimed path. HOST may be a name, an IPv4 address or an IPv6
 * address with or without brackets; PORT a number or a service name.
 * Returns  1 and fills out: a device path;
 *          0 when the path has the prefix but not the shape (a missing or
 *            extra component): the caller treats it as an ordinary path;
 *         -1 with errno EINVAL: the shape is right but the port is not
 *            (out of range, 0 for a connect, not a service name).
 */
int devtcp_path_parse(const char *path, struct devtcp_path *out);

/* A stable identity for a device path (FNV-1a, never 0), reported as its
 * inode number by stat and by fstat on the descriptor it opened. */
uint64_t devtcp_path_ino(const char *path);

#endif
