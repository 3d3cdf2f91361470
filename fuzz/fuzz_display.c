/* SPDX-License-Identifier: ISC */
/* fuzz_display.c - libFuzzer harness for pv-style status lines (src/display.c): a -F format
 * string, display flags, and a frame of counts, sizes and times as pv's transfer loop fills it. */
#include <math.h>

#include "fuzz.h"
#include "../src/display.h"

/* Header bytes: flags (2), width, -A count, count (8), size (8), elapsed ms (4), rate (4),
 * wall clock (4), buffer percent; the rest is the format string (and the -A bytes). */
#define HEADER (2 + 1 + 1 + 8 + 8 + 4 + 4 + 4 + 1)

static uint64_t take(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct display_opts o;
	struct display d;
	struct display_frame f;
	char *fmt, line[DISPLAY_LINE_MAX + 64], small[8], bad[32];
	size_t n;

	if (size < HEADER)
		return 0;
	display_defaults(&o);
	o.bytes = data[0] & 1;
	o.timer = data[0] >> 1 & 1;
	o.rate = data[0] >> 2 & 1;
	o.average = data[0] >> 3 & 1;
	o.progress = data[0] >> 4 & 1;
	o.eta = data[0] >> 5 & 1;
	o.fineta = data[0] >> 6 & 1;
	o.bufpercent = data[0] >> 7 & 1;
	o.lines = data[1] & 1;
	o.bits = data[1] >> 1 & 1;
	o.si = data[1] >> 2 & 1;
	o.name = data[1] >> 3 & 1 ? "name" : NULL;
	o.width = (int)(int8_t)data[2] * 4; /* negative, zero, narrow and wide terminals */
	o.last_written = data[3] % (DISPLAY_LAST_MAX + 1);
	o.fit = data[1] >> 6 & 1 ? data[3] % 201 : 0; /* a terminal of 0 (none) to 200 columns */

	fmt = fuzz_string(data + HEADER, size - HEADER);
	/* pv refuses an unknown %{name} before it draws anything; only checked formats render. */
	if (data[1] >> 4 & 1) {
		if (strlen(fmt) >= DISPLAY_LINE_MAX || display_check_format(fmt, bad, sizeof(bad)) < 0) {
			free(fmt);
			return 0;
		}
		o.format = fmt;
	}
	display_init(&d, &o);
	memset(&f, 0, sizeof(f));
	f.count = take(data + 4, 8);
	f.size = take(data + 12, 8) >> (data[12] & 63);
	f.elapsed = (double)take(data + 20, 4) / 1000.0;
	f.rate = (double)take(data + 24, 4) * (data[1] >> 5 & 1 ? 1e6 : 1.0);
	f.average = f.elapsed > 0 ? (double)f.count / f.elapsed : 0;
	f.now = (time_t)take(data + 28, 4);
	f.buffer_percent = (int)(int8_t)data[32];
	f.last = (const unsigned char *)fmt;
	f.last_len = strlen(fmt) < (size_t)o.last_written ? strlen(fmt) : (size_t)o.last_written;
	for (int final = 0; final <= 1; final++) {
		f.final = final;
		n = display_line(&d, &f, line, sizeof(line));
		if (n >= sizeof(line) || n != strlen(line))
			abort(); /* the header promises the length written, at most len - 1 */
		if (o.fit > 0 && display_columns(line, n) > (size_t)o.fit)
			abort(); /* a line fitted to a terminal never wraps */
		n = display_line(&d, &f, small, sizeof(small));
		if (n >= sizeof(small))
			abort();
		n = display_numeric(&d, &f, line, sizeof(line));
		if (n >= sizeof(line))
			abort();
		f.count += 4096; /* the bar bounces when the count moves */
	}
	free(fmt);
	return 0;
}
