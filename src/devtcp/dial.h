/* SPDX-License-Identifier: ISC */
/* dial.h - open a device path's endpoint as open(2) would: connect, or listen and accept one client. */
#ifndef NCPV_DEVTCP_DIAL_H
#define NCPV_DEVTCP_DIAL_H

#include "path.h"

/* Environment the library reads at each device open (ncpv devtcp sets them). */
#define DEVTCP_ENV_TIMEOUT "NCPV_DEVTCP_TIMEOUT" /* seconds for connect or for a client */
#define DEVTCP_ENV_VERBOSE "NCPV_DEVTCP_VERBOSE" /* non-empty: one line per event on stderr */

/*
 * Open p (named path, for messages) with open(2) flags. The socket is
 * read-write whatever the access mode (as in bash); O_CLOEXEC and
 * O_NONBLOCK are honoured; creation flags (O_CREAT, O_TRUNC, O_EXCL,
 * O_APPEND) mean nothing for a socket and are ignored; O_DIRECTORY fails.
 * A listening path waits for one client, returns its connection and closes
 * the listening socket. Returns the descriptor, or -1 with errno:
 *   ECONNREFUSED, ENETUNREACH, EHOSTUNREACH ...  as connect(2) says;
 *   ENXIO      the host name does not resolve ("No such device or address");
 *   ETIMEDOUT  NCPV_DEVTCP_TIMEOUT ran out (connect, or waiting for a client);
 *   EINVAL     NCPV_DEVTCP_TIMEOUT is not a duration;
 *   EADDRINUSE, EACCES  a listening path cannot bind;
 *   ENOTDIR    O_DIRECTORY was asked for.
 * Writes to stderr only when NCPV_DEVTCP_VERBOSE is set.
 */
int devtcp_dial(const struct devtcp_path *p, const char *path, int flags);

#endif
