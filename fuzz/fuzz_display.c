/* fuzz_display.c - libFuzzer harness for pv-style status lines (src/display.c): a format string
 * as given to -F, display flags and a meter reading taken from fuzzed byte counts and times. */
#include <math.h>

#include "fuzz.h"
#include "../src/display.h"
#include "../src/meter.h"

/* Header bytes: flags, width, then bytes, size, elapsed and a second reading's time. */
#define HEADER (2 + 8 + 8 + 4 + 4)

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
	struct meter m;
	struct meter_reading r;
	char *fmt, line[1024], small[8];
	uint64_t bytes, total;
	double t1, t2;
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
	o.bits = data[0] >> 6 & 1;
	o.si = data[0] >> 7 & 1;
	o.width = (int)(int8_t)data[1] * 4; /* negative, zero, narrow and wide terminals */
	bytes = take(data + 2, 8);
	total = take(data + 10, 8) >> (data[10] & 63);
	t1 = (double)take(data + 18, 4) / 1000.0; /* up to ~50 days, in ms */
	t2 = t1 + (double)take(data + 22, 4) / 1e6;
	fmt = fuzz_string(data + HEADER, size - HEADER);
	o.format = size > HEADER ? fmt : NULL;
	o.name = data[1] & 1 ? "name" : NULL;

	meter_start(&m, 0);
	meter_add(&m, bytes / 2);
	meter_read(&m, t1, total, &r);
	meter_add(&m, bytes - bytes / 2);
	meter_read(&m, t2, total, &r);
	for (int final = 0; final <= 1; final++) {
		n = display_line(line, sizeof(line), &o, &r, total, final);
		if (n >= sizeof(line) || n != strlen(line))
			abort(); /* the header promises the length written, at most len - 1 */
		n = display_line(small, sizeof(small), &o, &r, total, final);
		if (n >= sizeof(small))
			abort();
	}
	free(fmt);
	return 0;
}
