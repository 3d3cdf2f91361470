/* SPDX-License-Identifier: ISC */
/* net.c - socket helpers: resolve, listen, connect with a timeout, name endpoints. */
#include "clock.h"
#include "net.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <linux/tcp.h> /* struct tcp_info with tcpi_notsent_bytes, which glibc's lacks */
#include <arpa/inet.h>
#include <linux/sockios.h>
#include <poll.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static const struct net_opts default_opts = { .family = AF_UNSPEC, .socktype = SOCK_STREAM };

static int lookup(const char *host, const char *port, const struct net_opts *o, int passive,
		  struct addrinfo **res, char *err, size_t errlen)
{
	struct addrinfo hints;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = o->family;
	hints.ai_socktype = o->socktype ? o->socktype : SOCK_STREAM;
	/* AI_ADDRCONFIG costs a netlink round trip per call and means nothing for a literal. */
	hints.ai_flags = (passive ? AI_PASSIVE : o->numeric ? 0 : AI_ADDRCONFIG) |
			 (o->numeric ? AI_NUMERICHOST : 0);
	rc = getaddrinfo(host && *host ? host : NULL, port, &hints, res);
	if (rc == EAI_ADDRFAMILY || (rc == EAI_NONAME && !passive && host && *host)) {
		/* AI_ADDRCONFIG hides ::1 on hosts with only loopback IPv6; ask again without it. */
		hints.ai_flags &= ~AI_ADDRCONFIG;
		rc = getaddrinfo(host, port, &hints, res);
	}
	if (rc == EAI_SERVICE && port) {
		/* glibc's "Servname not supported for ai_socktype" names neither the port nor the fix. */
		snprintf(err, errlen, "unknown port '%s': not a number from 0 to 65535 or a service "
			 "name in /etc/services", port);
		return NET_ERESOLVE;
	}
	if (rc != 0) {
		snprintf(err, errlen, "%s%s%s: %s", host && *host ? host : "*",
			 port ? " port " : "", port ? port : "",
			 rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
		return NET_ERESOLVE;
	}
	return 0;
}

int net_resolve(const char *host, const char *port, const struct net_opts *o,
		struct sockaddr_storage *ss, socklen_t *sslen, char *err, size_t errlen)
{
	struct addrinfo *res;
	int rc = lookup(host, port, o ? o : &default_opts, 0, &res, err, errlen);

	if (rc < 0)
		return rc;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*sslen = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

int net_listen(const char *host, const char *port, const struct net_opts *o,
	       char *err, size_t errlen)
{
	struct addrinfo *res, *ai;
	int fd = -1, saved = 0, rc;
	const int one = 1;

	if (o == NULL)
		o = &default_opts;
	if ((rc = lookup(host, port, o, 1, &res, err, errlen)) < 0)
		return rc;
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    ai->ai_protocol);
		if (fd < 0) {
			saved = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (o->hook && o->hook(fd, ai->ai_addr, o->hook_ctx) < 0) {
			saved = errno;
			close(fd);
			fd = -1;
			continue;
		}
		if (ai->ai_family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &o->v6only, sizeof(o->v6only));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
		    (ai->ai_socktype != SOCK_STREAM ||
		     listen(fd, o->backlog > 0 ? o->backlog : SOMAXCONN) == 0))
			break;
		saved = errno;
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		char where[128] = "?";

		if (res != NULL) /* getaddrinfo never succeeds empty, but say so */
			net_format_addr(res->ai_addr, res->ai_addrlen, where, sizeof(where));
		snprintf(err, errlen, "cannot listen on %s: %s", where, strerror(saved));
		freeaddrinfo(res);
		errno = saved;
		return NET_ESYS;
	}
	freeaddrinfo(res);
	return fd;
}

int net_connect_start(const struct sockaddr *sa, socklen_t salen, int socktype)
{
	int fd = socket(sa->sa_family, (socktype ? socktype : SOCK_STREAM) | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (connect(fd, sa, salen) < 0 && errno != EINPROGRESS) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

/* Bind a new socket to the caller's source address, of the same family as sa. */
static int bind_source(int fd, const struct sockaddr *sa, const struct net_opts *o)
{
	struct addrinfo hints, *res;
	const int one = 1;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = sa->sa_family;
	hints.ai_socktype = o->socktype ? o->socktype : SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | (o->numeric ? AI_NUMERICHOST : 0);
	if ((rc = getaddrinfo(o->bind_host, o->bind_port, &hints, &res)) != 0) {
		/* A name that resolves in no family, or one with no address in sa's. */
		errno = rc == EAI_NONAME || rc == EAI_FAIL ? ENXIO : EADDRNOTAVAIL;
		return -1;
	}
	if (!o->bind_exclusive)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	rc = bind(fd, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return rc;
}

/* One address: socket, caller's hook, source bind, non-blocking connect. *bind_failed
 * says a failure was the source bind's. */
static int connect_one(const struct addrinfo *ai, const struct net_opts *o, int *bind_failed)
{
	int fd, saved;

	if (!o->hook && !o->bind_host && !o->bind_port)
		return net_connect_start(ai->ai_addr, ai->ai_addrlen, ai->ai_socktype);
	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if ((o->hook && o->hook(fd, ai->ai_addr, o->hook_ctx) < 0) ||
	    ((o->bind_host || o->bind_port) && (*bind_failed = bind_source(fd, ai->ai_addr, o) < 0)) ||
	    (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS)) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

/* TCP's states in tcpi_state (include/net/tcp_states.h; netinet/tcp.h's enum clashes with
 * linux/tcp.h, needed for tcp_info's newer fields). */
enum { STATE_SYN_SENT = 2, STATE_CLOSE = 7 };

/* Whether fd's handshake completed, whatever came after it: the peer acknowledged the SYN
 * (bytes_acked counts it as one byte, and a reset since does not clear it), or, on a kernel
 * older than bytes_acked (4.1), the socket is past SYN_SENT and not closed. TCP_INFO does not
 * take the socket's pending error as SO_ERROR would: a reset that came right after the
 * handshake stays for the caller's first read or write, a failure of the transfer, not of
 * the connect (get said "connect to ...: Connection reset by peer", exit 4, 9 times in 20
 * against a serve that cut at once). 0 for a socket that is not TCP. */
static int handshake_done(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		return 0;
	if (len >= offsetof(struct tcp_info, tcpi_bytes_acked) + sizeof(ti.tcpi_bytes_acked))
		return ti.tcpi_bytes_acked > 0;
	return ti.tcpi_state != STATE_SYN_SENT && ti.tcpi_state != STATE_CLOSE;
}

int net_connect(const char *host, const char *port, const struct net_opts *o,
		char *err, size_t errlen)
{
	struct addrinfo *res, *ai;
	double deadline;
	int rc, saved = ECONNREFUSED, timed_out = 0, tried = 0, bind_saved = 0;
	char where[128] = "?";

	if (o == NULL)
		o = &default_opts;
	if ((rc = lookup(host, port, o, 0, &res, err, errlen)) < 0)
		return rc;
	deadline = o->timeout_ms > 0 ? clock_now_ms() + o->timeout_ms : 0;
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		int fd, left = -1;

		int bind_failed = 0;

		net_format_addr(ai->ai_addr, ai->ai_addrlen, where, sizeof(where));
		fd = connect_one(ai, o, &bind_failed);
		if (fd < 0 && bind_failed) {
			bind_saved = errno; /* maybe only this family: try the next address */
			continue;
		}
		tried = 1;
		if (fd < 0) {
			saved = errno;
			continue;
		}
		if (o->early != NULL) {
			ssize_t n = send(fd, o->early, o->early_len, MSG_DONTWAIT | MSG_NOSIGNAL);

			*o->early_sent = n > 0 ? (size_t)n : 0;
			/* A refusal already in (loopback): this send took the socket's error, which
			 * the wait below would no longer find. A reset after the handshake is not a
			 * refusal: the connection is the caller's, shut both ways (its next send
			 * fails, its read ends). */
			if (n < 0 && errno != EAGAIN && errno != ENOTCONN && errno != EINTR && !handshake_done(fd)) {
				saved = errno;
				close(fd);
				continue;
			}
		}
		if (deadline > 0) {
			left = (int)(deadline - clock_now_ms());
			if (left < 1)
				left = 1;
		}
		rc = net_wait_cancel(fd, POLLOUT, left, o->cancel);
		if (rc < 0) {
			saved = errno;
			close(fd);
			freeaddrinfo(res);
			snprintf(err, errlen, "connect to %s: %s", where,
				 saved == EINTR ? "interrupted" : strerror(saved));
			errno = saved;
			return NET_ESYS;
		}
		if (rc == 0) {
			close(fd);
			saved = ETIMEDOUT;
			timed_out = 1;
			break;
		}
		/* Asked before SO_ERROR, which would take a reset's error away from the transfer. */
		if (handshake_done(fd) || (saved = net_socket_error(fd)) == 0) {
			freeaddrinfo(res);
			if (o->connected_to != NULL)
				snprintf(o->connected_to, o->connected_to_len, "%s", where);
			return fd;
		}
		close(fd);
	}
	freeaddrinfo(res);
	if (!tried && bind_saved) {
		/* No address could even be tried from the source asked for. */
		snprintf(err, errlen, "cannot connect from %s%s%s: %s", o->bind_host ? o->bind_host : "port ",
			 o->bind_host && o->bind_port ? " port " : "", o->bind_port ? o->bind_port : "",
			 bind_saved == EADDRNOTAVAIL ? "not an address of this host for this destination's family" :
			 bind_saved == ENXIO ? "the name does not resolve" : strerror(bind_saved));
		errno = bind_saved;
		return NET_EBIND;
	}
	snprintf(err, errlen, "connect to %s: %s", where,
		 timed_out ? "timed out" : strerror(saved));
	errno = saved;
	return timed_out ? NET_ETIMEDOUT : NET_ECONNECT;
}

int net_unix_addr(const char *path, struct sockaddr_un *sun, socklen_t *len)
{
	size_t n = strlen(path);

	if (n == 0) {
		errno = EINVAL;
		return -1;
	}
	if (n >= sizeof(sun->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, path, n);
	if (path[0] == '@') {
		/* Abstract names are counted, not NUL-terminated. */
		sun->sun_path[0] = '\0';
		*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	} else {
		*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	}
	return 0;
}

static int unix_socket(const char *path, int socktype, struct sockaddr_un *sun, socklen_t *len,
		       char *err, size_t errlen)
{
	int fd;

	if (net_unix_addr(path, sun, len) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NET_ESYS;
	}
	fd = socket(AF_UNIX, socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NET_ESYS;
	}
	return fd;
}

static int unix_fail(int fd, const char *path, char *err, size_t errlen)
{
	int saved = errno;

	snprintf(err, errlen, "%s: %s", path, strerror(saved));
	close(fd);
	errno = saved;
	return NET_ESYS;
}

int net_unix_connect(const char *path, int socktype, char *err, size_t errlen)
{
	struct sockaddr_un sun;
	socklen_t len;
	int fd = unix_socket(path, socktype, &sun, &len, err, errlen);

	if (fd < 0)
		return fd;
	if (connect(fd, (struct sockaddr *)&sun, len) < 0) {
		/* A full backlog says EAGAIN on a non-blocking Unix connect; wait for room. */
		if (errno != EAGAIN && errno != EINPROGRESS)
			return unix_fail(fd, path, err, errlen);
		if (net_wait(fd, POLLOUT, -1) < 0 || (errno = net_socket_error(fd)) != 0)
			return unix_fail(fd, path, err, errlen);
	}
	return fd;
}

int net_unix_listen(const char *path, int socktype, char *err, size_t errlen)
{
	struct sockaddr_un sun;
	socklen_t len;
	int fd = unix_socket(path, socktype, &sun, &len, err, errlen);

	if (fd < 0)
		return fd;
	if (bind(fd, (struct sockaddr *)&sun, len) < 0 ||
	    (socktype == SOCK_STREAM && listen(fd, 5) < 0))
		return unix_fail(fd, path, err, errlen);
	return fd;
}

char *net_format_addr(const struct sockaddr *sa, socklen_t len, char *buf, size_t buflen)
{
	char host[INET6_ADDRSTRLEN];

	(void)len;
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		snprintf(buf, buflen, "%s:%u", host, ntohs(in->sin_port));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		snprintf(buf, buflen, "[%s]:%u", host, ntohs(in6->sin6_port));
	} else {
		snprintf(buf, buflen, "?");
	}
	return buf;
}

char *net_local_name(int fd, char *buf, size_t buflen)
{
	struct sockaddr_storage ss = { 0 }; /* zeroed: the analyzer does not model getsockname */
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		snprintf(buf, buflen, "?");
		return buf;
	}
	return net_format_addr((struct sockaddr *)&ss, len, buf, buflen);
}

char *net_peer_name(int fd, char *buf, size_t buflen)
{
	struct sockaddr_storage ss = { 0 }; /* zeroed: the analyzer does not model getpeername */
	socklen_t len = sizeof(ss);

	if (getpeername(fd, (struct sockaddr *)&ss, &len) < 0) {
		snprintf(buf, buflen, "?");
		return buf;
	}
	return net_format_addr((struct sockaddr *)&ss, len, buf, buflen);
}

ssize_t net_discard(int fd, void *scratch, size_t len)
{
	return recv(fd, scratch, len, MSG_TRUNC | MSG_DONTWAIT);
}

int net_socket_error(int fd)
{
	int e = 0;
	socklen_t len = sizeof(e);

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) < 0)
		return errno;
	return e;
}

int net_tcp_closed(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	return getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0 && len > 0 && ti.tcpi_state == STATE_CLOSE;
}

void net_reset_on_close(int fd)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
}

uint64_t net_unacked(int fd)
{
	int q = 0;

	if (ioctl(fd, SIOCOUTQ, &q) < 0 || q < 0)
		return 0;
	return (uint64_t)q;
}

/* TCP_INFO rather than SIOCOUTQNSD, which gives the same count but is an
 * ioctl that valgrind does not know. */
uint64_t net_unsent(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 ||
	    len < offsetof(struct tcp_info, tcpi_notsent_bytes) + sizeof(ti.tcpi_notsent_bytes))
		return 0;
	return ti.tcpi_notsent_bytes;
}

int net_tcp_stats(int fd, uint32_t *rtt_us, uint32_t *retrans)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 ||
	    len < offsetof(struct tcp_info, tcpi_total_retrans) + sizeof(ti.tcpi_total_retrans))
		return -1;
	*rtt_us = ti.tcpi_rtt;
	*retrans = ti.tcpi_total_retrans;
	return 0;
}

static const struct net_write_how plain_write;

int net_write_full(int fd, const void *buf, size_t len, const struct net_write_how *how, size_t *done)
{
	const char *b = buf;
	size_t out = 0;
	int rc = 0;

	if (how == NULL)
		how = &plain_write;
	while (out < len) {
		int left, waited;
		ssize_t n;

		if (how->cancel && *how->cancel) {
			errno = EINTR;
			rc = -1;
			break;
		}
		n = how->send_flags ? send(fd, b + out, len - out, how->send_flags) : write(fd, b + out, len - out);
		if (n > 0) {
			out += (size_t)n;
			continue;
		}
		if (n == 0) {
			errno = EIO;
			rc = -1;
			break;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN || !how->wait) {
			rc = -1;
			break;
		}
		left = -1;
		if (how->deadline > 0) {
			/* net_ms_until rounds up by one: what is left, in whole milliseconds. */
			left = net_ms_until(how->deadline, clock_now());
			left = left > 1 ? left - 1 : 0;
		}
		waited = left == 0 ? 0 : net_wait_cancel(fd, POLLOUT, left, how->cancel);
		if (waited <= 0) {
			rc = waited == 0 ? -2 : -1;
			break;
		}
	}
	if (done)
		*done = out;
	return rc;
}

int net_write_all(int fd, const void *buf, size_t len)
{
	return net_write_full(fd, buf, len, NULL, NULL);
}

int net_set_nonblock(int fd, int on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -1;
	fl = on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK;
	return fcntl(fd, F_SETFL, fl);
}

void net_msg_control(struct msghdr *mh, void *ctrl, size_t ctrl_len, int level, int type, const void *data,
		     size_t len)
{
	struct cmsghdr *c;

	memset(ctrl, 0, ctrl_len);
	mh->msg_control = ctrl;
	mh->msg_controllen = ctrl_len;
	c = CMSG_FIRSTHDR(mh);
	c->cmsg_level = level;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(c), data, len);
}

int net_ms_until(double until, double now)
{
	double ms = (until - now) * 1000 + 1;

	if (ms <= 0)
		return 0;
	return ms >= INT_MAX ? INT_MAX : (int)ms;
}

int net_wait_once(int fd, short events, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int rc = poll(&p, 1, timeout_ms);

	return rc > 0 ? p.revents : rc;
}

int net_wait_cancel(int fd, short events, int timeout_ms, const volatile sig_atomic_t *cancel)
{
	double deadline = timeout_ms >= 0 ? clock_now_ms() + timeout_ms : 0;

	for (;;) {
		int slice = timeout_ms, rc;

		if (cancel != NULL) {
			if (*cancel) {
				errno = EINTR;
				return -1;
			}
			if (slice < 0 || slice > NET_CANCEL_POLL_MS)
				slice = NET_CANCEL_POLL_MS;
		}
		rc = net_wait_once(fd, events, slice);
		if (rc > 0)
			return rc;
		if (rc < 0 && errno != EINTR)
			return -1;
		if (rc == 0 && slice == timeout_ms)
			return 0;
		if (timeout_ms >= 0) {
			timeout_ms = (int)(deadline - clock_now_ms());
			if (timeout_ms < 0)
				timeout_ms = 0;
		}
	}
}

int net_wait(int fd, short events, int timeout_ms)
{
	return net_wait_cancel(fd, events, timeout_ms, NULL);
}

long net_raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -1;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	return (long)rl.rlim_cur;
}

void net_guard_std_fds(void)
{
	for (int fd = 0; fd < 3; fd++) {
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
			/* Opened the wrong way round on purpose: reading stdin or writing
			 * stdout still fails with EBADF as on the closed descriptor, so
			 * "get -o - >&-" reports the loss instead of writing to /dev/null. */
			int n = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);

			if (n >= 0 && n != fd)
				close(n);
		}
	}
}
