/* SPDX-License-Identifier: ISC */
/* sock.h - the UDP test's system calls: batches in (recvmmsg, UDP_GRO) and out (UDP_SEGMENT, sendmmsg). */
#ifndef NCPV_UDP_SOCK_H
#define NCPV_UDP_SOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Datagrams per recvmmsg / sendmmsg call, and the most UDP_SEGMENT sends in one go. */
#define UDP_SOCK_BATCH 64

/* A receive batch: n buffers of UDP_SOCK_RXBUF bytes (a whole GRO train fits one), owned here. */
#define UDP_SOCK_RXBUF 65536
struct udp_rx {
	unsigned n;
	struct mmsghdr *msgs;
	struct iovec *iov;
	struct sockaddr_storage *names;
	uint8_t *bufs;
	uint8_t *ctrl;
};

/* Each received datagram (a GRO train already split), with its sender; the arrival time is
 * the clock after the recvmmsg call that got it. */
typedef void udp_rx_fn(void *ctx, const uint8_t *buf, size_t len, const struct sockaddr *from,
		       socklen_t fromlen, uint64_t arrival_ns);

/* 0, or -1 with errno ENOMEM. */
int udp_rx_init(struct udp_rx *rx, unsigned n);
void udp_rx_free(struct udp_rx *rx);

/* One non-blocking recvmmsg on fd: the number of datagrams (before splitting) handed to fn,
 * 0 when none was waiting, -1 with errno (ECONNREFUSED: an ICMP port unreachable came). */
int udp_rx_batch(struct udp_rx *rx, int fd, udp_rx_fn *fn, void *ctx);

/* Ask for GRO (UDP_GRO) on fd and for large socket buffers; what the kernel refuses is left. */
void udp_sock_tune(int fd);

/*
 * Send n datagrams of len bytes laid out one after another in buf (to: NULL on a connected
 * socket). With *gso, one sendmsg with UDP_SEGMENT per up to 64 datagrams and 64 KiB; if the
 * kernel refuses that, *gso becomes 0 and sendmmsg carries them from then on. Returns how
 * many went (fewer when the socket buffer is full), or -1 with errno for a real error.
 */
int udp_send_batch(int fd, const uint8_t *buf, size_t len, unsigned n, const struct sockaddr *to,
		   socklen_t tolen, int *gso);

/* One datagram; 0, or -1 with errno (EAGAIN: dropped, as UDP may). */
int udp_send_one(int fd, const uint8_t *buf, size_t len, const struct sockaddr *to, socklen_t tolen);

#endif
