/* SPDX-License-Identifier: ISC */
/* tcpstate.h - TCP's own view of one connection (TCP_INFO) as a small struct, and the pure
 * arithmetic between two readings that a per-interval report needs. */
#ifndef NCPV_TCPSTATE_H
#define NCPV_TCPSTATE_H

#include <stddef.h>
#include <stdint.h>

/* Bits of tcpstate.have: which fields the running kernel filled (older kernels return a
 * shorter struct tcp_info; a field past its end is 0 and its bit is clear). */
enum {
	TCPSTATE_HAVE_BASIC = 1u << 0,	   /* rtt, rttvar, cwnd, mss, total_retrans */
	TCPSTATE_HAVE_PACING = 1u << 1,	   /* pacing_rate (Linux 3.15) */
	TCPSTATE_HAVE_BYTES = 1u << 2,	   /* bytes_acked, bytes_received (4.1) */
	TCPSTATE_HAVE_DELIVERY = 1u << 3,  /* delivery_rate (4.9) */
	TCPSTATE_HAVE_BYTES_SENT = 1u << 4 /* bytes_sent, bytes_retrans (4.19) */
};

struct tcpstate {
	unsigned have;		 /* TCPSTATE_HAVE_* */
	/* The kernel counts the SYN (and later the FIN) as one byte in bytes_acked: take
	 * figures as differences from a reading made at connect. */
	uint64_t bytes_acked;	 /* payload bytes out that the peer acknowledged */
	uint64_t bytes_received; /* payload bytes in, in order */
	uint64_t bytes_sent;	 /* payload bytes out, retransmits included */
	uint64_t bytes_retrans;	 /* of which sent again */
	uint32_t total_retrans;	 /* segments sent again over the connection's life */
	uint32_t cwnd;		 /* congestion window, in segments */
	uint32_t rtt_us;	 /* smoothed round trip as the sender sees it */
	uint32_t rttvar_us;	 /* its mean deviation */
	uint32_t snd_mss, rcv_mss;
	uint64_t pacing_rate;	 /* bytes/s; UINT64_MAX when not paced */
	uint64_t delivery_rate;	 /* bytes/s, TCP's latest estimate */
};

/* What changed between two readings of one connection, for an interval's line. */
struct tcpstate_interval {
	uint64_t acked, received; /* bytes in the interval (0 where a counter went backwards) */
	uint32_t retrans;	  /* segments sent again in the interval */
	double acked_rate, received_rate; /* bytes/s over the interval; 0 when seconds <= 0 */
	/* The latest reading's gauges, copied for the line: */
	uint32_t cwnd, rtt_us, rttvar_us;
	uint64_t pacing_rate, delivery_rate;
	unsigned have;	/* both readings' bits in common */
};

/* Decode the len bytes of a struct tcp_info as getsockopt(TCP_INFO) returned them. Pure; a
 * shorter struct (an older kernel) leaves the missing fields 0 with their have bits clear. */
void tcpstate_decode(const void *raw, size_t len, struct tcpstate *out);

/* Read fd's TCP_INFO. Returns 0, or -1 with errno (ENOPROTOOPT: not a TCP socket). */
int tcpstate_read(int fd, struct tcpstate *out);

/* The interval from a to b (b read seconds after a). Pure. Counters that go backwards (a new
 * connection's reading against an old one's) count as 0, never as a huge wrap-around. */
void tcpstate_delta(const struct tcpstate *a, const struct tcpstate *b, double seconds,
		    struct tcpstate_interval *out);

/* Add one stream's interval into a sum (for -P's SUM line): counters and rates add, gauges
 * that do not add (cwnd, rtt) take the mean weighted by the streams' bytes; n is how many
 * intervals sum already holds (0 for the first). Pure. */
void tcpstate_interval_add(struct tcpstate_interval *sum, const struct tcpstate_interval *one, unsigned n);

#endif
