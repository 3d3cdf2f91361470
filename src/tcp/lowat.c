/* SPDX-License-Identifier: ISC */
/* lowat.c - a TCP receiver's low-water mark that follows the rate (see lowat.h). */
#include "lowat.h"

#include <sys/socket.h>

size_t tcp_lowat_for(double bytes_per_s, int rcvbuf, double mean_read, int marked)
{
	double want = bytes_per_s * TCP_LOWAT_WAIT;
	size_t mark = TCP_LOWAT_MAX;

	if (!marked && mean_read >= (double)TCP_LOWAT_BIG_READ)
		return 1;
	while (mark >= TCP_LOWAT_MIN && ((double)mark > want || rcvbuf < 0 || (size_t)rcvbuf / 8 < mark))
		mark /= 2;
	return mark >= TCP_LOWAT_MIN ? mark : 1;
}

static int set_mark(struct tcp_lowat *w, int fd, int mark)
{
	if (mark == w->mark)
		return mark;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &mark, sizeof(mark)) < 0)
		return -1;
	w->mark = mark;
	return mark;
}

int tcp_lowat_update(struct tcp_lowat *w, int fd, uint64_t total, double now)
{
	int rcvbuf = -1;
	socklen_t len = sizeof(rcvbuf);
	double took, mean;
	size_t mark;

	if (w->mark < 1)
		w->mark = 1;
	if (w->since <= 0 || total < w->bytes) {
		w->since = now;
		w->bytes = w->last = total;
		w->reads = 0;
		return w->mark;
	}
	w->reads += total > w->last;
	w->last = total;
	took = now - w->since;
	if (took < TCP_LOWAT_WINDOW)
		return w->mark;
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &len) < 0)
		rcvbuf = -1;
	mean = w->reads > 0 ? (double)(total - w->bytes) / w->reads : 0;
	mark = tcp_lowat_for((double)(total - w->bytes) / took, rcvbuf, mean, w->mark > 1);
	w->since = now;
	w->bytes = total;
	w->reads = 0;
	return set_mark(w, fd, (int)mark);
}

void tcp_lowat_off(struct tcp_lowat *w, int fd, uint64_t total, double now)
{
	(void)set_mark(w, fd, 1);
	w->since = now;
	w->bytes = w->last = total;
	w->reads = 0;
}
