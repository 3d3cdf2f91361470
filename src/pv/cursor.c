/* SPDX-License-Identifier: ISC */
/* cursor.c - pv -c: several pv in one pipeline share the terminal, each drawing on its own row. */
#include "cursor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "../net.h"
#include "../proc.h"

/* The most instances one group keeps rows for. */
#define GROUP_MAX 64
/* How long the terminal may take to say where its cursor is. */
#define QUERY_TIMEOUT_MS 2000

/* The state file's contents: the group's top row (1-based) and a pid per row, 0 once done. */
struct group {
	int top, count;
	long pid[GROUP_MAX];
};

struct pv_cursor {
	int tty;	/* borrowed */
	int state;	/* the state file, flock()ed around every use */
	int index;	/* our row is top + index */
	char path[256];
};

static int lock(int fd, int how)
{
	while (flock(fd, how) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

static void group_read(int fd, struct group *g)
{
	char buf[GROUP_MAX * 12 + 32], *p, *end;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	memset(g, 0, sizeof(*g));
	if (n <= 0)
		return;
	buf[n] = '\0';
	g->top = (int)strtol(buf, &p, 10);
	g->count = (int)strtol(p, &p, 10);
	if (g->count < 0 || g->count > GROUP_MAX || g->top < 1)
		g->count = 0;
	for (int i = 0; i < g->count; i++) {
		g->pid[i] = strtol(p, &end, 10);
		if (end == p) {
			g->count = i;
			break;
		}
		p = end;
	}
}

static int group_write(int fd, const struct group *g)
{
	char buf[GROUP_MAX * 12 + 32];
	int n = snprintf(buf, sizeof(buf), "%d %d", g->top, g->count);

	for (int i = 0; i < g->count && (size_t)n < sizeof(buf); i++)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " %ld", g->pid[i]);
	if ((size_t)n >= sizeof(buf) - 1)
		return -1;
	buf[n++] = '\n';
	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)n, 0) != n)
		return -1;
	return 0;
}

/* Whether any process of the group still runs. */
static int group_alive(const struct group *g)
{
	for (int i = 0; i < g->count; i++)
		if (g->pid[i] > 0 && (proc_signal((pid_t)g->pid[i], 0) == 0 || errno == EPERM))
			return 1;
	return 0;
}

/* Ask the terminal for the cursor's row (ESC [6n, answered ESC [ROW;COLR). -1 if it did not say. */
static int cursor_row(int fd)
{
	struct termios old, raw;
	char buf[32];
	size_t got = 0;
	int row = -1;

	if (tcgetattr(fd, &old) < 0)
		return -1;
	raw = old;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(fd, TCSANOW, &raw) < 0)
		return -1;
	if (net_write_all(fd, "\033[6n", 4) == 0) {
		while (got < sizeof(buf) - 1) {
			struct pollfd p = { .fd = fd, .events = POLLIN };
			ssize_t n;

			if (poll(&p, 1, QUERY_TIMEOUT_MS) <= 0)
				break;
			n = read(fd, buf + got, sizeof(buf) - 1 - got);
			if (n <= 0)
				break;
			got += (size_t)n;
			buf[got] = '\0';
			if (strchr(buf, 'R'))
				break;
		}
		buf[got] = '\0';
		const char *esc = strstr(buf, "\033[");

		if (esc != NULL) {
			char *end;
			long v = strtol(esc + 2, &end, 10);

			/* "ESC [ROW;COLR" */
			row = *end == ';' && v > 0 && v < 100000 ? (int)v : -1;
		}
	}
	tcsetattr(fd, TCSANOW, &old);
	return row;
}

static int screen_rows(int fd)
{
	struct winsize ws;

	return ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 ? ws.ws_row : 24;
}

/* Keep rows top..top+index on the screen: scroll it up from the bottom row when they run past. */
static int make_room(int fd, struct group *g, int index)
{
	int rows = screen_rows(fd), over = g->top + index - rows;
	char buf[64];

	if (over <= 0)
		return 0;
	snprintf(buf, sizeof(buf), "\0337\033[%d;1H", rows);
	if (net_write_all(fd, buf, strlen(buf)) < 0)
		return -1;
	for (int i = 0; i < over; i++)
		if (net_write_all(fd, "\n", 1) < 0)
			return -1;
	g->top -= over;
	/* The saved cursor moved up with the text. */
	snprintf(buf, sizeof(buf), "\0338\033[%dA", over);
	return net_write_all(fd, buf, strlen(buf));
}

struct pv_cursor *pv_cursor_open(int fd, char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR"), *tty;
	struct pv_cursor *c;
	struct group g;
	struct stat st;

	if (!isatty(fd) || (tty = ttyname(fd)) == NULL) {
		snprintf(err, errlen, "not a terminal");
		return NULL;
	}
	if ((c = calloc(1, sizeof(*c))) == NULL) {
		snprintf(err, errlen, "%s", strerror(errno));
		return NULL;
	}
	c->tty = fd;
	snprintf(c->path, sizeof(c->path), "%s/ncpv-pv-cursor-%s-%ld", tmp && *tmp ? tmp : "/tmp",
		 strrchr(tty, '/') ? strrchr(tty, '/') + 1 : tty, (long)geteuid());
	/* O_NOFOLLOW and an owner check: another user's file in /tmp is not ours to trust. */
	c->state = open(c->path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (c->state < 0 || fstat(c->state, &st) < 0 || st.st_uid != geteuid() || !S_ISREG(st.st_mode) ||
	    lock(c->state, LOCK_EX) < 0) {
		snprintf(err, errlen, "%s: %s", c->path, c->state < 0 ? strerror(errno) : "not usable");
		goto fail;
	}
	group_read(c->state, &g);
	if (!group_alive(&g) || g.count >= GROUP_MAX) {
		memset(&g, 0, sizeof(g));
		if ((g.top = cursor_row(fd)) < 1) {
			snprintf(err, errlen, "the terminal did not report its cursor position");
			goto fail_locked;
		}
	}
	c->index = g.count;
	g.pid[g.count++] = (long)getpid();
	if (make_room(fd, &g, c->index) < 0 || group_write(c->state, &g) < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		goto fail_locked;
	}
	lock(c->state, LOCK_UN);
	return c;
fail_locked:
	lock(c->state, LOCK_UN);
fail:
	if (c->state >= 0)
		close(c->state);
	free(c);
	return NULL;
}

int pv_cursor_draw(struct pv_cursor *c, const char *line, size_t len)
{
	struct group g;
	char pre[32];
	int rc;

	if (lock(c->state, LOCK_EX) < 0)
		return -1;
	/* The top moves when a later instance scrolled the screen. */
	group_read(c->state, &g);
	snprintf(pre, sizeof(pre), "\0337\033[%d;1H", g.top + c->index);
	rc = net_write_all(c->tty, pre, strlen(pre)) < 0 || net_write_all(c->tty, line, len) < 0 ||
	     net_write_all(c->tty, "\033[K\0338", 5) < 0 ? -1 : 0;
	lock(c->state, LOCK_UN);
	return rc;
}

void pv_cursor_close(struct pv_cursor *c)
{
	struct group g;
	char buf[32];

	if (c == NULL)
		return;
	if (lock(c->state, LOCK_EX) == 0) {
		group_read(c->state, &g);
		if (c->index < g.count)
			g.pid[c->index] = 0;
		if (!group_alive(&g)) {
			/* The last one out: the cursor goes below the group, for the shell's prompt. */
			int below = g.top + g.count;

			if (below > screen_rows(c->tty)) {
				snprintf(buf, sizeof(buf), "\033[%d;1H\n", screen_rows(c->tty));
			} else {
				snprintf(buf, sizeof(buf), "\033[%d;1H", below);
			}
			net_write_all(c->tty, buf, strlen(buf));
			g.count = 0;
			unlink(c->path);
		}
		group_write(c->state, &g);
		lock(c->state, LOCK_UN);
	}
	close(c->state);
	free(c);
}
