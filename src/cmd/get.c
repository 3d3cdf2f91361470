/* SPDX-License-Identifier: ISC */
/* get.c - "ncpv get": connect, receive (or send), count, and show pv-style
 * progress in one process; --count hands over to get_batch.c. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "get.h"
#include "../addr.h"
#include "../clock.h"
#include "../display.h"
#include "../json.h"
#include "../loop.h"
#include "../meter.h"
#include "../net.h"
#include "../source.h"
#include "../units.h"

#define IO_CHUNK (1u << 20)
/* After an upload, how long to wait for the server to close its side. */
#define CLOSE_WAIT_MS 10000

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
		"  -w, --timeout SEC    connect timeout (default 10; 0 waits as long as the kernel)\n"
		"  -t, --time SEC       stop after SEC seconds\n"
		"  -b, --bytes N        stop after N bytes (K, M, G: IEC)\n"
		"  -s, --size N         expected size: progress bar and ETA; a different total is an error\n"
		"  -o, --output FILE    write the data to FILE ('-' for stdout), byte-exact\n"
		"      --send           upload --source to the server instead (for serve --discard)\n"
		"  -S, --source SRC     what --send sends: random (default), urandom, zero or a FILE\n"
		"  -n, --count N        make N transfers (each until the server closes)\n"
		"  -P, --parallel P     with --count: up to P connections at once (default 1)\n"
		"  -i, --interval SEC   refresh the progress line every SEC seconds (default 1)\n"
		"      --busy-poll USEC\n"
		"                       while data comes this fast, poll instead of sleeping\n"
		"                       (default 50 microseconds; 0: always sleep)\n"
		"  -f, --force          show progress even when stderr is not a terminal\n"
		"  -q, --quiet          no progress and no summary\n"
		"  -j, --json           print a JSON summary on stdout (stderr with -o -)\n"
		"  -4, -6               IPv4 or IPv6 only\n"
		"  -h, --help           show this help\n");
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
		case 'u':
			/* nc's and iperf3's -u: refuse it rather than quietly upload over TCP. */
			cmd_error("get", "option '-u' (UDP) is not supported; --send uploads over TCP");
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
			return cmd_bad_option("get", optopt, optopt ? NULL : argv[optind - 1]);
		}
	}
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
	if (o->parallel && !o->count) {
		cmd_error("get", "--parallel needs --count");
		return CMD_PARSE_USAGE;
	}
	if (o->count && (o->send || o->output || o->duration > 0 || o->max_bytes)) {
		cmd_error("get", "--count makes whole downloads: it does not combine with %s",
			  o->send ? "--send" : o->output ? "--output" : o->duration > 0 ? "--time" : "--bytes");
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

enum out_mode { OUT_NONE, OUT_SPLICE, OUT_PIPED_SPLICE, OUT_COPY };

struct stream {
	int sock, out, pipe[2];
	enum out_mode mode;
	char *buf;
	uint64_t in_pipe; /* bytes spliced into our pipe, not yet out */
	uint64_t partial; /* after an output error: bytes of that chunk that did get out */
};

/* A write that would block, or a signal: wait for room unless the run
 * was interrupted (a stalled reader must not make us deaf to SIGTERM).
 * 0 to try again, -1 with errno EINTR to give up. */
static int wait_writable(int fd)
{
	if (errno == EAGAIN)
		return net_wait_cancel(fd, POLLOUT, -1, &interrupted) < 0 ? -1 : 0;
	if (interrupted) {
		errno = EINTR;
		return -1;
	}
	return 0;
}

/* Write n bytes; *done says how many got out, also when it fails. */
static int write_all(int fd, const char *p, size_t n, uint64_t *done)
{
	*done = 0;
	while (n > 0) {
		ssize_t w;

		/* A signal during a blocking write often ends it short, not with
		 * EINTR: look at the flag before blocking again. */
		if (interrupted) {
			errno = EINTR;
			return -1;
		}
		w = write(fd, p, n);

		if (w < 0) {
			if ((errno == EINTR || errno == EAGAIN) && wait_writable(fd) == 0)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
		*done += (uint64_t)w;
	}
	return 0;
}

/* Move the internal pipe's contents to the output. */
static int flush_pipe(struct stream *st)
{
	while (st->in_pipe > 0) {
		ssize_t n = splice(st->pipe[0], NULL, st->out, NULL, (size_t)st->in_pipe, SPLICE_F_MOVE);

		if (n < 0) {
			if ((errno == EINTR || errno == EAGAIN) && wait_writable(st->out) == 0)
				continue;
			return -1;
		}
		st->in_pipe -= (uint64_t)n;
	}
	return 0;
}

/* Receive up to want bytes. Returns bytes (> 0), 0 at EOF, -1 with errno
 * (EAGAIN: nothing now). Output errors come back as -2 with errno. */
static ssize_t stream_recv(struct stream *st, size_t want)
{
	ssize_t n;

	switch (st->mode) {
	case OUT_NONE:
		return net_discard(st->sock, st->buf, want < NET_DISCARD_MAX ? want : NET_DISCARD_MAX);
	case OUT_SPLICE:
		st->partial = 0;
		n = splice(st->sock, NULL, st->out, NULL, want, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n < 0 && errno == EAGAIN) {
			/* Either side may be the one not ready; wait for whichever. */
			struct pollfd p[2] = { { st->sock, POLLIN, 0 }, { st->out, POLLOUT, 0 } };

			if (poll(p, 2, 0) > 0 && (p[0].revents & POLLIN) && !(p[1].revents & (POLLOUT | POLLERR))) {
				net_wait_cancel(st->out, POLLOUT, 1000, &interrupted);
				errno = EINTR;
			}
			return -1;
		}
		if (n < 0 && errno != EINTR)
			return errno == EPIPE || errno == EBADF ? -2 : -1;
		return n;
	case OUT_PIPED_SPLICE:
		if (want > IO_CHUNK)
			want = IO_CHUNK;
		n = splice(st->sock, NULL, st->pipe[1], NULL, want, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0) {
			st->in_pipe += (uint64_t)n;
			if (flush_pipe(st) < 0) {
				st->partial = (uint64_t)n - st->in_pipe; /* the pipe was empty before */
				return -2;
			}
		}
		return n;
	case OUT_COPY:
		if (want > IO_CHUNK)
			want = IO_CHUNK;
		n = recv(st->sock, st->buf, want, MSG_DONTWAIT);
		if (n > 0 && write_all(st->out, st->buf, (size_t)n, &st->partial) < 0)
			return -2;
		return n;
	}
	return -1;
}

static int stream_setup(struct stream *st, const char *output, char *err, size_t errlen)
{
	struct stat sb;
	size_t scratch;

	st->out = -1;
	st->pipe[0] = st->pipe[1] = -1;
	st->mode = OUT_NONE;
	/* Scratch for net_discard, or the copy buffer: untouched pages cost no RSS. */
	scratch = IO_CHUNK;
	if (scratch < NET_DISCARD_MAX)
		scratch = NET_DISCARD_MAX;
	st->buf = malloc(scratch);
	if (st->buf == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (output == NULL)
		return 0;
	if (strcmp(output, "-") == 0) {
		st->out = STDOUT_FILENO;
	} else {
		st->out = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (st->out < 0) {
			snprintf(err, errlen, "cannot open output '%s': %s", output, strerror(errno));
			return -1;
		}
	}
	if (fstat(st->out, &sb) == 0 && S_ISFIFO(sb.st_mode)) {
		st->mode = OUT_SPLICE;
	} else if (fstat(st->out, &sb) == 0 && S_ISREG(sb.st_mode) &&
		   !(fcntl(st->out, F_GETFL) & O_APPEND) && pipe2(st->pipe, O_CLOEXEC) == 0) {
		fcntl(st->pipe[1], F_SETPIPE_SZ, IO_CHUNK);
		st->mode = OUT_PIPED_SPLICE;
	} else {
		st->mode = OUT_COPY;
	}
	return 0;
}

static void stream_cleanup(struct stream *st, const char *output)
{
	if (st->out >= 0 && output && strcmp(output, "-") != 0)
		close(st->out);
	if (st->pipe[0] >= 0) {
		close(st->pipe[0]);
		close(st->pipe[1]);
	}
	free(st->buf);
}

struct result {
	uint64_t bytes;
	double seconds;
	char peer[64];
	const char *ended; /* "eof", "time", "bytes", "interrupted" */
};

static int receive(const struct get_opts *o, struct stream *st, struct progress *p,
		   struct result *res, char *err, size_t errlen)
{
	double start = p->meter.start, deadline = o->duration > 0 ? start + o->duration : 0;
	uint64_t cap = o->max_bytes ? o->max_bytes : UINT64_MAX;
	struct loop_spin spin = { .window = o->busy_poll };

	res->ended = "eof";
	for (;;) {
		uint64_t left = cap - p->meter.bytes;
		size_t want = left < (1u << 30) ? (size_t)left : (1u << 30);
		ssize_t n = stream_recv(st, want);
		int again = n < 0 && errno == EAGAIN; /* read now: progress_tick may print */
		double now;

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
			meter_add(&p->meter, st->partial);
			if (errno == EINTR && interrupted) {
				res->ended = "interrupted"; /* while the output was blocked */
				return 0;
			}
			snprintf(err, errlen, "cannot write output: %s", strerror(errno));
			return NCPV_EXIT_FILE;
		} else if (errno != EAGAIN && errno != EINTR) {
			snprintf(err, errlen, "receive from %s: %s", res->peer,
				 errno == ECONNRESET ? "connection reset by peer" : strerror(errno));
			return NCPV_EXIT_FAIL;
		}
		now = clock_now();
		if (interrupted) {
			res->ended = "interrupted";
			return 0;
		}
		if (deadline > 0 && now >= deadline) {
			res->ended = "time";
			return 0;
		}
		progress_tick(p, now);
		if (again) {
			double until = p->show ? p->next : 0;

			if (loop_spin_again(&spin, now))
				continue;
			if (deadline > 0 && (until == 0 || deadline < until))
				until = deadline;
			net_wait_cancel(st->sock, POLLIN, until > 0 ? net_ms_until(until, now) : -1,
					&interrupted);
		}
	}
}

static int upload(const struct get_opts *o, int sock, void *scratch, struct source *src,
		  struct progress *p, struct result *res, char *err, size_t errlen)
{
	double deadline = o->duration > 0 ? p->meter.start + o->duration : 0;
	uint64_t cap = o->max_bytes ? o->max_bytes : UINT64_MAX;
	off_t off = 0;

	if (source_kind(src) == SOURCE_FILE && source_size(src) < cap)
		cap = source_size(src);
	res->ended = "eof";
	while (p->meter.bytes < cap) {
		uint64_t left = cap - p->meter.bytes;
		size_t want = left < IO_CHUNK ? (size_t)left : IO_CHUNK;
		/* What to wait for when nothing moved: room in the socket, or
		 * bytes from a stream source (a FIFO whose writer is slow). */
		int wait_fd = -1;
		short wait_for = POLLOUT;
		ssize_t n;
		double now;

		if (source_kind(src) == SOURCE_FILE) {
			n = sendfile(sock, source_fd(src), &off, want);
		} else {
			const void *data;
			ssize_t k = source_peek(src, want, &data);

			if (k < 0 && errno == EAGAIN) {
				wait_fd = source_fd(src);
				wait_for = POLLIN;
				n = 0;
			} else if (k < 0) {
				snprintf(err, errlen, "cannot read source '%s': %s", o->source, strerror(errno));
				return NCPV_EXIT_FILE;
			} else if (k == 0) {
				break;
			} else {
				n = send(sock, data, (size_t)k, MSG_DONTWAIT | MSG_NOSIGNAL);
				if (n > 0)
					source_consume(src, (size_t)n);
			}
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
		if (interrupted) {
			res->ended = "interrupted";
			break;
		}
		if (deadline > 0 && now >= deadline) {
			res->ended = "time";
			break;
		}
		progress_tick(p, now);
		if (wait_fd >= 0) {
			double until = p->show ? p->next : deadline;

			net_wait_cancel(wait_fd, wait_for, until > 0 ? net_ms_until(until, now) : -1,
					&interrupted);
		}
	}
	if (o->max_bytes && p->meter.bytes >= o->max_bytes)
		res->ended = "bytes";
	/* Half-close, then wait for the server's close: only then is every byte known to be read. */
	shutdown(sock, SHUT_WR);
	for (double until = clock_now() + CLOSE_WAIT_MS / 1000.0; clock_now() < until;) {
		ssize_t n = net_discard(sock, scratch, NET_DISCARD_MAX);

		if (n == 0)
			break;
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			/* A reset now means the server closed with our bytes unread. */
			snprintf(err, errlen, "%s %s before reading everything sent", res->peer,
				 errno == ECONNRESET ? "reset the connection" : strerror(errno));
			return NCPV_EXIT_FAIL;
		}
		if (n < 0 && net_wait_cancel(sock, POLLIN, net_ms_until(until, clock_now()),
					     &interrupted) <= 0)
			break;
	}
	return 0;
}

static void print_summary(const struct get_opts *o, const struct result *res, const char *dir)
{
	double rate = res->seconds > 0 ? (double)res->bytes / res->seconds : 0;
	char amount[32], r[32], line[1024];
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
		json_end(&j);
		fprintf(jf, "%s\n", json_text(&j));
		fflush(jf);
	}
	if (o->quiet)
		return;
	fprintf(stderr, "%s %llu B (%s) in %.3f s = %s/s (%.1f Mbit/s) %s %s\n",
		strcmp(dir, "send") == 0 ? "sent" : "received", (unsigned long long)res->bytes,
		units_format_iec(amount, sizeof(amount), (double)res->bytes), res->seconds,
		units_format_iec(r, sizeof(r), rate), rate * 8 / 1e6,
		strcmp(dir, "send") == 0 ? "to" : "from", res->peer);
}

static int run_single(const struct get_opts *o)
{
	struct progress p;
	struct stream st;
	struct result res;
	struct source *src = NULL;
	char err[512];
	int sock, rc;

	memset(&res, 0, sizeof(res));
	memset(&st, 0, sizeof(st));
	if (o->send && (src = source_open(o->source, err, sizeof(err))) == NULL) {
		cmd_error("get", "%s", err);
		return NCPV_EXIT_FILE;
	}
	if (stream_setup(&st, o->send ? NULL : o->output, err, sizeof(err)) < 0) {
		cmd_error("get", "%s", err);
		stream_cleanup(&st, o->output);
		source_free(src);
		return NCPV_EXIT_FILE;
	}
	sock = net_connect(o->at.host, o->at.port, &o->net, err, sizeof(err));
	if (sock < 0) {
		cmd_error("get", "%s", err);
		stream_cleanup(&st, o->output);
		source_free(src);
		return cmd_net_exit(sock);
	}
	st.sock = sock;
	net_peer_name(sock, res.peer, sizeof(res.peer));
	get_progress_init(&p, o, clock_now());
	if (o->send)
		rc = upload(o, sock, st.buf, src, &p, &res, err, sizeof(err));
	else
		rc = receive(o, &st, &p, &res, err, sizeof(err));
	res.bytes = p.meter.bytes;
	res.seconds = clock_now() - p.meter.start;
	if (p.shown || (p.show && rc == 0))
		progress_draw(&p, clock_now(), 1);
	close(sock);
	stream_cleanup(&st, o->output);
	source_free(src);
	if (rc != 0) {
		cmd_error("get", "%s (after %llu bytes)", err, (unsigned long long)res.bytes);
		return rc;
	}
	print_summary(o, &res, o->send ? "send" : "receive");
	if (o->has_size && res.bytes != o->size && strcmp(res.ended, "eof") == 0) {
		cmd_error("get", "expected %llu bytes, received %llu", (unsigned long long)o->size,
			  (unsigned long long)res.bytes);
		return NCPV_EXIT_FAIL;
	}
	return NCPV_EXIT_OK;
}

enum cmd_parse cmd_get_parse(int argc, char **argv)
{
	struct get_opts o;

	return parse_options(argc, argv, &o);
}

int cmd_get(int argc, char **argv)
{
	enum cmd_parse parsed;
	struct get_opts o;
	struct sigaction sa;

	if ((parsed = parse_options(argc, argv, &o)) != CMD_PARSE_RUN)
		return cmd_parse_exit(parsed, NCPV_EXIT_USAGE);
	if (o.parallel > o.count && o.count > 0)
		o.parallel = o.count;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* Past the file size limit (ulimit -f) write fails with EFBIG and get says so,
	 * rather than dying with a core and no message. Not in main(): nc keeps nc's
	 * behaviour, and devtcp's command would inherit the ignored signal. */
	signal(SIGXFSZ, SIG_IGN);
	return o.count ? get_run_batch(&o, &interrupted) : run_single(&o);
}
