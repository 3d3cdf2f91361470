/* SPDX-License-Identifier: ISC */
/* tty.h - pv's terminal questions: width, foreground, and writing a line without blocking. */
#ifndef NCPV_PV_TTY_H
#define NCPV_PV_TTY_H

#include <stddef.h>

/* Columns of the terminal on fd, or fallback when fd is not one (or says 0). */
int pv_tty_width(int fd, int fallback);

/*
 * Whether output to fd may be shown now: 1 when fd is not a terminal or
 * our process group is the terminal's foreground group; 0 when we are in
 * the background (writing would raise SIGTTOU or scribble over the shell).
 */
int pv_tty_foreground(int fd);

/*
 * Write all of s to fd, retrying EINTR. Returns 0, or -1 with errno (EIO
 * when the terminal went away, EAGAIN when it would block).
 */
int pv_tty_write(int fd, const char *s, size_t len);

#endif
