/* SPDX-License-Identifier: ISC */
/* common.c - error reporting and small helpers shared by the subcommands. */
#include "cmd.h"

#include <getopt.h>
#include <signal.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../net.h"
#include "../termsafe.h"
#include "../units.h"
#include "../pv/tty.h"

void cmd_verror(const char *prefix, const char *fmt, va_list ap)
{
	char msg[1024], safe[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* Messages quote user input and what files and peers sent: through the one
	 * escaping (termsafe), a newline, an escape sequence or a C1 control cannot
	 * break the one-line rule or reach the terminal. */
	fprintf(stderr, "%s: %s\n", prefix, termsafe_str(safe, sizeof(safe), msg));
}

void cmd_error(const char *cmd, const char *fmt, ...)
{
	char prefix[64];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "ncpv %s", cmd);
	va_start(ap, fmt);
	cmd_verror(prefix, fmt, ap);
	va_end(ap);
}

enum cmd_parse cmd_bad_value(const char *cmd, const char *option, const char *arg, const char *reason)
{
	cmd_error(cmd, "invalid %s '%s': %s", option, arg, reason);
	return CMD_PARSE_USAGE;
}

int cmd_parse_busy_poll(const char *arg, double *seconds)
{
	long usec;

	if (units_parse_long(arg, 0, 1000000, &usec) < 0)
		return -1;
	*seconds = (double)usec / 1e6;
	return 0;
}

enum cmd_parse cmd_bad_option(const char *cmd, int opt, const char *word)
{
	if (opt != 0 && opt != '?')
		cmd_error(cmd, "option '-%c' %s (try 'ncpv %s --help')", opt,
			  word ? word : "is unknown", cmd);
	else
		cmd_error(cmd, "unknown option '%s' (try 'ncpv %s --help')", word ? word : "?", cmd);
	return CMD_PARSE_USAGE;
}

enum cmd_parse cmd_missing_argument(const char *cmd, int opt, const char *word)
{
	/* Name the option as the user wrote it: "--size", not the 's' getopt maps it to. */
	if (word != NULL && strncmp(word, "--", 2) == 0)
		cmd_error(cmd, "option '%s' needs an argument (try 'ncpv %s --help')", word, cmd);
	else
		cmd_error(cmd, "option '-%c' needs an argument (try 'ncpv %s --help')", opt, cmd);
	return CMD_PARSE_USAGE;
}

enum cmd_parse cmd_option_tail(const struct cmd_tail *t, int c, char **argv)
{
	if ((c == '4' || c == '6') && t->family)
		*t->family = c == '4' ? AF_INET : AF_INET6;
	else if (c == 'q' && t->quiet)
		*t->quiet = 1;
	else if (c == 'j' && t->json)
		*t->json = 1;
	else if (c == OPT_BUSY_POLL && t->busy_poll) {
		if (cmd_parse_busy_poll(optarg, t->busy_poll) < 0)
			return cmd_bad_value(t->cmd, "busy-poll", optarg, "expected microseconds from 0 to 1000000");
	} else if (c == 'h') {
		t->usage(stdout);
		return CMD_PARSE_DONE;
	} else if (c == ':')
		return cmd_missing_argument(t->cmd, optopt, argv[optind - 1]);
	else
		return cmd_bad_option(t->cmd, optopt, optopt ? NULL : argv[optind - 1]);
	return CMD_PARSE_RUN;
}

/* Set before the first handler is installed and never changed after (one flag per process). */
static volatile sig_atomic_t *stop_flag;
static int stop_counts;

static void on_stop(int sig)
{
	if (!stop_counts)
		*stop_flag = sig;
	else if (*stop_flag < 2)
		(*stop_flag)++;
}

void cmd_catch_stop(volatile sig_atomic_t *flag, const int *sigs, size_t n, int flags)
{
	struct sigaction sa, old;

	stop_flag = flag;
	stop_counts = (flags & CMD_STOP_COUNT) != 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < n; i++) {
		if ((flags & CMD_STOP_KEEP_IGNORED) && sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

int cmd_net_exit(int net_error)
{
	switch (net_error) {
	case NET_ERESOLVE:
		return NCPV_EXIT_RESOLVE;
	case NET_ETIMEDOUT:
		return NCPV_EXIT_TIMEOUT;
	case NET_ECONNECT:
		return NCPV_EXIT_CONNECT;
	case NET_EBIND:
		return NCPV_EXIT_USAGE; /* --bind or --cport: the user's setting, not the network */
	default:
		return NCPV_EXIT_FAIL;
	}
}

size_t cmd_summary_width(void)
{
	int w = pv_tty_width(STDERR_FILENO, 80);

	return w < 80 ? (size_t)w : 80;
}

int cmd_zerocopy_check(const char *cmd, const char *conflict, const char *source, int tls)
{
	if (conflict != NULL)
		cmd_error(cmd, "-Z does not combine with %s: %s", conflict,
			  strcmp(cmd, "serve") == 0 ? "serve then sends nothing" :
			  "-Z is for what get sends (--send, --reverse, --bidir); for a download, run serve -Z");
	else if (strcmp(source, "random") != 0)
		cmd_error(cmd, "-Z sends a random block of its own: it does not combine with --source %s%s", source,
			  strcmp(source, "urandom") != 0 && strcmp(source, "zero") != 0 ?
			  " (a FILE is sent with sendfile already)" : "");
	else if (tls)
		cmd_error(cmd, "-Z does not combine with --tls: TLS encrypts every byte on its way out, so "
			  "there is no copy to spare");
	else
		return 0;
	return -1;
}
