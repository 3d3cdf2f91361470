/* SPDX-License-Identifier: ISC */
/* serve.c - "ncpv serve": options, the log lines and the summary around the
 * connection server (src/server.c), and the signals that stop it. */
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
#include "tls_cmd.h"
#include "udp_cmd.h"
#include "../addr.h"
#include "../json.h"
#include "../net.h"
#include "../server.h"
#include "../source.h"
#include "../transfer.h"
#include "../units.h"
#include "../wrap.h"

struct serve_opts {
	struct addr_spec at;
	struct net_opts net;
	const char *source;
	uint64_t size, max_bytes;
	int has_size, discard, quiet, json;
	struct cmd_tls tls;
	long max_conns;
	long threads;	    /* event loops, each on its own thread */
	int threads_given;  /* --threads was on the command line */
	double max_time, busy_poll;
};

#define OPT_THREADS (OPT_BUSY_POLL + 1)
#define SERVE_MAX_THREADS 256

static volatile sig_atomic_t stop_requested;

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ncpv serve [OPTION]... [[ADDR:]PORT]\n"
		"Serve data to every client that connects (default 127.0.0.1:" NCPV_DEFAULT_PORT ").\n"
		"Listen on all interfaces only when asked: 0.0.0.0:PORT or [::]:PORT.\n\n"
		"  -S, --source SRC     random (default: fresh, incompressible), urandom, zero,\n"
		"                       or a FILE (sent once; repeated to fill --size)\n"
		"  -s, --size N         send exactly N bytes per connection, then close (K, M, G: IEC)\n"
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
		"      --tls            speak TLS (1.2 or 1.3); without --cert, with a self-signed\n"
		"                       certificate made at start (its SHA-256 fingerprint is printed)\n"
		"      --cert FILE      the certificate (chain) to present, PEM\n"
		"      --key FILE       its private key, PEM (default: in the --cert file)\n"
		"  -q, --quiet          no line per connection\n"
		"  -j, --json           log one JSON object per line\n"
		"  -u, --udp            answer UDP tests (get -u) instead\n"
		"                       (see 'ncpv serve -u --help')\n"
		"  -h, --help           show this help\n\n"
		"SEC is in seconds (2.5), or takes a unit: 500ms, 30s, 1m, 1h.\n"
		"Each connection ends with a line on stderr: the bytes sent (gone to the wire)\n"
		"and, when a reset caught some on their way, how many the client acknowledged;\n"
		"it got between the two. SIGINT or SIGTERM stops the server with a summary.\n"
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
	while ((c = getopt_long(argc, argv, ":S:s:dc:t:b:T:qj46h", longopts, NULL)) != -1) {
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

static void log_close(void *ctx, const struct server_close *c)
{
	const struct serve_opts *o = ctx;
	struct transfer t = { .sent = c->sent, .acked = c->acked, .received = c->received, .seconds = c->seconds };
	char text[256], line[1024];
	struct json j;

	if (o->quiet)
		return;
	if (o->json) {
		json_init(&j, line, sizeof(line));
		json_object(&j, NULL);
		json_string(&j, "event", "close");
		json_string(&j, "peer", c->peer);
		json_string(&j, "reason", c->reason);
		json_string(&j, "end", server_end_name(c->end));
		transfer_json(&j, &t, TRANSFER_CONNECTION);
		if (c->retrans >= 0) {
			json_fixed(&j, "rtt_ms", c->rtt_ms, 3);
			json_int(&j, "retrans", c->retrans);
		}
		if (c->tls)
			cmd_tls_json(&j, c->tls);
		json_end(&j);
		fprintf(stderr, "%s\n", json_text(&j));
	} else {
		char over[160] = "", why[128] = "", r[32];

		/* One record a line, however long: a log is read with grep, a connection by its peer. */
		if (c->tls) {
			memcpy(over, " over ", 7);
			tls_conn_describe(c->tls, over + 6, sizeof(over) - 6);
		}
		/* Two counts that differ say why: what left for the wire against what the peer
		 * acknowledged is what was in flight when the connection ended. A client that ends
		 * an endless stream stops reading when it chooses (get -b N counts N): what its
		 * kernel took but it had not read is dropped, so its count can be lower still. */
		if (c->acked < c->sent)
			snprintf(why, sizeof(why), "; %s with the rest in flight%s",
				 c->end == SERVER_CUT ? "the server cut it" :
				 c->end == SERVER_CLIENT ? "the client closed" : "it ended",
				 c->end == SERVER_CLIENT ? " and dropped what it had not read" : "");
		else if (c->end == SERVER_CLIENT)
			snprintf(why, sizeof(why), "; the client closed when it chose and dropped what it had not read");
		units_format_iec(r, sizeof(r), transfer_rate(&t));
		if (c->acked < c->sent)
			fprintf(stderr, "ncpv serve: %s %s: sent %llu B, of which %llu B acknowledged, received %llu B in %.3f s (%s/s)%s%s\n",
				c->peer, c->reason, (unsigned long long)c->sent, (unsigned long long)c->acked,
				(unsigned long long)c->received, c->seconds, r, over, why);
		else
			fprintf(stderr, "ncpv serve: %s %s: %s%s%s\n", c->peer, c->reason,
				transfer_text(text, sizeof(text), &t, TRANSFER_CONNECTION), over, why);
	}
}

static void log_refuse(void *ctx, const char *peer, const char *why)
{
	const struct serve_opts *o = ctx;
	char line[512];
	struct json j;

	if (o->quiet)
		return;
	if (o->json) {
		json_init(&j, line, sizeof(line));
		json_object(&j, NULL);
		json_string(&j, "event", "refuse");
		json_string(&j, "peer", peer);
		json_string(&j, "reason", why);
		json_end(&j);
		fprintf(stderr, "%s\n", json_text(&j));
	} else
		fprintf(stderr, "ncpv serve: %s refused: %s\n", peer, why);
}

/* --threads: each loop's share, for the balance between them. */
struct loop_share {
	uint64_t accepted, sent, received;
	double cpu_seconds;
};

static void summary(const struct serve_opts *o, const struct server_stats *st, int endless,
		    const struct loop_share *loops, long nloops)
{
	char amount[64], sent[80], recvd[80], line[512], out[1024 + SERVE_MAX_THREADS * 48];
	char per_loops[32] = "", per_conns[16 + SERVE_MAX_THREADS * 24] = "", per_cpu[16 + SERVE_MAX_THREADS * 24] = "";
	char head[96], conns[48], counts[64], client[48], limit[48], reset[48], cut[64];
	/* Said last, as its own clause, and only when there was a connection to explain. */
	const int explain = endless && st->accepted > 0;
	const uint64_t *n = st->ended;
	struct json j;
	char tls[96] = "";

	if (o->tls.on)
		snprintf(tls, sizeof(tls), "TLS: %llu handshake%s, kTLS on %llu",
			 (unsigned long long)st->tls_handshakes, wrap_s(st->tls_handshakes),
			 (unsigned long long)st->ktls_connections);

	if (o->json) {
		json_init(&j, line, sizeof(line));
		json_object(&j, NULL);
		json_string(&j, "event", "summary");
		json_uint(&j, "connections", st->accepted);
		json_uint(&j, "completed", n[SERVER_COMPLETE]);
		json_uint(&j, "refused", st->refused);
		json_uint(&j, "sent", st->bytes_sent);
		json_uint(&j, "received", st->bytes_received);
		json_fixed(&j, "seconds", st->seconds, 3);
		json_bool(&j, "endless", endless);
		json_uint(&j, "ended_by_client", n[SERVER_CLIENT]);
		json_uint(&j, "ended_by_limit", n[SERVER_LIMIT]);
		json_uint(&j, "reset", n[SERVER_RESET]);
		json_uint(&j, "cut", n[SERVER_CUT]);
		if (o->tls.on) {
			json_uint(&j, "tls_handshakes", st->tls_handshakes);
			json_uint(&j, "ktls_connections", st->ktls_connections);
		}
		json_fixed(&j, "cpu_seconds", st->cpu_seconds, 3);
		if (nloops > 1) {
			json_array(&j, "loops");
			for (long i = 0; i < nloops; i++) {
				json_object(&j, NULL);
				json_uint(&j, "connections", loops[i].accepted);
				json_uint(&j, "sent", loops[i].sent);
				json_uint(&j, "received", loops[i].received);
				json_fixed(&j, "cpu_seconds", loops[i].cpu_seconds, 3);
				json_end(&j);
			}
			json_end(&j);
		}
		json_end(&j);
		fprintf(stderr, "%s\n", json_text(&j));
		return;
	}
	if (nloops > 1) {
		/* Three clauses, so that each fits a narrow terminal on its own. */
		size_t at = (size_t)snprintf(per_conns, sizeof(per_conns), "(connections");

		snprintf(per_loops, sizeof(per_loops), "on %ld loops", nloops);
		for (long i = 0; i < nloops && at < sizeof(per_conns); i++)
			at += (size_t)snprintf(per_conns + at, sizeof(per_conns) - at, "%s%llu", i ? "/" : " ",
					       (unsigned long long)loops[i].accepted);
		if (at < sizeof(per_conns))
			snprintf(per_conns + at, sizeof(per_conns) - at, ",");
		at = (size_t)snprintf(per_cpu, sizeof(per_cpu), "cpu");
		for (long i = 0; i < nloops && at < sizeof(per_cpu); i++)
			at += (size_t)snprintf(per_cpu + at, sizeof(per_cpu) - at, "%s%.2f", i ? "/" : " ",
					       loops[i].cpu_seconds);
		if (at < sizeof(per_cpu))
			snprintf(per_cpu + at, sizeof(per_cpu) - at, " s),");
	}
	snprintf(head, sizeof(head), "ncpv serve: stopped after %.1f s:", st->seconds);
	snprintf(conns, sizeof(conns), "%llu connection%s", (unsigned long long)st->accepted, wrap_s(st->accepted));
	snprintf(counts, sizeof(counts), "(%llu completed, %llu refused;", (unsigned long long)n[SERVER_COMPLETE],
		 (unsigned long long)st->refused);
	snprintf(client, sizeof(client), "%llu ended by the client,", (unsigned long long)n[SERVER_CLIENT]);
	snprintf(limit, sizeof(limit), "%llu by a limit,", (unsigned long long)n[SERVER_LIMIT]);
	snprintf(reset, sizeof(reset), "%llu reset or failed,", (unsigned long long)n[SERVER_RESET]);
	snprintf(cut, sizeof(cut), "%llu cut short by the server),", (unsigned long long)n[SERVER_CUT]);
	snprintf(sent, sizeof(sent), "sent %s,", units_format_count(amount, sizeof(amount), st->bytes_sent));
	snprintf(recvd, sizeof(recvd), "received %s%s", units_format_count(amount, sizeof(amount), st->bytes_received),
		 tls[0] || explain ? ";" : "");
	{
		/* Laid out for the terminal (80 columns off one, as in a log); the endless source's
		 * word said last, as its own clause, and only when there was a connection to explain. */
		const char *clauses[] = { head, conns, counts, client, limit, reset, cut, per_loops, per_conns, per_cpu,
					  sent, recvd, tls,
					  explain ? "0 completed because the source is endless:" : "",
					  explain ? "a transfer ends only when its client closes it" : "" };

		fprintf(stderr, "%s\n", wrap_clauses(out, sizeof(out), clauses, sizeof(clauses) / sizeof(clauses[0]),
						      cmd_summary_width()));
	}
}

/* --tls: the certificate's fingerprint, for get --pin. */
static void log_certificate(const struct serve_opts *o, const struct tls_ctx *tls)
{
	const char *cert = o->tls.cfg.cert_file ? o->tls.cfg.cert_file : "self-signed";
	char fp[96] = "?";
	struct json j;

	tls_ctx_fingerprint(tls, fp, sizeof(fp));
	if (!o->json) {
		fprintf(stderr, "ncpv serve: TLS certificate %s, SHA-256 fingerprint %s\n", cert, fp);
		return;
	}
	json_init_grow(&j); /* a certificate path of any length */
	json_object(&j, NULL);
	json_string(&j, "event", "tls");
	json_string(&j, "certificate", cert);
	json_string(&j, "sha256", fp);
	json_end(&j);
	fprintf(stderr, "%s\n", json_text(&j));
	json_free(&j);
}

/* The listening line, once, whatever the number of loops. */
static void log_listen(const struct serve_opts *o, const struct source *src, int lfd)
{
	char name[128];
	struct json j;

	net_local_name(lfd, name, sizeof(name));
	if (o->json) {
		json_init_grow(&j); /* a source path of any length */
		json_object(&j, NULL);
		json_string(&j, "event", "listen");
		json_string(&j, "address", name);
		json_string(&j, "source", o->discard ? "discard" : source_name(src));
		json_int(&j, "threads", o->threads);
		json_end(&j);
		fprintf(stderr, "%s\n", json_text(&j));
		json_free(&j);
	} else
		fprintf(stderr, "ncpv serve: listening on %s (%s)\n", name,
			o->discard ? "discard" : source_name(src));
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

	s = server_new(&so, lfd, log_close, log_refuse, o);
	if (s == NULL) {
		cmd_error("serve", "event loop: %s", strerror(errno));
		return NCPV_EXIT_FAIL;
	}
	log_listen(o, src, lfd);
	if (tls)
		log_certificate(o, tls);
	if (server_run(s, &stop_requested) < 0) {
		cmd_error("serve", "event loop: %s", strerror(errno));
		server_free(s);
		return NCPV_EXIT_FAIL;
	}
	server_get_stats(s, &st);
	server_free(s);
	summary(o, &st, is_endless(o, src), NULL, 1);
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
	struct server **loops = calloc((size_t)n, sizeof(*loops));
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
		t[i].s = loops[i] = server_new(&so, i == 0 ? lfd : -1, log_close, log_refuse, o);
		if (t[i].s == NULL) {
			cmd_error("serve", "event loop: %s", strerror(errno));
			rc = NCPV_EXIT_FAIL;
			break;
		}
	}
	if (rc == NCPV_EXIT_OK) {
		server_share_accepts(loops[0], loops, n);
		log_listen(o, srcs[0], lfd);
		if (tls)
			log_certificate(o, tls);
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
		summary(o, &sum, is_endless(o, srcs[0]), share, n);
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
		srcs[0] = source_open(o.source, err, sizeof(err));
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
		if ((srcs[i] = source_open(o.source, err, sizeof(err))) == NULL) {
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
