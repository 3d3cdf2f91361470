/* SPDX-License-Identifier: ISC */
/* serve.c - "ncpv serve": options and the signals that stop it around the connection server
 * (src/server.c), on one loop or --threads's; the log lines and summary are serve_log.c's. */
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cmd.h"
#include "serve_cmd.h"
#include "tls_cmd.h"
#include "udp_cmd.h"
#include "../addr.h"
#include "../net.h"
#include "../server.h"
#include "../source.h"
#include "../units.h"

#define OPT_THREADS (OPT_BUSY_POLL + 1)


/* server_new failed: why, with the fix when the fd limit is the cause. */
static void loop_failed(void)
{
	if (errno == EMFILE || errno == ENFILE)
		cmd_error("serve", "event loop: %s: the fd limit leaves serve no descriptor to spare "
			  "(raise ulimit -n)", strerror(errno));
	else
		cmd_error("serve", "event loop: %s", strerror(errno));
}
static volatile sig_atomic_t stop_requested;

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ncpv serve [OPTION]... [[ADDR:]PORT]\n"
		"Serve data to every client that connects (default 127.0.0.1:" NCPV_DEFAULT_PORT ").\n"
		"Listen on all interfaces only when asked: 0.0.0.0:PORT or [::]:PORT.\n\n"
		"  -S, --source SRC     random (default: fresh, incompressible), urandom, zero,\n"
		"                       or a FILE (sent once; repeated to fill --size)\n"
		"  -s, --size N         send exactly N bytes per connection, then close\n"
		"                       (K, M, G: IEC)\n"
		"  -Z, --zerocopy       send a 4 MiB block of random data over and over with\n"
		"                       sendfile, without copying it (as iperf3 -Z): less\n"
		"                       CPU, but the data repeats (a compressing link\n"
		"                       shrinks it); not with --source, --discard or --tls\n"
		"  -d, --discard        receive and count uploads instead of sending\n"
		"  -c, --max-conns N    refuse connections beyond N at once (default 1000)\n"
		"  -t, --max-time SEC   close each connection after SEC seconds\n"
		"  -b, --max-bytes N    close each connection after N bytes\n"
		"      --busy-poll USEC\n"
		"                       while events come this fast, poll instead of sleeping\n"
		"                       (default 50 microseconds; 0: always sleep)\n"
		"  -T, --threads N      N event loops on N threads, new connections handed to\n"
		"                       each in turn; default: one per core (a FIFO source: 1)\n"
		"  -4, -6               IPv4 or IPv6 only\n"
		"      --tls            speak TLS (1.2 or 1.3); without --cert, with a\n"
		"                       self-signed certificate made at start (its SHA-256\n"
		"                       fingerprint is printed)\n"
		"      --cert FILE      the certificate (chain) to present, PEM\n"
		"      --key FILE       its private key, PEM (default: in the --cert file)\n"
		"  -q, --quiet          no line per connection\n"
		"  -j, --json           log one JSON object per line\n"
		"  -u, --udp            answer UDP tests (get -u) instead\n"
		"                       (see 'ncpv serve -u --help')\n"
		"  -h, --help           show this help\n\n"
		"SEC is in seconds (2.5), or takes a unit: 500ms, 30s, 1m, 1h.\n"
		"Each connection ends with a line on stderr: the bytes sent (handed to the\n"
		"kernel) and, when a reset caught some on their way, how many the client\n"
		"acknowledged; it got between the two. SIGINT or SIGTERM stops the server\n"
		"with a summary.\n"
		"Exit status: 0 stopped by SIGINT or SIGTERM, 1 the event loop failed, 2 bad\n"
		"option, 3 address not resolved, 6 source (or --cert, --key) unreadable,\n"
		"7 cannot listen (address in use, no permission).\n");
}

/* One loop per core this process may run on (taskset, cgroups' cpusets). */
static long default_threads(void)
{
	cpu_set_t set;
	long n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		n = CPU_COUNT(&set);
	else
		n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > SERVE_MAX_THREADS ? SERVE_MAX_THREADS : n;
}

static enum cmd_parse parse_options(int argc, char **argv, struct serve_opts *o)
{
	static const struct option longopts[] = {
		{ "source", required_argument, NULL, 'S' },
		{ "size", required_argument, NULL, 's' },
		{ "discard", no_argument, NULL, 'd' },
		{ "zerocopy", no_argument, NULL, 'Z' },
		{ "max-conns", required_argument, NULL, 'c' },
		{ "max-time", required_argument, NULL, 't' },
		{ "max-bytes", required_argument, NULL, 'b' },
		{ "busy-poll", required_argument, NULL, OPT_BUSY_POLL },
		{ "threads", required_argument, NULL, 'T' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'j' },
		CMD_TLS_SERVER_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct cmd_tail tail = { "serve", usage, &o->net.family, &o->quiet, &o->json, &o->busy_poll };
	enum cmd_parse tailed;
	char err[256];
	int c;

	memset(o, 0, sizeof(*o));
	o->source = "random";
	o->max_conns = 1000;
	o->busy_poll = CMD_BUSY_POLL_SECONDS;
	o->threads = default_threads();
	o->net.family = AF_UNSPEC;
	opterr = 0;
	optind = 0; /* 0, not 1: glibc then forgets a previous parse's half-read cluster */
	while ((c = getopt_long(argc, argv, ":S:s:dZc:t:b:T:qj46h", longopts, NULL)) != -1) {
		switch (c) {
		case 'S':
			o->source = optarg;
			break;
		case 's':
			if (units_parse_size(optarg, &o->size) < 0)
				return cmd_bad_value("serve", "size", optarg, "expected a byte count such as 4096, 4K, 1.5M");
			o->has_size = 1;
			break;
		case 'd':
			o->discard = 1;
			break;
		case 'Z':
			o->zerocopy = 1;
			break;
		case 'c':
			if (units_parse_long(optarg, 1, 1000000, &o->max_conns) < 0)
				return cmd_bad_value("serve", "max-conns", optarg, "expected a number from 1 to 1000000");
			break;
		case 't':
			if (units_parse_seconds(optarg, &o->max_time) < 0 || o->max_time <= 0)
				return cmd_bad_value("serve", "max-time", optarg, "expected seconds greater than 0");
			break;
		case 'b':
			if (units_parse_size(optarg, &o->max_bytes) < 0 || o->max_bytes == 0)
				return cmd_bad_value("serve", "max-bytes", optarg, "expected a byte count greater than 0");
			break;
		case 'T':
			if (units_parse_long(optarg, 1, SERVE_MAX_THREADS, &o->threads) < 0)
				return cmd_bad_value("serve", "threads", optarg, "expected a number from 1 to 256");
			o->threads_given = 1;
			break;
		default:
			if (cmd_tls_option(&o->tls, c, optarg))
				break;
			if ((tailed = cmd_option_tail(&tail, c, argv)) != CMD_PARSE_RUN)
				return tailed;
		}
	}
	if (cmd_tls_check("serve", &o->tls) != CMD_PARSE_RUN)
		return CMD_PARSE_USAGE;
	if (argc - optind > 1) {
		cmd_error("serve", "too many arguments: '%s' (expected one [ADDR:]PORT)", argv[optind + 1]);
		return CMD_PARSE_USAGE;
	}
	if (o->discard && o->has_size) {
		cmd_error("serve", "--size and --discard conflict: a sink sends nothing");
		return CMD_PARSE_USAGE;
	}
	if (o->zerocopy && cmd_zerocopy_check("serve", o->discard ? "--discard" : NULL, o->source, o->tls.on) < 0)
		return CMD_PARSE_USAGE;
	if (addr_parse(optind < argc ? argv[optind] : NCPV_DEFAULT_PORT, "127.0.0.1", NCPV_DEFAULT_PORT, &o->at,
		       err, sizeof(err)) < 0) {
		cmd_error("serve", "%s", err);
		return CMD_PARSE_USAGE;
	}
	if (o->net.family == AF_INET6 && strcmp(o->at.host, "127.0.0.1") == 0 &&
	    (optind >= argc || strchr(argv[optind], '.') == NULL))
		snprintf(o->at.host, sizeof(o->at.host), "::1");
	if (addr_check_family(o->at.host, o->net.family, err, sizeof(err)) < 0) {
		cmd_error("serve", "%s", err);
		return CMD_PARSE_USAGE;
	}
	return CMD_PARSE_RUN;
}

/* Nothing to complete: each transfer runs until its client ends it. */
static int is_endless(const struct serve_opts *o, const struct source *src)
{
	return !o->discard && !o->has_size && source_kind(src) != SOURCE_FILE;
}

static struct server_opts server_opts_for(const struct serve_opts *o, struct source *src, struct tls_ctx *tls)
{
	struct server_opts so = {
		.src = src, .discard = o->discard, .has_size = o->has_size, .size = o->size,
		.max_bytes = o->max_bytes, .max_time = o->max_time, .max_conns = o->max_conns,
		.busy_poll = o->busy_poll, .name_peers = !o->quiet, .tls = tls,
	};
	return so;
}

/* One loop on the main thread: serve on lfd until SIGINT or SIGTERM; then the summary. */
static int run(struct serve_opts *o, struct source *src, struct tls_ctx *tls, int lfd)
{
	static const int stops[] = { SIGINT, SIGTERM };
	sigset_t block, during_wait;
	struct server_opts so = server_opts_for(o, src, tls);
	struct server_stats st;
	struct server *s;

	so.wait_mask = &during_wait;
	cmd_catch_stop(&stop_requested, stops, 2, 0);
	/* Block the stop signals except inside epoll_pwait: none is missed. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &during_wait);
	sigdelset(&during_wait, SIGINT);
	sigdelset(&during_wait, SIGTERM);

	s = server_new(&so, lfd, serve_log_close, serve_log_refuse, o);
	if (s == NULL) {
		loop_failed();
		return NCPV_EXIT_FAIL;
	}
	serve_log_listen(o, src, lfd);
	if (tls)
		serve_log_certificate(o, tls);
	if (server_run(s, &stop_requested) < 0) {
		cmd_error("serve", "event loop: %s", strerror(errno));
		server_free(s);
		return NCPV_EXIT_FAIL;
	}
	server_get_stats(s, &st);
	server_free(s);
	serve_summary(o, &st, is_endless(o, src), NULL, 1);
	return NCPV_EXIT_OK;
}

/* --threads: one loop's thread. */
struct loop_thread {
	pthread_t tid;
	struct server *s;
	int started;
	int rc, err;	       /* server_run's result and errno */
	atomic_int *failed;    /* set when any loop fails: the main thread then stops them all */
};

static void *loop_main(void *arg)
{
	struct loop_thread *t = arg;

	t->rc = server_run(t->s, &stop_requested);
	if (t->rc < 0) {
		t->err = errno;
		atomic_store(t->failed, 1);
	}
	return NULL;
}

/* Wait for SIGINT or SIGTERM (blocked in every thread, taken here) or a loop's failure. */
static void wait_for_stop(const sigset_t *stop_set, atomic_int *failed)
{
	const struct timespec tick = { 0, 250 * 1000000L };

	while (!atomic_load(failed)) {
		int sig = sigtimedwait(stop_set, NULL, &tick);

		if (sig == SIGINT || sig == SIGTERM)
			return;
	}
}

/* N loops on N threads, each with its own source (srcs[i]); the first listens on lfd and hands
 * the connections round the loops. The main thread only waits for the stop signal, then stops
 * and joins them and sums their stats. */
static int run_threads(struct serve_opts *o, struct source **srcs, struct tls_ctx *tls, int lfd)
{
	long n = o->threads;
	struct loop_thread *t = calloc((size_t)n, sizeof(*t));
	struct loop_share *share = calloc((size_t)n, sizeof(*share));
	struct server **loops = calloc((size_t)n, sizeof(struct server *));
	atomic_long conns = 0;
	atomic_int failed = 0;
	struct server_stats sum, st;
	sigset_t stop_set;
	int rc = NCPV_EXIT_OK;

	if (t == NULL || share == NULL || loops == NULL) {
		free(t);
		free(share);
		free(loops);
		cmd_error("serve", "event loop: %s", strerror(ENOMEM));
		return NCPV_EXIT_FAIL;
	}
	/* Blocked before the threads start, so that they inherit it: only sigtimedwait takes them. */
	sigemptyset(&stop_set);
	sigaddset(&stop_set, SIGINT);
	sigaddset(&stop_set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop_set, NULL);
	for (long i = 0; i < n; i++) {
		struct server_opts so = server_opts_for(o, srcs[i], tls);

		so.conns_shared = &conns;
		so.wakeable = 1;
		t[i].failed = &failed;
		t[i].s = loops[i] = server_new(&so, i == 0 ? lfd : -1, serve_log_close, serve_log_refuse, o);
		if (t[i].s == NULL) {
			loop_failed();
			rc = NCPV_EXIT_FAIL;
			break;
		}
	}
	if (rc == NCPV_EXIT_OK) {
		server_share_accepts(loops[0], loops, n);
		serve_log_listen(o, srcs[0], lfd);
		if (tls)
			serve_log_certificate(o, tls);
		for (long i = 0; i < n; i++) {
			int e = pthread_create(&t[i].tid, NULL, loop_main, &t[i]);

			if (e != 0) {
				cmd_error("serve", "thread %ld of %ld: %s", i + 1, n, strerror(e));
				rc = NCPV_EXIT_FAIL;
				break;
			}
			t[i].started = 1;
		}
		if (rc == NCPV_EXIT_OK)
			wait_for_stop(&stop_set, &failed);
	}
	stop_requested = 1;
	for (long i = 0; i < n; i++)
		if (t[i].started)
			server_wake(t[i].s);
	/* Every loop joined before any is freed: the first hands connections to the others. */
	for (long i = 0; i < n; i++)
		if (t[i].started) {
			pthread_join(t[i].tid, NULL);
			if (t[i].rc < 0) {
				cmd_error("serve", "event loop %ld: %s", i + 1, strerror(t[i].err));
				rc = NCPV_EXIT_FAIL;
			}
		}
	memset(&sum, 0, sizeof(sum));
	for (long i = 0; i < n; i++) {
		if (t[i].s == NULL)
			continue;
		server_get_stats(t[i].s, &st);
		server_free(t[i].s);
		share[i] = (struct loop_share){ st.accepted, st.bytes_sent, st.bytes_received, st.cpu_seconds };
		sum.accepted += st.accepted;
		sum.refused += st.refused;
		sum.bytes_sent += st.bytes_sent;
		sum.bytes_received += st.bytes_received;
		for (int k = 0; k < SERVER_END_KINDS; k++)
			sum.ended[k] += st.ended[k];
		sum.seconds = st.seconds > sum.seconds ? st.seconds : sum.seconds;
		sum.tls_handshakes += st.tls_handshakes;
		sum.ktls_connections += st.ktls_connections;
		sum.cpu_seconds += st.cpu_seconds;
	}
	if (rc == NCPV_EXIT_OK)
		serve_summary(o, &sum, is_endless(o, srcs[0]), share, n);
	free(t);
	free(share);
	free(loops);
	return rc;
}

/* A stream source other than urandom (a FIFO, a device) is one stream of bytes: the loops
 * cannot each open their own. */
static int source_splits(const struct serve_opts *o, const struct source *src)
{
	return o->discard || source_kind(src) != SOURCE_STREAM || strcmp(o->source, "urandom") == 0;
}

enum cmd_parse cmd_serve_parse(int argc, char **argv)
{
	struct serve_opts o;

	if (cmd_udp_wanted(argc, argv))
		return cmd_udp_serve_parse(argc, argv);
	return parse_options(argc, argv, &o);
}

/* The source --source names, or -Z's block in memory. */
static struct source *open_source(const struct serve_opts *o, char *err, size_t errlen)
{
	return o->zerocopy ? source_open_repeat(SOURCE_REPEAT_BLOCK, err, errlen) : source_open(o->source, err, errlen);
}

int cmd_serve(int argc, char **argv)
{
	enum cmd_parse parsed;
	struct serve_opts o;
	struct source *srcs[SERVE_MAX_THREADS] = { NULL };
	struct tls_ctx *tls = NULL;
	char err[512];
	int rc, lfd;

	if (cmd_udp_wanted(argc, argv))
		return cmd_udp_serve(argc, argv);
	if ((parsed = parse_options(argc, argv, &o)) != CMD_PARSE_RUN)
		return cmd_parse_exit(parsed, NCPV_EXIT_USAGE);
	if (!o.discard) {
		srcs[0] = open_source(&o, err, sizeof(err));
		if (srcs[0] == NULL) {
			cmd_error("serve", "%s", err);
			return NCPV_EXIT_FILE;
		}
		if (source_kind(srcs[0]) == SOURCE_FILE && source_size(srcs[0]) == 0 && o.has_size && o.size > 0) {
			cmd_error("serve", "source '%s' is empty: it cannot fill --size", o.source);
			source_free(srcs[0]);
			return NCPV_EXIT_USAGE;
		}
		if (!source_splits(&o, srcs[0])) {
			if (o.threads_given && o.threads > 1) {
				cmd_error("serve", "--threads %ld: source '%s' is one stream of bytes and cannot be "
					  "split between loops; use --threads 1", o.threads, o.source);
				source_free(srcs[0]);
				return NCPV_EXIT_USAGE;
			}
			o.threads = 1;
		}
	}
	if (o.tls.on && (tls = cmd_tls_ctx("serve", &o.tls, 1, &rc)) == NULL) {
		source_free(srcs[0]);
		return rc;
	}
	net_raise_fd_limit();
	/* Each further loop its own source: a random one is then one generator per thread, and a
	 * file one offset table per thread, with no lock between them. */
	for (long i = 1; i < o.threads && !o.discard; i++)
		if ((srcs[i] = open_source(&o, err, sizeof(err))) == NULL) {
			cmd_error("serve", "%s", err);
			rc = NCPV_EXIT_FILE;
			goto out;
		}
	lfd = net_listen(o.at.host, o.at.port, &o.net, err, sizeof(err));
	if (lfd < 0) {
		cmd_error("serve", "%s", err);
		rc = lfd == NET_ERESOLVE ? NCPV_EXIT_RESOLVE : NCPV_EXIT_LISTEN;
		goto out;
	}
	rc = o.threads == 1 ? run(&o, srcs[0], tls, lfd) : run_threads(&o, srcs, tls, lfd);
	close(lfd);
out:
	tls_ctx_free(tls);
	for (long i = 0; i < o.threads; i++)
		source_free(srcs[i]);
	return rc;
}
