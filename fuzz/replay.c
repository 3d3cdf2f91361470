/* SPDX-License-Identifier: ISC */
/* replay.c - a main() for the fuzz harnesses without libFuzzer: runs each file named on the
 * command line through LLVMFuzzerTestOneInput once, so the corpus and every past crash are
 * replayed by `make check` with the ordinary compiler (and under ASan by `make asan`). */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

/* libFuzzer calls LLVMFuzzerInitialize only when a harness defines it; so do we. */
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int main(int argc, char **argv)
{
	int failed = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		uint8_t *buf = NULL;
		size_t len = 0, cap = 0, n;

		if (f == NULL) {
			perror(argv[i]);
			failed = 1;
			continue;
		}
		do {
			if (len == cap) {
				uint8_t *bigger = realloc(buf, cap = cap ? cap * 2 : 4096);

				if (bigger == NULL)
					abort();
				buf = bigger;
			}
			n = fread(buf + len, 1, cap - len, f);
			len += n;
		} while (n > 0);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, len);
		free(buf);
	}
	return failed;
}
