/* SPDX-License-Identifier: ISC */
/* fuzz_sidechan.c - libFuzzer harness for the side channel's parsers (src/sidechan.c): what
 * serve reads from any client that sends first, and what get reads back. A line that parses is
 * written again and must parse to the same values. */
#include "fuzz.h"
#include "../src/sidechan.h"

static void check(int rc, size_t len)
{
	if (rc != SIDE_PARTIAL && rc != SIDE_MALFORMED && (rc <= 0 || (size_t)rc > len || rc > SIDE_LINE_MAX))
		abort();
	if (rc == SIDE_PARTIAL && len >= SIDE_LINE_MAX)
		abort(); /* the bound: never waits for more than a line's worth */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1);
	char line[SIDE_LINE_MAX];
	struct side_hello h, h2;
	struct side_answer a, a2;
	struct side_report r, r2;
	int rc, n;

	if (buf == NULL)
		abort();
	memcpy(buf, data, size);
	rc = side_parse_hello(buf, size, &h);
	check(rc, size);
	if (rc > 0 && (n = side_format_hello(line, sizeof(line), &h)) > 0) {
		if (side_parse_hello(line, (size_t)n, &h2) != n || h2.role != h.role || strcmp(h2.token, h.token) != 0 ||
		    h2.ask_size != h.ask_size)
			abort();
	}
	rc = side_parse_answer(buf, size, &a);
	check(rc, size);
	if (rc > 0 && (n = side_format_answer(line, sizeof(line), &a)) > 0) {
		if (side_parse_answer(line, (size_t)n, &a2) != n || a2.ok != a.ok || a2.has_size != a.has_size || a2.size != a.size ||
		    a2.rate_bps != a.rate_bps)
			abort();
	}
	rc = side_parse_report(buf, size, &r);
	check(rc, size);
	if (rc > 0) {
		n = side_format_report(line, sizeof(line), &r);
		if (n <= 0 || side_parse_report(line, (size_t)n, &r2) != n || memcmp(&r, &r2, sizeof(r)) != 0)
			abort();
	}
	side_maybe_hello(buf, size);
	free(buf);
	return 0;
}
