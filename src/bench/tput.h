/* SPDX-License-Identifier: ISC */
/* tput.h - bench's throughput tests beside iperf3 and iperf2: "streams" (TCP,
 * 1, 2 and 4 parallel streams: ncpv get -P, iperf3 -P, iperf -P) and "udp" (a
 * rate sweep at each payload length: ncpv get -u, iperf3 -u, iperf -u), each
 * method against its own server on loopback, interleaved and repeated. The
 * parsers of the tools' outputs are pure (tput_parse.c); the runs are in
 * tput_run.c, the rounds in tput_session.c and the tables in tput_report.c. */
#ifndef NCPV_BENCH_TPUT_H
#define NCPV_BENCH_TPUT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Bits of bench_opts.tests beside BENCH_STREAM and BENCH_FILES. */
#define BENCH_TPUT_STREAMS 4
#define BENCH_TPUT_UDP 8

enum tput_method { TPUT_NCPV, TPUT_IPERF3, TPUT_IPERF2, TPUT_NMETHODS };

#define TPUT_MAX_LIST 8

/* What -T streams,udp runs, from bench's options. */
struct tput_opts {
	int streams[TPUT_MAX_LIST];	/* --streams LIST: parallel streams (default 1,2,4) */
	size_t nstreams;
	double rates[TPUT_MAX_LIST];	/* --rates LIST: UDP bits/s asked, 0 as fast as possible */
	size_t nrates;
	int lengths[TPUT_MAX_LIST];	/* --lengths LIST: UDP payload bytes (default 64,1400) */
	size_t nlengths;
};

/* The figures of one client run, as its tool reported them; -1 where the tool
 * gives none. */
struct tput_figures {
	double seconds;
	uint64_t bytes;			/* streams: received; udp: sent (payload) */
	double bytes_per_s;		/* streams: received; udp: sent (payload) */
	double sent_pps, received_pps;	/* udp */
	double loss_percent, jitter_s;	/* udp: at the receiver */
};

struct tput_run {
	int ok;
	struct tput_figures f;
	double cpu_s;			/* client's and its server's user + system seconds */
	char error[200];
};

enum tput_test { TPUT_STREAMS = 1, TPUT_UDP = 2 };

/* One row of a table: a method at one point (streams P, or a UDP rate and length). */
struct tput_row {
	enum tput_test test;
	enum tput_method method;
	int streams;			/* streams: P */
	double rate_bits;		/* udp: bits/s asked, 0 as fast as possible */
	int length;			/* udp: payload bytes */
	int skipped;			/* the tool is not on PATH (reason says so) */
	char command[300];		/* the client's command line of the last run */
	char reason[200];		/* why skipped, or the first failed run's error */
	struct tput_run *runs;		/* repeat entries (owned) */
	size_t nruns;
	/* Filled by tput_summarize over the good runs (-1 when none is known). */
	size_t ok_runs;
	double median, min, max;	/* bytes/s (streams: received; udp: sent) */
	double cpu_per_gib_s;		/* median CPU seconds per GiB moved */
	double ratio;			/* streams: median / ncpv's at the same P (0: unknown) */
	double sent_pps, received_pps, loss_percent, jitter_s; /* udp: medians */
	double accuracy;		/* udp: median sent / asked (0 for as fast as possible) */
};

struct tput_results {
	struct tput_row *rows;		/* owned */
	char path[120];			/* where they ran: "loopback", or "link 1gbit,20ms" */
	size_t n;
	double seconds;			/* per run (whole seconds: iperf3's -t takes no fraction) */
	long repeat;
	int tests;			/* TPUT_STREAMS | TPUT_UDP that ran */
};

/* The method's name in the tables ("ncpv", "iperf3", "iperf2") and its program. */
const char *tput_method_name(enum tput_method m);
const char *tput_method_tool(enum tput_method m);

/* Parsers of one client run's stdout (pure; text need not end in NUL when len
 * is given). Each returns 0 with f filled, or -1 with a one-line reason in err. */
int tput_parse_ncpv_streams(const char *text, size_t len, struct tput_figures *f, char *err, size_t errlen);
/* get -u -j: the JSON Lines' "summary" object. */
int tput_parse_ncpv_udp(const char *text, size_t len, struct tput_figures *f, char *err, size_t errlen);
/* iperf3 --json: end.sum_received (streams) or end.sum_sent and end.sum (udp). */
int tput_parse_iperf3(const char *text, size_t len, int udp, struct tput_figures *f, char *err, size_t errlen);
/* iperf -y C, the client's lines (streams: the sum of every stream's final
 * line, or the -1 sum line; udp: its one line, length the payload bytes).
 * For udp, server is the UDP server's CSV (NULL or "" when none) where the
 * line of the client's port gives loss and jitter. Returns -1 on no line. */
int tput_parse_iperf2(const char *text, size_t len, int udp, int length, const char *server, struct tput_figures *f,
		      char *err, size_t errlen);

/* Median, spread, CPU per GiB, ratios and UDP figures of every row (pure). */
void tput_summarize(struct tput_results *r);

/* Where the tests run: loopback (link NULL), or bench's --link, the servers
 * at its near end (host, in its namespace 0) and the clients at its far end
 * (namespace 1). Borrowed for the call; path names it in the reports. */
struct bench_link;
struct tput_where {
	const char *host;		/* the servers' IPv4 address */
	struct bench_link *link;	/* NULL on loopback */
	const char *path;		/* "loopback", or "link 1gbit,20ms" */
};

/* Run the tests of o's bits (BENCH_TPUT_*) with duration (rounded up to whole
 * seconds) and repeat, where says: ncpv (the path to this program), iperf3
 * and iperf each against a server started there and stopped by its PID; a
 * method whose program is not on PATH is skipped (say is told once, a line).
 * scratch is a directory for the clients' output; done (may be NULL) hears of
 * each run as it ends (repeat from 1). Returns 0, or -1 when *stop
 * ended it (what ran is kept) or memory ran out (errno ENOMEM). With a link,
 * this process is in the clients' namespace on return. */
typedef void tput_done_fn(void *ctx, const struct tput_row *row, long repeat, const struct tput_run *run);
int tput_run_tests(struct tput_results *r, const struct tput_opts *o, int tests, double duration, long repeat,
		   const struct tput_where *where, const char *ncpv, const char *scratch, volatile sig_atomic_t *stop,
		   void (*say)(void *ctx, const char *line), tput_done_fn *done, void *ctx);

/* How long they will take, as one sentence into buf (before they start). */
void tput_estimate(const struct tput_opts *o, int tests, double duration, long repeat, char *buf, size_t len);

/* The iperf programs on PATH that tests (BENCH_TPUT_* bits) would run, space-separated, into buf. */
void tput_tools_present(int tests, char *buf, size_t len);

/* Fill o's lists with the defaults where empty. */
void tput_default_opts(struct tput_opts *o);

/* Parse "1,2,4" (1..128 each), "10M,100M,1G,0" (bits/s) or "64,1400" (36..65507)
 * into o. Return 0, or -1 for a bad list. */
int tput_parse_streams(const char *s, struct tput_opts *o);
int tput_parse_rates(const char *s, struct tput_opts *o);
int tput_parse_lengths(const char *s, struct tput_opts *o);

/* The tables (text), the "throughput" member of the JSON document (json is a
 * struct json *), and an HTML section. Return 0, or -1 when writing failed. */
int tput_report_text(FILE *f, const struct tput_results *r);
struct json;
void tput_report_json(struct json *j, const struct tput_results *r);
int tput_report_html(FILE *f, const struct tput_results *r);

/* 1 when a run of a method that ran failed. */
int tput_failed(const struct tput_results *r);

void tput_results_free(struct tput_results *r);

#endif
