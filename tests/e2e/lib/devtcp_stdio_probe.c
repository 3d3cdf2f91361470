/* SPDX-License-Identifier: ISC */
/* devtcp_stdio_probe.c - test helper: copy through the stdio calls the library must catch.
 * "r PATH": freopen(PATH, "r", stdin), copy stdin to stdout;
 * "w PATH": freopen(PATH, "w", stdout), copy stdin to stdout;
 * "a PATH": fopen(PATH, "a"), copy stdin to it. */
#include <stdio.h>
#include <string.h>

static int copy(FILE *in, FILE *out)
{
	char buf[8192];
	size_t n;

	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			return 1;
	return ferror(in) || fflush(out) != 0;
}

int main(int argc, char **argv)
{
	FILE *f;

	if (argc != 3)
		return 2;
	if (strcmp(argv[1], "a") == 0) {
		if ((f = fopen(argv[2], "a")) == NULL) {
			perror(argv[2]);
			return 1;
		}
		return copy(stdin, f) | (fclose(f) != 0);
	}
	if (freopen(argv[2], argv[1], argv[1][0] == 'r' ? stdin : stdout) == NULL) {
		perror(argv[2]);
		return 1;
	}
	return copy(stdin, stdout);
}
