/* SPDX-License-Identifier: ISC */
/* line.c - the delay line's event loop: epoll over two packet fds and one timerfd (see line.h). */
#include "line.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "../clock.h"

/* Read at most this many packets from one side per wakeup, so a flood
 * on one side cannot hold the other side's deliveries back. */
#define READ_BATCH 64
#define PACKET_MAX 65536
/* A timer wakes a loaded machine 50 to 300 us late: the timer is set this
 * much before a packet's time, and the rest is polled for (epoll with no
 * timeout, still taking packets in), so packets leave within a few us.
 * Polling is held to SPIN_SHARE of each SPIN_PERIOD: sparse packets (a
 * ping-pong) get the precision for under 1% CPU, while a dense stream, to
 * which a timer's constant lateness matters little (the rate comes from the
 * schedule, not from when the line wakes), does not keep a CPU spinning. */
#define EARLY_NS 200000
#define SPIN_PERIOD_NS 100000000
#define SPIN_SHARE_NS 5000000

struct packet {
	int64_t at;	/* when it reaches the other side */
	uint64_t seq;	/* arrival order: ties leave in it */
	uint32_t len;
	unsigned char data[];
};

/* A min-heap of packets by (at, seq). */
struct heap {
	struct packet **v;
	uint32_t n, cap;
};

struct direction {
	struct link_sched sched;
	struct link_slot *ring;
	struct heap held;
	uint64_t seq;
	struct link_line_counts c;
};

struct link_line {
	int fd[2], epfd, timerfd;
	int64_t armed;	/* the timer's deadline; 0 when disarmed */
	int64_t spin_since, spin_used; /* the current SPIN_PERIOD and the polling spent in it */
	unsigned header;
	struct direction dir[2];
	unsigned char buf[PACKET_MAX];
};

static int64_t now_ns(void)
{
	return (int64_t)clock_now_ns();
}

static int before(const struct packet *a, const struct packet *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static int heap_push(struct heap *h, struct packet *p)
{
	uint32_t i;

	if (h->n == h->cap) {
		uint32_t cap = h->cap ? h->cap * 2 : 256;
		struct packet **v = realloc(h->v, cap * sizeof(struct packet *));

		if (v == NULL)
			return -1;
		h->v = v;
		h->cap = cap;
	}
	for (i = h->n++; i > 0 && before(p, h->v[(i - 1) / 2]); i = (i - 1) / 2)
		h->v[i] = h->v[(i - 1) / 2];
	h->v[i] = p;
	return 0;
}

static struct packet *heap_pop(struct heap *h)
{
	struct packet *top = h->v[0], *last = h->v[--h->n];
	uint32_t i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && before(h->v[c + 1], h->v[c]))
			c++;
		if (!before(h->v[c], last))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n > 0)
		h->v[i] = last;
	return top;
}

struct link_line *link_line_new(const struct link_params p[2], uint64_t seed, const int fd[2], unsigned header,
				char *err, size_t errlen)
{
	struct link_line *l = calloc(1, sizeof(*l));
	struct epoll_event ev = { .events = EPOLLIN };

	if (l == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	l->fd[0] = fd[0];
	l->fd[1] = fd[1];
	l->header = header;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	l->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (l->epfd < 0 || l->timerfd < 0) {
		snprintf(err, errlen, "%s: %s", l->epfd < 0 ? "epoll" : "timerfd", strerror(errno));
		goto fail;
	}
	for (int d = 0; d < 2; d++) {
		uint32_t cap = p[d].queue_packets ? p[d].queue_packets : LINK_QUEUE_MAX;

		if ((l->dir[d].ring = calloc(cap, sizeof(struct link_slot))) == NULL) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		link_sched_init(&l->dir[d].sched, &p[d], seed + (uint64_t)d, l->dir[d].ring, cap);
		ev.data.u32 = (uint32_t)d;
		if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd[d], &ev) < 0) {
			snprintf(err, errlen, "epoll: %s", strerror(errno));
			goto fail;
		}
	}
	ev.data.u32 = 2;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->timerfd, &ev) < 0) {
		snprintf(err, errlen, "epoll: %s", strerror(errno));
		goto fail;
	}
	return l;
fail:
	link_line_free(l);
	return NULL;
}

void link_line_free(struct link_line *l)
{
	if (l == NULL)
		return;
	for (int d = 0; d < 2; d++) {
		while (l->dir[d].held.n > 0)
			free(heap_pop(&l->dir[d].held));
		free(l->dir[d].held.v);
		free(l->dir[d].ring);
	}
	if (l->epfd >= 0)
		close(l->epfd);
	if (l->timerfd >= 0)
		close(l->timerfd);
	free(l);
}

/* Take what side d has sent (up to READ_BATCH packets) into its direction. */
static int take(struct link_line *l, int d, char *err, size_t errlen)
{
	struct direction *dir = &l->dir[d];

	for (int k = 0; k < READ_BATCH; k++) {
		ssize_t n = read(l->fd[d], l->buf, sizeof(l->buf));
		int64_t at;
		struct packet *p;

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			snprintf(err, errlen, "read from the %s side: %s", d ? "far" : "near", strerror(errno));
			return -1;
		}
		if (n == 0)
			return 0;
		if ((size_t)n >= sizeof(l->buf)) {
			dir->c.truncated++;
			continue;
		}
		if (link_sched_admit(&dir->sched, now_ns(), (uint32_t)n - ((size_t)n > l->header ? l->header : 0),
				     &at) != 0)
			continue;
		if (dir->held.n >= LINK_LINE_MAX_HELD || (p = malloc(sizeof(*p) + (size_t)n)) == NULL) {
			dir->c.held_overflow++;
			continue;
		}
		p->at = at;
		p->seq = dir->seq++;
		p->len = (uint32_t)n;
		memcpy(p->data, l->buf, (size_t)n);
		if (heap_push(&dir->held, p) < 0) {
			free(p);
			dir->c.held_overflow++;
		}
	}
	return 0;
}

/* Hand over every packet whose time has come. */
static void deliver(struct link_line *l, int64_t now)
{
	for (int d = 0; d < 2; d++) {
		struct direction *dir = &l->dir[d];

		while (dir->held.n > 0 && dir->held.v[0]->at <= now) {
			struct packet *p = heap_pop(&dir->held);

			if (write(l->fd[1 - d], p->data, p->len) == (ssize_t)p->len) {
				uint32_t counted = p->len - (p->len > l->header ? l->header : 0);

				if (dir->c.delivered++ == 0)
					dir->c.first_ns = p->at;
				else
					dir->c.after_first_bytes += counted;
				dir->c.last_ns = p->at;
				dir->c.delivered_bytes += counted;
			} else {
				dir->c.write_errors++;
			}
			free(p);
		}
	}
}

/* Arm the timer early before the earliest packet held, or disarm it.
 * Returns 1 when that packet is due within early of now (poll, do not
 * sleep), 0, or -1 with errno. */
static int arm(struct link_line *l, int64_t now, int64_t early)
{
	int64_t next = 0;
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	for (int d = 0; d < 2; d++)
		if (l->dir[d].held.n > 0 && (next == 0 || l->dir[d].held.v[0]->at < next))
			next = l->dir[d].held.v[0]->at;
	if (next != 0 && next - now <= early)
		return 1;
	if (next != 0)
		next -= early;
	if (next == l->armed)
		return 0;
	its.it_value.tv_sec = next / 1000000000;
	its.it_value.tv_nsec = next % 1000000000;
	l->armed = next;
	return timerfd_settime(l->timerfd, TFD_TIMER_ABSTIME, &its, NULL);
}

int link_line_run(struct link_line *l, int wake_fd, char *err, size_t errlen)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = 3 }, got[4];
	int rc = -1;

	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, wake_fd, &ev) < 0) {
		snprintf(err, errlen, "epoll: %s", strerror(errno));
		return -1;
	}
	for (int soon = 0;;) {
		int64_t now = soon ? now_ns() : 0;
		int n = epoll_wait(l->epfd, got, 4, soon ? 0 : -1), woken = 0;

		if (soon)
			l->spin_used += now_ns() - now;
		if (n < 0 && errno != EINTR) {
			snprintf(err, errlen, "epoll_wait: %s", strerror(errno));
			break;
		}
		for (int i = 0; i < n; i++) {
			uint32_t which = got[i].data.u32;

			if (which < 2 && take(l, (int)which, err, errlen) < 0)
				goto out;
			if (which == 2) {
				uint64_t expirations;

				/* The count itself does not matter: deliver() looks at the clock. */
				if (read(l->timerfd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
					break;
				l->armed = 0;
			}
			woken |= which == 3;
		}
		now = now_ns();
		deliver(l, now);
		if (now - l->spin_since >= SPIN_PERIOD_NS) {
			l->spin_since = now;
			l->spin_used = 0;
		}
		if ((soon = arm(l, now, l->spin_used < SPIN_SHARE_NS ? EARLY_NS : 0)) < 0) {
			snprintf(err, errlen, "timerfd: %s", strerror(errno));
			break;
		}
		if (woken) {
			rc = 0;
			break;
		}
	}
out:
	epoll_ctl(l->epfd, EPOLL_CTL_DEL, wake_fd, NULL);
	return rc;
}

void link_line_counts(const struct link_line *l, int dir, struct link_line_counts *out)
{
	*out = l->dir[dir].c;
	out->sched = l->dir[dir].sched.n;
}
