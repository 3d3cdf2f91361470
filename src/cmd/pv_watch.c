/* SPDX-License-Identifier: ISC */
/* pv_watch.c - "pv -d PID[:FD]": a line per file another process has open, from /proc. */
#include "pv_cmd.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "../clock.h"
#include "../display.h"
#include "../meter.h"
#include "../net.h"
#include "../status.h"
#include "../termsafe.h"
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

/* One -d argument: a process, and one of its descriptors (-1: every file it has open). */
struct target {
	pid_t pid;
	int fd;
	struct watched *set; /* PV_WATCH_MAX lines of its own */
	int n, alive;
};

/* The name pv shows: "%4d:" and the path (or "%8d:%4d:" with the pid when several processes
 * are watched), relative to our directory when below it, its middle cut to "..." past half
 * the width, as pv 1.10 does. */
static void name_of(struct watched *s, const char *cwd, pid_t pid, int multiple, int width)
{
	const char *p = s->w.path;
	char safe[2048]; /* another process's file name: its control characters shown, never sent */
	size_t n = strlen(cwd), len;
	int room = width / 2 - 6 - (multiple ? 9 : 0), k = 0;

	if (n > 1 && strncmp(p, cwd, n) == 0 && p[n] == '/')
		p += n + 1;
	termsafe(safe, sizeof(safe), p, strlen(p));
	p = safe;
	len = strlen(p);
	if (multiple)
		k = snprintf(s->name, sizeof(s->name), "%8d:", (int)pid);
	if (room >= (int)len) {
		snprintf(s->name + k, sizeof(s->name) - (size_t)k, "%4d:%.498s", s->w.fd, p);
	} else {
		int head = room / 4, tail = room - head - 3;

		if (tail < 0)
			tail = 0;
		if ((size_t)tail > len)
			tail = (int)len;
		snprintf(s->name + k, sizeof(s->name) - (size_t)k, "%4d:%.*s...%s", s->w.fd, head > 0 ? head : 0,
			 p, p + len - (size_t)tail);
	}
}

static void start(struct watched *s, const struct pv_opts *o, const char *cwd, const struct target *t,
		  int multiple, double now)
{
	struct display_opts d = o->disp;

	name_of(s, cwd, t->pid, multiple, o->has_width ? o->disp.width : pv_tty_width(STDERR_FILENO, 80));
	if (!o->disp.name && (t->fd < 0 || multiple))
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

/* Bring t's lines up to date with what its process has open now; 0, or -1 (errno). */
static int refresh(struct target *t, const struct pv_opts *o, const char *cwd, int multiple)
{
	int fds[PV_WATCH_MAX], count, n = t->n;
	struct watched *set = t->set;
	double now = clock_now();

	if (t->fd >= 0) {
		fds[0] = t->fd;
		count = 1;
	} else if ((count = pv_watch_list(t->pid, fds, PV_WATCH_MAX)) < 0) {
		return -1;
	}
	for (int i = 0; i < n; i++)
		set[i].live = 0;
	for (int k = 0; k < count; k++) {
		struct pv_watch_fd w;
		int i;

		if (pv_watch_read(t->pid, fds[k], &w) < 0) {
			if (t->fd >= 0)
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
			start(&set[i], o, cwd, t, multiple, now);
		}
		set[i].w = w;
		set[i].live = 1;
	}
	t->n = n;
	return 0;
}

/* "PID" or "PID:FD", from a -d or a further argument (the option parser checked both). 0, or
 * -1 with pv's message said. */
static int parse_target(const char *arg, struct target *t)
{
	char *end;
	long pid = strtol(arg, &end, 10), fd = -1;

	if (end != arg && *end == ':') {
		const char *f = end + 1;

		fd = strtol(f, &end, 10);
		if (end == f || fd < 0)
			end = (char *)f - 1;
	}
	if (end == arg || *end != '\0') {
		pv_error("-d: process ID or pid:fd pair expected");
		return -1;
	}
	if (pid < 1 || pid > INT_MAX) {
		pv_error("-d: %s: invalid process ID", arg);
		return -1;
	}
	t->pid = (pid_t)pid;
	t->fd = (int)fd;
	return 0;
}

/* Start following t; -1 when it cannot be, said in pv's words (a process that cannot be
 * signalled or listed; with :FD a descriptor that is closed or not on a file or block device). */
static int open_target(struct target *t, const struct pv_opts *o, const char *cwd, int multiple)
{
	struct pv_watch_fd w;
	char path[2048]; /* another process's file name: its control characters shown, never sent */

	if (pv_watch_pid_alive(t->pid) < 0) {
		pv_error("pid %ld: %s", (long)t->pid, strerror(errno));
		return -1;
	}
	if (t->fd < 0) {
		if (refresh(t, o, cwd, multiple) == 0)
			return 0;
		pv_error("pid %ld: %s", (long)t->pid, strerror(errno));
		return -1;
	}
	if (pv_watch_read(t->pid, t->fd, &w) == 0 && w.regular && refresh(t, o, cwd, multiple) == 0)
		return 0;
	if (w.path[0] == '\0') {
		pv_error("pid %ld: fd %d: %s", (long)t->pid, t->fd, strerror(errno));
		return -1;
	}
	termsafe(path, sizeof(path), w.path, strlen(w.path));
	pv_error("pid %ld: fd %d: %s: %s", (long)t->pid, t->fd, path,
		 w.regular ? strerror(errno) : "not a regular file or block device");
	return -1;
}

/* Watch the targets until every one has ended (or a signal); pv's exit status: 2 when one of
 * them could not be watched (the others are), 32 for a signal. */
static int watch(struct target *ts, int nt, struct watched *all, const struct pv_opts *o, int show)
{
	char cwd[512];
	static const int stops[] = { SIGINT, SIGTERM };
	int multiple = 0, failed = 0, started = 0;

	if (getcwd(cwd, sizeof(cwd)) == NULL)
		cwd[0] = '\0';
	for (int i = 1; i < nt; i++)
		multiple |= ts[i].pid != ts[0].pid;
	for (int i = 0; i < nt; i++) {
		ts[i].alive = open_target(&ts[i], o, cwd, multiple) == 0;
		failed |= !ts[i].alive;
		started += ts[i].alive;
	}
	if (started == 0)
		return 2;
	cmd_catch_stop(&watch_stop, stops, 2, 0);
	signal(SIGTTOU, SIG_IGN);
	for (;;) {
		int alive = 0, live = 0;

		clock_sleep(o->interval);
		if (watch_stop)
			break;
		/* A process that ended, or (with :FD) closed the file, keeps its last line. */
		for (int i = 0; i < nt; i++) {
			if (ts[i].alive && (pv_watch_pid_alive(ts[i].pid) < 0 || refresh(&ts[i], o, cwd, multiple) < 0))
				ts[i].alive = 0;
			alive += ts[i].alive;
		}
		if (alive == 0)
			break;
		for (int i = 0; i < nt * PV_WATCH_MAX; i++)
			live += all[i].live;
		if (show && live > 0)
			draw(all, nt * PV_WATCH_MAX, o, 0);
	}
	if (show)
		draw(all, nt * PV_WATCH_MAX, o, 1);
	return (failed ? 2 : 0) | (watch_stop ? 32 : 0);
}

int cmd_pv_watch(const struct pv_opts *o, int show)
{
	int nt = o->nwatch + o->nfiles, rc = PV_EXIT_USAGE;
	struct target *ts = calloc((size_t)nt, sizeof(*ts));
	struct watched *all = calloc((size_t)nt * PV_WATCH_MAX, sizeof(*all));

	if (ts == NULL || all == NULL) {
		pv_error("%s", strerror(ENOMEM));
		goto out;
	}
	for (int i = 0; i < nt; i++)
		if (parse_target(i < o->nwatch ? o->watch[i] : o->files[i - o->nwatch], &ts[i]) < 0)
			goto out;
	for (int i = 0; i < nt; i++)
		ts[i].set = all + (size_t)i * PV_WATCH_MAX;
	rc = watch(ts, nt, all, o, show);
out:
	free(ts);
	free(all);
	return rc;
}
