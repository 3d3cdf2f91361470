/* SPDX-License-Identifier: ISC */
/* nc.h - the nc engine: options struct, connect and listen, the relay, sockets. It never prints:
 * fatal errors come back in a caller's buffer, -v lines and warnings through struct nc_events. */
#ifndef NCPV_NC_H
#define NCPV_NC_H

#include <stddef.h>
#include <poll.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>

#include "../net.h"
#include "../proxy_dial.h"
#include "../tls.h"

#define NC_MAX_PORTS 65536

/* Everything the command line says; filled once by nc_parse_options. The
 * strings point into argv, which must outlive the struct. */
struct nc_opts {
	int family;	      /* -4 / -6 / AF_UNSPEC */
	int udp, unix_sock, listen, keep, scan, verbose, numeric;
	int no_stdin;	      /* -d */
	int shutdown_on_eof;  /* -N (and -q >= 0, as Debian's nc) */
	int broadcast, debug, crlf, telnet, random_order;
	int fdpass;	      /* -F: a client passes its socket; a listener, as Debian's nc, ignores it */
	int rcvbuf, sndbuf;   /* -I / -O; 0 unset */
	int ttl, minttl, tos; /* -M / -m / -T; -1 unset */
	double interval;      /* -i seconds, 0 none */
	int quit_after;	      /* -q seconds, -1 (default) never */
	int timeout_ms;	      /* -w, -1 none */
	long recvlimit;	      /* -W, 0 none */
	const char *source;   /* -s */
	const char *source_port; /* -p */
	enum proxy_proto proxy_proto; /* -X (SOCKS5 when only -x is given) */
	const char *proxy;    /* -x host[:port] */
	const char *proxy_user; /* -P */
	int progress, json;   /* --progress, --json */
	const char *prog;     /* run as nc or netcat: that name, and nc's exact words; NULL: ncpv's */
	const char *host;     /* destination, listen address, or Unix path */
	int ssl;	      /* --ssl (ncat's; any --ssl-* option implies it) */
	const char *ssl_name; /* --ssl-servername: the name sent and verified (NULL: host) */
	struct tls_ctx *tls_ctx; /* --ssl: made by the command once the options are good */
	int ports[NC_MAX_PORTS];
	int nports;	      /* 0 with -U, or a listener without a port */
};

/* Totals across every connection of one run, for --progress and --json.
 * dropped counts bytes read from one end that the relay then had to throw
 * away because the other end failed (a reset peer, a closed stdout);
 * unacked the bytes send() took that the peer never acknowledged (the
 * close gave up waiting, or the connection was reset meanwhile);
 * unconfirmed those still unacknowledged when nc closed after the peer's
 * FIN (not waited for: the kernel goes on delivering them); reset_after_fin
 * the connections the peer reset after nc's -N FIN (it closed with data
 * unread, which its kernel may have acknowledged). */
struct nc_totals {
	uint64_t sent, received, dropped, unacked, unconfirmed;
	long reset_after_fin;
	double start;
	long tls_conns, ktls_conns; /* --ssl: handshakes done, and those with kernel TLS */
};

/*
 * What the engine hands its caller while it runs (any member may be NULL):
 * say: a line for stderr; error != 0 for a complaint (the command puts its
 *   prefix before it), 0 for a -v line shown as it is. No newline.
 * tick: the totals moved (final: the run is over); returns the clock_now()
 *   time it wants the next call at, or 0 for no particular time.
 * password: -P's password into buf (NUL-terminated), asked when a proxy
 *   first needs it; 0, or -1 after saying why.
 */
struct nc_events {
	void (*say)(void *ctx, int error, const char *line);
	double (*tick)(void *ctx, const struct nc_totals *t, int final);
	int (*password)(void *ctx, char *buf, size_t len);
	void *ctx;
};

/* Format a line and hand it to ev->say (nothing when ev or say is NULL). */
void nc_say(const struct nc_events *ev, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * Copy stdin to the socket and the socket to stdout until nc would stop
 * (see the README's half-close rules), counting into t. initial/initlen are
 * bytes already received (after a proxy reply) to write to stdout first.
 * The socket must be non-blocking and connected; nc_relay closes it (then
 * waits -q seconds when asked). Returns 1 when a listener must not accept
 * another client (Debian's -q with -k), 0 when it may, -1 out of memory.
 */
int nc_relay(const struct nc_opts *o, int fd, const uint8_t *initial, size_t initlen,
	     struct nc_totals *t, const struct nc_events *ev);

/*
 * The system calls the relay makes, so that a test can drive it through a
 * made-up schedule of short reads, EAGAIN and EINTR (fuzz/fuzz_relay.c).
 * Each gets ctx first and otherwise behaves as the call it is named after.
 * in_fd and out_fd stand for stdin and stdout; bufsize is each buffer's
 * size (0: the default; a UDP receive buffer is never smaller than 64 KiB).
 */
struct nc_io {
	ssize_t (*read)(void *ctx, int fd, void *buf, size_t len);
	ssize_t (*write)(void *ctx, int fd, const void *buf, size_t len);
	ssize_t (*send)(void *ctx, int fd, const void *buf, size_t len, int flags);
	int (*poll)(void *ctx, struct pollfd *pfd, nfds_t n, int timeout_ms);
	int (*shutdown)(void *ctx, int fd, int how);
	int (*close)(void *ctx, int fd);
	void (*sleep)(void *ctx, double seconds);
	void *ctx;
	int in_fd, out_fd;
	size_t bufsize;
};

/* nc_relay through io (NULL: the real system calls on stdin and stdout). */
int nc_relay_io(const struct nc_opts *o, const struct nc_io *io, int fd, const uint8_t *initial,
		size_t initlen, struct nc_totals *t, const struct nc_events *ev);

/* The real system calls on stdin and stdout: what nc_relay uses. */
extern const struct nc_io nc_system_io;

/*
 * --ssl (nc_tls.c): the handshake on a new connection fd (server: the listening side), bounded
 * by -w, with a -v line through ev saying what was agreed; then nc_relay with every network byte
 * through TLS (an nc_io over nc_system_io), close_notify at the end. nc_relay_tls closes fd in
 * every case. Returns what nc_relay does, or -2 when the handshake failed (err says why).
 */
int nc_relay_tls(const struct nc_opts *o, int fd, int server, struct nc_totals *t,
		 const struct nc_events *ev, char *err, size_t errlen);

/* Telnet option refusal (-t): scan received bytes for IAC WILL/WONT/DO/DONT
 * and write the DONT/WONT answers into out (at most outcap). *state carries
 * a sequence split across reads; start it at 0. Returns bytes written. Pure. */
size_t nc_telnet_answers(const uint8_t *buf, size_t len, int *state, uint8_t *out, size_t outcap);

/* Socket options from the command line (-b -D -I -O -M -m -T), applied by
 * net_connect / net_listen through net_opts.hook. A failure is kept in err. */
struct nc_hook {
	const struct nc_opts *o;
	int listening; /* a listener: SO_REUSEPORT too, as nc */
	int failed;
	char err[256];
};
int nc_socket_hook(int fd, const struct sockaddr *sa, void *ctx);

/* net_opts for o, with h (caller-owned, must outlive n) as the hook's context. */
void nc_net_opts(const struct nc_opts *o, struct nc_hook *h, struct net_opts *n);

/* -v lines, worded as Debian's nc: "Listening on HOST PORT" (verb "Listening"
 * or "Bound"), "Connection received on HOST PORT", "Connection to HOST PORT
 * port [tcp/SERVICE] succeeded!". Silent without -v. */
void nc_report_local(const struct nc_opts *o, const struct nc_events *ev, int fd, const char *verb);
void nc_report_peer(const struct nc_opts *o, const struct nc_events *ev, const struct sockaddr *sa,
		    socklen_t len);
void nc_report_connected(const struct nc_opts *o, const struct nc_events *ev, int fd, const char *host,
			 int port);

/*
 * Run as nc (o->prog), failures in OpenBSD nc's words (nc_words.c, pure):
 * nc_words_proxy: a failed proxy handshake (why, from proxy_handshake) as nc says it, or err
 *   where nc has no such message; into out.
 * nc_words_gai: the resolver's reason at the end of a net_* "...: REASON" line (borrowed).
 */
void nc_words_proxy(const struct proxy_failure *why, const char *err, char *out, size_t outlen);
const char *nc_words_gai(const char *err);

/* -F: send fd over stdout (SCM_RIGHTS). 0, or -1 with why in err. */
int nc_pass_fd(int fd, char *err, size_t errlen);

/*
 * The two sides of a run: the listener (-l: TCP, UDP and Unix-domain) and the
 * client (each port in turn, maybe through a proxy; -z scans, -F passes the
 * socket). Each returns 0, or -1 when nc exits 1: err then says why, or is
 * empty when nc fails silently (a refused port without -v).
 */
int nc_listen_main(const struct nc_opts *o, const struct nc_events *ev, struct nc_totals *t, char *err,
		   size_t errlen);
int nc_connect_main(const struct nc_opts *o, const struct nc_events *ev, struct nc_totals *t, char *err,
		    size_t errlen);

#endif
