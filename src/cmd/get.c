/* SPDX-License-Identifier: ISC */
/* get.c - "ncpv get": options, then connect, receive into a sink (or send from a source),
 * count, and show pv-style progress in one process; --count hands over to get_batch.c. */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cmd.h"
#include "get.h"
#include "udp_cmd.h"
#include "../addr.h"
#include "../clock.h"
#include "../display.h"
#include "../json.h"
#include "../loop.h"
#include "../meter.h"
#include "../net.h"
#include "../sink.h"
#include "../tls.h"
#include "../source.h"
#include "../units.h"

/* The most one source_send asks for: per-call costs vanish, the socket buffer stays the limit. */
#define SEND_CHUNK (1u << 20)
/* One TLS write: four records, so a retry after TLS_WANT_WRITE is cheap to repeat. */
#define TLS_CHUNK ((size_t)64 * 1024)

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ncpv get [OPTION]... HOST[:PORT]\n"
		"  or:  ncpv get [OPTION]... HOST PORT\n"
		"Download from HOST (port " NCPV_DEFAULT_PORT " by default), counting the bytes and showing\n"
		"pv-style progress; the data is discarded unless -o is given.\n\n"
		"  -w, --timeout SEC    give up after SEC seconds connecting, or with the peer idle\n"
		"                       (default 10; 0: no limit but the kernel's)\n"
		"  -t, --time SEC       stop after SEC seconds (with --count: start no more, cut the rest)\n"
		"  -b, --bytes N        stop after N bytes (K, M, G: IEC)\n"
		"  -s, --size N         expected size: progress bar and ETA; a different total is an error\n"
		"  -o, --output FILE    write the data to FILE ('-' for stdout), byte-exact; FILE is\n"
		"                       replaced only once the transfer succeeds\n"
		"      --send           upload --source to the server instead (for serve --discard)\n"
		"  -S, --source SRC     what --send sends: random (default), urandom, zero or a FILE\n"
		"  -n, --count N        make N transfers (each until the server closes)\n"
		"  -P, --parallel P     with --count: up to P connections at once (default 1; capped\n"
		"                       by the open-file limit)\n"
		"  -i, --interval SEC   refresh the progress line every SEC seconds (default 1)\n"
		"      --busy-poll USEC\n"
		"                       while data comes this fast, poll instead of sleeping\n"
		"                       (default 50 microseconds; 0: always sleep)\n"
		"  -f, --force          show progress even when stderr is not a terminal\n"
		"  -q, --quiet          no progress and no summary\n"
		"  -j, --json           print a JSON summary on stdout (stderr with -o -)\n"
		"  -4, -6               IPv4 or IPv6 only\n"
		"      --tls            speak TLS (1.2 or 1.3), verifying the server's certificate\n"
		"      --cacert FILE    trust the CAs in FILE instead of the system's\n"
		"      --insecure       do not verify the server's certificate at all\n"
		"      --pin SHA256     accept exactly the certificate with this fingerprint\n"
		"      --sni NAME       the server name to send and to verify (default HOST)\n"
		"      --alpn LIST      offer these ALPN protocols (comma-separated)\n"
		"  -u, --udp            a UDP test against serve -u instead: loss, jitter,\n"
		"                       reordering at a paced --rate (see 'ncpv get -u --help')\n"
		"  -h, --help           show this help\n\n"
		"SEC is in seconds (2.5), or takes a unit: 500ms, 30s, 1m, 1h.\n"
		"Exit status: 0 done (an interrupted one too, unless -o keeps it), 1 it failed,\n"
		"ended short or was interrupted with -o or --count, 2 bad option, 3 name or port not\n"
		"resolved, 4 refused or unreachable, 5 timed out (-w), 6 a local file (-o,\n"
		"--source), 8-13 TLS (handshake, CA, expiry, host, --pin, -w).\n");
}

static enum cmd_parse parse_options(int argc, char **argv, struct get_opts *o)
{
	static const struct option longopts[] = {
		{ "timeout", required_argument, NULL, 'w' },
		{ "time", required_argument, NULL, 't' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "size", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "send", no_argument, NULL, 'U' },
		{ "source", required_argument, NULL, 'S' },
		{ "count", required_argument, NULL, 'n' },
		{ "parallel", required_argument, NULL, 'P' },
		{ "interval", required_argument, NULL, 'i' },
		{ "busy-poll", required_argument, NULL, OPT_BUSY_POLL },
		{ "force", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		CMD_TLS_CLIENT_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	char err[256];
	int c;

	memset(o, 0, sizeof(*o));
	o->timeout = 10;
	o->interval = 1;
	o->busy_poll = CMD_BUSY_POLL_SECONDS;
	o->source = "random";
	o->net.family = AF_UNSPEC;
	opterr = 0;
	optind = 0; /* 0, not 1: glibc then forgets a previous parse's half-read cluster */
	while ((c = getopt_long(argc, argv, ":w:t:b:s:o:uS:n:P:i:fqj46h", longopts, NULL)) != -1) {
		switch (c) {
		case 'w':
			if (units_parse_seconds(optarg, &o->timeout) < 0)
				return cmd_bad_value("get", "timeout", optarg, "expected seconds");
			break;
		case 't':
			if (units_parse_seconds(optarg, &o->duration) < 0 || o->duration <= 0)
				return cmd_bad_value("get", "time", optarg, "expected seconds greater than 0");
			break;
		case 'b':
			if (units_parse_size(optarg, &o->max_bytes) < 0 || o->max_bytes == 0)
				return cmd_bad_value("get", "bytes", optarg, "expected a byte count greater than 0");
			break;
		case 's':
			if (units_parse_size(optarg, &o->size) < 0)
				return cmd_bad_value("get", "size", optarg, "expected a byte count such as 4096, 4K, 1.5M");
			o->has_size = 1;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'U':
			o->send = 1;
			break;
		case 'u': /* never reached: cmd_get hands -u to the UDP test first */
			cmd_error("get", "-u must be a word of its own (try 'ncpv get -u --help')");
			return CMD_PARSE_USAGE;
		case 'S':
			o->source = optarg;
			break;
		case 'n':
			if (units_parse_long(optarg, 1, 100000000, &o->count) < 0)
				return cmd_bad_value("get", "count", optarg, "expected a number from 1 to 100000000");
			break;
		case 'P':
			if (units_parse_long(optarg, 1, 100000, &o->parallel) < 0)
				return cmd_bad_value("get", "parallel", optarg, "expected a number from 1 to 100000");
			break;
		case 'i':
			if (units_parse_seconds(optarg, &o->interval) < 0 || o->interval < 0.01)
				return cmd_bad_value("get", "interval", optarg, "expected seconds, at least 0.01");
			break;
		case OPT_BUSY_POLL:
			if (cmd_parse_busy_poll(optarg, &o->busy_poll) < 0)
				return cmd_bad_value("get", "busy-poll", optarg, "expected microseconds from 0 to 1000000");
			break;
		case 'f':
			o->force = 1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'j':
			o->json = 1;
			break;
		case '4':
			o->net.family = AF_INET;
			break;
		case '6':
			o->net.family = AF_INET6;
			break;
		case 'h':
			usage(stdout);
			return CMD_PARSE_DONE;
		case ':':
			return cmd_missing_argument("get", optopt, argv[optind - 1]);
		default:
			if (cmd_tls_option(&o->tls, c, optarg))
				break;
			return cmd_bad_option("get", optopt, optopt ? NULL : argv[optind - 1]);
		}
	}
	if (cmd_tls_check("get", &o->tls) != CMD_PARSE_RUN)
		return CMD_PARSE_USAGE;
	if (optind >= argc) {
		cmd_error("get", "missing HOST[:PORT] (try 'ncpv get --help')");
		return CMD_PARSE_USAGE;
	}
	if (argc - optind > 2) {
		cmd_error("get", "too many arguments: '%s'", argv[optind + 2]);
		return CMD_PARSE_USAGE;
	}
	if (argc - optind == 2) {
		char spec[ADDR_HOST_MAX + ADDR_PORT_MAX + 4];
		const char *h = argv[optind];

		/* A bare IPv6 address needs brackets before ":PORT"; a bracketed one has them. */
		snprintf(spec, sizeof(spec), strchr(h, ':') && h[0] != '[' ? "[%s]:%s" : "%s:%s", h,
			 argv[optind + 1]);
		if (addr_parse(spec, NULL, NULL, &o->at, err, sizeof(err)) < 0) {
			cmd_error("get", "%s", err);
			return CMD_PARSE_USAGE;
		}
	} else if (addr_parse(argv[optind], NULL, NCPV_DEFAULT_PORT, &o->at, err, sizeof(err)) < 0) {
		cmd_error("get", "%s", err);
		return CMD_PARSE_USAGE;
	}
	if (o->at.host[0] == '\0') {
		cmd_error("get", "missing host in '%s'", argv[optind]);
		return CMD_PARSE_USAGE;
	}
	/* Port 0 means "any" to a listener; a connect to it can only be refused. */
	if (addr_parse_port(o->at.port) == 0) {
		cmd_error("get", "invalid port '%s': port 0 cannot be connected to, expected 1 to 65535",
			  o->at.port);
		return CMD_PARSE_USAGE;
	}
	if (addr_check_family(o->at.host, o->net.family, err, sizeof(err)) < 0) {
		cmd_error("get", "%s", err);
		return CMD_PARSE_USAGE;
	}
	if (o->parallel && !o->count) {
		cmd_error("get", "--parallel needs --count");
		return CMD_PARSE_USAGE;
	}
	if (o->count && (o->send || o->output || o->max_bytes)) {
		cmd_error("get", "--count makes whole downloads: it does not combine with %s",
			  o->send ? "--send" : o->output ? "--output" : "--bytes");
		return CMD_PARSE_USAGE;
	}
	if (o->send && o->output) {
		cmd_error("get", "--send and --output conflict: an upload writes nothing");
		return CMD_PARSE_USAGE;
	}
	if (!o->parallel)
		o->parallel = 1;
	o->net.timeout_ms = o->timeout > 0 ? net_ms_until(o->timeout, 0) : 0;
	o->net.cancel = &interrupted;
	return CMD_PARSE_RUN;
}

/* ---- the progress line, shared with get_batch.c ------------------------- */

void get_progress_init(struct progress *p, const struct get_opts *o, double now)
{
	progress_init(p, !o->quiet && (o->force || isatty(STDERR_FILENO)), o->interval, o->size, now);
}

/* ---- one connection ---------------------------------------------------- */

struct result {
	uint64_t bytes;
	double seconds;
	char peer[64];
	const char *ended; /* "eof", "time", "bytes", "interrupted" */
};

/* The earlier of two deadlines, where 0 is none. */
static double earliest(double a, double b)
{
	return a > 0 && (b <= 0 || a < b) ? a : b;
}

/* A TLS server says nothing until the client's hello: a plain get to one hears silence.
 * After this long with not one byte, get says so once (or -w's message does, if sooner). */
#define GET_TLS_HINT_AFTER 3.0
#define GET_TLS_HINT "a TLS server stays silent until the client speaks TLS: if it is one, add --tls"

/* -w after the connect: the peer has moved nothing for that long (nc's -w). */
static int idle_timeout(const struct get_opts *o, double last_io, double now, char *err,
			size_t errlen, int sending, const char *peer, int tls_hint)
{
	if (o->timeout <= 0 || now - last_io < o->timeout)
		return 0;
	snprintf(err, errlen, "%s %s: timed out: %s for %g s (-w)%s%s", sending ? "send to" : "receive from",
		 peer, sending ? "the server took nothing" : "nothing received", o->timeout,
		 tls_hint ? "; " : "", tls_hint ? GET_TLS_HINT : "");
	return NCPV_EXIT_TIMEOUT;
}

static int receive(const struct get_opts *o, int sock, struct sink *k, struct progress *p,
		   struct result *res, char *err, size_t errlen)
{
	double start = p->meter.start, deadline = o->duration > 0 ? start + o->duration : 0;
	double last_io = start, tls_hint_at = o->tls.on ? 0 : start + GET_TLS_HINT_AFTER;
	uint64_t cap = o->max_bytes ? o->max_bytes : UINT64_MAX;
	struct loop_spin spin = { .window = o->busy_poll };

	res->ended = "eof";
	for (;;) {
		uint64_t left = cap - p->meter.bytes;
		size_t want = left < (1u << 30) ? (size_t)left : (1u << 30);
		ssize_t n;
		int again, moved;
		double now;

		/* With --size, take no byte past it into the output: once it is all here, only
		 * look (MSG_PEEK) whether the server sends more or ends. */
		if (o->has_size && o->size - p->meter.bytes < want)
			want = (size_t)(o->size - p->meter.bytes);
		if (o->has_size && want == 0) {
			n = sink_probe(k);
			if (n > 0) {
				snprintf(err, errlen, "receive from %s: the server sent more than --size (%llu bytes)",
					 res->peer, (unsigned long long)o->size);
				return NCPV_EXIT_FAIL;
			}
		} else {
			n = sink_recv(k, want);
		}
		again = n < 0 && errno == EAGAIN; /* read now: progress_tick may print */
		/* Waiting for our own output is not the peer being idle. */
		moved = n > 0 || sink_waited_output(k);
		if (n > 0) {
			loop_spin_done(&spin);
			meter_add(&p->meter, (uint64_t)n);
			if (p->meter.bytes >= cap) {
				res->ended = "bytes";
				return 0;
			}
		} else if (n == 0) {
			return 0;
		} else if (n == -2) {
			/* The count reported is what the output holds, exactly. */
			meter_add(&p->meter, sink_partial(k));
			if (errno == EINTR && interrupted) {
				res->ended = "interrupted"; /* while the output was blocked */
				return 0;
			}
			snprintf(err, errlen, "cannot write output: %s", strerror(errno));
			return NCPV_EXIT_FILE;
		} else if (errno != EAGAIN && errno != EINTR) {
			snprintf(err, errlen, "receive from %s: %s", res->peer,
				 errno == EPROTO && o->tls.on ? sink_tls_error(k) :
				 errno == ECONNRESET ? "connection reset by peer" : strerror(errno));
			return NCPV_EXIT_FAIL;
		}
		now = clock_now();
		if (moved)
			last_io = now;
		if (interrupted) {
			res->ended = "interrupted";
			return 0;
		}
		if (deadline > 0 && now >= deadline) {
			res->ended = "time";
			return 0;
		}
		if (idle_timeout(o, last_io, now, err, errlen, 0, res->peer,
				 tls_hint_at > 0 && p->meter.bytes == 0))
			return NCPV_EXIT_TIMEOUT;
		if (tls_hint_at > 0 && now >= tls_hint_at) {
			if (p->meter.bytes == 0 && !o->quiet) {
				if (p->shown)
					fputc('\n', stderr);
				cmd_error("get", "nothing received from %s in %g s: %s", res->peer,
					  GET_TLS_HINT_AFTER, GET_TLS_HINT);
			}
			tls_hint_at = 0;
		}
		progress_tick(p, now);
		if (again) {
			double until = earliest(earliest(p->show ? p->next : 0, deadline), tls_hint_at);

			if (loop_spin_again(&spin, now))
				continue;
			if (o->timeout > 0)
				until = earliest(until, last_io + o->timeout);
			net_wait_cancel(sock, POLLIN, until > 0 ? net_ms_until(until, now) : -1,
					&interrupted);
		}
	}
}

/* source_send over TLS, with its results: bytes, 0 at the source's end, SOURCE_SEND_WAIT,
 * SOURCE_SEND_EREAD, or -1 with errno (EAGAIN: wait for room; EPROTO: a TLS failure, its
 * reason in why). A file's bytes are read into scratch (TLS_CHUNK bytes) at pos, so a retry
 * after TLS_WANT_WRITE passes the same bytes; a stream's stay in the source until sent. */
static ssize_t tls_source_send(struct tls_conn *tls, struct source *src, uint64_t pos, size_t want,
			       void *scratch, char *why, size_t whylen)
{
	const void *data = scratch;
	ssize_t n, w;

	if (want > TLS_CHUNK)
		want = TLS_CHUNK;
	if (source_kind(src) == SOURCE_FILE)
		n = pread(source_fd(src), scratch, want, (off_t)pos);
	else if ((n = source_peek(src, want, &data)) < 0 && errno == EAGAIN)
		return SOURCE_SEND_WAIT;
	if (n <= 0)
		return n < 0 ? SOURCE_SEND_EREAD : 0;
	w = tls_write(tls, data, (size_t)n, why, whylen);
	if (w > 0 && source_kind(src) != SOURCE_FILE)
		source_consume(src, (size_t)w);
	if (w >= 0)
		return w;
	errno = w == TLS_WANT_READ || w == TLS_WANT_WRITE ? EAGAIN : w == TLS_EIO ? errno : EPROTO;
	return -1;
}

/* Send close_notify, waiting a little for room if the socket is full. */
static void tls_close_notify(struct tls_conn *tls, int sock)
{
	char err[256];

	for (int i = 0; i < 10 && tls_shutdown(tls, err, sizeof(err)) == TLS_WANT_WRITE; i++)
		net_wait_cancel(sock, POLLOUT, 100, &interrupted);
}

/* tls: --tls, or NULL; scratch: TLS_CHUNK bytes for a file source's plaintext. */
static int upload(const struct get_opts *o, int sock, struct tls_conn *tls, void *scratch,
		  struct sink *drain, struct source *src, struct progress *p, struct result *res,
		  char *err, size_t errlen)
{
	char why[256]; /* a TLS write's failure */

	double deadline = o->duration > 0 ? p->meter.start + o->duration : 0;
	double last_io = p->meter.start;
	uint64_t cap = o->max_bytes ? o->max_bytes : UINT64_MAX;

	if (source_kind(src) == SOURCE_FILE && source_size(src) < cap)
		cap = source_size(src);
	res->ended = "eof";
	while (p->meter.bytes < cap) {
		uint64_t left = cap - p->meter.bytes;
		size_t want = left < SEND_CHUNK ? (size_t)left : SEND_CHUNK;
		/* What to wait for when nothing moved: room in the socket, or
		 * bytes from a stream source (a FIFO whose writer is slow). */
		int wait_fd = -1;
		short wait_for = POLLOUT;
		ssize_t n;
		double now;

		n = tls ? tls_source_send(tls, src, p->meter.bytes, want, scratch, why, sizeof(why))
			: source_send(src, sock, p->meter.bytes, want);
		if (n == -1 && tls && errno == EPROTO) {
			snprintf(err, errlen, "send to %s: %s", res->peer, why);
			return NCPV_EXIT_FAIL;
		}
		if (n == 0 && source_kind(src) == SOURCE_FILE) {
			/* Nothing at an offset below the size it had when opened: the
			 * file was truncated under us. What the server got is not the file. */
			net_reset_on_close(sock);
			snprintf(err, errlen, "source file shrank: '%s' ended at %llu of %llu bytes",
				 o->source, (unsigned long long)p->meter.bytes,
				 (unsigned long long)source_size(src));
			return NCPV_EXIT_FILE;
		}
		if (n == SOURCE_SEND_WAIT) {
			wait_fd = source_fd(src);
			wait_for = POLLIN;
			n = 0;
		} else if (n == SOURCE_SEND_EREAD) {
			snprintf(err, errlen, "cannot read source '%s': %s", o->source, strerror(errno));
			return NCPV_EXIT_FILE;
		}
		if (n > 0)
			meter_add(&p->meter, (uint64_t)n);
		else if (n == 0 && wait_fd < 0)
			break;
		else if (n < 0 && errno == EAGAIN)
			wait_fd = sock;
		else if (n < 0 && errno != EINTR) {
			snprintf(err, errlen, "send to %s: %s", res->peer,
				 errno == EPIPE || errno == ECONNRESET ? "connection reset by peer" : strerror(errno));
			return NCPV_EXIT_FAIL;
		}
		now = clock_now();
		/* A silent source is ours to wait for; only a peer taking nothing is idle. */
		if (n > 0 || wait_for == POLLIN)
			last_io = now;
		if (interrupted) {
			res->ended = "interrupted";
			break;
		}
		if (deadline > 0 && now >= deadline) {
			res->ended = "time";
			break;
		}
		if (idle_timeout(o, last_io, now, err, errlen, 1, res->peer, 0))
			return NCPV_EXIT_TIMEOUT;
		progress_tick(p, now);
		if (wait_fd >= 0) {
			double until = earliest(p->show ? p->next : 0, deadline);

			if (wait_fd == sock && o->timeout > 0)
				until = earliest(until, last_io + o->timeout);
			net_wait_cancel(wait_fd, wait_for, until > 0 ? net_ms_until(until, now) : -1,
					&interrupted);
		}
	}
	if (o->max_bytes && p->meter.bytes >= o->max_bytes)
		res->ended = "bytes";
	/* Half-close (after TLS's close_notify), then wait for the server's close: only
	 * then is every byte known to be read. A server that neither closes nor sends
	 * for -w leaves that unknown. The drain reads the raw socket even over TLS: it
	 * only waits for the end. */
	if (tls)
		tls_close_notify(tls, sock);
	shutdown(sock, SHUT_WR);
	for (double last = clock_now();;) {
		ssize_t n = sink_recv(drain, NET_DISCARD_MAX);
		double now = clock_now();

		if (n == 0)
			break;
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			/* A reset now means the server closed with our bytes unread. */
			snprintf(err, errlen, "%s %s before reading everything sent", res->peer,
				 errno == ECONNRESET ? "reset the connection" : strerror(errno));
			return NCPV_EXIT_FAIL;
		}
		if (n > 0)
			last = now;
		if (interrupted)
			break;
		if (o->timeout > 0 && now - last >= o->timeout) {
			snprintf(err, errlen, "%s did not close the connection within %g s (-w) of the "
				 "upload's end: it may not have read everything", res->peer, o->timeout);
			return NCPV_EXIT_TIMEOUT;
		}
		if (n < 0)
			net_wait_cancel(sock, POLLIN, o->timeout > 0 ? net_ms_until(last + o->timeout, now) : -1,
					&interrupted);
	}
	return 0;
}

static void print_summary(const struct get_opts *o, const struct result *res, const char *dir,
			  const struct tls_conn *tls)
{
	double rate = res->seconds > 0 ? (double)res->bytes / res->seconds : 0;
	char amount[64], r[32], line[1024], over[160] = "";
	FILE *jf = o->output && strcmp(o->output, "-") == 0 ? stderr : stdout;
	struct json j;

	if (o->json) {
		json_init(&j, line, sizeof(line));
		json_object(&j, NULL);
		json_string(&j, "direction", dir);
		json_string(&j, "peer", res->peer);
		json_uint(&j, "bytes", res->bytes);
		json_fixed(&j, "seconds", res->seconds, 6);
		json_fixed(&j, "rate", rate, 0);
		json_string(&j, "ended", res->ended);
		if (tls)
			cmd_tls_json(&j, tls);
		json_end(&j);
		fprintf(jf, "%s\n", json_text(&j));
		fflush(jf);
	}
	if (o->quiet)
		return;
	if (tls) {
		memcpy(over, " over ", 7);
		tls_conn_describe(tls, over + 6, sizeof(over) - 6);
	}
	fprintf(stderr, "%s %s in %.3f s = %s/s (%.1f Mbit/s) %s %s%s%s\n",
		strcmp(dir, "send") == 0 ? "sent" : "received",
		units_format_count(amount, sizeof(amount), res->bytes), res->seconds,
		units_format_iec(r, sizeof(r), rate), rate * 8 / 1e6,
		strcmp(dir, "send") == 0 ? "to" : "from", res->peer, over,
		strcmp(res->ended, "interrupted") == 0 ? ", interrupted" : "");
}

/* --tls: the handshake on the connected sock, bounded by -w. Returns the
 * connection, or NULL with *rc set after the message. */
static struct tls_conn *start_tls(const struct get_opts *o, int sock, struct tls_ctx *ctx,
				  const char *peer, int *rc)
{
	const char *name = o->tls.sni ? o->tls.sni : o->at.host;
	struct tls_conn *tls = NULL;
	char err[512];
	int r;

	*rc = NCPV_EXIT_FAIL;
	if (net_set_nonblock(sock, 1) < 0) {
		cmd_error("get", "%s", strerror(errno));
		return NULL;
	}
	if ((tls = tls_conn_new(ctx, sock, name, err, sizeof(err))) == NULL) {
		cmd_error("get", "%s", err);
		return NULL;
	}
	r = tls_handshake_wait(tls, o->timeout > 0 ? clock_now() + o->timeout : 0, &interrupted, err,
			       sizeof(err));
	if (r == TLS_OK)
		return tls;
	if (r == TLS_EUNKNOWN_CA && tls_conn_peer_fingerprint(tls))
		cmd_error("get", "TLS handshake with %s: %s; to accept exactly this certificate: --pin %s",
			  peer, err, tls_conn_peer_fingerprint(tls));
	else
		cmd_error("get", "TLS handshake with %s: %s", peer, err);
	*rc = interrupted ? NCPV_EXIT_FAIL : cmd_tls_exit(r);
	tls_conn_free(tls);
	return NULL;
}

static int run_single(const struct get_opts *o)
{
	struct progress p;
	struct result res;
	struct source *src = NULL;
	struct sink *sink = NULL;
	struct tls_ctx *ctx = NULL;
	struct tls_conn *tls = NULL;
	char err[512];
	void *scratch = NULL;
	int sock = -1, rc = 0, short_size, cut;

	memset(&res, 0, sizeof(res));
	if (o->tls.on && ((ctx = cmd_tls_ctx("get", &o->tls, 0, &rc)) == NULL ||
			  (scratch = malloc(TLS_CHUNK)) == NULL)) {
		if (ctx)
			cmd_error("get", "out of memory");
		rc = ctx ? NCPV_EXIT_FAIL : rc;
		goto out;
	}
	if (o->send && (src = source_open(o->source, err, sizeof(err))) == NULL) {
		cmd_error("get", "%s", err);
		rc = NCPV_EXIT_FILE;
		goto out;
	}
	/* An upload reads nothing but the server's close: a discarding sink. */
	sink = sink_open(o->send ? NULL : o->output, &interrupted, err, sizeof(err));
	if (sink == NULL) {
		cmd_error("get", "%s", err);
		rc = NCPV_EXIT_FILE;
		goto out;
	}
	sock = net_connect(o->at.host, o->at.port, &o->net, err, sizeof(err));
	if (sock < 0) {
		cmd_error("get", "%s", err);
		rc = cmd_net_exit(sock);
		goto out;
	}
	net_peer_name(sock, res.peer, sizeof(res.peer));
	if (ctx && (tls = start_tls(o, sock, ctx, res.peer, &rc)) == NULL)
		goto out;
	if (sink_connected(sink, sock) < 0) {
		cmd_error("get", "cannot truncate output '%s': %s", o->output, strerror(errno));
		rc = NCPV_EXIT_FILE;
		goto out;
	}
	if (tls && !o->send)
		sink_set_tls(sink, tls);
	get_progress_init(&p, o, clock_now());
	if (o->send)
		rc = upload(o, sock, tls, scratch, sink, src, &p, &res, err, sizeof(err));
	else
		rc = receive(o, sock, sink, &p, &res, err, sizeof(err));
	res.bytes = p.meter.bytes;
	res.seconds = clock_now() - p.meter.start;
	if (p.shown || (p.show && rc == 0))
		progress_draw(&p, clock_now(), 1);
	short_size = o->has_size && res.bytes != o->size && strcmp(res.ended, "eof") == 0;
	/* A signal stops a download counted to nowhere as asked, but one kept with -o is not
	 * whole: FILE stays as it was and the status says so (issue 22). */
	cut = o->output != NULL && !o->send && strcmp(res.ended, "interrupted") == 0;
	/* Only a whole transfer (or one stopped as asked: -t, -b) replaces FILE. */
	if (rc == 0 && !short_size && !cut && sink_commit(sink) < 0) {
		snprintf(err, sizeof(err), "cannot replace output '%s': %s", o->output, strerror(errno));
		rc = NCPV_EXIT_FILE;
	}
	if (rc != 0) {
		cmd_error("get", "%s (after %llu bytes)", err, (unsigned long long)res.bytes);
		goto out;
	}
	print_summary(o, &res, o->send ? "send" : "receive", tls);
	if (cut) {
		if (strcmp(o->output, "-") == 0)
			cmd_error("get", "interrupted after %llu bytes: stdout has only part of the download",
				  (unsigned long long)res.bytes);
		else
			cmd_error("get", "interrupted after %llu bytes: '%s' left as it was", (unsigned long long)res.bytes,
				  o->output);
		rc = NCPV_EXIT_FAIL;
	}
	if (short_size) {
		cmd_error("get", "expected %llu bytes, received %llu", (unsigned long long)o->size,
			  (unsigned long long)res.bytes);
		rc = NCPV_EXIT_FAIL;
	}
out:
	tls_conn_free(tls);
	tls_ctx_free(ctx);
	free(scratch);
	if (sock >= 0)
		close(sock);
	sink_free(sink);
	source_free(src);
	return rc;
}

enum cmd_parse cmd_get_parse(int argc, char **argv)
{
	struct get_opts o;

	if (cmd_udp_wanted(argc, argv))
		return cmd_udp_get_parse(argc, argv);
	return parse_options(argc, argv, &o);
}

int cmd_get(int argc, char **argv)
{
	enum cmd_parse parsed;
	struct get_opts o;
	struct sigaction sa;

	if (cmd_udp_wanted(argc, argv))
		return cmd_udp_get(argc, argv);
	if ((parsed = parse_options(argc, argv, &o)) != CMD_PARSE_RUN)
		return cmd_parse_exit(parsed, NCPV_EXIT_USAGE);
	if (o.parallel > o.count && o.count > 0)
		o.parallel = o.count;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A hangup (the ssh session or terminal gone) stops get as SIGINT does:
	 * by default it would kill get and leave -o's .FILE.ncpv-XXXXXX behind. */
	sigaction(SIGHUP, &sa, NULL);
	/* Past the file size limit (ulimit -f) write fails with EFBIG and get says so,
	 * rather than dying with a core and no message. Not in main(): nc keeps nc's
	 * behaviour, and devtcp's command would inherit the ignored signal. */
	signal(SIGXFSZ, SIG_IGN);
	return o.count ? get_run_batch(&o, &interrupted) : run_single(&o);
}
