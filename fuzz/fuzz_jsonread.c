/* SPDX-License-Identifier: ISC */
/* fuzz_jsonread.c - libFuzzer harness for the JSON reader (src/jsonread.c) and what
 * bench compare does with two parsed documents (src/bench/compare.c); the reader
 * that keeps only some members must accept and refuse exactly the same texts. */
#include "fuzz.h"
#include "../src/jsonread.h"
#include "../src/bench/compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keep[] = { "tests", "methods", "runs", "name", "ok", "value", "a", NULL };
	struct jvalue *v = NULL, *w = NULL;
	struct compare_row rows[16];
	char err[128], err2[128];
	int more, full, some;

	/* The exact bytes, not a NUL-terminated copy: the reader takes a length. */
	char *copy = malloc(size + 1);

	if (copy == NULL)
		abort();
	memcpy(copy, data, size);
	full = jv_parse(copy, size, &v, err, sizeof(err));
	some = jv_parse_keep(copy, size, keep, &w, err2, sizeof(err2));
	if (full != some || (full < 0 && strcmp(err, err2) != 0))
		abort();
	if (some == 0) {
		(void)compare_runs(w, w, 0.05, rows, 16, &more, err2, sizeof(err2));
		jv_free(w);
	}
	if (full == 0) {
		if (v == NULL)
			abort();
		(void)compare_runs(v, v, 0.05, rows, 16, &more, err, sizeof(err));
		jv_free(v);
	} else if (v != NULL || err[0] == '\0') {
		abort(); /* a failure leaves nothing and says why */
	}
	free(copy);
	return 0;
}
