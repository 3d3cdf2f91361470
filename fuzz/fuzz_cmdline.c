/* SPDX-License-Identifier: ISC */
/* fuzz_cmdline.c - libFuzzer harness for every subcommand's command line: the first byte picks
 * the command, the rest is split into arguments at newlines and NULs. Only parsing runs. */
#include <stdio.h>

#include "fuzz.h"
#include "../src/cmd/cmd.h"
#include "../src/cmd/nc_cmd.h"
#include "../src/cmd/pv_cmd.h"

#define MAX_ARGS 64

/* pv's engine-side parser prints nothing: an error must come with its message. */
static enum cmd_parse pv_parse(int argc, char **argv)
{
	struct pv_opts o;
	struct pv_parse_err e;

	switch (pv_parse_options(argc, argv, &o, &e)) {
	case PV_PARSE_RUN:
		return CMD_PARSE_RUN;
	case PV_PARSE_ERROR:
		return e.msg[0] != '\0' ? CMD_PARSE_USAGE : (enum cmd_parse)99;
	default:
		return CMD_PARSE_DONE;
	}
}

static enum cmd_parse nc_parse(int argc, char **argv)
{
	struct nc_opts o;
	struct cmd_tls tls;

	return nc_parse_options(argc, argv, NULL, &o, &tls);
}

static const struct {
	const char *name;
	enum cmd_parse (*parse)(int argc, char **argv);
} commands[] = {
	{ "serve", cmd_serve_parse },
	{ "get", cmd_get_parse },
	{ "pv", pv_parse },
	{ "devtcp", cmd_devtcp_parse },
	{ "nc", nc_parse },
	{ "bench", cmd_bench_parse },
	{ "link", cmd_link_parse },
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
	int argc = 1;
	enum cmd_parse rc;
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
	if (rc != CMD_PARSE_RUN && rc != CMD_PARSE_DONE && rc != CMD_PARSE_USAGE)
		abort(); /* parsing alone may only accept, show help, or refuse as a usage error */
	free(s);
	return 0;
}
