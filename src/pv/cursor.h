/* SPDX-License-Identifier: ISC */
/* cursor.h - pv -c: several pv in one pipeline share the terminal, each drawing on its own row. */
#ifndef NCPV_PV_CURSOR_H
#define NCPV_PV_CURSOR_H

#include <stddef.h>

/*
 * The instances of one pipeline find each other through a state file per terminal and
 * user ($TMPDIR/ncpv-pv-cursor-TTY-UID), read and written under a POSIX record lock on
 * the terminal (per process, so it works although they share one open terminal). The
 * first to arrive asks the terminal where its cursor is (ESC [6n); that row is the
 * group's top, and each instance takes the next row below it, scrolling the screen when
 * the rows run past its bottom. A group ends when none of its processes is alive.
 */
struct pv_cursor;

/*
 * Join (or start) the group drawing on terminal fd (borrowed; stderr). Returns NULL when
 * fd is not a terminal or the state cannot be kept, with a reason in err: the caller then
 * draws as without -c. Prints nothing.
 */
struct pv_cursor *pv_cursor_open(int fd, char *err, size_t errlen);

/* Draw line (no "\r" or "\n") on our row, leaving the terminal's cursor where it was.
 * 0, or -1 when the terminal could not be written. */
int pv_cursor_draw(struct pv_cursor *c, const char *line, size_t len);

/* Leave the group; the last one out puts the cursor below the group's rows. Frees c. */
void pv_cursor_close(struct pv_cursor *c);

#endif
