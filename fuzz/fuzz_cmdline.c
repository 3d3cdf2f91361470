/* SPDX-License-Identifier: ISC */
/* fuzz_cmdline.c - libFuzzer harness for every subcommand's command line: the first byte picks
 * the command, the rest is split into arguments at newlines and NULs. Only parsing runs. */
#include <stdio.h>

#include "fuzz.h"
#include "../src/cmd/cmd.h"
#include "../src/nc/nc.h"
#include "../src/pv/opts.h"

#define MAX_ARGS 64

static int pv_parse(int argc, char **argv)
{
	struct pv_opts o;
	struct pv_parse_err e;

	/* The parser never prints; the message must be one or two lines, never empty. */
	switch (pv_parse_options(argc, argv, &o, &e)) {
	case PV_PARSE_RUN:
		return 0;
	case PV_PARSE_ERROR:
		if (e.msg[0] == '\0')
			__builtin_trap();
		return NCPV_EXIT_USAGE;
	default:
		return -1;
	}
}

static int nc_parse(int argc, char **argv)
{
	struct nc_opts o;
	int rc = nc_parse_options(argc, argv, &o);

	/* nc's own convention: 0 go on, 1 after --help, -1 after an error (exit 1). */
	return rc == 1 ? -1 : rc == -1 ? NCPV_EXIT_USAGE : rc;
}

static const struct {
	const char *name;
	int (*parse)(int argc, char **argv);
} commands[] = {
	{ "serve", cmd_serve_parse },
	{ "get", cmd_get_parse },
	{ "pv", pv_parse },
	{ "devtcp", cmd_devtcp_parse },
	{ "nc", nc_parse },
	{ "bench", cmd_bench_parse },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	FILE *null = fopen("/dev/null", "w");

	(void)argc;
	(void)argv;
	/* Usage and error lines are expected output, not findings: send them nowhere.
	 * Sanitizer reports write to fd 2 directly and still show. */
	if (null != NULL) {
		stdout = null;
		stderr = null;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, *argv[MAX_ARGS + 2];
	int argc = 1, rc;
	size_t which;

	if (size == 0)
		return 0;
	which = data[0] % NCOMMANDS;
	s = fuzz_string(data + 1, size - 1);
	argv[0] = (char *)commands[which].name;
	for (char *p = s, *end = s + size - 1; p <= end && argc <= MAX_ARGS;) {
		char *stop = p;

		while (stop < end && *stop != '\n' && *stop != '\0')
			stop++;
		*stop = '\0';
		argv[argc++] = p;
		p = stop + 1;
	}
	argv[argc] = NULL;
	rc = commands[which].parse(argc, argv);
	if (rc != 0 && rc != -1 && rc != NCPV_EXIT_USAGE)
		abort(); /* parsing alone may only accept, show help, or refuse as a usage error */
	free(s);
	return 0;
}
