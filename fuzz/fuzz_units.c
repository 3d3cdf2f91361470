/* SPDX-License-Identifier: ISC */
/* fuzz_units.c - libFuzzer harness for sizes, durations, rates and bounded numbers (src/units.c),
 * and for the formatters fed with whatever the parsers accepted. */
#include <math.h>

#include "fuzz.h"
#include "../src/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size), out[64];
	uint64_t bytes;
	double secs, bits;
	long n;

	if (units_parse_size(s, &bytes) == 0)
		units_format_iec(out, sizeof(out), (double)bytes);
	if (units_parse_seconds(s, &secs) == 0) {
		if (!(secs >= 0) || secs > 366.0 * 86400)
			abort(); /* the header promises a non-negative duration of at most a year */
		units_format_hms(out, sizeof(out), secs);
	}
	if (units_parse_bitrate(s, &bits) == 0 && !(bits > 0))
		abort();
	if (units_parse_long(s, -1000, 1000000, &n) == 0 && (n < -1000 || n > 1000000))
		abort();
	/* The formatters take any double a meter can produce, including the odd ones. */
	if (size >= sizeof(double)) {
		double v;

		memcpy(&v, data, sizeof(v));
		units_format_hms(out, sizeof(out), v);
		units_format_iec(out, sizeof(out), v);
		units_format_iec(out, 1, v);
	}
	free(s);
	return 0;
}
