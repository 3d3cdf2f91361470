/* SPDX-License-Identifier: ISC */
/* udp.h - the UDP test engine (serve -u, get -u): an options struct in, a cancel flag, figures out
 * through struct udp_events, an end reason. It never prints and never exits: errors come back in
 * the caller's buffer. The datagrams and the exchange are in docs/UDP.md. */
#ifndef NCPV_UDP_H
#define NCPV_UDP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#define UDP_MAX_STREAMS 128

/* get -u: parsed once by the command; strings borrowed from argv. */
struct udp_client_opts {
	const char *host, *port;
	int family;	   /* AF_UNSPEC, AF_INET, AF_INET6 */
	double rate;	   /* bits per second over all streams; 0 as fast as possible */
	uint32_t length;   /* UDP payload bytes per datagram, UDP_WIRE_DATA_MIN .. UDP_WIRE_MAX */
	int streams;	   /* 1 .. UDP_MAX_STREAMS sockets, each its own flow */
	double duration;   /* seconds of sending */
	double interval;   /* seconds between interval figures; 0 none */
	double timeout;	   /* seconds to wait for the server's answers */
	int reverse;	   /* the server sends, we receive */
	int no_gso;	   /* plain sendmmsg even where UDP_SEGMENT works (benchmarks) */
};

/*
 * One interval's or the whole test's figures, for one stream or the sum of all. The sender's
 * counts are the sending end's (us, or the server with reverse); the receiver's are the
 * receiving end's as of its last answer. has_receiver is 0 when no answer came. Times in
 * seconds since the test began; delays and jitter in milliseconds (jitter: the sum's is
 * the largest stream's). has_owd: one-way delays are there (a clock shared by both ends
 * is assumed: see README).
 */
struct udp_figures {
	double start, end;
	uint64_t sent_packets, sent_bytes, slipped;
	int has_receiver;
	uint64_t packets, bytes, expected, lost, duplicates, out_of_order, late;
	double jitter_ms, owd_min_ms, owd_avg_ms, owd_max_ms;
	double recv_span; /* first to last arrival, seconds */
};

enum udp_end {
	UDP_END_TIME,	  /* the test ran its time */
	UDP_END_CANCEL,	  /* *cancel was set */
	UDP_END_NOREPORT  /* the data went, but the final report never came */
};

/*
 * What the engine hands its caller (any member may be NULL):
 * say: a line for stderr (error != 0: a warning), no newline.
 * interval: the figures of one interval: sum, and per stream (n of them).
 */
struct udp_events {
	void (*say)(void *ctx, int error, const char *line);
	void (*interval)(void *ctx, const struct udp_figures *sum, const struct udp_figures *streams, int n);
	void *ctx;
};

/* The end of a test: totals (sum and per stream: streams[] holds o->streams entries), what the
 * server granted, and how the datagrams were sent. */
struct udp_result {
	enum udp_end end;
	struct udp_figures sum;
	struct udp_figures streams[UDP_MAX_STREAMS];
	double granted_rate;	/* bits per second the server agreed to send (reverse) */
	double granted_duration;
	const char *send_path;	/* "gso", "sendmmsg": how our datagrams went out (forward) */
	const char *peer;	/* the server's address, as "127.0.0.1:6666" (static storage in res) */
	char peer_buf[80];
};

/* Error codes besides NET_E* (net.h): the server never answered within the timeout. */
#define UDP_ENOANSWER (-20)
#define UDP_EREFUSED (-21) /* the server is full (its --max-tests) */

/*
 * Run one test. Returns 0 (res filled, res->end says how it ended), or a NET_E* code or
 * UDP_E* with one line in err (the caller maps it to an exit code).
 */
int udp_client_run(const struct udp_client_opts *o, const volatile sig_atomic_t *cancel,
		   const struct udp_events *ev, struct udp_result *res, char *err, size_t errlen);

/* serve -u. */
struct udp_server_opts {
	const char *host, *port;
	int family;
	long max_tests;	   /* flows (a test has one per stream) at once */
	double max_rate;   /* bits per second: the most any reverse flow is sent at */
	double max_time;   /* seconds: the longest a reverse flow sends */
	double idle;	   /* seconds without a datagram after which a flow is forgotten */
};

/* A flow that ended: who, what it measured (receiver: the client sent; sender: reverse). */
struct udp_flow_end {
	const char *peer;
	uint32_t test_id;
	int stream, reverse;
	const char *why; /* "final report", "stop", "idle" */
	struct udp_figures fig;
};

/* What the server counted over its life. */
struct udp_server_stats {
	uint64_t datagrams, flows, refused_full;
	uint64_t not_ours;    /* too short for a header, another magic, another version */
	uint64_t bad_cookie;  /* START, REPORT_REQ, STOP or DATA without this address's cookie */
	uint64_t no_flow;     /* DATA or REPORT_REQ for no flow (ended, or never started) */
	uint64_t truncated;   /* a known type shorter than its size, or a HELLO too short to answer */
	uint64_t answers, answer_bytes, request_bytes; /* HELLO/START/REPORT_REQ answers vs their requests */
	uint64_t sent_packets, sent_bytes;
};

struct udp_server_events {
	void (*say)(void *ctx, int error, const char *line);
	void (*flow_end)(void *ctx, const struct udp_flow_end *e);
	void *ctx;
};

/* Bind the server's socket: the fd, or a NET_E* code with err filled. */
int udp_server_listen(const struct udp_server_opts *o, char *err, size_t errlen);

/* Serve on fd until *stop is set; closes fd. 0, or -1 with err filled (st filled either way). */
int udp_server_run(const struct udp_server_opts *o, int fd, const volatile sig_atomic_t *stop,
		   const struct udp_server_events *ev, struct udp_server_stats *st, char *err, size_t errlen);

/* Fill fig's receiver half from a REPORT's counters (cumulative). Pure. */
struct udp_report;
void udp_figures_from_report(struct udp_figures *fig, const struct udp_report *r);

#endif
