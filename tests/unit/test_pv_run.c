/* SPDX-License-Identifier: ISC */
/* test_pv_run.c - the pv engine alone: inputs to -o's file, a missing input said through the
 * say callback (nothing printed), -S's stop, and a cancel flag that stops the run. */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "clock.h"
#include "pv/pv.h"

struct heard {
	char lines[4][256];
	int n, ticks;
};

static void hear(void *ctx, int error, const char *line)
{
	struct heard *h = ctx;

	(void)error;
	if (h->n < 4)
		snprintf(h->lines[h->n++], sizeof(h->lines[0]), "%s", line);
}

static void count_tick(void *ctx, struct pv_run *r)
{
	(void)r;
	((struct heard *)ctx)->ticks++;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static size_t read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, len, f);
	fclose(f);
	return n;
}

/* Copy files to out with o's extras; the heard lines in h. */
static void run(struct pv_opts *o, char **files, int nfiles, const char *out, const volatile sig_atomic_t *cancel,
		struct heard *h, struct pv_run *r)
{
	struct pv_events ev = { hear, count_tick, h };
	char err[256];
	uint64_t size;

	o->files = files;
	o->nfiles = nfiles;
	o->output = out;
	o->interval = 1;
	memset(h, 0, sizeof(*h));
	assert_int_equal(pv_size_find(o, 0, &size, err, sizeof(err)), 0);
	assert_int_equal(pv_run_open(r, o, size, &ev, cancel, err, sizeof(err)), 0);
	pv_run_start(r, clock_now());
	pv_run_copy(r);
	assert_int_equal(pv_run_finish(r, err, sizeof(err)), 0);
	assert_int_equal(pv_run_close(r), 0);
}

static void test_inputs_in_turn_and_a_missing_one_said(void **state)
{
	char dir[] = "/tmp/test_pv_run.XXXXXX", a[64], b[64], gone[64], out[64], got[64];
	char *files[3] = { a, gone, b };
	volatile sig_atomic_t stop = 0;
	struct pv_opts o;
	struct pv_run r;
	struct heard h;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	snprintf(gone, sizeof(gone), "%s/gone", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	write_file(a, "first\n");
	write_file(b, "second\n");
	memset(&o, 0, sizeof(o));
	run(&o, files, 3, out, &stop, &h, &r);
	assert_int_equal(read_file(out, got, sizeof(got)), 13);
	assert_memory_equal(got, "first\nsecond\n", 13);
	assert_int_equal(r.count, 13);
	assert_int_equal(r.opened, 2);
	assert_int_equal(r.faults, PV_FAULT_ACCESS);
	assert_int_equal(h.n, 1);
	assert_non_null(strstr(h.lines[0], "failed to read file: "));
	assert_non_null(strstr(h.lines[0], "/gone: No such file or directory"));
	assert_true(h.ticks > 0);

	/* -S with -s 8: the first 8 bytes, across both files. */
	memset(&o, 0, sizeof(o));
	o.stop_at_size = o.has_size = 1;
	o.size = 8;
	files[1] = b;
	run(&o, files, 2, out, &stop, &h, &r);
	assert_int_equal(read_file(out, got, sizeof(got)), 8);
	assert_memory_equal(got, "first\nse", 8);
	assert_int_equal(r.faults, 0);

	/* The cancel flag set: nothing moves, nothing is said. */
	memset(&o, 0, sizeof(o));
	stop = 1;
	run(&o, files, 2, out, &stop, &h, &r);
	assert_int_equal(read_file(out, got, sizeof(got)), 0);
	assert_int_equal(r.count, 0);
	assert_int_equal(h.n, 0);

	unlink(a);
	unlink(b);
	unlink(out);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inputs_in_turn_and_a_missing_one_said),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
