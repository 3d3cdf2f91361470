/* SPDX-License-Identifier: ISC */
/* tcpstate.c - TCP_INFO into struct tcpstate (one getsockopt), and the pure interval sums. */
#include "tcpstate.h"

#include <errno.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

/* True when a struct tcp_info of len bytes reaches the end of member m. */
#define HAS(len, m) ((len) >= offsetof(struct tcp_info, m) + sizeof(((struct tcp_info *)0)->m))

void tcpstate_decode(const void *raw, size_t len, struct tcpstate *out)
{
	struct tcp_info ti;

	memset(&ti, 0, sizeof(ti));
	memcpy(&ti, raw, len < sizeof(ti) ? len : sizeof(ti));
	memset(out, 0, sizeof(*out));
	if (HAS(len, tcpi_total_retrans)) {
		out->have |= TCPSTATE_HAVE_BASIC;
		out->total_retrans = ti.tcpi_total_retrans;
		out->cwnd = ti.tcpi_snd_cwnd;
		out->rtt_us = ti.tcpi_rtt;
		out->rttvar_us = ti.tcpi_rttvar;
		out->snd_mss = ti.tcpi_snd_mss;
		out->rcv_mss = ti.tcpi_rcv_mss;
	}
	if (HAS(len, tcpi_pacing_rate)) {
		out->have |= TCPSTATE_HAVE_PACING;
		out->pacing_rate = ti.tcpi_pacing_rate;
	}
	if (HAS(len, tcpi_bytes_received)) {
		out->have |= TCPSTATE_HAVE_BYTES;
		out->bytes_acked = ti.tcpi_bytes_acked;
		out->bytes_received = ti.tcpi_bytes_received;
	}
	if (HAS(len, tcpi_delivery_rate)) {
		out->have |= TCPSTATE_HAVE_DELIVERY;
		out->delivery_rate = ti.tcpi_delivery_rate;
	}
	if (HAS(len, tcpi_bytes_retrans)) {
		out->have |= TCPSTATE_HAVE_BYTES_SENT;
		out->bytes_sent = ti.tcpi_bytes_sent;
		out->bytes_retrans = ti.tcpi_bytes_retrans;
	}
}

int tcpstate_read(int fd, struct tcpstate *out)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		return -1;
	tcpstate_decode(&ti, len, out);
	if (!(out->have & TCPSTATE_HAVE_BASIC)) {
		errno = ENOPROTOOPT;
		return -1;
	}
	return 0;
}

static uint64_t forward(uint64_t a, uint64_t b)
{
	return b >= a ? b - a : 0;
}

void tcpstate_delta(const struct tcpstate *a, const struct tcpstate *b, double seconds,
		    struct tcpstate_interval *out)
{
	memset(out, 0, sizeof(*out));
	out->have = a->have & b->have;
	out->acked = forward(a->bytes_acked, b->bytes_acked);
	out->received = forward(a->bytes_received, b->bytes_received);
	out->retrans = (uint32_t)forward(a->total_retrans, b->total_retrans);
	if (seconds > 0) {
		out->acked_rate = (double)out->acked / seconds;
		out->received_rate = (double)out->received / seconds;
	}
	out->cwnd = b->cwnd;
	out->rtt_us = b->rtt_us;
	out->rttvar_us = b->rttvar_us;
	out->pacing_rate = b->pacing_rate;
	out->delivery_rate = b->delivery_rate;
}

/* The mean of x (weight wx) and y (weight wy); the plain mean when neither weighs. */
static uint32_t weighted(uint32_t x, double wx, uint32_t y, double wy)
{
	if (wx + wy <= 0)
		return (uint32_t)(((uint64_t)x + y) / 2);
	return (uint32_t)(((double)x * wx + (double)y * wy) / (wx + wy) + 0.5);
}

void tcpstate_interval_add(struct tcpstate_interval *sum, const struct tcpstate_interval *one, unsigned n)
{
	double wsum, wone;

	if (n == 0) {
		*sum = *one;
		return;
	}
	wsum = (double)(sum->acked + sum->received);
	wone = (double)(one->acked + one->received);
	/* Gauges first: they weigh the bytes sum held before this stream's are added. */
	sum->rtt_us = weighted(sum->rtt_us, wsum, one->rtt_us, wone);
	sum->rttvar_us = weighted(sum->rttvar_us, wsum, one->rttvar_us, wone);
	sum->cwnd += one->cwnd; /* the windows in flight together */
	sum->pacing_rate = sum->pacing_rate == UINT64_MAX || one->pacing_rate == UINT64_MAX ?
				   UINT64_MAX : sum->pacing_rate + one->pacing_rate;
	sum->delivery_rate += one->delivery_rate;
	sum->acked += one->acked;
	sum->received += one->received;
	sum->retrans += one->retrans;
	sum->acked_rate += one->acked_rate;
	sum->received_rate += one->received_rate;
	sum->have &= one->have;
}
