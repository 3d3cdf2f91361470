/* SPDX-License-Identifier: ISC */
/* pv.c - "ncpv pv": a drop-in for pv 1.10.5: copy the inputs to the output, showing progress. */
#include <errno.h>
#include <stdarg.h>
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
#include "pv_modes.h"
#include "../clock.h"
#include "../display.h"
#include "../meter.h"
#include "../pv/cursor.h"
#include "../pv/opts.h"
#include "../pv/remote.h"
#include "../pv/tty.h"
#include "../pv/xfer.h"
#include "../status.h"
#include "../version.h"
#include "../proc.h"

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
/* The pid of a pv -R or -Q that sent us SIGUSR2, until we answered. */
static volatile sig_atomic_t remote_from;

static void on_remote(int sig, siginfo_t *info, void *ctx)
{
	(void)sig;
	(void)ctx;
	remote_from = (sig_atomic_t)info->si_pid;
}

void pv_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cmd_verror("pv", fmt, ap);
	va_end(ap);
}

static void pv_usage(FILE *f)
{
	fprintf(f,
		"Usage: ncpv pv [OPTION]... [FILE]...\n"
		"Concatenate FILE(s), or standard input, to standard output, showing progress\n"
		"on standard error (a drop-in for pv 1.10.5; also runs as 'pv' through a symlink).\n\n"
		"Display:\n"
		"  -p, --progress           progress bar          -t, --timer      elapsed time\n"
		"  -e, --eta                time left             -I, --fineta     time of arrival\n"
		"  -r, --rate               current rate          -a, --average-rate  average rate\n"
		"  -b, --bytes              bytes (lines) so far  -T, --buffer-percent  buffer in use\n"
		"  -8, --bits               count bits            -k, --si         powers of 1000\n"
		"  -A, --last-written NUM   last NUM bytes written\n"
		"  -F, --format FORMAT      %%p %%t %%e %%I %%r %%a %%b %%T %%nA %%N %%%% or %%{progress} %%{rate} ...\n"
		"  -n, --numeric            percentages (or -b counts, -t times) one per line\n"
		"  -q, --quiet              no display             -v, --stats      rate summary at the end\n"
		"  -c, --cursor             several pv in a pipeline, each on its own terminal row\n"
		"  -g, --gauge              without a size, the bar shows the rate against its maximum\n"
		"  -x, --extra-display SPEC  windowtitle[:FORMAT]: also as the terminal's title\n"
		"  -d, --watchfd PID[:FD]   watch the files process PID has open (or only FD)\n"
		"  -R, --remote PID         send -L -s -i -w -N -F given here to ncpv pv PID\n"
		"  -Q, --query PID          show the progress of ncpv pv PID\n"
		"Modifiers:\n"
		"  -W, --wait               show nothing until the first byte\n"
		"  -D, --delay-start SEC    show nothing for SEC seconds\n"
		"  -s, --size SIZE          expected size (K, M, G, T suffixes; @FILE: FILE's size)\n"
		"  -l, --line-mode          count lines            -0, --null       lines end with NUL\n"
		"  -i, --interval SEC       update every SEC seconds (default 1)\n"
		"  -m, --average-rate-window SEC  average rate over the last SEC seconds\n"
		"  -w, --width N  -H, --height N  -N, --name NAME  -f, --force\n"
		"Transfer:\n"
		"  -L, --rate-limit RATE    at most RATE bytes per second, without bursts\n"
		"  -B, --buffer-size BYTES  read/write buffer size (implies -C)\n"
		"  -C, --no-splice          never use splice(2)  -E, --skip-errors  skip read errors\n"
		"  -Z, --error-skip-block BYTES  with -E, skip to the next multiple of BYTES\n"
		"  -O, --sparse             seek over blocks of zeros instead of writing them\n"
		"  -K, --direct-io          O_DIRECT on input and output, bypassing the page cache\n"
		"  -U, --store-and-forward FILE  all input into FILE first, then FILE to the output\n"
		"  -S, --stop-at-size       stop after --size    -Y, --sync       fdatasync each write\n"
		"  -X, --discard            write nothing        -o, --output FILE  write to FILE\n"
		"  -P, --pidfile FILE       save the process ID in FILE\n"
		"  -h, --help  -V, --version\n"
		"Not supported (refused by name): -u -M, -x processtitle.\n"
		"Exit status: pv's bit mask: 1 pidfile, 2 unreadable input, 4 input is output,\n"
		"16 transfer error, 32 signal, 64 bad option.\n");
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

static void on_stop(int sig)
{
	stop_signal = sig;
}

struct pv_run {
	struct pv_opts *o;	     /* changed by -R from another pv */
	char remote_name[256], remote_format[1024]; /* what -R sent, kept here */
	struct pv_xfer *x;
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
	int opened;	     /* inputs that could be opened */
	int write_failed;    /* the output refused data */
	double max_rate;     /* -g: the highest rate drawn so far */
	struct display title; /* -x windowtitle: its own display state */
	struct pv_cursor *cursor; /* -c: our row among the pipeline's, or NULL */
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

/* -x windowtitle: the line again as the terminal's title (OSC 2 ... ST), after the line as pv. */
static void draw_title(struct pv_run *r, const struct meter_reading *mr, const struct status_extra *x,
		       int final)
{
	char title[STATUS_LINE_MAX + 8];
	size_t t;

	r->title.o.width = r->disp.o.width;
	t = status_render(&r->title, mr, r->size, final, 0, x, time(NULL), title + 4, STATUS_LINE_MAX);
	memcpy(title, "\033]2;", 4);
	memcpy(title + 4 + t - 1, "\033\\", 2); /* over the '\r' */
	emit(r, title, t + 5);
}

static void draw(struct pv_run *r, double now, int final)
{
	const struct pv_opts *o = r->o;
	struct meter_reading mr;
	struct status_extra x;
	char line[STATUS_LINE_MAX];
	size_t n;

	meter_read(&r->meter, now, &mr);
	if (!final && mr.rate > r->max_rate)
		r->max_rate = mr.rate;
	x.buffer_percent = pv_xfer_buffer_percent(r->x);
	x.last = pv_xfer_last(r->x, &x.last_len);
	x.max_rate = r->max_rate;
	if (resized) {
		resized = 0;
		if (!o->has_width)
			r->disp.o.width = pv_tty_width(STDERR_FILENO, 80);
		r->disp.o.fit = pv_tty_width(STDERR_FILENO, 0);
	}
	n = status_render(&r->disp, &mr, r->size, final, o->numeric, &x, time(NULL), line, sizeof(line));
	if (r->cursor && !o->numeric) {
		/* -c: on our own row; the line stays there, without its '\r'. */
		if (pv_tty_foreground(STDERR_FILENO) && pv_cursor_draw(r->cursor, line, n - 1) == 0)
			r->shown = 1;
	} else {
		emit(r, line, n);
	}
	if (o->window_title)
		draw_title(r, &mr, &x, final);
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

/* The size of the inputs, when every one of them is a regular file or block device;
 * in line mode (as pv 1.10 does) the lines in them, when they are all regular files. */
static uint64_t inputs_size(const struct pv_opts *o)
{
	uint64_t total = 0;
	int n = o->nfiles > 0 ? o->nfiles : 1;

	for (int i = 0; i < n; i++) {
		const char *name = o->nfiles > 0 ? o->files[i] : "-";
		int std = strcmp(name, "-") == 0;
		struct stat st;
		off_t end = -1;

		/* stat, not open: opening a FIFO would block, and would disturb its writer. An
		 * input that is missing or unreadable makes the size unknown, as in pv 1.10 (the
		 * error itself is reported when it is opened for copying). */
		if ((std ? fstat(STDIN_FILENO, &st) : stat(name, &st)) < 0 || (!std && access(name, R_OK) < 0))
			return 0;
		if (S_ISREG(st.st_mode) && o->lines) {
			int fd = std ? STDIN_FILENO : open(name, O_RDONLY | O_CLOEXEC);
			off_t at = std ? lseek(fd, 0, SEEK_CUR) : 0;

			end = fd >= 0 && at >= 0 ? pv_count_lines(fd, at, o->null ? '\0' : '\n') : -1;
			if (fd >= 0 && !std)
				close(fd);
		} else if (S_ISREG(st.st_mode)) {
			end = st.st_size;
		} else if (o->lines) {
			end = -1;
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
			pv_error("%s: %s", o->size_file, strerror(errno));
			return PV_EXIT_ACCESS;
		}
		r->size = (uint64_t)st.st_size;
	} else if (o->has_size) {
		r->size = o->size;
	} else if (!o->lines || r->show || o->stop_at_size) {
		/* Counting the lines reads every file once more: only when a display shows it, or
		 * when -S stops at it (the data written must not depend on stderr being a terminal). */
		r->size = inputs_size(o);
	}
	return 0;
}

static int open_output(const struct pv_opts *o)
{
	int fd;

	if (o->discard && o->output == NULL)
		return -1;
	if (o->output == NULL)
		return STDOUT_FILENO;
	/* Not O_TRUNC yet: if an input is this very file, truncating first
	 * would destroy the data before we find out. */
	fd = open(o->output, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		pv_error("%s: %s", o->output, strerror(errno));
	return fd;
}

/* -o: refuse (status 4, the file untouched) when an input is the output
 * file, else truncate it as open(O_TRUNC) would have. 0 or a pv status. */
static int check_and_truncate_output(const struct pv_opts *o, int out, const char *path)
{
	struct stat os, is;
	int n = o->nfiles > 0 ? o->nfiles : 1;

	if (path == NULL || out < 0 || fstat(out, &os) < 0 || !S_ISREG(os.st_mode))
		return 0;
	for (int i = 0; i < n; i++) {
		const char *name = o->nfiles > 0 ? o->files[i] : "-";
		int std = strcmp(name, "-") == 0;

		if ((std ? fstat(STDIN_FILENO, &is) : stat(name, &is)) == 0 && S_ISREG(is.st_mode) &&
		    is.st_dev == os.st_dev && is.st_ino == os.st_ino) {
			pv_error("input file is output file: %s", std ? "(standard input)" : name);
			return PV_EXIT_SAME;
		}
	}
	if (ftruncate(out, 0) < 0) {
		pv_error("%s: %s", path, strerror(errno));
		return PV_EXIT_ACCESS;
	}
	return 0;
}

/* The last line of a run (none after a failure or a signal, as pv), then, as pv, a "\n" after
 * whatever line is shown, however the run ended, so that the shell's prompt does not draw over it. */
static void last_line(struct pv_run *r)
{
	if (r->opened > 0 && !stop_signal && !r->write_failed && !(r->status & PV_EXIT_SAME) &&
	    may_draw(r, clock_now()))
		draw(r, clock_now(), 1);
	if (!r->o->numeric && r->shown && r->cursor == NULL) {
		emit(r, "\n", 1);
		r->shown = 0; /* -U: the forwarding's line is ended apart */
	}
}


/* Whether in (a regular file) is the output file itself. */
static int same_as_output(int in, int out)
{
	struct stat a, b;

	return out >= 0 && fstat(in, &a) == 0 && fstat(out, &b) == 0 && S_ISREG(a.st_mode) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/*
 * Answer the pv -R or -Q that signalled us: apply the options it sent, or write how far we
 * are, then signal it back. Its file is read only if it is a regular file of our user.
 */
static void serve_remote(struct pv_run *r)
{
	pid_t from = (pid_t)remote_from;
	struct pv_remote_msg m;
	char path[256], text[2048];

	remote_from = 0;
	pv_remote_path(path, sizeof(path), from, 0);
	if (pv_remote_take(path, text, sizeof(text)) < 0)
		return; /* not one of ours: no answer */
	pv_remote_parse(text, &m);
	if (m.query) {
		struct pv_remote_state st = { r->count, r->size, clock_now() - r->begin };

		pv_remote_path(path, sizeof(path), from, 1);
		if (pv_remote_state_format(&st, text, sizeof(text)) < 0 || pv_remote_put(path, text) < 0)
			return;
	} else {
		if (m.has_rate) {
			r->o->rate_limit = m.rate;
			r->tokens = 0;
			r->token_time = clock_now();
		}
		if (m.has_size)
			r->size = m.size;
		if (m.has_interval) {
			r->o->interval = m.interval;
			if (r->show)
				start_ticks(m.interval);
		}
		if (m.has_width)
			r->disp.o.width = m.width;
		if (m.has_name) {
			snprintf(r->remote_name, sizeof(r->remote_name), "%s", m.name);
			r->disp.o.name = r->remote_name;
		}
		if (m.has_format) {
			snprintf(r->remote_format, sizeof(r->remote_format), "%s", m.format);
			r->disp.o.format = r->remote_format;
		}
	}
	proc_signal(from, SIGUSR2);
}

enum copy_end { COPY_NEXT, COPY_STOP };

/* Copy one open input; returns COPY_STOP when the whole run must end. */
static enum copy_end copy_input(struct pv_run *r, int in, const char *name)
{
	const struct pv_opts *o = r->o;
	int warned = 0;

	pv_xfer_set_input(r->x, in);
	for (;;) {
		uint64_t max = UINT64_MAX, max_lines = UINT64_MAX, bytes = 0, lines = 0;
		enum pv_step step;

		if (stop_signal)
			return COPY_STOP;
		if (tick_due)
			tick(r);
		if (remote_from)
			serve_remote(r);
		if (o->stop_at_size && r->size > 0) {
			if (r->count >= r->size)
				return COPY_STOP;
			if (o->lines)
				max_lines = r->size - r->count;
			else
				max = r->size - r->count;
		}
		if (o->rate_limit) {
			/* In line mode, as in pv, the limit counts lines. */
			uint64_t allow = rate_allowance(r);

			if (allow == 0)
				continue;
			if (o->lines && allow < max_lines)
				max_lines = allow;
			else if (!o->lines && allow < max)
				max = allow;
		}
		step = pv_xfer_step(r->x, max, max_lines, &bytes, &lines);
		if (o->rate_limit)
			r->tokens -= (double)(o->lines ? lines : bytes);
		if ((o->lines ? lines : bytes) > 0 && !r->started) {
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
		case PV_STEP_SKIPPED: {
			uint64_t at, len;
			int err;

			/* pv's wording: one warning per file, then each range unless -EE. */
			pv_xfer_skipped(r->x, &at, &len, &err);
			if (!warned)
				pv_error("%s: warning: read errors detected: %s", name, strerror(err));
			if (o->skip_errors < 2)
				pv_error("%s: skipped past read error: %llu - %llu (%llu B)", name,
					 (unsigned long long)at, (unsigned long long)at + len,
					 (unsigned long long)len);
			warned = 1;
			r->status |= PV_EXIT_TRANSFER; /* pv 1.10: data was lost, even if skipped */
			break;
		}
		case PV_STEP_READ_ERR:
			pv_error("%s: read failed: %s", name, strerror(errno));
			r->status |= PV_EXIT_TRANSFER;
			return COPY_NEXT;
		case PV_STEP_WRITE_ERR:
			/* A reader that went away ends the run quietly, as pv does. */
			if (errno != EPIPE) {
				pv_error("write failed: %s", strerror(errno));
				r->status |= PV_EXIT_TRANSFER;
			}
			r->write_failed = 1;
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
			pv_error("failed to read file: %s: %s", name, strerror(errno));
			r->status |= PV_EXIT_ACCESS;
			continue;
		}
		opened++;
		if (same_as_output(in, pv_xfer_output(r->x))) {
			pv_error("input file is output file: %s", name);
			r->status |= PV_EXIT_SAME;
		} else {
			if (!o->no_splice)
				pv_xfer_grow_pipe(in, PV_PIPE_SIZE);
			end = copy_input(r, in, std ? "(standard input)" : name);
			if (end == COPY_STOP)
				i = n;
		}
		if (!std && close(in) < 0)
			r->status |= PV_EXIT_CLOSE;
	}
	r->opened = opened;
}

/*
 * -U: the inputs went into the store file; now that file goes to out, as a second run
 * with its own count and line. 0, or -1 (reported) when it cannot.
 */
static int forward_stored(struct pv_run *r, int out, const struct pv_xfer_opts *xo, char **store_name,
			  const char *name)
{
	uint64_t stored = r->count;

	pv_xfer_free(r->x);
	if ((r->x = pv_xfer_new(out, xo)) == NULL) {
		pv_error("buffer of %zu bytes: %s", xo->buffer_size, strerror(errno));
		return -1;
	}
	r->o->files = store_name;
	r->o->nfiles = 1;
	r->disp.o.name = name;
	if (!r->o->has_size)
		r->size = stored;
	r->count = 0;
	r->started = 0;
	r->begin = clock_now();
	meter_start(&r->meter, r->begin);
	copy_all(r);
	return 0;
}

static void print_stats(struct pv_run *r)
{
	const struct display_opts *d = &r->disp.o;
	double k = d->bits && !d->lines ? 8 : 1;
	struct meter_stats s;
	char line[256];
	int n;

	/* pv 1.10's wording and raw figures, even when nothing was sampled. */
	meter_stats(&r->meter, &s);
	if (s.samples == 0)
		n = snprintf(line, sizeof(line), "rate not measured\n");
	else
		n = snprintf(line, sizeof(line), "rate min/avg/max/mdev = %.3f/%.3f/%.3f/%.3f %s\n",
			     s.min * k, s.mean * k, s.max * k, s.mdev * k, d->bits ? "b/s" : "B/s");
	emit(r, line, (size_t)n);
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

static void setup_signals(const struct pv_run *r)
{
	catch_signal(SIGINT, on_stop);
	catch_signal(SIGTERM, on_stop);
	catch_signal(SIGHUP, on_stop);
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
	if (r->show)
		start_ticks(r->o->interval);
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

int cmd_pv(int argc, char **argv)
{
	enum cmd_parse parsed;
	struct pv_opts o;
	struct pv_run r;
	int rc, out, store = -1;
	size_t bufsize;
	struct pv_xfer_opts xo;
	char *store_name[1];

	if ((parsed = parse_into(argc, argv, &o)) != CMD_PARSE_RUN)
		return cmd_parse_exit(parsed, PV_EXIT_USAGE);
	if (o.watch_pid > 0)
		return cmd_pv_watch(&o, !o.quiet && (o.numeric || o.force || isatty(STDERR_FILENO)));
	if (o.remote_pid > 0)
		return cmd_pv_remote(&o);
	if (o.query_pid > 0)
		return cmd_pv_query(&o, !o.quiet && (o.numeric || o.force || isatty(STDERR_FILENO)));
	/* Past ulimit -f, report the EFBIG write error (status 16) instead of dying of
	 * SIGXFSZ without a word as pv does; nothing is lost before it (faults.bats). */
	signal(SIGXFSZ, SIG_IGN);
	memset(&r, 0, sizeof(r));
	r.o = &o;
	r.show = !o.quiet && (o.numeric || o.force || isatty(STDERR_FILENO));
	if ((rc = resolve_size(&r)) != 0)
		return rc;
	if (o.pidfile && write_pidfile(o.pidfile) < 0)
		return PV_EXIT_PIDFILE;
	out = open_output(&o);
	rc = out < 0 && (!o.discard || o.output) ? PV_EXIT_ACCESS : check_and_truncate_output(&o, out, o.output);
	if (rc == 0 && o.store_file) {
		/* Not O_TRUNC: an input may be this very file (refused below, the file intact). */
		store = open(o.store_file, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (store < 0) {
			pv_error("%s: %s", o.store_file, strerror(errno));
			rc = PV_EXIT_ACCESS;
		} else {
			rc = check_and_truncate_output(&o, store, o.store_file);
		}
	}
	if (rc != 0) {
		if (out > STDERR_FILENO)
			close(out);
		if (store >= 0)
			close(store);
		if (o.pidfile)
			unlink(o.pidfile);
		return rc;
	}
	bufsize = o.buffer_size ? (size_t)o.buffer_size : PV_BUFFER_DEFAULT;
	xo.buffer_size = bufsize;
	xo.no_splice = o.no_splice;
	xo.count_lines = o.lines;
	xo.eol = o.null ? '\0' : '\n';
	xo.sync = o.sync;
	xo.discard = o.discard;
	xo.skip_errors = o.skip_errors;
	xo.skip_block = o.skip_block;
	xo.sparse = o.sparse;
	xo.direct = o.direct;
	if ((r.x = pv_xfer_new(store >= 0 ? store : out, &xo)) == NULL) {
		pv_error("buffer of %zu bytes: %s", bufsize, strerror(errno));
		return PV_EXIT_USAGE;
	}
	if (pv_xfer_output_is_pipe(r.x) && !o.no_splice)
		pv_xfer_grow_pipe(out, PV_PIPE_SIZE);

	if (!o.has_width)
		o.disp.width = pv_tty_width(STDERR_FILENO, 80);
	/* On a terminal the line never wraps (even with a wider -w); elsewhere, as pv 1.10. */
	o.disp.fit = pv_tty_width(STDERR_FILENO, 0);
	display_init(&r.disp, &o.disp);
	if (o.window_title) {
		struct display_opts t = o.disp;

		t.numeric = 0;
		t.fit = 0; /* a title is no line of the terminal: as long as pv 1.10's */
		if (o.extra_format)
			t.format = o.extra_format;
		display_init(&r.title, &t);
	}
	if (r.show && o.cursor && !o.numeric) {
		char why[128];

		/* Without a terminal that answers, -c falls back to the usual line, as pv's does. */
		r.cursor = pv_cursor_open(STDERR_FILENO, why, sizeof(why));
	}
	r.begin = r.token_time = clock_now();
	meter_set_window(&r.meter, o.avg_window);
	meter_start(&r.meter, r.begin);
	setup_signals(&r);

	if (store >= 0)
		r.disp.o.name = "(input)"; /* -U: the first line is the storing */
	copy_all(&r);
	if (store >= 0 && !stop_signal && !r.write_failed && r.opened > 0) {
		last_line(&r);
		store_name[0] = (char *)o.store_file;
		if (forward_stored(&r, out, &xo, store_name, o.disp.name) < 0)
			r.status |= PV_EXIT_USAGE;
	}
	if (store >= 0)
		close(store);
	if (pv_xfer_finish(r.x) < 0) {
		pv_error("write failed: %s", strerror(errno));
		r.status |= PV_EXIT_TRANSFER;
	}

	stop_ticks();
	if (stop_signal)
		r.status |= PV_EXIT_SIGNAL;
	last_line(&r);
	if (o.stats)
		print_stats(&r);
	if (out > STDERR_FILENO && close(out) < 0) {
		pv_error("%s: %s", o.output, strerror(errno));
		r.status |= PV_EXIT_TRANSFER;
	}
	pv_xfer_free(r.x);
	pv_cursor_close(r.cursor);
	if (o.pidfile)
		unlink(o.pidfile);
	return r.status;
}
