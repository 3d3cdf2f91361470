/* SPDX-License-Identifier: ISC */
/* tty.c - pv's terminal questions: width, foreground, and writing a line without blocking. */
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

int pv_tty_write(int fd, const char *s, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, s, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += n;
		len -= (size_t)n;
	}
	return 0;
}
