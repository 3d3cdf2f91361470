/* SPDX-License-Identifier: ISC */
/* fuzz.h - what the fuzz harnesses share: the libFuzzer entry points and a
 * NUL-terminated heap copy of the input, so ASan sees any read past its end. */
#ifndef NCPV_FUZZ_H
#define NCPV_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A malloc'd copy of data with a NUL after it; the caller frees it. */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s == NULL)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif
