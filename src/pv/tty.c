/* SPDX-License-Identifier: ISC */
/* tty.c - pv's terminal questions: width, foreground, (lines are written with net_write_all). */
#include "tty.h"

#include <errno.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

int pv_tty_width(int fd, int fallback)
{
	struct winsize ws;

	if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return fallback;
}

int pv_tty_foreground(int fd)
{
	pid_t fg;

	if (!isatty(fd))
		return 1;
	fg = tcgetpgrp(fd);
	if (fg < 0)
		return errno == ENOTTY; /* not our controlling terminal: nobody to disturb */
	return fg == getpgrp();
}
