/* SPDX-License-Identifier: ISC */
/* sockopt.h - the socket settings a network test varies (congestion control, buffers, MSS,
 * Nagle, TOS/DSCP, pacing), applied to one TCP socket and read back as the kernel granted
 * them. Never prints: a refusal puts one line naming the setting and the kernel's reason in
 * the caller's err. The bind address and client port are net_opts' (bind_host, bind_port). */
#ifndef NCPV_SOCKOPT_H
#define NCPV_SOCKOPT_H

#include <stddef.h>
#include <stdint.h>

#define SOCKOPT_CC_MAX 16 /* TCP_CA_NAME_MAX, with its NUL */

/* What to set; a zeroed struct with tos = -1 sets nothing (sockopt_init does that). */
struct sockopt_want {
	const char *congestion; /* TCP_CONGESTION name; NULL: the system's default */
	int sndbuf, rcvbuf;	/* SO_SNDBUF / SO_RCVBUF bytes asked for; 0: the kernel's autotuning */
	int mss;		/* TCP_MAXSEG before connect; 0: leave */
	int nodelay;		/* 1: TCP_NODELAY (no Nagle) */
	int tos;		/* IP_TOS / IPV6_TCLASS byte; -1: leave */
	uint64_t pacing_rate;	/* SO_MAX_PACING_RATE, bytes/s; 0: leave */
};

/* What the kernel says it uses after sockopt_apply. */
struct sockopt_got {
	char congestion[SOCKOPT_CC_MAX];
	int sndbuf, rcvbuf; /* granted: Linux doubles a request for its own bookkeeping, and caps it
			     * at net.core.wmem_max / rmem_max */
	int mss;	    /* TCP_MAXSEG as read back (the MSS in use once connected) */
	int nodelay;
	int tos;	    /* -1 when it could not be read */
	uint64_t pacing_rate; /* UINT64_MAX (or 0xffffffff): unlimited */
};

void sockopt_init(struct sockopt_want *w);

/* Apply w to the TCP socket fd of address family family (AF_INET, AF_INET6), in the order
 * the kernel needs (all before connect/listen is fine; MSS must be). Then fill got (may be
 * NULL). Returns 0, or -1 with errno and err = "congestion control 'x': No such file or
 * directory (available: reno cubic)" and the like. */
int sockopt_apply(int fd, int family, const struct sockopt_want *w, struct sockopt_got *got,
		  char *err, size_t errlen);

/* Read back what fd uses now (after connect the MSS is the negotiated one). */
int sockopt_read(int fd, int family, struct sockopt_got *got);

/* The congestion controls the kernel has (/proc/sys/net/ipv4/tcp_available_congestion_control)
 * and those an unprivileged process may pick (..._allowed_...), space-separated, into buf.
 * Returns 0, or -1 with errno (no /proc: buf gets ""). */
int sockopt_cc_available(char *buf, size_t len);
int sockopt_cc_allowed(char *buf, size_t len);

/* Pure: 1 when name is a word of the space-separated list, 0 otherwise. */
int sockopt_cc_listed(const char *list, const char *name);

/* Pure: a TOS byte from "0x10", "16", or a DSCP class name ("ef", "af11".."af43", "cs0".."cs7",
 * "le"), the class shifted into the byte's top six bits. Returns 0 with *tos, -1 if unknown. */
int sockopt_parse_tos(const char *s, int *tos);

/* Pure: a congestion control name is 1..15 of [a-z0-9_-]. 0 good, -1 not. */
int sockopt_check_cc_name(const char *s);

#endif
