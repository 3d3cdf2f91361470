/* SPDX-License-Identifier: ISC */
/* pv_remote.c - "pv -R PID" (change a running ncpv pv's options) and "pv -Q PID" (show its progress). */
#include "pv_cmd.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../clock.h"
#include "../display.h"
#include "../meter.h"
#include "../net.h"
#include "../status.h"
#include "../pv/remote.h"
#include "../pv/tty.h"
#include "../proc.h"

/* pv's status for a remote that cannot be reached or does not answer. */
#define PV_EXIT_REMOTE 1

/* Send m to pid and wait for its answer; 0, or PV_EXIT_REMOTE (saying why when say is set). */
static int exchange(pid_t pid, const struct pv_remote_msg *m, int say)
{
	char path[256], text[2048];
	int rc;

	if (proc_signal(pid, 0) < 0) {
		if (say)
			pv_error("%ld: %s", (long)pid, strerror(errno));
		return PV_EXIT_REMOTE;
	}
	if (pv_remote_is_pv(pid) == 0) {
		/* SIGUSR2 ends a program that does not catch it: only ncpv pv gets one. */
		if (say)
			pv_error("%ld: not a pv process (only ncpv pv answers -R and -Q)", (long)pid);
		return PV_EXIT_REMOTE;
	}
	pv_remote_path(path, sizeof(path), getpid(), 0);
	if (pv_remote_format(m, text, sizeof(text)) < 0 || pv_remote_put(path, text) < 0) {
		pv_error("%s: %s", path, strerror(errno));
		return PV_EXIT_REMOTE;
	}
	rc = pv_remote_signal_and_wait(pid);
	(void)unlink(path); /* taken by the other side, unless it never answered */
	if (rc < 0) {
		if (say)
			pv_error("%ld: %s", (long)pid,
				 errno == ETIMEDOUT ? "message not received" : strerror(errno));
		return PV_EXIT_REMOTE;
	}
	return 0;
}

int cmd_pv_remote(const struct pv_opts *o)
{
	struct pv_remote_msg m;

	memset(&m, 0, sizeof(m));
	m.has_rate = o->rate_arg != NULL;
	m.rate = o->rate_limit;
	m.has_size = o->size_arg != NULL;
	m.size = o->size;
	m.has_interval = o->interval_given;
	m.interval = o->interval;
	m.has_width = o->has_width;
	m.width = o->disp.width;
	if ((m.has_name = o->disp.name != NULL))
		snprintf(m.name, sizeof(m.name), "%s", o->disp.name);
	if ((m.has_format = o->disp.format != NULL))
		snprintf(m.format, sizeof(m.format), "%s", o->disp.format);
	/* As pv 1.10: the display switches (pv's defaults when none is given) replace the target's. */
	m.has_items = 1;
	m.bytes = o->disp.bytes;
	m.timer = o->disp.timer;
	m.rate_item = o->disp.rate;
	m.average = o->disp.average;
	m.progress = o->disp.progress;
	m.eta = o->disp.eta;
	m.fineta = o->disp.fineta;
	m.bufpercent = o->disp.bufpercent;
	m.last_written = o->disp.last_written;
	/* What pv also forwards but a running ncpv cannot take: refused, not silently dropped. */
	if (o->buffer_arg || o->height) {
		pv_error("-R: %s cannot be changed in a running pv", o->buffer_arg ? "-B" : "-H");
		return PV_EXIT_USAGE;
	}
	if ((m.has_extra = o->extra_spec != NULL))
		snprintf(m.extra, sizeof(m.extra), "%s", o->extra_spec);
	return exchange((pid_t)o->remote_pid, &m, 1);
}

int cmd_pv_remote_answer(pid_t from, const struct pv_remote_state *st, struct pv_remote_msg *m)
{
	char path[256], text[2048];

	pv_remote_path(path, sizeof(path), from, 0);
	if (pv_remote_take(path, text, sizeof(text)) < 0)
		return -1;
	pv_remote_parse(text, m);
	if (!m->query)
		return 1;
	pv_remote_path(path, sizeof(path), from, 1);
	if (pv_remote_state_format(st, text, sizeof(text)) < 0 || pv_remote_put(path, text) < 0)
		return -1;
	proc_signal(from, SIGUSR2);
	return 0;
}

void cmd_pv_remote_apply(const struct pv_remote_msg *m, struct display_opts *d)
{
	d->bytes = m->bytes;
	d->timer = m->timer;
	d->rate = m->rate_item;
	d->average = m->average;
	d->progress = m->progress;
	d->eta = m->eta;
	d->fineta = m->fineta;
	d->bufpercent = m->bufpercent;
	d->last_written = m->last_written;
	d->name = NULL;
	d->format = NULL;
}

/* One query: the target's count, size and elapsed time. 0, or PV_EXIT_REMOTE. */
static int query(pid_t pid, struct pv_remote_state *s, int say)
{
	struct pv_remote_msg m;
	char path[256], text[256];
	int rc;

	memset(&m, 0, sizeof(m));
	m.query = 1;
	if ((rc = exchange(pid, &m, say)) != 0)
		return rc;
	pv_remote_path(path, sizeof(path), getpid(), 1);
	if (pv_remote_take(path, text, sizeof(text)) < 0 || pv_remote_state_parse(text, s) < 0) {
		if (say)
			pv_error("%ld: %s", (long)pid, "message not received");
		return PV_EXIT_REMOTE;
	}
	return 0;
}

int cmd_pv_query(const struct pv_opts *o, int show)
{
	pid_t pid = (pid_t)o->query_pid;
	struct pv_remote_state s;
	struct display disp;
	struct meter meter;
	uint64_t seen = 0;
	double start;
	int rc, final = 0;

	if ((rc = query(pid, &s, 1)) != 0)
		return rc;
	display_init(&disp, &o->disp);
	meter_set_window(&meter, o->avg_window);
	start = clock_now() - s.elapsed;
	meter_start(&meter, start);
	while (!final) {
		char line[STATUS_LINE_MAX + 1];
		struct meter_reading mr;
		size_t n;

		/* The other pv ended: this was its last state. */
		final = query(pid, &s, 0) != 0;
		if (s.count > seen) {
			meter_add(&meter, s.count - seen);
			seen = s.count;
		}
		meter_read(&meter, clock_now(), &mr);
		disp.o.width = o->has_width ? o->disp.width : pv_tty_width(STDERR_FILENO, 80);
		disp.o.fit = pv_tty_width(STDERR_FILENO, 0);
		n = status_render(&disp, &mr, s.size, final, o->numeric, NULL, time(NULL), line, sizeof(line) - 1);
		if (final && !o->numeric)
			line[n++] = '\n'; /* the last line stays */
		if (show)
			net_write_all(STDERR_FILENO, line, n);
		if (!final)
			clock_sleep(o->interval);
	}
	return 0;
}
