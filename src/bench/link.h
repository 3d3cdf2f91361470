/* SPDX-License-Identifier: ISC */
/* link.h - --link: a real, shaped link on one machine. Two network namespaces
 * joined by a veth pair, each end shaped with tc tbf (and netem for delay),
 * the server in one and the clients in the other. Needs root and iproute2. */
#ifndef NCPV_LINK_H
#define NCPV_LINK_H

#include <stddef.h>

#define LINK_SERVER_ADDR "10.231.0.1"
#define LINK_CLIENT_ADDR "10.231.0.2"

struct bench_link {
	char ns[2][40];		/* [0] the server's, [1] the clients' namespace */
	char dev[2][16];	/* the veth end in each */
	int ns_fd[2];		/* open namespace handles, -1 when closed */
	int orig_fd;		/* the namespace we started in */
	int created;		/* namespaces exist and need deleting */
	double bits_per_s, delay;
};

/* Parse "RATE[,DELAY]" such as "94mbit" or "94mbit,20ms" (pure). DELAY is
 * the round trip added, half each way. Returns 0, or -1 with err. */
int link_parse(const char *spec, double *bits_per_s, double *delay, char *err, size_t errlen);

/* The tbf bucket for a rate, in bytes (pure): as small as tbf allows, so
 * that only that much passes at once before the rate holds. */
double link_burst(double bits_per_s);

/* Check root and iproute2, remove stale namespaces of dead benches, and
 * build the link. On failure everything made so far is removed and err
 * says why. Returns 0 or -1. */
int link_setup(struct bench_link *l, double bits_per_s, double delay, char *err, size_t errlen);

/* Move this process (one thread) into the server's (0) or the clients' (1)
 * namespace; children started afterwards live there. 0 or -1 with errno. */
int link_enter(struct bench_link *l, int side);

/* Return to the starting namespace and delete both namespaces (and with
 * them the veth pair). Safe to call more than once, and from a cleanup
 * path after a signal. */
void link_teardown(struct bench_link *l);

#endif
