/* SPDX-License-Identifier: ISC */
/* loop.c - a small epoll event loop: an fd-indexed table of handlers. */
#include "clock.h"
#include "loop.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#define LOOP_BATCH 256

struct slot {
	loop_handler *handler;
	void *ctx;
};

struct loop {
	int epfd;
	int nslots;
	struct slot *slots;
	int have_mask;
	struct loop_spin spin;
	size_t moved; /* bytes the handlers of this wakeup read or sent (loop_moved) */
	sigset_t mask;
	struct epoll_event events[LOOP_BATCH];
};

struct loop *loop_new(void)
{
	struct loop *l = calloc(1, sizeof(*l));

	if (l == NULL)
		return NULL;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		int saved = errno;

		free(l);
		errno = saved;
		return NULL;
	}
	return l;
}

void loop_free(struct loop *l)
{
	if (l == NULL)
		return;
	close(l->epfd);
	free(l->slots);
	free(l);
}

static int grow(struct loop *l, int fd)
{
	int n = l->nslots ? l->nslots : 64;
	struct slot *s;

	while (n <= fd)
		n *= 2;
	s = realloc(l->slots, (size_t)n * sizeof(*s));
	if (s == NULL)
		return -1;
	memset(s + l->nslots, 0, (size_t)(n - l->nslots) * sizeof(*s));
	l->slots = s;
	l->nslots = n;
	return 0;
}

int loop_add(struct loop *l, int fd, uint32_t events, loop_handler *h, void *ctx)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	if (fd < 0) {
		errno = EBADF;
		return -1;
	}
	if (fd >= l->nslots && grow(l, fd) < 0)
		return -1;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -1;
	l->slots[fd].handler = h;
	l->slots[fd].ctx = ctx;
	return 0;
}

int loop_mod(struct loop *l, int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	return epoll_ctl(l->epfd, EPOLL_CTL_MOD, fd, &ev);
}

int loop_del(struct loop *l, int fd)
{
	if (fd >= 0 && fd < l->nslots)
		l->slots[fd].handler = NULL;
	return epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
}

int loop_close(struct loop *l, int fd)
{
	if (fd >= 0 && fd < l->nslots)
		l->slots[fd].handler = NULL;
	return close(fd);
}

void loop_set_sigmask(struct loop *l, const sigset_t *mask)
{
	l->have_mask = mask != NULL;
	if (mask != NULL)
		l->mask = *mask;
}

/*
 * epoll_pwait that returns events puts the old mask back without
 * delivering a pending signal: while some fd is always ready (a busy
 * client), a stop signal would wait forever. When one of the signals the
 * wait lets in is pending, open the mask for a moment to run its handler.
 * One sigpending per wakeup with events; none when the wait slept.
 */
static void deliver_pending(const struct loop *l)
{
	sigset_t pending, old;
	int waiting = 0;

	if (sigpending(&pending) < 0 || sigisemptyset(&pending))
		return;
	for (int sig = 1; sig < NSIG && !waiting; sig++)
		waiting = sigismember(&pending, sig) == 1 && sigismember(&l->mask, sig) == 0;
	if (waiting && sigprocmask(SIG_SETMASK, &l->mask, &old) == 0)
		sigprocmask(SIG_SETMASK, &old, NULL);
}

int loop_spin_again(struct loop_spin *sp, double now)
{
	if (sp->since == 0)
		sp->since = now;
	return !sp->cold && now - sp->since < sp->window;
}

void loop_spin_done(struct loop_spin *sp)
{
	if (sp->since > 0) {
		sp->cold = clock_now() - sp->since >= sp->window;
		sp->since = 0;
	}
}

void loop_spin_took(struct loop_spin *sp, size_t bytes)
{
	loop_spin_done(sp);
	if (bytes < sp->min_bytes)
		sp->cold = 1;
}

void loop_set_spin(struct loop *l, double seconds)
{
	l->spin = (struct loop_spin){ .window = seconds, .min_bytes = LOOP_SPIN_MIN_BYTES };
}

void loop_moved(struct loop *l, size_t bytes)
{
	l->moved += bytes;
}

static int wait_events(struct loop *l, int timeout_ms)
{
	return epoll_pwait(l->epfd, l->events, LOOP_BATCH, timeout_ms, l->have_mask ? &l->mask : NULL);
}

/* Poll without sleeping while loop_spin says so, then sleep. Events that
 * are ready at once cost no clock read. */
static int spin_events(struct loop *l, int timeout_ms)
{
	int n = l->spin.cold ? 0 : wait_events(l, 0);

	while (n == 0 && loop_spin_again(&l->spin, clock_now()))
		n = wait_events(l, 0);
	if (n == 0)
		n = wait_events(l, timeout_ms);
	loop_spin_done(&l->spin);
	return n;
}

int loop_poll(struct loop *l, int timeout_ms)
{
	int n = l->spin.window > 0 && timeout_ms != 0 ? spin_events(l, timeout_ms) : wait_events(l, timeout_ms);

	if (n < 0)
		return errno == EINTR ? 0 : -1;
	if (n > 0 && l->have_mask)
		deliver_pending(l);
	l->moved = 0;
	for (int i = 0; i < n; i++) {
		int fd = l->events[i].data.fd;

		/* A handler earlier in this batch may have deleted this fd. */
		if (fd < l->nslots && l->slots[fd].handler != NULL)
			l->slots[fd].handler(l, fd, l->events[i].events, l->slots[fd].ctx);
	}
	/* Events that moved no data (accepts, timers) say nothing about the link's packets. */
	if (l->moved > 0)
		loop_spin_took(&l->spin, l->moved);
	return n;
}
