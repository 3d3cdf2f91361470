/* SPDX-License-Identifier: ISC */
/* tcpdiag.c - read TCP sockets' byte counters from the kernel (sock_diag netlink). */
#include "tcpdiag.h"
#include "../clock.h"

#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Kernel TCP states (include/net/tcp_states.h), which no user header exports. */
enum { ST_ESTABLISHED = 1, ST_TIME_WAIT = 6, ST_CLOSE = 7, ST_LISTEN = 10, ST_MAX = 12 };

struct query {
	int port;
	enum tcpdiag_side side;
	int listening; /* count listeners instead */
	int beyond_loopback; /* ... only those bound beyond loopback; note a loopback one's port */
	int loopback_port;
	struct tcpdiag_sock *out;
	size_t max, found;
};

/* Whether a socket's local address (family, idiag_src) is a loopback one: 127.0.0.0/8, ::1
 * or ::ffff:127.x.y.z. */
static int on_loopback(const struct inet_diag_msg *m)
{
	const uint8_t *a = (const uint8_t *)m->id.idiag_src;
	static const uint8_t v6_loop[16] = { [15] = 1 };
	static const uint8_t v4_mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (m->idiag_family == AF_INET)
		return a[0] == 127;
	return memcmp(a, v6_loop, 16) == 0 || (memcmp(a, v4_mapped, 12) == 0 && a[12] == 127);
}

int tcpdiag_open(void)
{
	return socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
}

static void take(struct query *q, const struct inet_diag_msg *m, size_t len)
{
	int port = ntohs(q->side == TCPDIAG_REMOTE_PORT ? m->id.idiag_dport : m->id.idiag_sport);
	struct tcpdiag_sock s;
	size_t off = NLMSG_ALIGN(sizeof(*m));

	if (q->listening) {
		if (m->idiag_state == ST_LISTEN && q->beyond_loopback && on_loopback(m)) {
			q->loopback_port = ntohs(m->id.idiag_sport);
			return;
		}
		if (m->idiag_state == ST_LISTEN && (q->port == 0 || ntohs(m->id.idiag_sport) == q->port)) {
			if (q->found == 0 && q->max > 0)
				q->out[0].cookie = (uint64_t)m->id.idiag_cookie[0] |
						   (uint64_t)m->id.idiag_cookie[1] << 32;
			q->found++;
		}
		return;
	}
	if (port != q->port)
		return;
	memset(&s, 0, sizeof(s));
	s.cookie = (uint64_t)m->id.idiag_cookie[0] | (uint64_t)m->id.idiag_cookie[1] << 32;
	s.state = m->idiag_state;
	while (off + sizeof(struct nlattr) <= len) {
		const struct nlattr *a = (const struct nlattr *)((const char *)m + off);

		if (a->nla_len < sizeof(*a) || off + a->nla_len > len)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == INET_DIAG_INFO) {
			struct tcp_info ti;
			size_t n = a->nla_len - NLA_HDRLEN;

			memset(&ti, 0, sizeof(ti));
			memcpy(&ti, (const char *)a + NLA_HDRLEN, n < sizeof(ti) ? n : sizeof(ti));
			s.bytes_received = ti.tcpi_bytes_received;
			s.bytes_acked = ti.tcpi_bytes_acked;
			s.total_retrans = ti.tcpi_total_retrans;
			s.rtt_us = ti.tcpi_rtt;
			s.rcv_rtt_us = ti.tcpi_rcv_rtt;
		}
		off += NLA_ALIGN(a->nla_len);
	}
	if (q->found < q->max)
		q->out[q->found] = s;
	q->found++;
}

static int dump(int fd, int family, struct query *q)
{
	/* The port is filtered in the kernel: a dump of every socket on a busy
	 * machine spans many datagrams, and sockets that come and go between
	 * them make the kernel skip others, ours included. */
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 req;
		struct nlattr attr;
		struct inet_diag_bc_op op[2];
	} msg;
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	/* A dump datagram can reach 32 KiB; a shorter buffer would cut it. */
	long buf[65536 / sizeof(long)];
	char junk[64];

	/* Leftovers of an earlier, interrupted dump must not answer this one. */
	while (recv(fd, junk, sizeof(junk), MSG_DONTWAIT) > 0)
		;

	memset(&msg, 0, sizeof(msg));
	/* Listeners on any port: no filter (a fresh namespace holds only a few). */
	msg.nlh.nlmsg_len = q->listening && q->port == 0 ? NLMSG_LENGTH(sizeof(msg.req)) : sizeof(msg);
	msg.attr.nla_type = INET_DIAG_REQ_BYTECODE;
	msg.attr.nla_len = (uint16_t)(sizeof(msg.attr) + sizeof(msg.op));
	/* One test: on a match jump to the end (accept), else past it (reject). */
	msg.op[0].code = q->listening || q->side == TCPDIAG_LOCAL_PORT ? INET_DIAG_BC_S_EQ : INET_DIAG_BC_D_EQ;
	msg.op[0].yes = sizeof(msg.op);
	msg.op[0].no = sizeof(msg.op) + 4;
	msg.op[1].no = (unsigned short)q->port;
	msg.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	msg.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	msg.nlh.nlmsg_seq = (uint32_t)clock_now_ns() ^ (uint32_t)family;
	msg.req.sdiag_family = (uint8_t)family;
	msg.req.sdiag_protocol = IPPROTO_TCP;
	msg.req.idiag_ext = 1 << (INET_DIAG_INFO - 1);
	msg.req.idiag_states = q->listening ? 1u << ST_LISTEN
					    : ((1u << ST_MAX) - 1) & ~(1u << ST_LISTEN | 1u << ST_TIME_WAIT |
									1u << ST_CLOSE | 1u);
	if (sendto(fd, &msg, msg.nlh.nlmsg_len, 0, (struct sockaddr *)&nl, sizeof(nl)) < 0)
		return -1;
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != msg.nlh.nlmsg_seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				errno = e->error ? -e->error : EPROTO;
				return -1;
			}
			if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct inet_diag_msg)))
				take(q, NLMSG_DATA(h), h->nlmsg_len - NLMSG_HDRLEN);
		}
		if (n == 0)
			return 0;
	}
}

static int run(int fd, struct query *q)
{
	if (dump(fd, AF_INET, q) < 0)
		return -1;
	/* A kernel without IPv6 refuses the family: nothing to count there. */
	if (dump(fd, AF_INET6, q) < 0 && errno != ENOENT && errno != EAFNOSUPPORT)
		return -1;
	return (int)q->found;
}

int tcpdiag_query(int fd, int port, enum tcpdiag_side side, struct tcpdiag_sock *out, size_t max)
{
	struct query q = { .port = port, .side = side, .out = out, .max = max };

	return run(fd, &q);
}

int tcpdiag_listening(int fd, int port, uint64_t *cookie)
{
	struct tcpdiag_sock first = { 0 };
	struct query q = { .port = port, .listening = 1, .out = &first, .max = 1 };
	int n = run(fd, &q);

	if (cookie)
		*cookie = first.cookie;
	return n < 0 ? -1 : n > 0;
}

int tcpdiag_listening_beyond_loopback(int fd, int *loopback_port)
{
	struct tcpdiag_sock first = { 0 };
	struct query q = { .listening = 1, .beyond_loopback = 1, .out = &first, .max = 1 };
	int n = run(fd, &q);

	*loopback_port = q.loopback_port;
	return n < 0 ? -1 : n > 0;
}
