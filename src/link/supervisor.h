/* SPDX-License-Identifier: ISC */
/* supervisor.h - one emulated link put together: the two ends (netns.h) and the delay line (line.h)
 * over their devices, run by this process or by a child that dies with it. `ncpv link` and
 * `bench --link` both build their link here. Never prints or exits (but in the line's child). */
#ifndef NCPV_LINK_SUPERVISOR_H
#define NCPV_LINK_SUPERVISOR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "line.h"
#include "netns.h"
#include "sched.h"

/* A rate-limited direction's queue when none is asked for: a NIC's usual txqueuelen, in packets. */
#define LINK_DEFAULT_QUEUE 1000

struct link_sup {
	struct link_net net;	/* the ends: net.ns_fd to enter them; net.pkt_fd the devices (-1 once a child holds them) */
	struct link_line *line;	/* the line, in the process that runs it; NULL in the others */
	pid_t line_pid;		/* link_sup_fork_line's child; 0 when there is none */
	int line_fd;		/* our end of that child's pipe: closing it stops the line; -1 */
};

/* Both directions alike (pure): bits_per_s, a round trip of rtt seconds (half each way), loss (a
 * fraction of the packets), a queue of LINK_DEFAULT_QUEUE packets; no jitter. */
void link_sup_symmetric(struct link_params p[2], double bits_per_s, double rtt, double loss);

/*
 * The ends (link_net_setup in mode: the caller is left in the user namespace and the far network
 * namespace) and a line with p (p[0] toward the far end) and seed over their devices. Returns 0,
 * or -1 with err and nothing left open. The line's precision wants a timer slack of 1 ns where it
 * runs: link_sup_fork_line's child sets it; a caller that runs the line itself sets its own.
 */
int link_sup_open(struct link_sup *s, const struct link_params p[2], uint64_t seed, enum link_mode mode,
		  char *err, size_t errlen);

/* Hand the line to a child process that moves packets until link_sup_close or our death (even by
 * SIGKILL), with SIGTERM ending it and SIGINT ignored (the caller decides what a terminal's ^C
 * means). Our copies of the line and the devices are dropped: the child holds them alone, and
 * they go with it. Returns 0, or -1 with err (then s is as link_sup_open left it). */
int link_sup_fork_line(struct link_sup *s, char *err, size_t errlen);

/* In a child of ours that does not run the line: drop our copies of the line and the devices
 * (the ends stay enterable through net.ns_fd). */
void link_sup_leave_line(struct link_sup *s);

/* fork(), the child being PID 1 of a new PID namespace (for a command whose every process must go
 * with it). As fork: the child's pid, 0 in the child, or -1 with errno. */
pid_t link_sup_fork_pid_ns(void);

/* Stop the line's child (its pipe closed, SIGTERM, reaped), free a line run here, close the ends
 * (the namespaces and devices go with their last process). Safe to repeat. */
void link_sup_close(struct link_sup *s);

/* A sock_diag socket that sees the near end's sockets (it keeps the namespace it was made in,
 * for tcpdiag_listening); the caller is back in the far end's after. -1 with errno. */
int link_sup_near_diag(const struct link_net *net);

#endif
