/* SPDX-License-Identifier: ISC */
/* main.c - ncpv's entry point: picks the subcommand, or the tool named by argv[0]. */
#include <libgen.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "net.h"
#include "version.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "serve", cmd_serve, "serve data over TCP to many clients (the seed's nc -l </dev/urandom)" },
	{ "get", cmd_get, "download (or upload) with a built-in meter (the seed's nc | pv)" },
	{ "nc", cmd_nc, "netcat (OpenBSD nc as Debian ships it) with an optional pv-style meter" },
	{ "pv", cmd_pv, "pipe viewer: a drop-in for pv 1.10.5 (progress for a pipeline)" },
	{ "devtcp", cmd_devtcp, "run a program with /dev/tcp (and a listening path) working in it" },
	{ "link", cmd_link, "run a command behind an emulated link (rate, delay, jitter, loss)" },
	{ "bench", cmd_bench, "compare download methods: interleaved, repeated, with a verdict" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

__attribute__((format(printf, 1, 2))) static void top_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cmd_verror("ncpv", fmt, ap);
	va_end(ap);
}

static void usage(FILE *f)
{
	int width = 0;

	/* The summaries start one column after the longest name plus a space. */
	for (size_t i = 0; i < NCOMMANDS; i++)
		if ((int)strlen(commands[i].name) > width)
			width = (int)strlen(commands[i].name);
	fprintf(f, "Usage: ncpv COMMAND [OPTION]... [ARG]...\n"
		   "Move bytes over TCP and measure how fast they move.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-*s  %s\n", width, commands[i].name, commands[i].summary);
	fprintf(f, "\n\"The seed\" is the blog post \"TCP (Client) Networking in Pure Bash\", whose\n"
		   "nc | pv and pv </dev/tcp tests ncpv repeats and measures properly.\n"
		   "'ncpv COMMAND --help' describes each command, the manual all of them\n"
		   "(man ncpv once installed; man ./doc/ncpv.1 in the source tree).\n\n"
		   "Options:\n"
		   "  -h, --help     show this help\n"
		   "  -V, --version  show the version and build features\n\n"
		   "Exit status: the command's (see the manual); 2 for an unknown command or option.\n");
}

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct command *c;
	char self[256];

	/* A closed peer must give EPIPE, not kill the process. */
	signal(SIGPIPE, SIG_IGN);
	net_guard_std_fds();
	/* Only the character type, as pv's status line needs it: a wide -N name takes two
	 * columns a character. Numbers and messages stay in the C locale. */
	setlocale(LC_CTYPE, "");

	/* Run as "nc" (or Debian's other name for it, "netcat") or "pv" through a symlink; no other
	 * command answers to argv[0]. As nc, its messages are nc's, prefixed with the name run. */
	snprintf(self, sizeof(self), "%s", argv[0] ? argv[0] : "ncpv");
	if (strcmp(basename(self), "nc") == 0 || strcmp(basename(self), "netcat") == 0)
		return cmd_nc_as(argc, argv, basename(self));
	if (strcmp(basename(self), "pv") == 0 && (c = find("pv")) != NULL)
		return c->run(argc, argv);

	if (argc < 2) {
		usage(stderr);
		return NCPV_EXIT_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return NCPV_EXIT_OK;
	}
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("ncpv %s\nfeatures: %s\nlicense: ISC (see LICENSE)\n", NCPV_VERSION, NCPV_FEATURES);
		return NCPV_EXIT_OK;
	}
	if ((c = find(argv[1])) == NULL) {
		/* "-v" is a mistyped option, not a command; either way no control character is echoed. */
		top_error("unknown %s '%s' (try 'ncpv --help')", argv[1][0] == '-' ? "option" : "command",
			  argv[1]);
		return NCPV_EXIT_USAGE;
	}
	return c->run(argc - 1, argv + 1);
}
