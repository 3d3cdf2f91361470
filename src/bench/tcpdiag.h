/* SPDX-License-Identifier: ISC */
/* tcpdiag.h - read TCP sockets' byte counters from the kernel (sock_diag netlink).
 * This is the bench's counting point: the same kernel counter for every
 * client program, read from outside it, so no method pays for being measured. */
#ifndef NCPV_TCPDIAG_H
#define NCPV_TCPDIAG_H

#include <stddef.h>
#include <stdint.h>

struct tcpdiag_sock {
	uint64_t cookie;	 /* the kernel's socket id, stable for its life */
	uint64_t bytes_received; /* tcpi_bytes_received: payload bytes in, in order */
	uint64_t bytes_acked;	 /* tcpi_bytes_acked: payload bytes out, acknowledged */
	int state;		 /* TCP_ESTABLISHED, TCP_CLOSE_WAIT, ... */
	uint32_t total_retrans;	 /* tcpi_total_retrans: segments this side sent again */
	uint32_t rtt_us;	 /* tcpi_rtt: smoothed round trip, as the sender sees it */
	uint32_t rcv_rtt_us;	 /* tcpi_rcv_rtt: the receiver's estimate */
};

/* The kernel's TCP states that callers look at (include/net/tcp_states.h). */
#define TCP_STATE_ESTABLISHED 1
#define TCP_STATE_CLOSE_WAIT 8

enum tcpdiag_side {
	TCPDIAG_REMOTE_PORT, /* sockets connected to port: the clients of a server */
	TCPDIAG_LOCAL_PORT   /* sockets bound to port: a server's side */
};

/* A netlink socket in the caller's current network namespace, which it
 * keeps even if the caller later moves. Returns the fd, or -1 with errno. */
int tcpdiag_open(void);

/* Fill out (up to max) with the open TCP sockets (not listening, not in
 * TIME_WAIT) whose remote or local port is port, IPv4 and IPv6. Returns how
 * many matched (which may be more than max), or -1 with errno. */
int tcpdiag_query(int fd, int port, enum tcpdiag_side side, struct tcpdiag_sock *out, size_t max);

/* 1 when a socket listens on port (its cookie in *cookie unless NULL), 0
 * when none does, -1 with errno. Port 0 asks about any port. */
int tcpdiag_listening(int fd, int port, uint64_t *cookie);

/* 1 when a socket listens on any port at an address beyond loopback (a wildcard one too), 0
 * when none does, -1 with errno. *loopback_port: the port of one that listens on loopback
 * only (127.0.0.0/8, ::1), else 0. */
int tcpdiag_listening_beyond_loopback(int fd, int *loopback_port);

#endif
