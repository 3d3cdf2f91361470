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


#endif
