/* SPDX-License-Identifier: ISC */
/* link.h - --link: a real, shaped link on one machine. Two network namespaces
 * joined through TUN devices by ncpv's delay line, put together by
 * link/supervisor as for `ncpv link`: rate, round-trip delay and loss, without
 * netem or root. The server runs at one end and the clients at the other. */
#ifndef NCPV_LINK_H
#define NCPV_LINK_H

#include <stddef.h>
#include <sys/types.h>

#include "../link/supervisor.h"

#define LINK_SERVER_ADDR LINK_NEAR_ADDR
#define LINK_CLIENT_ADDR LINK_FAR_ADDR

struct bench_link {
	struct link_sup sup;	/* sup.net.ns_fd[0] the server's, [1] the clients' namespace; the line in a child */
	int orig_fd;		/* the namespace we started in */
};

/* Parse "RATE[,DELAY[,LOSS]]" such as "94mbit", "94mbit,20ms" or
 * "94mbit,20ms,1%" (pure). DELAY is the round trip added, half each way;
 * LOSS the percentage of packets dropped in each direction. Returns 0, or
 * -1 with err. */
int link_parse(const char *spec, double *bits_per_s, double *delay, double *loss, char *err, size_t errlen);

/* Build the link through link/supervisor (a user namespace first when not
 * root) and start its delay line in a child process that dies with us. On
 * failure everything made so far is removed and err says why. Returns 0 or -1. */
int link_setup(struct bench_link *l, double bits_per_s, double delay, double loss, char *err, size_t errlen);

/* Move this process (one thread) into the server's (0) or the clients' (1)
 * namespace; children started afterwards live there. 0 or -1 with errno. */
int link_enter(struct bench_link *l, int side);

/* What joins the ends, for the report: "TUN devices" or "veth pairs and packet sockets". */
const char *link_devices(const struct bench_link *l);

/* Stop the delay line and close the namespaces (they go with their last
 * process). Safe to call more than once, and from a cleanup path after a
 * signal. */
void link_teardown(struct bench_link *l);

#endif
