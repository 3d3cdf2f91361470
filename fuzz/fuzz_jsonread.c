/* SPDX-License-Identifier: ISC */
/* fuzz_jsonread.c - libFuzzer harness for the JSON reader (src/jsonread.c) and what
 * bench compare does with two parsed documents (src/bench/compare.c). */
#include "fuzz.h"
#include "../src/jsonread.h"
#include "../src/bench/compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jvalue *v = NULL;
	struct compare_row rows[16];
	char err[128];
	int more;

	/* The exact bytes, not a NUL-terminated copy: the reader takes a length. */
	char *copy = malloc(size + 1);

	if (copy == NULL)
		abort();
	memcpy(copy, data, size);
	if (jv_parse(copy, size, &v, err, sizeof(err)) == 0) {
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
