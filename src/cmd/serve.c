/* SPDX-License-Identifier: ISC */
/* serve.c - "ncpv serve": the data server. One thread, epoll, many clients;
 * sends fresh data (endless or fixed-size "files") or sinks uploads. */
#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <unistd.h>

#include "cmd.h"
#include "../addr.h"
#include "../clock.h"
#include "../json.h"
#include "../loop.h"
#include "../net.h"
#include "../source.h"
#include "../units.h"

/* How long a finished connection may take to close its side before we do. */
#define DRAIN_SECONDS 10.0
/* Largest single send; sockets on loopback take about this much at once. */
#define SEND_CHUNK ((size_t)256 * 1024)
/* Sends per wakeup, so that one fast reader cannot starve the others. */
#define SEND_BUDGET 4
/* How often deadlines are checked when any are set. */
#define SWEEP_MS 100

struct serve_opts {
	struct addr_spec at;
	struct net_opts net;
	const char *source;
	uint64_t size, max_bytes;
	int has_size, discard, quiet, json;
	long max_conns;
	double max_time, busy_poll;
};

enum conn_state { CONN_SENDING, CONN_DRAINING, CONN_RECEIVING };

struct server;

struct conn {
	struct conn *prev, *next;
	struct conn *wprev, *wnext; /* in server.waiting while waiting_source */
	struct server *srv;
	int fd;
	enum conn_state state;
	int registered;	     /* added to the loop (a new conn is pumped first) */
	int waiting_source;  /* a stream source had nothing: parked until it is readable */
	int peer_eof;	     /* the peer sent its FIN: its EOF is not polled for again */
	uint64_t sent, received, limit;
	const char *limit_reason;
	double start, deadline;
	char peer[64];
};

struct server {
	const struct serve_opts *o;
	struct loop *loop;
	struct source *src;
	void *scratch; /* NET_DISCARD_MAX bytes the kernel never writes */
	int lfd, spare_fd, accept_paused;
	struct conn *conns;
	struct conn *waiting; /* connections parked until the stream source is readable */
	int source_watched;   /* the source fd is in the loop (until its next event) */
	long nconns;
	long ndeadlines; /* connections with a deadline: the loop then wakes to sweep */
	double start;
	uint64_t accepted, refused, completed, bytes_sent, bytes_received;
};

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

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
		"  -4, -6               IPv4 or IPv6 only\n"
		"  -q, --quiet          no line per connection\n"
		"  -j, --json           log one JSON object per line\n"
		"  -h, --help           show this help\n\n"
		"Each connection ends with a line on stderr; SIGINT or SIGTERM stops the\n"
		"server with a summary and exit status 0.\n");
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
		{ "quiet", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[256];
	int c;

	memset(o, 0, sizeof(*o));
	o->source = "random";
	o->max_conns = 1000;
	o->busy_poll = CMD_BUSY_POLL_SECONDS;
	o->net.family = AF_UNSPEC;
	opterr = 0;
	optind = 0; /* 0, not 1: glibc then forgets a previous parse's half-read cluster */
	while ((c = getopt_long(argc, argv, ":S:s:dc:t:b:qj46h", longopts, NULL)) != -1) {
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
		case OPT_BUSY_POLL:
			if (cmd_parse_busy_poll(optarg, &o->busy_poll) < 0)
				return cmd_bad_value("serve", "busy-poll", optarg, "expected microseconds from 0 to 1000000");
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
			return cmd_missing_argument("serve", optopt, argv[optind - 1]);
		default:
			return cmd_bad_option("serve", optopt, optopt ? NULL : argv[optind - 1]);
		}
	}
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
	return CMD_PARSE_RUN;
}

static void log_close(struct server *s, struct conn *c, const char *reason, double now)
{
	double secs = now - c->start, rate;
	char amount[32], line[1024];
	struct json j;

	s->bytes_sent += c->sent;
	s->bytes_received += c->received;
	if (s->o->quiet)
		return;
	rate = secs > 0 ? (double)(c->sent + c->received) / secs : 0;
	if (s->o->json) {
		json_init(&j, line, sizeof(line));
		json_object(&j, NULL);
		json_string(&j, "event", "close");
		json_string(&j, "peer", c->peer);
		json_string(&j, "reason", reason);
		json_uint(&j, "sent", c->sent);
		json_uint(&j, "received", c->received);
		json_fixed(&j, "seconds", secs, 6);
		json_fixed(&j, "rate", rate, 0);
		json_end(&j);
		fprintf(stderr, "%s\n", json_text(&j));
	} else {
		fprintf(stderr, "ncpv serve: %s %s: sent %llu B, received %llu B in %.3f s (%s/s)\n",
			c->peer, reason, (unsigned long long)c->sent, (unsigned long long)c->received,
			secs, units_format_iec(amount, sizeof(amount), rate));
	}
}

/* What a sending connection polls for: room to send, unless it waits for
 * the source; and the peer's data or EOF, until the EOF came (a readable
 * EOF would wake us forever). Errors and hangups are always reported. */
static uint32_t sending_interest(const struct conn *c)
{
	uint32_t in = c->peer_eof ? 0 : EPOLLIN | EPOLLRDHUP;

	return c->waiting_source ? in : in | EPOLLOUT;
}

static void waiting_unlink(struct server *s, struct conn *c)
{
	if (c->wprev)
		c->wprev->wnext = c->wnext;
	else
		s->waiting = c->wnext;
	if (c->wnext)
		c->wnext->wprev = c->wprev;
	c->wprev = c->wnext = NULL;
	c->waiting_source = 0;
}

static void conn_close(struct server *s, struct conn *c, const char *reason, double now)
{
	log_close(s, c, reason, now);
	if (c->waiting_source)
		waiting_unlink(s, c);
	if (c->deadline > 0)
		s->ndeadlines--;
	loop_close(s->loop, c->fd);
	/* The list's invariant, stated for readers and for the static analyzer. */
	assert((c->prev == NULL) == (s->conns == c));
	assert(c->next == NULL || c->next->prev == c);
	if (c->prev)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	s->nconns--;
	free(c);
	if (s->accept_paused && s->nconns < s->o->max_conns) {
		/* Freed fds let a paused accept go on. */
		s->accept_paused = 0;
		loop_mod(s->loop, s->lfd, EPOLLIN);
	}
}

/* Why a connection ended on error e: for an endless stream the peer
 * going away is the normal end; for a sized one it left early. */
static const char *error_reason(const struct conn *c, int e)
{
	if (e == ECONNRESET || e == EPIPE)
		return c->limit == UINT64_MAX ? "closed by peer" : "reset by peer";
	return strerror(e);
}

/* All bytes are out: half-close and wait for the peer's EOF, so that
 * nothing it sent can turn our close into a reset that loses data. */
static void conn_finish(struct server *s, struct conn *c, double now)
{
	shutdown(c->fd, SHUT_WR);
	c->state = CONN_DRAINING;
	if (c->deadline == 0)
		s->ndeadlines++;
	if (c->deadline == 0 || c->deadline > now + DRAIN_SECONDS)
		c->deadline = now + DRAIN_SECONDS;
	if (c->registered)
		loop_mod(s->loop, c->fd, EPOLLIN | EPOLLRDHUP);
}

/* Make the next close send a reset: the client must not take a short
 * transfer (or an empty "file") for a complete one. */
static void reset_on_close(int fd)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
}

/* The source failed under a connection: end it with a reset, not a clean close. */
static int conn_abort(struct server *s, struct conn *c, const char *reason)
{
	reset_on_close(c->fd);
	conn_close(s, c, reason, clock_now());
	return -1;
}

static void on_source(struct loop *l, int fd, uint32_t events, void *ctx);

/*
 * The stream source has nothing now: park c until it is readable instead
 * of polling for EPOLLOUT, which a writable socket would report forever.
 * The source fd joins the loop once, however many connections wait; its
 * first event wakes them all (on_source). Returns 0, or -1 once c is closed.
 */
static int conn_wait_source(struct server *s, struct conn *c)
{
	if (c->waiting_source)
		return 0;
	if (!s->source_watched) {
		if (loop_add(s->loop, source_fd(s->src), EPOLLIN, on_source, s) < 0) {
			char reason[96];

			snprintf(reason, sizeof(reason), "cannot wait for the source: %s", strerror(errno));
			return conn_abort(s, c, reason);
		}
		s->source_watched = 1;
	}
	c->waiting_source = 1;
	c->wprev = NULL;
	c->wnext = s->waiting;
	if (s->waiting)
		s->waiting->wprev = c;
	s->waiting = c;
	if (c->registered)
		loop_mod(s->loop, c->fd, sending_interest(c));
	return 0;
}

/* The source is readable, at its end, or failed: every parked connection
 * polls for EPOLLOUT again and finds out which with its next source_peek.
 * The source leaves the loop, or a FIFO's hangup would wake us forever. */
static void on_source(struct loop *l, int fd, uint32_t events, void *ctx)
{
	struct server *s = ctx;

	(void)events;
	loop_del(l, fd);
	s->source_watched = 0;
	while (s->waiting) {
		struct conn *c = s->waiting;

		waiting_unlink(s, c);
		loop_mod(l, c->fd, sending_interest(c));
	}
}

/* Send what the socket takes now. Returns 0 while open, -1 once closed. */
static int conn_pump(struct server *s, struct conn *c)
{
	int src_kind = source_kind(s->src);

	for (int round = 0; round < SEND_BUDGET && c->sent < c->limit; round++) {
		uint64_t left = c->limit - c->sent;
		size_t want = left < SEND_CHUNK ? (size_t)left : SEND_CHUNK;

		uint64_t pos = 0;
		ssize_t n;

		if (src_kind == SOURCE_FILE) {
			uint64_t fsize = source_size(s->src);

			pos = c->sent % fsize;
			if (want > fsize - pos)
				want = (size_t)(fsize - pos);
		}
		n = source_send(s->src, c->fd, pos, want);
		/* Nothing at an offset below the size we took: the file was
		 * truncated. Waiting for EPOLLOUT again would spin forever. */
		if (n == 0 && src_kind == SOURCE_FILE)
			return conn_abort(s, c, "source file shrank");
		if (n == SOURCE_SEND_WAIT)
			return conn_wait_source(s, c);
		if (n == SOURCE_SEND_EREAD)
			return conn_abort(s, c, strerror(errno));
		if (n == 0) {
			/* A stream source ran dry: the end of an endless
			 * stream, but a short --size "file". */
			if (s->o->has_size)
				return conn_abort(s, c, "source ended before --size");
			c->limit = c->sent;
			break;
		}
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			conn_close(s, c, error_reason(c, errno), clock_now());
			return -1;
		}
		c->sent += (uint64_t)n;
		if ((size_t)n < want)
			return 0; /* the socket buffer is full: wait for EPOLLOUT */
	}
	if (c->sent >= c->limit && c->state == CONN_SENDING) {
		if (c->limit_reason != NULL) {
			conn_close(s, c, c->limit_reason, clock_now());
			return -1;
		}
		conn_finish(s, c, clock_now());
	}
	return 0;
}

/* Read and discard what the peer sent. Returns 1 on EOF, 0 when drained,
 * -1 on error (errno). MSG_TRUNC drops the bytes inside the kernel. */
static int conn_discard(struct conn *c, uint64_t cap)
{
	for (int round = 0; round < SEND_BUDGET; round++) {
		uint64_t room = cap - c->received;
		size_t want = room < NET_DISCARD_MAX ? (size_t)room : NET_DISCARD_MAX;
		ssize_t n = net_discard(c->fd, c->srv->scratch, want);

		if (n > 0) {
			c->received += (uint64_t)n;
			if (c->received >= cap)
				return 0;
			continue;
		}
		if (n == 0)
			return 1;
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	}
	return 0;
}

static void on_event(struct loop *l, int fd, uint32_t events, void *ctx)
{
	struct conn *c = ctx;
	struct server *s = c->srv;
	uint64_t cap = s->o->max_bytes && c->state == CONN_RECEIVING ? s->o->max_bytes : UINT64_MAX;
	int rc;

	(void)l;
	(void)fd;
	if (events & EPOLLIN) {
		rc = conn_discard(c, cap);
		if (rc < 0) {
			conn_close(s, c, error_reason(c, errno), clock_now());
			return;
		}
		if (c->state == CONN_RECEIVING && c->received >= cap) {
			conn_close(s, c, "max-bytes", clock_now());
			return;
		}
		if (rc == 1) {
			if (c->state != CONN_SENDING) {
				s->completed++;
				conn_close(s, c, "done", clock_now());
				return;
			}
			/* The peer finished sending but may still read: stop polling its EOF. */
			c->peer_eof = 1;
			loop_mod(s->loop, c->fd, sending_interest(c));
		}
	}
	if ((events & (EPOLLERR | EPOLLHUP)) && !(events & EPOLLOUT && c->state == CONN_SENDING)) {
		int e = net_socket_error(c->fd);

		conn_close(s, c, e ? error_reason(c, e) : "closed by peer", clock_now());
		return;
	}
	if ((events & EPOLLOUT) && c->state == CONN_SENDING)
		conn_pump(s, c);
}

static void refuse(struct server *s, int fd, const char *why)
{
	char peer[64], line[512];
	struct json j;

	s->refused++;
	if (!s->o->quiet) {
		net_peer_name(fd, peer, sizeof(peer));
		if (s->o->json) {
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
	reset_on_close(fd);
	close(fd);
}

static void accept_one(struct server *s, int fd, double now)
{
	struct conn *c;

	if (s->nconns >= s->o->max_conns) {
		refuse(s, fd, "max-conns reached");
		return;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		refuse(s, fd, "out of memory");
		return;
	}
	c->srv = s;
	c->fd = fd;
	c->start = now;
	c->limit = UINT64_MAX;
	if (s->o->max_time > 0) {
		c->deadline = now + s->o->max_time;
		s->ndeadlines++;
	}
	if (s->o->discard) {
		c->state = CONN_RECEIVING;
	} else {
		if (s->o->has_size)
			c->limit = s->o->size;
		else if (source_kind(s->src) == SOURCE_FILE)
			c->limit = source_size(s->src);
		if (s->o->max_bytes && s->o->max_bytes < c->limit) {
			c->limit = s->o->max_bytes;
			c->limit_reason = "max-bytes";
		}
	}
	if (!s->o->quiet)
		net_peer_name(fd, c->peer, sizeof(c->peer));
	c->next = s->conns;
	if (s->conns)
		s->conns->prev = c;
	s->conns = c;
	s->nconns++;
	s->accepted++;
	/* A new socket is writable: send at once rather than after a wakeup.
	 * A small "file" is then usually complete, and the connection joins
	 * the loop already draining: one epoll_ctl instead of two. */
	if (c->state == CONN_SENDING && conn_pump(s, c) < 0)
		return;
	if (loop_add(s->loop, fd, c->state == CONN_SENDING ? sending_interest(c) : EPOLLIN | EPOLLRDHUP,
		     on_event, c) < 0)
		conn_close(s, c, strerror(errno), now);
	else
		c->registered = 1;
}

static void on_accept(struct loop *l, int lfd, uint32_t events, void *ctx)
{
	struct server *s = ctx;
	double now = clock_now();

	(void)l;
	(void)events;
	for (int i = 0; i < 64; i++) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd >= 0) {
			accept_one(s, fd, now);
			continue;
		}
		if (errno == EMFILE || errno == ENFILE) {
			/* Out of fds: spend the spare one to take the client off the
			 * queue and reset it, rather than spin on a readable listener. */
			if (s->spare_fd >= 0) {
				close(s->spare_fd);
				fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
				if (fd >= 0)
					refuse(s, fd, "out of file descriptors");
				s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
			}
			if (s->spare_fd < 0 || fd < 0) {
				s->accept_paused = 1;
				loop_mod(s->loop, lfd, 0);
			}
			return;
		}
		if (errno != EINTR && errno != ECONNABORTED)
			return; /* EAGAIN: queue empty */
	}
}

static void sweep(struct server *s, double now)
{
	struct conn *c = s->conns, *next;

	for (; c != NULL; c = next) {
		next = c->next;
		if (c->deadline > 0 && now >= c->deadline)
			conn_close(s, c, c->state == CONN_DRAINING ? "done (peer did not close)" : "max-time", now);
	}
	if (s->accept_paused && s->spare_fd < 0)
		s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (s->accept_paused && s->spare_fd >= 0) {
		s->accept_paused = 0;
		loop_mod(s->loop, s->lfd, EPOLLIN);
	}
}

static void summary(struct server *s)
{
	double secs = clock_now() - s->start;
	char sent[32], recvd[32], line[512];
	struct json j;

	if (s->o->json) {
		json_init(&j, line, sizeof(line));
		json_object(&j, NULL);
		json_string(&j, "event", "summary");
		json_uint(&j, "connections", s->accepted);
		json_uint(&j, "completed", s->completed);
		json_uint(&j, "refused", s->refused);
		json_uint(&j, "sent", s->bytes_sent);
		json_uint(&j, "received", s->bytes_received);
		json_fixed(&j, "seconds", secs, 3);
		json_end(&j);
		fprintf(stderr, "%s\n", json_text(&j));
		return;
	}
	fprintf(stderr,
		"ncpv serve: stopped after %.1f s: %llu connections (%llu completed, %llu refused), "
		"sent %llu B (%s), received %llu B (%s)\n",
		secs, (unsigned long long)s->accepted, (unsigned long long)s->completed,
		(unsigned long long)s->refused, (unsigned long long)s->bytes_sent,
		units_format_iec(sent, sizeof(sent), (double)s->bytes_sent),
		(unsigned long long)s->bytes_received,
		units_format_iec(recvd, sizeof(recvd), (double)s->bytes_received));
}

static int run(struct server *s)
{
	struct sigaction sa;
	sigset_t block, during_wait;
	char name[128];
	struct json j;
	double next_sweep = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* Block the stop signals except inside epoll_pwait: none is missed. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &during_wait);
	sigdelset(&during_wait, SIGINT);
	sigdelset(&during_wait, SIGTERM);
	loop_set_sigmask(s->loop, &during_wait);

	net_local_name(s->lfd, name, sizeof(name));
	if (s->o->json) {
		json_init_grow(&j); /* a source path of any length */
		json_object(&j, NULL);
		json_string(&j, "event", "listen");
		json_string(&j, "address", name);
		json_string(&j, "source", s->o->discard ? "discard" : source_name(s->src));
		json_end(&j);
		fprintf(stderr, "%s\n", json_text(&j));
		json_free(&j);
	} else
		fprintf(stderr, "ncpv serve: listening on %s (%s)\n", name,
			s->o->discard ? "discard" : source_name(s->src));

	s->start = clock_now();
	while (!stop_requested) {
		/* A counter, not a walk over every connection on each wakeup. */
		int timeout = s->accept_paused || s->ndeadlines > 0 ? SWEEP_MS : -1;

		if (loop_poll(s->loop, timeout) < 0) {
			cmd_error("serve", "event loop: %s", strerror(errno));
			return NCPV_EXIT_FAIL;
		}
		/* At most one walk over the connections per SWEEP_MS, however
		 * many wakeups the traffic causes. */
		if (timeout >= 0 && clock_now() >= next_sweep) {
			sweep(s, clock_now());
			next_sweep = clock_now() + SWEEP_MS / 1000.0;
		}
	}
	while (s->conns)
		conn_close(s, s->conns, "server stopped", clock_now());
	summary(s);
	return NCPV_EXIT_OK;
}

enum cmd_parse cmd_serve_parse(int argc, char **argv)
{
	struct serve_opts o;

	return parse_options(argc, argv, &o);
}

int cmd_serve(int argc, char **argv)
{
	enum cmd_parse parsed;
	struct serve_opts o;
	struct server s;
	char err[512];
	int rc;

	if ((parsed = parse_options(argc, argv, &o)) != CMD_PARSE_RUN)
		return cmd_parse_exit(parsed, NCPV_EXIT_USAGE);
	memset(&s, 0, sizeof(s));
	s.o = &o;
	s.lfd = s.spare_fd = -1;
	if (!o.discard) {
		s.src = source_open(o.source, err, sizeof(err));
		if (s.src == NULL) {
			cmd_error("serve", "%s", err);
			return NCPV_EXIT_FILE;
		}
		if (source_kind(s.src) == SOURCE_FILE && source_size(s.src) == 0 && o.has_size && o.size > 0) {
			cmd_error("serve", "source '%s' is empty: it cannot fill --size", o.source);
			source_free(s.src);
			return NCPV_EXIT_USAGE;
		}
	}
	net_raise_fd_limit();
	s.lfd = net_listen(o.at.host, o.at.port, &o.net, err, sizeof(err));
	if (s.lfd < 0) {
		cmd_error("serve", "%s", err);
		source_free(s.src);
		return s.lfd == NET_ERESOLVE ? NCPV_EXIT_RESOLVE : NCPV_EXIT_LISTEN;
	}
	s.loop = loop_new();
	if (s.loop)
		loop_set_spin(s.loop, o.busy_poll);
	s.spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	s.scratch = malloc(NET_DISCARD_MAX);
	if (s.loop == NULL || s.scratch == NULL || loop_add(s.loop, s.lfd, EPOLLIN, on_accept, &s) < 0) {
		cmd_error("serve", "event loop: %s", strerror(errno));
		rc = NCPV_EXIT_FAIL;
	} else {
		rc = run(&s);
	}
	loop_free(s.loop);
	close(s.lfd);
	if (s.spare_fd >= 0)
		close(s.spare_fd);
	source_free(s.src);
	free(s.scratch);
	return rc;
}
