/* SPDX-License-Identifier: ISC */
/* serve_cmd.h - the "ncpv serve" command's own pieces: its parsed options and the log lines
 * and stop summary it writes on stderr (serve_log.c); the server is ../server.h. */
#ifndef NCPV_CMD_SERVE_CMD_H
#define NCPV_CMD_SERVE_CMD_H

#include <stdint.h>

#include "tls_cmd.h"
#include "../addr.h"
#include "../net.h"
#include "../server.h"
#include "../source.h"
#include "../tls.h"

#define SERVE_MAX_THREADS 256

struct serve_opts {
	struct addr_spec at;
	struct net_opts net;
	const char *source;
	uint64_t size, max_bytes;
	int has_size, discard, quiet, json;
	int zerocopy;	    /* -Z: a random block sent over and over with sendfile */
	struct cmd_tls tls;
	long max_conns;
	long threads;	    /* event loops, each on its own thread */
	int threads_given;  /* --threads was on the command line */
	double max_time, busy_poll;
};

/* --threads: each loop's share, for the balance between them. */
struct loop_share {
	uint64_t accepted, sent, received;
	double cpu_seconds;
};

/* The server's callbacks (ctx: the serve_opts): a connection's closing line and a refusal,
 * as text or JSON, nothing with -q. */
void serve_log_close(void *ctx, const struct server_close *c);
void serve_log_refuse(void *ctx, const char *peer, const char *why);

/* The stop summary: totals in st, endless: the source never ends a transfer; loops[nloops]
 * each loop's share when there are more than one (loops may be NULL when nloops is 1). */
void serve_summary(const struct serve_opts *o, const struct server_stats *st, int endless,
		   const struct loop_share *loops, long nloops);

/* --tls: the certificate's fingerprint line, for get --pin. */
void serve_log_certificate(const struct serve_opts *o, const struct tls_ctx *tls);

/* The listening line, once, whatever the number of loops. */
void serve_log_listen(const struct serve_opts *o, const struct source *src, int lfd);

#endif
