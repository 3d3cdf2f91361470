/* SPDX-License-Identifier: ISC */
/* bench_compare.c - "ncpv bench compare A.json B.json": two saved runs of the
 * bench side by side, so that a change (a kernel, a sysctl, a version) can
 * be tested: per method the ratio B/A of medians and a Mann-Whitney verdict. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../jsonread.h"
#include "../termsafe.h"
#include "../bench/compare.h"
#include "../bench/saved.h"
#include "../bench/report.h"

#define COMPARE_MAX_ROWS 256
#define COMPARE_ALPHA 0.05

static void compare_usage(FILE *f)
{
	fprintf(f,
		"Usage: ncpv bench compare A.json B.json\n"
		"Compare two runs saved with ncpv bench --json (or the JSON beside a report):\n"
		"for each method of each test, the medians, the ratio B/A and whether B is\n"
		"faster, slower or the same as A beyond run-to-run spread (Mann-Whitney U,\n"
		"p < 0.05). Exit: 0 done, 2 bad usage, 6 a file is unreadable or not bench JSON.\n");
}

static char *value(char *buf, size_t len, const struct compare_row *r, double v, size_t n)
{
	if (n == 0)
		snprintf(buf, len, "-");
	else
		report_value(buf, len, strcmp(r->unit, "B/s") == 0 ? BENCH_STREAM : BENCH_FILES, v);
	return buf;
}

int cmd_bench_compare(int argc, char **argv)
{
	struct compare_row *rows;
	struct jvalue *a, *b;
	char err[256], why[8192], va[32], vb[32], verdict[48], setup[512], safe[2048], name[4 * sizeof(rows->method) + 1];
	char version[2][64];
	int n, more;

	if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		compare_usage(stdout);
		return NCPV_EXIT_OK;
	}
	if (argc != 3) {
		cmd_error("bench", "compare needs two files: ncpv bench compare A.json B.json");
		return NCPV_EXIT_USAGE;
	}
	/* A message may quote a member's name from the file: cmd_error escapes it. */
	if ((a = saved_read(argv[1], why, sizeof(why))) == NULL) {
		cmd_error("bench", "%s", why);
		return NCPV_EXIT_FILE;
	}
	if ((b = saved_read(argv[2], why, sizeof(why))) == NULL) {
		cmd_error("bench", "%s", why);
		jv_free(a);
		return NCPV_EXIT_FILE;
	}
	rows = calloc(COMPARE_MAX_ROWS, sizeof(*rows));
	n = rows ? compare_runs(a, b, COMPARE_ALPHA, rows, COMPARE_MAX_ROWS, &more, err, sizeof(err)) : -1;
	if (n < 0 && rows != NULL) {
		/* What is wrong quotes names and units from the file: cmd_error escapes them. */
		cmd_error("bench", "%s %s", err[0] == 'A' ? argv[1] : argv[2], err + 2);
	} else if (n < 0) {
		cmd_error("bench", "out of memory");
	} else {
		/* Every string from a file reaches the terminal through termsafe. */
		printf("A: %s (ncpv %s)\nB: %s (ncpv %s)\n", argv[1],
		       termsafe_str(version[0], sizeof(version[0]), jv_string(a, "ncpv", "?")), argv[2],
		       termsafe_str(version[1], sizeof(version[1]), jv_string(b, "ncpv", "?")));
		compare_setup(a, b, setup, sizeof(setup));
		if (setup[0])
			printf("Not like for like (%s): a ratio mixes that with any other change.\n",
			       termsafe_str(safe, sizeof(safe), setup));
		printf("%-7s %-13s %10s %10s %8s  %s\n", "Test", "Method", "A median", "B median", "B/A", "B vs A");
		for (int i = 0; i < n; i++) {
			const struct compare_row *r = &rows[i];

			if (strcmp(r->verdict, "faster") == 0 || strcmp(r->verdict, "slower") == 0 ||
			    strcmp(r->verdict, "same") == 0)
				snprintf(verdict, sizeof(verdict), "%s p=%.2g", r->verdict, r->p);
			else
				snprintf(verdict, sizeof(verdict), "%s", r->verdict);
			printf("%-7s %-13s %10s %10s ", r->test, termsafe_str(name, sizeof(name), r->method), value(va, sizeof(va), r, r->median_a, r->na),
			       value(vb, sizeof(vb), r, r->median_b, r->nb));
			if (r->ratio > 0)
				printf(r->ratio < 10 ? "%7.3fx" : "%7.1fx", r->ratio);
			else
				printf("%8s", "-");
			printf("  %s\n", verdict);
		}
		if (more)
			printf("(only the first %d rows)\n", COMPARE_MAX_ROWS);
		printf("\nB vs A: faster/slower when a Mann-Whitney test of the two sets of runs puts the\n"
		       "difference beyond run-to-run spread (p < %.2g), otherwise same.\n", COMPARE_ALPHA);
	}
	free(rows);
	jv_free(a);
	jv_free(b);
	return n < 0 ? NCPV_EXIT_FILE : fflush(stdout) == 0 ? NCPV_EXIT_OK : NCPV_EXIT_FAIL;
}
