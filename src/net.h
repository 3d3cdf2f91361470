/* SPDX-License-Identifier: ISC */
/* net.h - socket helpers: resolve, listen, connect with a timeout, name endpoints.
 * They never print and never exit: failures return a negative NET_E* code,
 * keep errno where a system call failed, and put one line in the caller's err. */
#ifndef NCPV_NET_H
#define NCPV_NET_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

enum net_error {
	NET_ESYS = -1,	   /* a system call failed; errno says which way */
	NET_ERESOLVE = -2, /* the name or service did not resolve */
	NET_ECONNECT = -3, /* every address refused or was unreachable (errno of the last) */
	NET_ETIMEDOUT = -4, /* the connect timeout ran out */
	NET_EBIND = -5	    /* the source address or port (bind_host, bind_port) was refused */
};

/* Called on every socket net_connect or net_listen creates, before bind
 * and connect, to set options (TTL, buffers, TOS ...). Return 0, or -1
 * with errno to give up on that address. */
typedef int net_socket_hook(int fd, const struct sockaddr *sa, void *ctx);

struct net_opts {
	int family;	 /* AF_UNSPEC, AF_INET or AF_INET6 */
	int socktype;	 /* SOCK_STREAM (default when 0) or SOCK_DGRAM */
	int timeout_ms;	 /* connect: <= 0 waits as long as the kernel does */
	int backlog;	 /* listen: 0 means SOMAXCONN */
	int numeric;	 /* do not use DNS (AI_NUMERICHOST) */
	int v6only;	 /* listen on [::] for IPv6 only */
	const char *bind_host; /* connect: bind to this local address first (NULL: any) */
	const char *bind_port; /* connect: and this local port (NULL: any) */
	int bind_exclusive;    /* connect: no SO_REUSEADDR on that bind (nc's -p: a port in TIME_WAIT fails) */
	net_socket_hook *hook; /* optional, see above; hook_ctx is passed through */
	void *hook_ctx;
	/* connect: give up (NET_ESYS, errno EINTR) once *cancel is set by a
	 * signal handler; NULL waits through signals. Borrowed. */
	const volatile sig_atomic_t *cancel;
	/* connect: bytes to send the moment connect() has started, before its wait, so that they
	 * leave with the handshake where the kernel can take them at once (loopback); the count
	 * taken goes to *early_sent (0 when the socket was not ready: the caller sends them after
	 * net_connect, as it would have). Borrowed; NULL: none. */
	const void *early;
	size_t early_len;
	size_t *early_sent;
	/* connect: the address the returned socket connected to, as net_format_addr writes it,
	 * where net_peer_name would say "?" for a connection the peer has reset since. Borrowed;
	 * NULL: not wanted. */
	char *connected_to;
	size_t connected_to_len;
};

/* Resolve, bind and listen; the socket is non-blocking and close-on-exec.
 * An empty host listens on every address. Returns the fd or a NET_E*. */
int net_listen(const char *host, const char *port, const struct net_opts *o,
	       char *err, size_t errlen);

/* Resolve and connect, trying each address in turn within the timeout.
 * The returned socket is non-blocking and close-on-exec. */
int net_connect(const char *host, const char *port, const struct net_opts *o,
		char *err, size_t errlen);

/* Start a non-blocking connect to one resolved address: returns the fd with
 * the connect in flight (or done), or -1 with errno. */
int net_connect_start(const struct sockaddr *sa, socklen_t salen, int socktype);

/* Resolve once into a caller-owned copy of the first address: 0 or NET_E*. */
int net_resolve(const char *host, const char *port, const struct net_opts *o,
		struct sockaddr_storage *ss, socklen_t *sslen, char *err, size_t errlen);

/* Fill a Unix-domain address for path; a leading '@' names a Linux
 * abstract socket (the '@' becomes a NUL byte). Returns 0, or -1 with
 * errno ENAMETOOLONG or EINVAL (empty). Pure. */
struct sockaddr_un;
int net_unix_addr(const char *path, struct sockaddr_un *sun, socklen_t *len);

/* Connect to, or bind (and for SOCK_STREAM listen on), a Unix-domain
 * socket; socktype is SOCK_STREAM or SOCK_DGRAM. The fd is non-blocking
 * and close-on-exec. Returns the fd or NET_ESYS with a line in err. */
int net_unix_connect(const char *path, int socktype, char *err, size_t errlen);
int net_unix_listen(const char *path, int socktype, char *err, size_t errlen);

/* "127.0.0.1:6666" or "[::1]:6666" for an address; buf gets "?" on error. */
char *net_format_addr(const struct sockaddr *sa, socklen_t len, char *buf, size_t buflen);
char *net_local_name(int fd, char *buf, size_t buflen);
char *net_peer_name(int fd, char *buf, size_t buflen);

/* Drop up to len received bytes without copying them (MSG_TRUNC: TCP
 * discards inside the kernel and never writes to scratch). scratch must
 * still be len addressable bytes, because checkers such as valgrind test
 * the range; a malloc'd buffer that is never touched costs no RSS.
 * Non-blocking; returns as recv(2). */
ssize_t net_discard(int fd, void *scratch, size_t len);
#define NET_DISCARD_MAX (1u << 20)

/* Pending socket error (SO_ERROR), 0 when none. */
int net_socket_error(int fd);
/* 1 when fd's TCP connection is in state CLOSE: reset, or timed out (its error may have been
 * taken already by a read, as TLS's reads take it). */
int net_tcp_closed(int fd);

/* Make the next close of fd send a reset instead of a FIN (SO_LINGER 0), so
 * that the peer cannot take a transfer cut short for a complete one. */
void net_reset_on_close(int fd);

/* Bytes written to a TCP socket that the peer has not acknowledged yet
 * (SIOCOUTQ: still kept after a reset). After shutdown(SHUT_WR) the FIN
 * counts as one until acknowledged. 0 when the kernel cannot tell. */
uint64_t net_unacked(int fd);
/* Of those, the bytes not even sent yet (the FIN likewise). */
uint64_t net_unsent(int fd);

/* TCP's view of a connection: its smoothed round trip (microseconds) and
 * the segments it sent again. Returns 0, or -1 (not TCP, or an old kernel). */
int net_tcp_stats(int fd, uint32_t *rtt_us, uint32_t *retrans);

/*
 * How net_write_full waits and when it stops (a zeroed struct: write(2),
 * EAGAIN is an error, no deadline, no cancel flag).
 * wait: on EAGAIN wait for room (interruptibly) instead of failing.
 * deadline: with wait, give up at this clock_now() time (0: never).
 * cancel: a signal handler's flag; once set, stop with errno EINTR (looked
 *   at before every write, since a signal often ends a blocking write short
 *   rather than with EINTR; NULL: never). Without it EINTR writes again.
 * send_flags: send(2) with these flags instead of write(2) (0: write).
 */
struct net_write_how {
	int wait;
	double deadline;
	const volatile sig_atomic_t *cancel;
	int send_flags;
};

/*
 * Write all of buf to fd as how says (NULL: the zeroed struct). 0 when all
 * went out; -1 with errno (a write that takes nothing is EIO); -2 when the
 * deadline passed while waiting for room. *done (may be NULL) says how many
 * bytes got out, also when it fails. Every write-everything loop uses it.
 */
int net_write_full(int fd, const void *buf, size_t len, const struct net_write_how *how, size_t *done);

/* Write all of buf to a blocking fd, again after EINTR: 0, or -1 with errno
 * (a write that takes nothing counts as an error). net_write_full with NULL. */
int net_write_all(int fd, const void *buf, size_t len);
int net_set_nonblock(int fd, int on);

/* Gives mh one control message: level and type (SOL_SOCKET SCM_RIGHTS, SOL_UDP UDP_SEGMENT) with
 * data's len bytes, in ctrl (ctrl_len bytes, at least CMSG_SPACE(len), aligned as a struct
 * cmsghdr: the caller's union with one; zeroed here), which mh borrows until it is sent. */
void net_msg_control(struct msghdr *mh, void *ctrl, size_t ctrl_len, int level, int type, const void *data,
		     size_t len);

/* One poll for events on fd (POLLIN/POLLOUT) for at most timeout_ms (< 0:
 * forever) that a signal cuts short, so that the caller can serve the
 * signal's flag: revents, 0 on timeout, -1 with errno (EINTR: a signal). */
int net_wait_once(int fd, short events, int timeout_ms);

/* Wait for fd to become ready for events (POLLIN/POLLOUT) for at most
 * timeout_ms (< 0: forever), retrying EINTR. Returns revents, 0 on timeout. */
int net_wait(int fd, short events, int timeout_ms);

/* net_wait that gives up with -1 and errno EINTR once *cancel is set (a
 * signal handler's flag; NULL: never). The flag is also looked at every
 * NET_CANCEL_POLL_MS, so a signal that lands just before poll() starts is
 * noticed soon rather than never. */
int net_wait_cancel(int fd, short events, int timeout_ms, const volatile sig_atomic_t *cancel);
#define NET_CANCEL_POLL_MS 250

/* Milliseconds from now to until (seconds, same clock), rounded up and
 * clamped to 0..INT_MAX so that a far deadline cannot overflow an int. */
int net_ms_until(double until, double now);

/* Raise the soft open-file limit to the hard one; returns the new soft limit. */
long net_raise_fd_limit(void);

/* Make the descriptor numbers 0..2 valid (opened on /dev/null if closed),
 * so that sockets never land on them; I/O on them still fails with EBADF. */
void net_guard_std_fds(void);

#endif
