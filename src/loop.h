/* loop.h - a small epoll event loop: an fd-indexed table of handlers. */
#ifndef NCPV_LOOP_H
#define NCPV_LOOP_H

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

/* Busy-poll for up to seconds before sleeping, while the waits stay that
 * short (cmd/cmd.h, --busy-poll, says why). 0, the default, off. */
void loop_set_spin(struct loop *l, double seconds);

/* Wait up to timeout_ms (-1: forever) and dispatch. Returns the number of
 * events handled, 0 on timeout or signal, -1 with errno on failure. */
int loop_poll(struct loop *l, int timeout_ms);

/* Monotonic clock in seconds. */
double loop_now(void);

#endif
