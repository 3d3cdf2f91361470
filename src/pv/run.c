/* SPDX-License-Identifier: ISC */
/* run.c - pv's copy run: the inputs in turn to the output (or -U's file, then that file to it),
 * under -L and -S, counting into a meter; messages through struct pv_events, never printed. */
#include "pv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../clock.h"

/* Pipes we splice through are grown to this, so each splice moves more. */
#define PV_PIPE_SIZE (1u << 20)

static void say(const struct pv_run *r, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(const struct pv_run *r, int error, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (r->ev == NULL || r->ev->say == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	r->ev->say(r->ev->ctx, error, line);
}

static int cancelled(const struct pv_run *r)
{
	return r->cancel && *r->cancel;
}

/* The output: -o's file (not truncated yet), stdout, or -1 with -X alone. */
static int open_output(const struct pv_opts *o, char *err, size_t errlen)
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
		snprintf(err, errlen, "%s: %s", o->output, strerror(errno));
	return fd;
}

/* -o, -U: refuse (the file untouched) when an input is the file out, else truncate it as
 * open(O_TRUNC) would have. 0 or the pv_fault bit, err saying why. */
static int check_and_truncate(const struct pv_opts *o, int out, const char *path, char *err, size_t errlen)
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
			snprintf(err, errlen, "input file is output file: %s", std ? "(standard input)" : name);
			return PV_FAULT_SAME;
		}
	}
	if (ftruncate(out, 0) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return PV_FAULT_ACCESS;
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

static void set_xfer_opts(struct pv_xfer_opts *xo, const struct pv_opts *o)
{
	xo->buffer_size = o->buffer_size ? (size_t)o->buffer_size : PV_BUFFER_DEFAULT;
	xo->no_splice = o->no_splice;
	xo->count_lines = o->lines;
	xo->eol = o->null ? '\0' : '\n';
	xo->sync = o->sync;
	xo->discard = o->discard;
	xo->skip_errors = o->skip_errors;
	xo->skip_block = o->skip_block;
	xo->sparse = o->sparse;
	xo->direct = o->direct;
}

int pv_run_open(struct pv_run *r, const struct pv_opts *o, uint64_t size, const struct pv_events *ev,
		const volatile sig_atomic_t *cancel, char *err, size_t errlen)
{
	int fault;

	memset(r, 0, sizeof(*r));
	r->o = o;
	r->ev = ev;
	r->cancel = cancel;
	r->size = size;
	r->store = -1;
	r->out = open_output(o, err, errlen);
	fault = r->out < 0 && (!o->discard || o->output) ? PV_FAULT_ACCESS : check_and_truncate(o, r->out, o->output, err, errlen);
	if (fault == 0 && o->store_file) {
		/* Not O_TRUNC: an input may be this very file (refused below, the file intact). */
		r->store = open(o->store_file, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (r->store < 0) {
			snprintf(err, errlen, "%s: %s", o->store_file, strerror(errno));
			fault = PV_FAULT_ACCESS;
		} else {
			fault = check_and_truncate(o, r->store, o->store_file, err, errlen);
		}
	}
	set_xfer_opts(&r->xo, o);
	if (fault == 0 && (r->x = pv_xfer_new(r->store >= 0 ? r->store : r->out, &r->xo)) == NULL) {
		snprintf(err, errlen, "buffer of %zu bytes: %s", r->xo.buffer_size, strerror(errno));
		fault = PV_FAULT_MEMORY;
	}
	if (fault != 0) {
		if (r->out > STDERR_FILENO)
			close(r->out);
		if (r->store >= 0)
			close(r->store);
		r->out = r->store = -1;
		return fault;
	}
	if (pv_xfer_output_is_pipe(r->x) && !o->no_splice)
		pv_xfer_grow_pipe(r->out, PV_PIPE_SIZE);
	return 0;
}

void pv_run_start(struct pv_run *r, double now)
{
	r->begin = now;
	pv_limit_start(&r->limit, r->o->rate_limit, now);
	meter_set_window(&r->meter, r->o->avg_window);
	meter_start(&r->meter, now);
}

enum copy_end { COPY_NEXT, COPY_STOP };

/* -E skipped a range: pv's wording, one warning per file, then each range unless -EE. */
static void report_skip(struct pv_run *r, const char *name, int *warned)
{
	uint64_t at, len;
	int err;

	pv_xfer_skipped(r->x, &at, &len, &err);
	if (!*warned)
		say(r, 0, "%s: warning: read errors detected: %s", name, strerror(err));
	if (r->o->skip_errors < 2)
		say(r, 0, "%s: skipped past read error: %llu - %llu (%llu B)", name, (unsigned long long)at,
		    (unsigned long long)at + len, (unsigned long long)len);
	*warned = 1;
	r->faults |= PV_FAULT_TRANSFER; /* pv 1.10: data was lost, even if skipped */
}

/* Copy one open input; returns COPY_STOP when the whole run must end. */
static enum copy_end copy_input(struct pv_run *r, int in, const char *name)
{
	const struct pv_opts *o = r->o;
	int warned = 0;

	pv_xfer_set_input(r->x, in);
	for (;;) {
		uint64_t max = UINT64_MAX, max_lines = UINT64_MAX, bytes = 0, lines = 0, moved;
		enum pv_step step;

		if (cancelled(r))
			return COPY_STOP;
		if (r->ev && r->ev->tick)
			r->ev->tick(r->ev->ctx, r);
		if (o->stop_at_size && r->size > 0) {
			if (r->count >= r->size)
				return COPY_STOP;
			if (o->lines)
				max_lines = r->size - r->count;
			else
				max = r->size - r->count;
		}
		if (r->limit.rate) {
			/* In line mode, as in pv, the limit counts lines. */
			double wait;
			uint64_t allow = pv_limit_allow(&r->limit, clock_now(), &wait);

			if (allow == 0) {
				clock_sleep(wait); /* interruptible: a tick or a stop comes first */
				continue;
			}
			if (o->lines && allow < max_lines)
				max_lines = allow;
			else if (!o->lines && allow < max)
				max = allow;
		}
		step = pv_xfer_step(r->x, max, max_lines, &bytes, &lines);
		moved = o->lines ? lines : bytes;
		if (r->limit.rate)
			pv_limit_spend(&r->limit, moved);
		if (moved > 0 && !r->started) {
			r->started = 1;
			if (o->wait)
				meter_start(&r->meter, clock_now());
		}
		r->count += moved;
		meter_add(&r->meter, moved);
		switch (step) {
		case PV_STEP_MOVED:
		case PV_STEP_AGAIN:
			break;
		case PV_STEP_EOF:
			return COPY_NEXT;
		case PV_STEP_SKIPPED:
			report_skip(r, name, &warned);
			break;
		case PV_STEP_READ_ERR:
			say(r, 1, "%s: read failed: %s", name, strerror(errno));
			r->faults |= PV_FAULT_TRANSFER;
			return COPY_NEXT;
		case PV_STEP_WRITE_ERR:
			/* A reader that went away ends the run quietly, as pv does. */
			if (errno != EPIPE) {
				say(r, 1, "write failed: %s", strerror(errno));
				r->faults |= PV_FAULT_TRANSFER;
			}
			r->reader_gone = errno == EPIPE;
			r->write_failed = 1;
			return COPY_STOP;
		}
	}
}

/* Copy the named inputs ("-": stdin) in turn. */
static void copy_files(struct pv_run *r, char *const *files, int nfiles)
{
	int n = nfiles > 0 ? nfiles : 1, opened = 0;

	for (int i = 0; i < n && !cancelled(r); i++) {
		const char *name = nfiles > 0 ? files[i] : "-";
		int std = strcmp(name, "-") == 0;
		int in = std ? STDIN_FILENO : open(name, O_RDONLY | O_CLOEXEC);
		int fl = std ? fcntl(in, F_GETFL) : 0;

		/* stdin closed (pv <&-; main's guard leaves a write-only /dev/null there): pv's words
		 * and status 2, not a read error. */
		if (std && (fl < 0 || (fl & O_ACCMODE) == O_WRONLY)) {
			say(r, 1, "failed to stat file: -: %s", strerror(EBADF));
			r->faults |= PV_FAULT_ACCESS;
			continue;
		}
		if (in < 0) {
			say(r, 1, "failed to read file: %s: %s", name, strerror(errno));
			r->faults |= PV_FAULT_ACCESS;
			continue;
		}
		opened++;
		if (same_as_output(in, pv_xfer_output(r->x))) {
			say(r, 1, "input file is output file: %s", name);
			r->faults |= PV_FAULT_SAME;
		} else {
			/* Between two pipes, or into /dev/null: into a file a bigger input pipe costs its
			 * writer cache misses (pipe>file 25% more system time, bench/pv-shapes.sh); into
			 * /dev/null the same CPU and a third of the context switches (a splice per 1 MiB,
			 * not per 64 KiB). */
			if (!r->o->no_splice && (pv_xfer_output_is_pipe(r->x) || pv_xfer_output_is_null(r->x)))
				pv_xfer_grow_pipe(in, PV_PIPE_SIZE);
			if (copy_input(r, in, std ? "(standard input)" : name) == COPY_STOP)
				i = n;
		}
		if (!std && close(in) < 0)
			r->faults |= PV_FAULT_CLOSE;
	}
	r->opened = opened;
}

void pv_run_copy(struct pv_run *r)
{
	copy_files(r, r->o->files, r->o->nfiles);
}

int pv_run_forward(struct pv_run *r, char *err, size_t errlen)
{
	char *store_name[1] = { (char *)r->o->store_file };
	uint64_t stored = r->count;

	pv_xfer_free(r->x);
	if ((r->x = pv_xfer_new(r->out, &r->xo)) == NULL) {
		snprintf(err, errlen, "buffer of %zu bytes: %s", r->xo.buffer_size, strerror(errno));
		return -1;
	}
	if (!r->o->has_size)
		r->size = stored;
	r->count = 0;
	r->started = 0;
	r->begin = clock_now();
	meter_start(&r->meter, r->begin);
	copy_files(r, store_name, 1);
	return 0;
}

int pv_run_finish(struct pv_run *r, char *err, size_t errlen)
{
	if (r->store >= 0)
		close(r->store);
	r->store = -1;
	if (r->x && pv_xfer_finish(r->x) < 0) {
		snprintf(err, errlen, "write failed: %s", strerror(errno));
		r->faults |= PV_FAULT_TRANSFER;
		return -1;
	}
	return 0;
}

int pv_run_close(struct pv_run *r)
{
	int rc = 0;

	if (r->out > STDERR_FILENO && close(r->out) < 0)
		rc = -1;
	r->out = -1;
	pv_xfer_free(r->x);
	r->x = NULL;
	return rc;
}

void pv_run_set_rate(struct pv_run *r, uint64_t rate, double now)
{
	pv_limit_start(&r->limit, rate, now);
}

void pv_run_set_size(struct pv_run *r, uint64_t size)
{
	r->size = size;
}
