/* get.c - "ncpv get": connect, receive (or send), count, and show pv-style
 * progress in one process; or many small transfers in parallel. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "../addr.h"
#include "../display.h"
#include "../loop.h"
#include "../meter.h"
#include "../net.h"
#include "../source.h"
#include "../stats.h"
#include "../units.h"

#define IO_CHUNK (1u << 20)
/* After an upload, how long to wait for the server to close its side. */
#define CLOSE_WAIT_MS 10000

struct get_opts {
	struct addr_spec at;
	struct net_opts net;
	double timeout, duration, interval;
	uint64_t max_bytes, size;
	int has_size, force, quiet, json, send;
	long count, parallel;
	const char *output, *source;
};

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
		"  -u, --send           upload --source to the server instead (for serve --discard)\n"
		"  -S, --source SRC     what --send sends: random (default), urandom, zero or a FILE\n"
		"  -n, --count N        make N transfers (each until the server closes)\n"
		"  -P, --parallel P     with --count: up to P connections at once (default 1)\n"
		"  -i, --interval SEC   refresh the progress line every SEC seconds (default 1)\n"
		"  -f, --force          show progress even when stderr is not a terminal\n"
		"  -q, --quiet          no progress and no summary\n"
		"  -j, --json           print a JSON summary on stdout (stderr with -o -)\n"
		"  -4, -6               IPv4 or IPv6 only\n"
		"  -h, --help           show this help\n");
}

static int parse_options(int argc, char **argv, struct get_opts *o)
{
	static const struct option longopts[] = {
		{ "timeout", required_argument, NULL, 'w' },
		{ "time", required_argument, NULL, 't' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "size", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "send", no_argument, NULL, 'u' },
		{ "source", required_argument, NULL, 'S' },
		{ "count", required_argument, NULL, 'n' },
		{ "parallel", required_argument, NULL, 'P' },
		{ "interval", required_argument, NULL, 'i' },
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
		case 'u':
			o->send = 1;
			break;
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
			return -1;
		case ':':
			return cmd_missing_argument("get", optopt, argv[optind - 1]);
		default:
			return cmd_bad_option("get", optopt, optopt ? NULL : argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		cmd_error("get", "missing HOST[:PORT] (try 'ncpv get --help')");
		return NCPV_EXIT_USAGE;
	}
	if (argc - optind > 2) {
		cmd_error("get", "too many arguments: '%s'", argv[optind + 2]);
		return NCPV_EXIT_USAGE;
	}
	if (argc - optind == 2) {
		char spec[ADDR_HOST_MAX + ADDR_PORT_MAX + 4];
		const char *h = argv[optind];

		snprintf(spec, sizeof(spec), strchr(h, ':') ? "[%s]:%s" : "%s:%s", h, argv[optind + 1]);
		if (addr_parse(spec, NULL, NULL, &o->at, err, sizeof(err)) < 0) {
			cmd_error("get", "%s", err);
			return NCPV_EXIT_USAGE;
		}
	} else if (addr_parse(argv[optind], NULL, NCPV_DEFAULT_PORT, &o->at, err, sizeof(err)) < 0) {
		cmd_error("get", "%s", err);
		return NCPV_EXIT_USAGE;
	}
	if (o->at.host[0] == '\0') {
		cmd_error("get", "missing host in '%s'", argv[optind]);
		return NCPV_EXIT_USAGE;
	}
	if (o->parallel && !o->count) {
		cmd_error("get", "--parallel needs --count");
		return NCPV_EXIT_USAGE;
	}
	if (o->count && (o->send || o->output || o->duration > 0 || o->max_bytes)) {
		cmd_error("get", "--count makes whole downloads: it does not combine with %s",
			  o->send ? "--send" : o->output ? "--output" : o->duration > 0 ? "--time" : "--bytes");
		return NCPV_EXIT_USAGE;
	}
	if (o->send && o->output) {
		cmd_error("get", "--send and --output conflict: an upload writes nothing");
		return NCPV_EXIT_USAGE;
	}
	if (!o->parallel)
		o->parallel = 1;
	/* poll() takes an int of milliseconds (24.8 days); -w accepts up to a year. */
	o->net.timeout_ms = o->timeout * 1000 < INT_MAX ? (int)(o->timeout * 1000) : INT_MAX;
	return 0;
}

/* The live line and the final lines, shared by both modes. */
struct progress {
	const struct get_opts *o;
	struct display disp;
	struct meter meter;
	int show;	/* live line on stderr */
	int shown;	/* a live line was printed */
	double next;	/* time of the next refresh */
};

static void progress_init(struct progress *p, const struct get_opts *o, double now)
{
	memset(p, 0, sizeof(*p));
	p->o = o;
	{
		struct display_opts d;

		display_defaults(&d);
		display_init(&p->disp, &d);
	}
	p->show = !o->quiet && (o->force || isatty(STDERR_FILENO));
	meter_start(&p->meter, now);
	p->next = now + o->interval;
}

static void progress_draw(struct progress *p, double now, int final)
{
	struct meter_reading r;
	struct display_frame f;
	char line[DISPLAY_LINE_MAX];

	meter_read(&p->meter, now, p->o->size, &r);
	if (final && r.elapsed > 0)
		r.rate = r.average; /* pv shows the overall rate on its last line */
	display_frame_from(&f, &r, p->o->size, final);
	display_line(&p->disp, &f, line, sizeof(line));
	fprintf(stderr, "%s\r%s", line, final ? "\n" : "");
	p->shown = 1;
}

static void progress_tick(struct progress *p, double now)
{
	if (p->show && now >= p->next) {
		progress_draw(p, now, 0);
		while (p->next <= now)
			p->next += p->o->interval;
	}
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

/* Write n bytes; *done says how many got out, also when it fails. */
static int write_all(int fd, const char *p, size_t n, uint64_t *done)
{
	*done = 0;
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				net_wait(fd, POLLOUT, -1);
				continue;
			}
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
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				net_wait(st->out, POLLOUT, -1);
				continue;
			}
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
				net_wait(st->out, POLLOUT, 1000);
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

	res->ended = "eof";
	for (;;) {
		uint64_t left = cap - p->meter.bytes;
		size_t want = left < (1u << 30) ? (size_t)left : (1u << 30);
		ssize_t n = stream_recv(st, want);
		double now;

		if (n > 0) {
			meter_add(&p->meter, (uint64_t)n);
			if (p->meter.bytes >= cap) {
				res->ended = "bytes";
				return 0;
			}
		} else if (n == 0) {
			return 0;
		} else if (n == -2) {
			/* The count in the message is what the output holds, exactly. */
			meter_add(&p->meter, st->partial);
			snprintf(err, errlen, "cannot write output: %s", strerror(errno));
			return NCPV_EXIT_FILE;
		} else if (errno != EAGAIN && errno != EINTR) {
			snprintf(err, errlen, "receive from %s: %s", res->peer,
				 errno == ECONNRESET ? "connection reset by peer" : strerror(errno));
			return NCPV_EXIT_FAIL;
		}
		now = loop_now();
		if (interrupted) {
			res->ended = "interrupted";
			return 0;
		}
		if (deadline > 0 && now >= deadline) {
			res->ended = "time";
			return 0;
		}
		progress_tick(p, now);
		if (n < 0 && errno == EAGAIN) {
			double until = p->show ? p->next : 0;
			int wait;

			if (deadline > 0 && (until == 0 || deadline < until))
				until = deadline;
			wait = until > 0 ? (int)((until - now) * 1000) + 1 : -1;
			net_wait(st->sock, POLLIN, wait);
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
		ssize_t n;
		double now;

		if (source_kind(src) == SOURCE_FILE) {
			n = sendfile(sock, source_fd(src), &off, want);
		} else {
			const void *data;
			ssize_t k = source_peek(src, want, &data);

			if (k < 0) {
				snprintf(err, errlen, "cannot read source '%s': %s", o->source, strerror(errno));
				return NCPV_EXIT_FILE;
			}
			if (k == 0)
				break;
			n = send(sock, data, (size_t)k, MSG_DONTWAIT | MSG_NOSIGNAL);
			if (n > 0)
				source_consume(src, (size_t)n);
		}
		if (n > 0)
			meter_add(&p->meter, (uint64_t)n);
		else if (n == 0)
			break;
		else if (errno != EAGAIN && errno != EINTR) {
			snprintf(err, errlen, "send to %s: %s", res->peer,
				 errno == EPIPE || errno == ECONNRESET ? "connection reset by peer" : strerror(errno));
			return NCPV_EXIT_FAIL;
		}
		now = loop_now();
		if (interrupted) {
			res->ended = "interrupted";
			break;
		}
		if (deadline > 0 && now >= deadline) {
			res->ended = "time";
			break;
		}
		progress_tick(p, now);
		if (n < 0 && errno == EAGAIN) {
			double until = p->show ? p->next : deadline;
			net_wait(sock, POLLOUT, until > 0 ? (int)((until - now) * 1000) + 1 : -1);
		}
	}
	if (o->max_bytes && p->meter.bytes >= o->max_bytes)
		res->ended = "bytes";
	/* Half-close, then wait for the server's close: only then is every byte known to be read. */
	shutdown(sock, SHUT_WR);
	for (double until = loop_now() + CLOSE_WAIT_MS / 1000.0; loop_now() < until;) {
		ssize_t n = net_discard(sock, scratch, NET_DISCARD_MAX);

		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			break;
		if (n < 0 && net_wait(sock, POLLIN, (int)((until - loop_now()) * 1000) + 1) == 0)
			break;
	}
	return 0;
}

static void print_summary(const struct get_opts *o, const struct result *res, const char *dir)
{
	double rate = res->seconds > 0 ? (double)res->bytes / res->seconds : 0;
	char amount[32], r[32];
	FILE *jf = o->output && strcmp(o->output, "-") == 0 ? stderr : stdout;

	if (o->json) {
		fprintf(jf,
			"{\"direction\":\"%s\",\"peer\":\"%s\",\"bytes\":%llu,\"seconds\":%.6f,"
			"\"rate\":%.0f,\"ended\":\"%s\"}\n",
			dir, res->peer, (unsigned long long)res->bytes, res->seconds, rate, res->ended);
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
	progress_init(&p, o, loop_now());
	if (o->send)
		rc = upload(o, sock, st.buf, src, &p, &res, err, sizeof(err));
	else
		rc = receive(o, &st, &p, &res, err, sizeof(err));
	res.bytes = p.meter.bytes;
	res.seconds = loop_now() - p.meter.start;
	if (p.shown || (p.show && rc == 0))
		progress_draw(&p, loop_now(), 1);
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

/* ---- many transfers ---------------------------------------------------- */

struct slot {
	int fd;
	double start, last;
	uint64_t bytes;
	struct batch *b;
};

struct batch {
	const struct get_opts *o;
	struct loop *loop;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	struct slot *slots;
	double *latency;   /* seconds, one per finished transfer */
	void *scratch;	   /* NET_DISCARD_MAX bytes for net_discard */
	long started, done, failed, short_count, active;
	struct progress p;
	char first_error[256];
};

static void slot_start(struct batch *b, struct slot *s, double now);

static void slot_end(struct batch *b, struct slot *s, int ok, const char *why, double now)
{
	loop_close(b->loop, s->fd);
	s->fd = -1;
	b->active--;
	if (ok && b->o->has_size && s->bytes != b->o->size) {
		ok = 0;
		b->short_count++;
		why = "size differs from --size";
	}
	if (ok) {
		b->latency[b->done++] = now - s->start;
	} else {
		b->failed++;
		if (b->first_error[0] == '\0')
			snprintf(b->first_error, sizeof(b->first_error), "%s", why);
	}
	if (b->started < b->o->count && !interrupted)
		slot_start(b, s, now);
}

static void on_slot(struct loop *l, int fd, uint32_t events, void *ctx)
{
	struct slot *s = ctx;
	struct batch *b = s->b;

	(void)l;
	(void)fd;
	(void)events;
	for (;;) {
		ssize_t n = net_discard(s->fd, b->scratch, NET_DISCARD_MAX);

		if (n > 0) {
			s->bytes += (uint64_t)n;
			meter_add(&b->p.meter, (uint64_t)n);
			continue;
		}
		if (n == 0) {
			slot_end(b, s, 1, NULL, loop_now());
			return;
		}
		if (errno == EAGAIN) {
			s->last = loop_now();
			return;
		}
		if (errno != EINTR) {
			char why[128];

			snprintf(why, sizeof(why), "%s", strerror(errno));
			slot_end(b, s, 0, why, loop_now());
			return;
		}
	}
}

static void slot_start(struct batch *b, struct slot *s, double now)
{
	b->started++;
	s->bytes = 0;
	s->start = s->last = now;
	s->fd = net_connect_start((struct sockaddr *)&b->addr, b->addrlen, SOCK_STREAM);
	if (s->fd < 0 || loop_add(b->loop, s->fd, EPOLLIN | EPOLLRDHUP, on_slot, s) < 0) {
		char why[128];

		snprintf(why, sizeof(why), "connect: %s", strerror(errno));
		if (s->fd >= 0)
			close(s->fd);
		s->fd = -1;
		b->failed++;
		if (b->first_error[0] == '\0')
			snprintf(b->first_error, sizeof(b->first_error), "%s", why);
		return;
	}
	b->active++;
}

static int run_batch(const struct get_opts *o)
{
	struct batch b;
	struct stats_summary lat;
	char err[512], peer[64], amount[32], rate[32];
	double elapsed;
	int rc;

	memset(&b, 0, sizeof(b));
	b.o = o;
	rc = net_resolve(o->at.host, o->at.port, &o->net, &b.addr, &b.addrlen, err, sizeof(err));
	if (rc < 0) {
		cmd_error("get", "%s", err);
		return cmd_net_exit(rc);
	}
	net_format_addr((struct sockaddr *)&b.addr, b.addrlen, peer, sizeof(peer));
	b.loop = loop_new();
	b.slots = calloc((size_t)o->parallel, sizeof(*b.slots));
	b.latency = calloc((size_t)o->count, sizeof(*b.latency));
	b.scratch = malloc(NET_DISCARD_MAX);
	if (b.loop == NULL || b.slots == NULL || b.latency == NULL || b.scratch == NULL) {
		cmd_error("get", "out of memory");
		rc = NCPV_EXIT_FAIL;
		goto out;
	}
	net_raise_fd_limit();
	progress_init(&b.p, o, loop_now());
	for (long i = 0; i < o->parallel && b.started < o->count; i++) {
		b.slots[i].b = &b;
		b.slots[i].fd = -1;
		slot_start(&b, &b.slots[i], loop_now());
	}
	while (b.active > 0 && !interrupted) {
		double now = loop_now();
		int wait = b.p.show ? (int)((b.p.next - now) * 1000) + 1 : 250;

		if (wait > 250)
			wait = 250;
		if (loop_poll(b.loop, wait < 0 ? 0 : wait) < 0 && errno != EINTR)
			break;
		now = loop_now();
		progress_tick(&b.p, now);
		/* A transfer silent for longer than -w fails, so one stuck server cannot hang us. */
		if (o->timeout > 0)
			for (long i = 0; i < o->parallel; i++)
				if (b.slots[i].fd >= 0 && now - b.slots[i].last > o->timeout)
					slot_end(&b, &b.slots[i], 0, "timed out", now);
		/* Refill slots whose connect failed at once. */
		for (long i = 0; i < o->parallel && b.started < o->count && !interrupted; i++)
			if (b.slots[i].fd < 0 && b.slots[i].b)
				slot_start(&b, &b.slots[i], now);
	}
	elapsed = loop_now() - b.p.meter.start;
	if (b.p.shown)
		progress_draw(&b.p, loop_now(), 1);
	stats_summarize(b.latency, (size_t)b.done, &lat);
	if (o->json)
		printf("{\"direction\":\"receive\",\"peer\":\"%s\",\"transfers\":%ld,\"failed\":%ld,"
		       "\"bytes\":%llu,\"seconds\":%.6f,\"transfers_per_s\":%.1f,\"rate\":%.0f,"
		       "\"latency_ms\":{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"max\":%.3f}}\n",
		       peer, b.done, b.failed, (unsigned long long)b.p.meter.bytes, elapsed,
		       elapsed > 0 ? b.done / elapsed : 0,
		       elapsed > 0 ? (double)b.p.meter.bytes / elapsed : 0, lat.median * 1e3,
		       lat.p90 * 1e3, lat.p99 * 1e3, lat.max * 1e3);
	fflush(stdout);
	if (!o->quiet)
		fprintf(stderr,
			"%ld transfers (%ld failed) from %s in %.3f s = %.0f transfers/s, %s (%s/s); "
			"latency ms p50 %.3f p90 %.3f p99 %.3f max %.3f\n",
			b.done, b.failed, peer, elapsed, elapsed > 0 ? b.done / elapsed : 0,
			units_format_iec(amount, sizeof(amount), (double)b.p.meter.bytes),
			units_format_iec(rate, sizeof(rate), elapsed > 0 ? (double)b.p.meter.bytes / elapsed : 0),
			lat.median * 1e3, lat.p90 * 1e3, lat.p99 * 1e3, lat.max * 1e3);
	rc = NCPV_EXIT_OK;
	if (b.failed > 0) {
		cmd_error("get", "%ld of %ld transfers failed (first: %s)", b.failed, o->count, b.first_error);
		rc = NCPV_EXIT_FAIL;
	} else if (interrupted) {
		rc = NCPV_EXIT_FAIL;
	}
out:
	for (long i = 0; b.slots && i < o->parallel; i++)
		if (b.slots[i].fd >= 0)
			close(b.slots[i].fd);
	free(b.slots);
	free(b.latency);
	free(b.scratch);
	loop_free(b.loop);
	return rc;
}

int cmd_get_parse(int argc, char **argv)
{
	struct get_opts o;

	return parse_options(argc, argv, &o);
}

int cmd_get(int argc, char **argv)
{
	struct get_opts o;
	struct sigaction sa;
	int rc;

	if ((rc = parse_options(argc, argv, &o)) != 0)
		return rc < 0 ? NCPV_EXIT_OK : rc;
	if (o.parallel > o.count && o.count > 0)
		o.parallel = o.count;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return o.count ? run_batch(&o) : run_single(&o);
}
