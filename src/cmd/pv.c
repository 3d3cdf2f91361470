/* SPDX-License-Identifier: ISC */
/* pv.c - "ncpv pv": a drop-in for pv 1.10.5: argv, signals, the progress line and the exit
 * status around the pv engine (src/pv/run.c), which copies the inputs to the output. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "pv_cmd.h"
#include "../clock.h"
#include "../display.h"
#include "../meter.h"
#include "../net.h"
#include "../pv/cursor.h"
#include "../pv/proctitle.h"
#include "../pv/pv.h"
#include "../pv/remote.h"
#include "../pv/tty.h"
#include "../pv/xfer.h"
#include "../status.h"
#include "../version.h"
#include "../proc.h"

static volatile sig_atomic_t tick_due, resized, stop_signal;
/* The pid of a pv -R or -Q that sent us SIGUSR2, until we answered. */
static volatile sig_atomic_t remote_from;

static void on_remote(int sig, siginfo_t *info, void *ctx)
{
	(void)sig;
	(void)ctx;
	remote_from = (sig_atomic_t)info->si_pid;
}

static void on_alarm(int sig)
{
	(void)sig;
	tick_due = 1;
}

static void on_winch(int sig)
{
	(void)sig;
	resized = 1;
}

/* The command's side of a run: the options (pv -R changes some), the line on stderr, the status. */
struct pv_cmd {
	struct pv_opts *o;
	struct pv_run run;   /* the engine's state: counts, size, meter, data path */
	char remote_name[256], remote_format[1024], remote_extra[256]; /* what -R sent, kept here */
	struct display disp;
	int show;	     /* a display is wanted on stderr */
	int shown;	     /* something was written there */
	int status;	     /* pv exit bits */
	double max_rate;     /* -g: the highest rate drawn so far */
	struct display title; /* -x windowtitle: its own display state */
	struct pv_cursor *cursor; /* -c: our row among the pipeline's, or NULL */
	struct pv_proctitle ptitle; /* -x processtitle: the argv strings we write over */
};

static void catch_signal(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a blocked read, write or splice returns so the display can update. */
	sigaction(sig, &sa, NULL);
}

static void start_ticks(double interval)
{
	struct itimerval it;

	it.it_interval.tv_sec = (time_t)interval;
	it.it_interval.tv_usec = (suseconds_t)((interval - (double)(time_t)interval) * 1e6);
	if (it.it_interval.tv_sec == 0 && it.it_interval.tv_usec == 0)
		it.it_interval.tv_usec = 1000;
	it.it_value = it.it_interval;
	setitimer(ITIMER_REAL, &it, NULL);
}

static void stop_ticks(void)
{
	struct itimerval it;

	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
}

/* Write text to stderr unless we are in the background; a dead terminal ends the display. */
static void emit(struct pv_cmd *c, const char *s, size_t len)
{
	if (!pv_tty_foreground(STDERR_FILENO))
		return;
	if (net_write_all(STDERR_FILENO, s, len) < 0) {
		if (errno != EAGAIN)
			c->show = 0;
		return;
	}
	c->shown = 1;
}

/* -x windowtitle: the line again as the terminal's title (OSC 2 ... ST), after the line as pv;
 * -x processtitle: as the process title. */
static void draw_title(struct pv_cmd *c, const struct meter_reading *mr, const struct status_extra *x,
		       int final)
{
	char title[STATUS_LINE_MAX + 8];
	size_t t;

	c->title.o.width = c->disp.o.width;
	t = status_render(&c->title, mr, c->run.size, final, 0, x, time(NULL), title + 4, STATUS_LINE_MAX);
	if (c->o->process_title) {
		title[4 + t - 1] = '\0'; /* over the '\r' */
		pv_proctitle_set(&c->ptitle, title + 4);
	}
	if (!c->o->window_title)
		return;
	memcpy(title, "\033]2;", 4);
	memcpy(title + 4 + t - 1, "\033\\", 2); /* over the '\r' (or the NUL) */
	emit(c, title, t + 5);
}

static void draw(struct pv_cmd *c, double now, int final)
{
	const struct pv_opts *o = c->o;
	struct meter_reading mr;
	struct status_extra x;
	char line[STATUS_LINE_MAX];
	size_t n;

	meter_read(&c->run.meter, now, &mr);
	if (!final && mr.rate > c->max_rate)
		c->max_rate = mr.rate;
	x.buffer_percent = pv_xfer_buffer_percent(c->run.x);
	x.last = pv_xfer_last(c->run.x, &x.last_len);
	x.max_rate = c->max_rate;
	if (resized) {
		resized = 0;
		if (!o->has_width)
			c->disp.o.width = pv_tty_width(STDERR_FILENO, 80);
		c->disp.o.fit = pv_tty_width(STDERR_FILENO, 0);
	}
	n = status_render(&c->disp, &mr, c->run.size, final, o->numeric, &x, time(NULL), line, sizeof(line));
	if (c->cursor && !o->numeric) {
		/* -c: on our own row; the line stays there, without its '\r'. */
		if (pv_tty_foreground(STDERR_FILENO) && pv_cursor_draw(c->cursor, line, n - 1) == 0)
			c->shown = 1;
	} else {
		emit(c, line, n);
	}
	if (o->window_title || o->process_title)
		draw_title(c, &mr, &x, final);
	pv_xfer_keep_last(c->run.x); /* -A shows what is written after the first line, as pv */
}

/* Whether the display may be updated now (-q, -W, -D). */
static int may_draw(const struct pv_cmd *c, double now)
{
	if (!c->show)
		return 0;
	if (c->o->wait && !c->run.started)
		return 0;
	return now - c->run.begin >= c->o->delay_start;
}

/* The last line of a run (none after a failure or a signal, as pv; after a reader that went
 * away, as pv, one), then, as pv, a "\n" after whatever line is shown, however the run ended,
 * so that the shell's prompt does not draw over it. */
static void last_line(struct pv_cmd *c)
{
	if (c->run.opened > 0 && !stop_signal && (!c->run.write_failed || c->run.reader_gone) &&
	    !(c->run.faults & PV_FAULT_SAME) && may_draw(c, clock_now()))
		draw(c, clock_now(), 1);
	if (!c->o->numeric && c->shown && c->cursor == NULL) {
		emit(c, "\n", 1);
		c->shown = 0; /* -U: the forwarding's line is ended apart */
	}
}


/* -x's display: the main one's options, unfitted, with -x's own format if it has one. */
static void init_title(struct pv_cmd *c)
{
	struct display_opts t = c->disp.o;

	t.numeric = 0;
	t.fit = 0; /* a title is no line of the terminal: as long as pv 1.10's */
	if (c->o->extra_format)
		t.format = c->o->extra_format;
	display_init(&c->title, &t);
}

/*
 * Answer the pv -R or -Q that signalled us: write how far we are, or apply the options it
 * sent (as pv: its display switches, -N, -F and -x replace ours), then signal it back.
 */
static void serve_remote(struct pv_cmd *c)
{
	struct pv_remote_state st = { c->run.count, c->run.size, clock_now() - c->run.begin };
	pid_t from = (pid_t)remote_from;
	struct pv_remote_msg m;

	remote_from = 0;
	if (cmd_pv_remote_answer(from, &st, &m) <= 0)
		return; /* a query, answered; or not one of ours */
	if (m.has_rate)
		pv_run_set_rate(&c->run, m.rate, clock_now());
	if (m.has_size)
		pv_run_set_size(&c->run, m.size);
	if (m.has_interval) {
		c->o->interval = m.interval;
		if (c->show)
			start_ticks(m.interval);
	}
	if (m.has_width)
		c->disp.o.width = m.width;
	if (m.has_items) {
		cmd_pv_remote_apply(&m, &c->disp.o);
		snprintf(c->remote_extra, sizeof(c->remote_extra), "%s", m.extra);
		pv_extra_display(c->remote_extra, c->o); /* none, when -x was not sent */
	}
	if (m.has_name) {
		snprintf(c->remote_name, sizeof(c->remote_name), "%s", m.name);
		c->disp.o.name = c->remote_name;
	}
	if (m.has_format) {
		snprintf(c->remote_format, sizeof(c->remote_format), "%s", m.format);
		c->disp.o.format = c->remote_format;
	}
	init_title(c);
	proc_signal(from, SIGUSR2);
}

/* The engine's tick, before every step: draw when the timer fired, answer a pv -R or -Q. */
static void on_tick(void *ctx, struct pv_run *r)
{
	struct pv_cmd *c = ctx;

	(void)r;
	if (tick_due) {
		double now = clock_now();

		tick_due = 0;
		if (may_draw(c, now)) {
			draw(c, now, 0);
		} else if (c->o->stats) {
			struct meter_reading mr;

			meter_read(&c->run.meter, now, &mr); /* -v: the rate is sampled unseen too, as pv */
		}
	}
	if (remote_from)
		serve_remote(c);
}

/* The engine's messages, in pv's words. */
static void on_say(void *ctx, int error, const char *line)
{
	(void)ctx;
	(void)error;
	pv_error("%s", line);
}

/* pv's exit bits for the engine's faults. */
static int exit_bits(unsigned faults)
{
	return (faults & PV_FAULT_ACCESS ? PV_EXIT_ACCESS : 0) | (faults & PV_FAULT_SAME ? PV_EXIT_SAME : 0) |
	       (faults & PV_FAULT_CLOSE ? PV_EXIT_CLOSE : 0) |
	       (faults & PV_FAULT_TRANSFER ? PV_EXIT_TRANSFER : 0) | (faults & PV_FAULT_MEMORY ? PV_EXIT_USAGE : 0);
}

static void print_stats(struct pv_cmd *c)
{
	const struct display_opts *d = &c->disp.o;
	double k = d->bits && !d->lines ? 8 : 1;
	struct meter_stats s;
	char line[256];
	int n;

	/* pv 1.10's wording and raw figures, even when nothing was sampled. */
	meter_stats(&c->run.meter, &s);
	if (s.samples == 0)
		n = snprintf(line, sizeof(line), "rate not measured\n");
	else
		n = snprintf(line, sizeof(line), "rate min/avg/max/mdev = %.3f/%.3f/%.3f/%.3f %s\n",
			     s.min * k, s.mean * k, s.max * k, s.mdev * k, d->bits ? "b/s" : "B/s");
	emit(c, line, (size_t)n);
}

static int write_pidfile(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f == NULL || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f) != 0) {
		pv_error("%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void setup_signals(void)
{
	static const int hangup[] = { SIGHUP }, stop[] = { SIGINT, SIGTERM };

	/* SIGHUP ignored by whoever started us (nohup) stays ignored: a hangup must not end a
	 * nohup'd copy (pv 1.10 ends). SIGINT is caught even when a shell started us in the
	 * background with it ignored: `kill -INT $!` ends the run with status 32, as in pv. */
	cmd_catch_stop(&stop_signal, hangup, 1, CMD_STOP_KEEP_IGNORED);
	cmd_catch_stop(&stop_signal, stop, 2, 0);
	catch_signal(SIGALRM, on_alarm);
	catch_signal(SIGWINCH, on_winch);
	{
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_remote;
		sa.sa_flags = SA_SIGINFO; /* no SA_RESTART: a blocked copy returns to answer */
		sigemptyset(&sa.sa_mask);
		sigaction(SIGUSR2, &sa, NULL);
	}
	/* In the background we stay quiet ourselves; never stop for a write to the terminal. */
	signal(SIGTTOU, SIG_IGN);
}

/* Parse pv's options into o and say what there was to say: --help, --version, or pv's
 * message (getopt's complaints take two lines, as in pv). */
static enum cmd_parse parse_into(int argc, char **argv, struct pv_opts *o)
{
	struct pv_parse_err perr;

	switch (pv_parse_options(argc, argv, o, &perr)) {
	case PV_PARSE_RUN:
		return CMD_PARSE_RUN;
	case PV_PARSE_HELP:
		pv_usage(stdout);
		return CMD_PARSE_DONE;
	case PV_PARSE_VERSION:
		printf("ncpv pv %s (pv 1.10.5 compatible)\n", NCPV_VERSION);
		return CMD_PARSE_DONE;
	default:
		fprintf(stderr, "pv: %s\n", perr.msg);
		return CMD_PARSE_USAGE;
	}
}

/* The display on stderr: its width, -x's title, -c's row. */
static void setup_display(struct pv_cmd *c, struct pv_opts *o)
{
	if (!o->has_width)
		o->disp.width = pv_tty_width(STDERR_FILENO, 80);
	/* On a terminal the line never wraps (even with a wider -w); elsewhere, as pv 1.10. */
	o->disp.fit = pv_tty_width(STDERR_FILENO, 0);
	display_init(&c->disp, &o->disp);
	init_title(c);
	if (c->show && o->cursor && !o->numeric) {
		char why[128];

		/* Without a terminal that answers, -c falls back to the usual line, as pv's does. */
		c->cursor = pv_cursor_open(STDERR_FILENO, why, sizeof(why));
	}
}

/* Copy (and with -U forward), then the last line, -v's summary, and pv's exit status. */
static int copy_and_report(struct pv_cmd *c, struct pv_opts *o)
{
	char err[1024];

	if (o->store_file)
		c->disp.o.name = "(input)"; /* -U: the first line is the storing */
	pv_run_copy(&c->run);
	if (o->store_file && !stop_signal && !c->run.write_failed && c->run.opened > 0) {
		last_line(c);
		c->disp.o.name = o->disp.name;
		if (pv_run_forward(&c->run, err, sizeof(err)) < 0) {
			pv_error("%s", err);
			c->status |= PV_EXIT_USAGE;
		}
	}
	if (pv_run_finish(&c->run, err, sizeof(err)) < 0)
		pv_error("%s", err);
	stop_ticks();
	if (stop_signal)
		c->status |= PV_EXIT_SIGNAL;
	last_line(c);
	if (o->stats)
		print_stats(c);
	if (pv_run_close(&c->run) < 0) {
		pv_error("%s: %s", o->output, strerror(errno));
		c->status |= PV_EXIT_TRANSFER;
	}
	pv_cursor_close(c->cursor);
	return c->status | exit_bits(c->run.faults);
}

/* The run, with the options parsed from args (a copy of argv: -x processtitle writes over argv). */
static int run_pv(int argc, char **argv, char **args)
{
	struct pv_events ev = { on_say, on_tick, NULL };
	enum cmd_parse parsed;
	struct pv_opts o;
	struct pv_cmd c;
	uint64_t size = 0;
	char err[1024];
	int fault, rc, other;

	if ((parsed = parse_into(argc, args, &o)) != CMD_PARSE_RUN)
		return cmd_parse_exit(parsed, PV_EXIT_USAGE);
	/* -d, -R, -Q: no copy of our own (the last of them given, as in pv; -U after them copies). */
	other = o.action == 'd' || o.action == 'R' || o.action == 'Q';
	memset(&c, 0, sizeof(c));
	c.o = &o;
	c.show = !o.quiet && (o.numeric || o.force || isatty(STDERR_FILENO));
	if (!other && pv_size_find(&o, c.show, &size, err, sizeof(err)) < 0) {
		pv_error("%s", err);
		return PV_EXIT_USAGE; /* pv 1.10 checks -s @FILE with its options */
	}
	/* A script that waits for the pidfile may signal us at once: be ready for it first. */
	if (!other)
		setup_signals();
	/* As pv: the pidfile for every mode (scripts wait for it before they act on us). */
	if (o.pidfile && write_pidfile(o.pidfile) < 0)
		return PV_EXIT_PIDFILE;
	if (o.action == 'd')
		rc = cmd_pv_watch(&o, c.show);
	else if (o.action == 'R')
		rc = cmd_pv_remote(&o);
	else if (o.action == 'Q')
		rc = cmd_pv_query(&o, c.show);
	else if ((fault = pv_run_open(&c.run, &o, size, &ev, &stop_signal, err, sizeof(err))) != 0) {
		pv_error("%s", err);
		rc = exit_bits((unsigned)fault);
	} else {
		/* Past ulimit -f, report the EFBIG write error (status 16) instead of dying of
		 * SIGXFSZ without a word as pv does; nothing is lost before it (faults.bats). */
		signal(SIGXFSZ, SIG_IGN);
		pv_proctitle_init(&c.ptitle, argc, argv); /* written only with -x processtitle */
		ev.ctx = &c;
		setup_display(&c, &o);
		pv_run_start(&c.run, clock_now());
		/* The timer only now: its signal would interrupt opening a FIFO (-o). */
		if (c.show || o.stats)
			start_ticks(o.interval);
		rc = copy_and_report(&c, &o);
	}
	if (o.pidfile)
		unlink(o.pidfile);
	return rc;
}

int cmd_pv(int argc, char **argv)
{
	char **args = calloc((size_t)argc + 1, sizeof(*args));
	int rc, n = 0;

	for (; args && n < argc && (args[n] = strdup(argv[n])) != NULL; n++)
		;
	if (args == NULL || n < argc) {
		pv_error("%s", strerror(ENOMEM));
		rc = PV_EXIT_USAGE;
	} else {
		rc = run_pv(argc, argv, args);
	}
	while (args && n > 0)
		free(args[--n]);
	free(args);
	return rc;
}
