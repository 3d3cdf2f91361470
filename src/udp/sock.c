/* SPDX-License-Identifier: ISC */
/* sock.c - batches of datagrams in and out: recvmmsg with UDP_GRO, sendmsg with UDP_SEGMENT, sendmmsg. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "sock.h"
#include "../clock.h"
#include "../net.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif
#ifndef SOL_UDP
#define SOL_UDP 17
#endif

#define CTRL_LEN 64
/* The kernel's UDP_MAX_SEGMENTS on older kernels (128 from 6.x): keep to the smaller. */
#define GSO_MAX_SEGS 64
#define GSO_MAX_BYTES 65000

int udp_rx_init(struct udp_rx *rx, unsigned n)
{
	memset(rx, 0, sizeof(*rx));
	rx->n = n;
	rx->msgs = calloc(n, sizeof(*rx->msgs));
	rx->iov = calloc(n, sizeof(*rx->iov));
	rx->names = calloc(n, sizeof(*rx->names));
	rx->bufs = malloc((size_t)n * UDP_SOCK_RXBUF);
	rx->ctrl = calloc(n, CTRL_LEN);
	if (!rx->msgs || !rx->iov || !rx->names || !rx->bufs || !rx->ctrl) {
		udp_rx_free(rx);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void udp_rx_free(struct udp_rx *rx)
{
	free(rx->msgs);
	free(rx->iov);
	free(rx->names);
	free(rx->bufs);
	free(rx->ctrl);
	memset(rx, 0, sizeof(*rx));
}

/* The segment size of a GRO train, or 0 when the datagram came alone. */
static size_t gro_size(struct msghdr *mh)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO && c->cmsg_len >= CMSG_LEN(sizeof(int))) {
			int v;

			memcpy(&v, CMSG_DATA(c), sizeof(v));
			return v > 0 ? (size_t)v : 0;
		}
	}
	return 0;
}

int udp_rx_batch(struct udp_rx *rx, int fd, udp_rx_fn *fn, void *ctx)
{
	uint64_t now;
	int got;

	for (unsigned i = 0; i < rx->n; i++) {
		rx->iov[i].iov_base = rx->bufs + (size_t)i * UDP_SOCK_RXBUF;
		rx->iov[i].iov_len = UDP_SOCK_RXBUF;
		memset(&rx->msgs[i].msg_hdr, 0, sizeof(rx->msgs[i].msg_hdr));
		rx->msgs[i].msg_hdr.msg_iov = &rx->iov[i];
		rx->msgs[i].msg_hdr.msg_iovlen = 1;
		rx->msgs[i].msg_hdr.msg_name = &rx->names[i];
		rx->msgs[i].msg_hdr.msg_namelen = sizeof(rx->names[i]);
		rx->msgs[i].msg_hdr.msg_control = rx->ctrl + (size_t)i * CTRL_LEN;
		rx->msgs[i].msg_hdr.msg_controllen = CTRL_LEN;
	}
	do
		got = recvmmsg(fd, rx->msgs, rx->n, MSG_DONTWAIT, NULL);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
	now = clock_now_ns();
	for (int i = 0; i < got; i++) {
		struct msghdr *mh = &rx->msgs[i].msg_hdr;
		const uint8_t *p = mh->msg_iov->iov_base;
		size_t len = rx->msgs[i].msg_len, seg = gro_size(mh);

		if (mh->msg_flags & MSG_TRUNC)
			len = UDP_SOCK_RXBUF; /* cannot happen below 64 KiB; counted as what arrived */
		if (seg == 0 || seg >= len) {
			fn(ctx, p, len, (struct sockaddr *)mh->msg_name, mh->msg_namelen, now);
			continue;
		}
		for (size_t off = 0; off < len; off += seg)
			fn(ctx, p + off, len - off < seg ? len - off : seg, (struct sockaddr *)mh->msg_name,
			   mh->msg_namelen, now);
	}
	return got;
}

void udp_sock_tune(int fd)
{
	int on = 1, size = 4 << 20;

	(void)setsockopt(fd, SOL_UDP, UDP_GRO, &on, sizeof(on));
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
}

static int send_gso(int fd, const uint8_t *buf, size_t len, unsigned n, const struct sockaddr *to,
		    socklen_t tolen)
{
	union {
		char b[CMSG_SPACE(sizeof(uint16_t))];
		struct cmsghdr align;
	} ctrl;
	struct iovec iov = { (void *)buf, len * n };
	struct msghdr mh;
	uint16_t seg = (uint16_t)len;
	ssize_t r;

	memset(&mh, 0, sizeof(mh));
	mh.msg_name = (void *)to;
	mh.msg_namelen = to ? tolen : 0;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	net_msg_control(&mh, ctrl.b, sizeof(ctrl.b), SOL_UDP, UDP_SEGMENT, &seg, sizeof(seg));
	do
		r = sendmsg(fd, &mh, MSG_DONTWAIT);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -1 : (int)n;
}

static int send_mmsg(int fd, const uint8_t *buf, size_t len, unsigned n, const struct sockaddr *to,
		     socklen_t tolen)
{
	struct mmsghdr msgs[UDP_SOCK_BATCH];
	struct iovec iov[UDP_SOCK_BATCH];
	int r;

	if (n > UDP_SOCK_BATCH)
		n = UDP_SOCK_BATCH;
	memset(msgs, 0, sizeof(msgs[0]) * n);
	for (unsigned i = 0; i < n; i++) {
		iov[i].iov_base = (void *)(buf + (size_t)i * len);
		iov[i].iov_len = len;
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_hdr.msg_name = (void *)to;
		msgs[i].msg_hdr.msg_namelen = to ? tolen : 0;
	}
	do
		r = sendmmsg(fd, msgs, n, MSG_DONTWAIT);
	while (r < 0 && errno == EINTR);
	return r;
}

int udp_send_batch(int fd, const uint8_t *buf, size_t len, unsigned n, const struct sockaddr *to,
		   socklen_t tolen, int *gso)
{
	unsigned done = 0;

	while (done < n) {
		unsigned k = n - done;
		int r;

		if (*gso && k > 1) {
			if (k > GSO_MAX_SEGS)
				k = GSO_MAX_SEGS;
			if (k * len > GSO_MAX_BYTES)
				k = (unsigned)(GSO_MAX_BYTES / len);
		}
		if (*gso && k > 1) {
			r = send_gso(fd, buf + (size_t)done * len, len, k, to, tolen);
			if (r < 0 && (errno == EINVAL || errno == EIO || errno == ENOPROTOOPT || errno == EOPNOTSUPP)) {
				*gso = 0; /* no UDP_SEGMENT here (or not for this device): sendmmsg from now on */
				continue;
			}
		} else
			r = send_mmsg(fd, buf + (size_t)done * len, len, k, to, tolen);
		if (r < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
				break;
			if (done > 0)
				break;
			return -1;
		}
		if (r == 0)
			break;
		done += (unsigned)r;
	}
	return (int)done;
}

int udp_send_one(int fd, const uint8_t *buf, size_t len, const struct sockaddr *to, socklen_t tolen)
{
	ssize_t r;

	do
		r = sendto(fd, buf, len, MSG_DONTWAIT, to, to ? tolen : 0);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -1 : 0;
}
