/* SPDX-License-Identifier: ISC */
/* loop.h - a small epoll event loop: an fd-indexed table of handlers. */
#ifndef NCPV_LOOP_H
#define NCPV_LOOP_H

#include <stddef.h>
#include <signal.h>
#include <stdint.h>

struct loop;

/* Called with the ready events (EPOLLIN, EPOLLOUT, EPOLLERR, ...). The
 * handler may add, change or delete any fd, its own included. */
typedef void loop_handler(struct loop *l, int fd, uint32_t events, void *ctx);

/* Returns NULL with errno on failure. Free with loop_free (fds are not closed). */
struct loop *loop_new(void);
void loop_free(struct loop *l);

/* Level-triggered interest. ctx is borrowed: it must outlive the
 * registration. Each returns 0, or -1 with errno. */
int loop_add(struct loop *l, int fd, uint32_t events, loop_handler *h, void *ctx);
int loop_mod(struct loop *l, int fd, uint32_t events);
int loop_del(struct loop *l, int fd);

/* Forget fd and close it: one system call instead of a delete and a close. */
int loop_close(struct loop *l, int fd);

/* Signals in *mask are unblocked only while waiting (epoll_pwait), so a
 * handler's flag is never missed between a check and the wait; one that
 * arrives while events are always ready is let in after the wait. NULL
 * keeps the caller's mask. The set is copied. */
void loop_set_sigmask(struct loop *l, const sigset_t *mask);

/*
 * Adaptive busy-polling (cmd/cmd.h, --busy-poll, says why), for the loop
 * and for any other wait: poll again instead of sleeping while the last
 * wait was shorter than the window; a longer one turns it off until a
 * wait is short again. Zero-initialise, then set window (seconds; 0 off).
 */
struct loop_spin {
	double window;
	size_t min_bytes; /* loop_spin_took: fewer bytes than this a wait are not worth polling for (0: any) */
	double since; /* when the current wait began; 0 while not waiting */
	int cold;     /* the last wait was longer than the window, or brought too little */
};

/* A poll found nothing at now: 1 to poll again, 0 to sleep. */
int loop_spin_again(struct loop_spin *sp, double now);
/* Something came: the wait, if one was going on, is over. */
void loop_spin_done(struct loop_spin *sp);
/* As loop_spin_done, for a read of bytes: one that brought fewer than
 * min_bytes makes the next wait sleep (until a read brings more after a
 * short wait). Segments of a link's MTU arrive microseconds apart, and
 * polling between them costs a core for no gain; loopback's 64 KB ones do not. */
void loop_spin_took(struct loop_spin *sp, size_t bytes);

/* Below this, a read or send after a wait is one or a few packets of a real link (or ncpv
 * link: 1448-byte segments, no coalescing), not a loopback segment of up to 64 KB or a TLS
 * record of 16 KB: polling for the next one costs a core for no more rate. */
#define LOOP_SPIN_MIN_BYTES ((size_t)8 * 1024)

/* Busy-poll the loop's waits with this window (seconds); 0, the default, off. A wakeup whose
 * handlers moved (loop_moved) fewer than LOOP_SPIN_MIN_BYTES makes the next wait sleep. */
void loop_set_spin(struct loop *l, double seconds);

/* A handler moved this many bytes (read or sent) in the current wakeup. */
void loop_moved(struct loop *l, size_t bytes);

/* Wait up to timeout_ms (-1: forever) and dispatch. Returns the number of
 * events handled, 0 on timeout or signal, -1 with errno on failure. */
int loop_poll(struct loop *l, int timeout_ms);

#endif
