/* SPDX-License-Identifier: ISC */
/* pv.c - "ncpv pv": pv 1.6's pipe viewer: copy the inputs to the output, showing progress. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "../clock.h"
#include "../display.h"
#include "../meter.h"
#include "../pv/opts.h"
#include "../pv/tty.h"
#include "../pv/xfer.h"
#include "../status.h"

/* Read/write buffer when -B is not given: big enough for few system calls,
 * small enough to stay in the CPU cache (bench/pv-perf.sh). */
#define PV_BUFFER_DEFAULT ((size_t)256 * 1024)
/* Pipes we splice through are grown to this, so each splice moves more. */
#define PV_PIPE_SIZE (1u << 20)
/* -L refills at most this many seconds' worth at once: no bursts beyond it. */
#define PV_RATE_SLICE 0.1
/* -L waits for this many seconds' worth before moving anything. */
#define PV_RATE_CHUNK 0.005

static volatile sig_atomic_t tick_due, resized, stop_signal;

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

static void on_stop(int sig)
{
	stop_signal = sig;
}

struct pv_run {
	const struct pv_opts *o;
	struct pv_xfer x;
	struct meter meter;
	struct display disp;
	uint64_t size;	     /* expected total (bytes or lines); 0 unknown */
	uint64_t count;	     /* bytes, or lines in line mode */
	int show;	     /* a display is wanted on stderr */
	int shown;	     /* something was written there */
	int started;	     /* -W: the first byte went by */
	double begin;	     /* start of the run (for -D) */
	double tokens, token_time; /* -L bucket */
	int status;	     /* pv exit bits */
};

static void catch_signal(int sig, void (*fn)(int))
{
	struct sigaction sa, old;

	/* A signal ignored by whoever started us (nohup, a shell's background job) stays ignored. */
	if ((sig == SIGHUP || sig == SIGINT) && sigaction(sig, NULL, &old) == 0 &&
	    old.sa_handler == SIG_IGN)
		return;

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
static void emit(struct pv_run *r, const char *s, size_t len)
{
	if (!pv_tty_foreground(STDERR_FILENO))
		return;
	if (pv_tty_write(STDERR_FILENO, s, len) < 0) {
		if (errno != EAGAIN)
			r->show = 0;
		return;
	}
	r->shown = 1;
}

static void draw(struct pv_run *r, double now, int final)
{
	const struct pv_opts *o = r->o;
	struct meter_reading mr;
	struct status_extra x = { pv_xfer_buffer_percent(&r->x), r->x.last, r->x.last_len };
	char line[STATUS_LINE_MAX];

	meter_read(&r->meter, now, &mr);
	if (!o->has_width && resized) {
		resized = 0;
		r->disp.o.width = pv_tty_width(STDERR_FILENO, 80);
	}
	emit(r, line, status_render(&r->disp, &mr, r->size, final, o->numeric, &x, line, sizeof(line)));
}

/* Whether the display may be updated now (-q, -W, -D). */
static int may_draw(const struct pv_run *r, double now)
{
	if (!r->show)
		return 0;
	if (r->o->wait && !r->started)
		return 0;
	return now - r->begin >= r->o->delay_start;
}

static void tick(struct pv_run *r)
{
	double now;

	tick_due = 0;
	now = clock_now();
	if (may_draw(r, now))
		draw(r, now, 0);
}

/*
 * -L: how many bytes may go now. Credit accrues at the rate, but never
 * beyond PV_RATE_SLICE seconds' worth (an idle input earns no burst), and
 * is spent in chunks of PV_RATE_CHUNK seconds' worth so that slow rates do
 * not cost a system call per byte. Sleeps (interruptibly) while short.
 */
static uint64_t rate_allowance(struct pv_run *r)
{
	double rate = (double)r->o->rate_limit, now = clock_now();
	double chunk = rate * PV_RATE_CHUNK, cap = rate * PV_RATE_SLICE;

	if (chunk < 1)
		chunk = 1;
	if (chunk > PV_BUFFER_DEFAULT)
		chunk = PV_BUFFER_DEFAULT;
	if (cap < chunk)
		cap = chunk;
	r->tokens += (now - r->token_time) * rate;
	r->token_time = now;
	if (r->tokens > cap)
		r->tokens = cap;
	if (r->tokens < chunk) {
		clock_sleep((chunk - r->tokens) / rate);
		return 0;
	}
	return (uint64_t)r->tokens;
}

/* The size of the inputs, when every one of them is a regular file or block device. */
static uint64_t inputs_size(const struct pv_opts *o)
{
	uint64_t total = 0;
	int n = o->nfiles > 0 ? o->nfiles : 1;

	for (int i = 0; i < n; i++) {
		const char *name = o->nfiles > 0 ? o->files[i] : "-";
		int std = strcmp(name, "-") == 0;
		struct stat st;
		off_t end = -1;

		/* stat, not open: opening a FIFO would block, and would disturb its writer. */
		if ((std ? fstat(STDIN_FILENO, &st) : stat(name, &st)) < 0)
			continue; /* reported when it is opened for copying */
		if (S_ISREG(st.st_mode)) {
			end = st.st_size;
		} else if (S_ISBLK(st.st_mode)) {
			int fd = std ? STDIN_FILENO : open(name, O_RDONLY | O_CLOEXEC);

			if (fd >= 0) {
				off_t at = lseek(fd, 0, SEEK_CUR);

				end = lseek(fd, 0, SEEK_END);
				if (at >= 0)
					lseek(fd, at, SEEK_SET); /* stdin may be shared: put it back */
				if (!std)
					close(fd);
			}
		}
		if (end < 0)
			return 0;
		total += (uint64_t)end;
	}
	return total;
}

static int resolve_size(struct pv_run *r)
{
	const struct pv_opts *o = r->o;
	struct stat st;

	if (o->size_file) {
		if (stat(o->size_file, &st) < 0) {
			cmd_error("pv", "%s: %s", o->size_file, strerror(errno));
			return PV_EXIT_ACCESS;
		}
		r->size = (uint64_t)st.st_size;
	} else if (o->has_size) {
		r->size = o->size;
	} else if (!o->lines) {
		r->size = inputs_size(o);
	}
	return 0;
}

static int open_output(const struct pv_opts *o)
{
	int fd;

	if (o->discard)
		return -1;
	if (o->output == NULL)
		return STDOUT_FILENO;
	/* Not O_TRUNC yet: if an input is this very file, truncating first
	 * would destroy the data before we find out. */
	fd = open(o->output, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		cmd_error("pv", "%s: %s", o->output, strerror(errno));
	return fd;
}

/* -o: refuse (status 4, the file untouched) when an input is the output
 * file, else truncate it as open(O_TRUNC) would have. 0 or a pv status. */
static int check_and_truncate_output(const struct pv_opts *o, int out)
{
	struct stat os, is;
	int n = o->nfiles > 0 ? o->nfiles : 1;

	if (o->output == NULL || out < 0 || fstat(out, &os) < 0 || !S_ISREG(os.st_mode))
		return 0;
	for (int i = 0; i < n; i++) {
		const char *name = o->nfiles > 0 ? o->files[i] : "-";
		int std = strcmp(name, "-") == 0;

		if ((std ? fstat(STDIN_FILENO, &is) : stat(name, &is)) == 0 && S_ISREG(is.st_mode) &&
		    is.st_dev == os.st_dev && is.st_ino == os.st_ino) {
			cmd_error("pv", "input file is output file: %s", std ? "(standard input)" : name);
			return PV_EXIT_SAME;
		}
	}
	if (ftruncate(out, 0) < 0) {
		cmd_error("pv", "%s: %s", o->output, strerror(errno));
		return PV_EXIT_ACCESS;
	}
	return 0;
}

/* Whether in (a regular file) is the output file itself. */
static int same_as_output(int in, int out)
{
	struct stat a, b;

	return out >= 0 && fstat(in, &a) == 0 && fstat(out, &b) == 0 && S_ISREG(a.st_mode) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

enum copy_end { COPY_NEXT, COPY_STOP };

/* Copy one open input; returns COPY_STOP when the whole run must end. */
static enum copy_end copy_input(struct pv_run *r, int in, const char *name)
{
	const struct pv_opts *o = r->o;
	int warned = 0;

	pv_xfer_set_input(&r->x, in);
	for (;;) {
		uint64_t max = UINT64_MAX, max_lines = UINT64_MAX, bytes = 0, lines = 0;
		enum pv_step step;

		if (stop_signal)
			return COPY_STOP;
		if (tick_due)
			tick(r);
		if (o->stop_at_size && r->size > 0) {
			if (r->count >= r->size)
				return COPY_STOP;
			if (o->lines)
				max_lines = r->size - r->count;
			else
				max = r->size - r->count;
		}
		if (o->rate_limit) {
			uint64_t allow = rate_allowance(r);

			if (allow == 0)
				continue;
			if (allow < max)
				max = allow;
		}
		step = pv_xfer_step(&r->x, max, max_lines, &bytes, &lines);
		if (o->rate_limit)
			r->tokens -= (double)bytes;
		if (bytes > 0 && !r->started) {
			r->started = 1;
			if (o->wait)
				meter_start(&r->meter, clock_now());
		}
		r->count += o->lines ? lines : bytes;
		meter_add(&r->meter, o->lines ? lines : bytes);
		switch (step) {
		case PV_STEP_MOVED:
		case PV_STEP_AGAIN:
			break;
		case PV_STEP_EOF:
			return COPY_NEXT;
		case PV_STEP_SKIPPED:
			/* pv's wording: one warning per file, then each range unless -EE. */
			if (!warned)
				cmd_error("pv", "%s: warning: read errors detected: %s", name,
					  strerror(r->x.skip_errno));
			if (o->skip_errors < 2)
				cmd_error("pv", "%s: skipped past read error: %llu - %llu (%llu B)", name,
					  (unsigned long long)r->x.skip_at,
					  (unsigned long long)r->x.skip_at + r->x.skip_len,
					  (unsigned long long)r->x.skip_len);
			warned = 1;
			break;
		case PV_STEP_READ_ERR:
			cmd_error("pv", "%s: read failed: %s", name, strerror(errno));
			r->status |= PV_EXIT_TRANSFER;
			return COPY_NEXT;
		case PV_STEP_WRITE_ERR:
			/* A reader that went away ends the run quietly, as pv does. */
			if (errno != EPIPE) {
				cmd_error("pv", "write failed: %s", strerror(errno));
				r->status |= PV_EXIT_TRANSFER;
			}
			return COPY_STOP;
		}
	}
}

static void copy_all(struct pv_run *r)
{
	const struct pv_opts *o = r->o;
	int n = o->nfiles > 0 ? o->nfiles : 1, opened = 0;

	for (int i = 0; i < n && !stop_signal; i++) {
		const char *name = o->nfiles > 0 ? o->files[i] : "-";
		int std = strcmp(name, "-") == 0;
		int in = std ? STDIN_FILENO : open(name, O_RDONLY | O_CLOEXEC);
		enum copy_end end;

		if (in < 0) {
			cmd_error("pv", "%s: %s", name, strerror(errno));
			r->status |= PV_EXIT_ACCESS;
			continue;
		}
		opened++;
		if (same_as_output(in, r->x.out)) {
			cmd_error("pv", "input file is output file: %s", name);
			r->status |= PV_EXIT_SAME;
		} else {
			if (!r->x.no_splice)
				pv_xfer_grow_pipe(in, PV_PIPE_SIZE);
			end = copy_input(r, in, std ? "(standard input)" : name);
			if (end == COPY_STOP)
				i = n;
		}
		if (!std && close(in) < 0)
			r->status |= PV_EXIT_CLOSE;
	}
	if (opened == 0)
		r->status |= PV_EXIT_CLOSE;
}

static void print_stats(struct pv_run *r)
{
	const struct display_opts *d = &r->disp.o;
	const char *unit = d->lines ? "/s" : d->bits ? "b/s" : "B/s";
	double k = d->bits && !d->lines ? 8 : 1;
	struct meter_stats s;
	char a[4][48], line[256];
	int n;

	meter_stats(&r->meter, &s);
	if (s.samples == 0)
		return;
	display_amount(a[0], sizeof(a[0]), s.min * k, d->lines || d->si, unit);
	display_amount(a[1], sizeof(a[1]), s.mean * k, d->lines || d->si, unit);
	display_amount(a[2], sizeof(a[2]), s.max * k, d->lines || d->si, unit);
	display_amount(a[3], sizeof(a[3]), s.mdev * k, d->lines || d->si, unit);
	n = snprintf(line, sizeof(line), "rate min/avg/max/mdev = %s/%s/%s/%s\n", a[0], a[1], a[2],
		     a[3]);
	emit(r, line, (size_t)n);
}

static int write_pidfile(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f == NULL || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f) != 0) {
		cmd_error("pv", "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void setup_signals(const struct pv_run *r)
{
	catch_signal(SIGINT, on_stop);
	catch_signal(SIGTERM, on_stop);
	catch_signal(SIGHUP, on_stop);
	catch_signal(SIGALRM, on_alarm);
	catch_signal(SIGWINCH, on_winch);
	/* In the background we stay quiet ourselves; never stop for a write to the terminal. */
	signal(SIGTTOU, SIG_IGN);
	if (r->show)
		start_ticks(r->o->interval);
}

int cmd_pv(int argc, char **argv)
{
	enum cmd_parse parsed;
	struct pv_opts o;
	struct pv_run r;
	int rc, out;
	size_t bufsize;

	if ((parsed = pv_parse_options(argc, argv, &o)) != CMD_PARSE_RUN)
		return cmd_parse_exit(parsed, PV_EXIT_USAGE);
	/* Past ulimit -f, report the EFBIG write error (status 16) instead of dying of
	 * SIGXFSZ without a word as pv does; nothing is lost before it (faults.bats). */
	signal(SIGXFSZ, SIG_IGN);
	memset(&r, 0, sizeof(r));
	r.o = &o;
	if ((rc = resolve_size(&r)) != 0)
		return rc;
	if (o.pidfile && write_pidfile(o.pidfile) < 0)
		return PV_EXIT_PIDFILE;
	out = open_output(&o);
	rc = out < 0 && !o.discard ? PV_EXIT_ACCESS : check_and_truncate_output(&o, out);
	if (rc != 0) {
		if (out > STDERR_FILENO)
			close(out);
		if (o.pidfile)
			unlink(o.pidfile);
		return rc;
	}
	bufsize = o.buffer_size ? (size_t)o.buffer_size : PV_BUFFER_DEFAULT;
	if (pv_xfer_init(&r.x, out, bufsize) < 0) {
		cmd_error("pv", "buffer of %zu bytes: %s", bufsize, strerror(errno));
		return PV_EXIT_USAGE;
	}
	r.x.no_splice = o.no_splice;
	r.x.count_lines = o.lines;
	r.x.eol = o.null ? '\0' : '\n';
	r.x.sync = o.sync;
	r.x.discard = o.discard;
	r.x.skip_errors = o.skip_errors;
	if (r.x.out_pipe && !o.no_splice)
		pv_xfer_grow_pipe(out, PV_PIPE_SIZE);

	if (!o.has_width)
		o.disp.width = pv_tty_width(STDERR_FILENO, 80);
	display_init(&r.disp, &o.disp);
	r.show = !o.quiet && (o.numeric || o.force || isatty(STDERR_FILENO));
	r.begin = r.token_time = clock_now();
	meter_set_window(&r.meter, o.avg_window);
	meter_start(&r.meter, r.begin);
	setup_signals(&r);

	copy_all(&r);

	stop_ticks();
	if (stop_signal)
		r.status |= PV_EXIT_SIGNAL;
	if (may_draw(&r, clock_now())) {
		draw(&r, clock_now(), 1);
		if (!o.numeric && r.shown)
			emit(&r, "\n", 1);
		if (o.stats)
			print_stats(&r);
	}
	if (out > STDERR_FILENO && close(out) < 0) {
		cmd_error("pv", "%s: %s", o.output, strerror(errno));
		r.status |= PV_EXIT_TRANSFER;
	}
	pv_xfer_free(&r.x);
	if (o.pidfile)
		unlink(o.pidfile);
	return r.status;
}
