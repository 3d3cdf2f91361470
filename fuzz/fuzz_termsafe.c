/* SPDX-License-Identifier: ISC */
/* fuzz_termsafe.c - libFuzzer harness for the terminal escaping (src/termsafe.c):
 * whatever the bytes, the rendering holds no control byte and no C1 control,
 * fits the length it reports, and a short buffer gets a prefix of it. */
#include "fuzz.h"
#include "../src/termsafe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cap = 4 * size + 1, need, cut;
	char *full = malloc(cap), *part;

	if (full == NULL)
		abort();
	need = termsafe(full, cap, (const char *)data, size);
	if (need > 4 * size || strlen(full) != need)
		abort();
	for (size_t i = 0; i < need; i++) {
		unsigned char c = (unsigned char)full[i];

		if (c < 0x20 || c == 0x7f || (c == 0xc2 && i + 1 < need && (unsigned char)full[i + 1] < 0xa0))
			abort();
	}
	/* Cut to a size taken from the input: a prefix, NUL-terminated inside it. */
	cut = size ? data[0] % (need + 2) : 0;
	if ((part = malloc(cut + 1)) == NULL)
		abort();
	if (termsafe(part, cut, (const char *)data, size) != need)
		abort();
	if (cut > 0 && (strlen(part) >= cut || memcmp(part, full, strlen(part)) != 0))
		abort();
	free(part);
	free(full);
	return 0;
}
