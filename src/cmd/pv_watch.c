/* SPDX-License-Identifier: ISC */
/* pv_watch.c - "pv -d PID[:FD]": a line per file another process has open, from /proc. */
#include "pv_cmd.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "../clock.h"
#include "../display.h"
#include "../meter.h"
#include "../net.h"
#include "../status.h"
#include "../pv/tty.h"
#include "../pv/watchfd.h"

/* One followed descriptor: what /proc says, and its own meter and display state. */
struct watched {
	struct pv_watch_fd w;
	struct meter meter;
	struct display disp;
	char name[600];
	uint64_t seen; /* the offset already added to the meter */
	int live;	/* still open this round */
};

static volatile sig_atomic_t watch_stop;

/* The name pv shows: "%4d:" and the path, relative to our directory when below it. */
static void name_of(struct watched *s, const char *cwd)
{
	const char *p = s->w.path;
	size_t n = strlen(cwd);

	if (n > 1 && strncmp(p, cwd, n) == 0 && p[n] == '/')
		p += n + 1;
	snprintf(s->name, sizeof(s->name), "%4d:%s", s->w.fd, p);
}

static void start(struct watched *s, const struct pv_opts *o, const char *cwd, double now)
{
	struct display_opts d = o->disp;

	name_of(s, cwd);
	if (!o->disp.name && o->watch_fd < 0)
		d.name = s->name; /* several lines: each says which file it is */
	display_init(&s->disp, &d);
	meter_set_window(&s->meter, o->avg_window);
	meter_start(&s->meter, now);
	s->seen = 0;
}

/* Render one descriptor's line into buf (STATUS_LINE_MAX bytes), without its '\r'. */
static size_t line_of(struct watched *s, int width, double now, int final, char *buf, size_t len)
{
	struct meter_reading mr;
	size_t n;

	if (s->w.pos > s->seen) {
		meter_add(&s->meter, s->w.pos - s->seen);
		s->seen = s->w.pos;
	}
	meter_read(&s->meter, now, &mr);
	s->disp.o.width = width;
	s->disp.o.fit = pv_tty_width(STDERR_FILENO, 0);
	n = status_render(&s->disp, &mr, s->w.size, final, s->disp.o.numeric, NULL, time(NULL), buf, len);
	return !s->disp.o.numeric && n > 0 ? n - 1 : n;
}

/* Draw every line: one as usual ("\r"), several one under another, the cursor back on the first. */
static void draw(struct watched *set, int n, const struct pv_opts *o, int final)
{
	char out[(DISPLAY_LINE_MAX + 8) * 8], line[STATUS_LINE_MAX];
	int width = o->has_width ? o->disp.width : pv_tty_width(STDERR_FILENO, 80);
	double now = clock_now();
	size_t len = 0;
	int lines = 0, live = 0;

	if (!o->force && !pv_tty_foreground(STDERR_FILENO))
		return;
	for (int i = 0; i < n; i++)
		live += set[i].live;
	for (int i = 0; i < n; i++) {
		const char *end;
		size_t k;

		if (!set[i].live)
			continue;
		k = line_of(&set[i], width, now, final, line, sizeof(line));
		if (len + k + 8 >= sizeof(out)) {
			net_write_all(STDERR_FILENO, out, len);
			len = 0;
		}
		memcpy(out + len, line, k);
		len += k;
		lines++;
		/* Each line ends the row; the last stays open for the next update's "\r". */
		end = o->numeric ? "" : final || lines < live ? "\r\n" : "\r";
		memcpy(out + len, end, strlen(end));
		len += strlen(end);
	}
	/* Back up to the first line for the next update. */
	for (int i = 1; !final && !o->numeric && i < lines; i++) {
		if (len + 3 >= sizeof(out)) {
			net_write_all(STDERR_FILENO, out, len);
			len = 0;
		}
		memcpy(out + len, "\033[A", 3);
		len += 3;
	}
	net_write_all(STDERR_FILENO, out, len);
}

/* Bring set up to date with what pid has open now; the count of entries, or -1 (errno). */
static int refresh(struct watched *set, int n, pid_t pid, const struct pv_opts *o, const char *cwd)
{
	int fds[PV_WATCH_MAX], count;
	double now = clock_now();

	if (o->watch_fd >= 0) {
		fds[0] = o->watch_fd;
		count = 1;
	} else if ((count = pv_watch_list(pid, fds, PV_WATCH_MAX)) < 0) {
		return -1;
	}
	for (int i = 0; i < n; i++)
		set[i].live = 0;
	for (int k = 0; k < count; k++) {
		struct pv_watch_fd w;
		int i;

		if (pv_watch_read(pid, fds[k], &w) < 0) {
			if (o->watch_fd >= 0)
				return -1;
			continue;
		}
		for (i = 0; i < n; i++)
			if (set[i].w.fd == w.fd && set[i].w.dev == w.dev && set[i].w.ino == w.ino)
				break;
		if (i == n) {
			/* A new file (or a number reused for another): a fresh line. */
			for (i = 0; i < n && set[i].live; i++)
				;
			if (i == n && n < PV_WATCH_MAX)
				n++;
			if (i == n)
				continue;
			set[i].w = w;
			start(&set[i], o, cwd, now);
		}
		set[i].w = w;
		set[i].live = 1;
	}
	return n;
}

int cmd_pv_watch(const struct pv_opts *o, int show)
{
	static struct watched set[PV_WATCH_MAX];
	pid_t pid = (pid_t)o->watch_pid;
	char cwd[512];
	static const int stops[] = { SIGINT, SIGTERM };
	int n = 0, now_n, live;

	if (getcwd(cwd, sizeof(cwd)) == NULL)
		cwd[0] = '\0';
	if (pv_watch_pid_alive(pid) < 0) {
		pv_error("pid %ld: %s", (long)pid, strerror(errno));
		return 2;
	}
	if ((n = refresh(set, 0, pid, o, cwd)) < 0) {
		if (o->watch_fd >= 0)
			pv_error("pid %ld: fd %d: %s", (long)pid, o->watch_fd, strerror(errno));
		else
			pv_error("pid %ld: %s", (long)pid, strerror(errno));
		return 2;
	}
	cmd_catch_stop(&watch_stop, stops, 2, 0);
	signal(SIGTTOU, SIG_IGN);
	for (;;) {
		clock_sleep(o->interval);
		if (watch_stop)
			break;
		/* The process ended, or (with :FD) closed the file: a last line, then done. */
		if (pv_watch_pid_alive(pid) < 0 || (now_n = refresh(set, n, pid, o, cwd)) < 0)
			break;
		n = now_n;
		live = 0;
		for (int i = 0; i < n; i++)
			live += set[i].live;
		if (show && live > 0)
			draw(set, n, o, 0);
	}
	if (show && n > 0)
		draw(set, n, o, 1);
	return watch_stop ? 32 : 0;
}
