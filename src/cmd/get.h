/* SPDX-License-Identifier: ISC */
/* get.h - what "ncpv get"'s two modes share: the options, and the pv-style progress line. */
#ifndef NCPV_CMD_GET_H
#define NCPV_CMD_GET_H

#include <signal.h>
#include <stdint.h>

#include "../addr.h"
#include "../net.h"
#include "progress.h"
#include "tls_cmd.h"

/* Parsed once by cmd_get; read-only afterwards. */
struct get_opts {
	struct addr_spec at;
	struct net_opts net;
	double timeout, duration, interval, busy_poll;
	uint64_t max_bytes, size;
	int has_size, force, quiet, json, send;
	long count, parallel;
	const char *output, *source;
	struct cmd_tls tls;
};

/* The shared status line (progress.h), shown on a terminal or with -f, unless -q. */
void get_progress_init(struct progress *p, const struct get_opts *o, double now);

/* --count: o->count whole downloads over up to o->parallel connections,
 * with a transfers/s and latency summary. Stops early once *stop is set
 * (a signal handler's flag, borrowed). Returns an exit code. */
int get_run_batch(const struct get_opts *o, const volatile sig_atomic_t *stop);

#endif
