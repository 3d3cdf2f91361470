/* SPDX-License-Identifier: ISC */
/* cmd.h - the subcommands' entry points, exit codes and shared command-line helpers. */
#ifndef NCPV_CMD_H
#define NCPV_CMD_H

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes of serve and get (README "Exit codes"); nc and pv follow their originals. */
enum ncpv_exit {
	NCPV_EXIT_OK = 0,
	NCPV_EXIT_FAIL = 1,	/* the transfer failed or ended short */
	NCPV_EXIT_USAGE = 2,	/* bad option or argument */
	NCPV_EXIT_RESOLVE = 3,	/* host name or service did not resolve */
	NCPV_EXIT_CONNECT = 4,	/* connection refused or unreachable */
	NCPV_EXIT_TIMEOUT = 5,	/* connect timed out */
	NCPV_EXIT_FILE = 6,	/* a local file could not be read or written */
	NCPV_EXIT_LISTEN = 7,	/* cannot listen (address in use, no permission) */
	NCPV_EXIT_TLS = 8,	/* the TLS handshake failed */
	NCPV_EXIT_TLS_CA = 9,	/* the peer's certificate is not from a trusted CA */
	NCPV_EXIT_TLS_EXPIRED = 10, /* the peer's certificate expired (or is not valid yet) */
	NCPV_EXIT_TLS_HOST = 11,    /* the peer's certificate is for another host */
	NCPV_EXIT_TLS_PIN = 12,	    /* the peer's certificate does not match --pin */
	NCPV_EXIT_TLS_TIMEOUT = 13  /* the TLS handshake did not finish within -w */
};

#define NCPV_DEFAULT_PORT "6666"

int cmd_serve(int argc, char **argv);
int cmd_get(int argc, char **argv);
int cmd_pv(int argc, char **argv);
int cmd_devtcp(int argc, char **argv);
int cmd_nc(int argc, char **argv);
/* ncpv run as "nc" or "netcat" (a symlink): prog is that name, for nc's prefix and words. */
int cmd_nc_as(int argc, char **argv, const char *prog);
int cmd_bench(int argc, char **argv);
int cmd_bench_compare(int argc, char **argv); /* argv[0] is "compare" */
int cmd_link(int argc, char **argv);

/* What every command's option parser returns, having printed what there was to say. */
enum cmd_parse {
	CMD_PARSE_RUN = 0, /* the options are valid: run */
	CMD_PARSE_DONE,	   /* --help or --version was printed: exit 0 */
	CMD_PARSE_USAGE	   /* a one-line error was printed: exit with the command's usage status */
};

/* The exit status for a parse that stopped: 0 after help, else the command's own usage status
 * (NCPV_EXIT_USAGE for ncpv's commands, nc's 1, pv's 64). */
static inline int cmd_parse_exit(enum cmd_parse r, int usage_status)
{
	return r == CMD_PARSE_DONE ? 0 : usage_status;
}

/* Parse a command line as the command would, and stop there: no socket, file
 * or signal handler is touched (errors and --help are printed as usual).
 * The fuzzers call these; each may be called any number of times. */
enum cmd_parse cmd_serve_parse(int argc, char **argv);
enum cmd_parse cmd_get_parse(int argc, char **argv);
enum cmd_parse cmd_devtcp_parse(int argc, char **argv);
enum cmd_parse cmd_bench_parse(int argc, char **argv);
enum cmd_parse cmd_link_parse(int argc, char **argv);

/* "ncpv CMD: message" on stderr. */
void cmd_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "PREFIX: message" on stderr, control characters shown as '?' (pv's "pv:" messages). */
void cmd_verror(const char *prefix, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* --busy-poll, shared by serve and get (getopt code; no short form).
 * On loopback the sender's own CPU runs the receive path, and when it
 * finds the receiver asleep it must wake it on the other CPU: an
 * inter-processor interrupt per segment, which on a VM costs the sender
 * as much as copying the data. While events come back within this long
 * of the last one, polling again instead of sleeping keeps the process
 * awake and its peer free: a single stream nearly doubles, small files
 * gain about 9% (docs/BENCHMARKS.md). Once a wait lasts longer the
 * process sleeps again, so an idle or slow peer costs no CPU. */
#define OPT_BUSY_POLL 256
#define CMD_BUSY_POLL_SECONDS 50e-6

/* --busy-poll USEC: 0 to 1000000 microseconds, stored in seconds.
 * Returns 0, or -1 on a bad value. */
int cmd_parse_busy_poll(const char *arg, double *seconds);

/* Print "ncpv CMD: bad value for OPTION: 'ARG' (REASON)" and return CMD_PARSE_USAGE. */
enum cmd_parse cmd_bad_value(const char *cmd, const char *option, const char *arg, const char *reason);

/* -Z (serve, get): refused where it cannot apply, with one line saying why: conflict names
 * an option with which nothing is sent (NULL: none), source is --source (only "random", the
 * default, is -Z's to replace), tls is --tls. 0, or -1 once the error is printed. */
int cmd_zerocopy_check(const char *cmd, const char *conflict, const char *source, int tls);

/*
 * The options serve, get, devtcp and link end their getopt switch with. A NULL member: the
 * command has no such option (it is then not in its optstring either).
 */
struct cmd_tail {
	const char *cmd;	 /* the command's name in messages: "get" */
	void (*usage)(FILE *f);	 /* -h, --help */
	int *family;		 /* -4, -6: AF_INET, AF_INET6 */
	int *quiet, *json;	 /* -q, -j */
	double *busy_poll;	 /* --busy-poll USEC, in seconds */
};

/* Handle getopt_long's answer c (argv and optind as it left them) when nothing before in the
 * switch did: -4, -6, -q, -j and --busy-poll are stored (CMD_PARSE_RUN); -h prints the usage on
 * stdout (CMD_PARSE_DONE); a bad --busy-poll, a missing argument (':') or any other option is
 * reported as one line (CMD_PARSE_USAGE). */
enum cmd_parse cmd_option_tail(const struct cmd_tail *t, int c, char **argv);

/* cmd_catch_stop's flags. */
#define CMD_STOP_KEEP_IGNORED 1 /* a signal ignored by whoever started us (nohup, a shell's
				 * background job) stays ignored, as pv does for SIGINT and SIGHUP */
#define CMD_STOP_COUNT 2	/* *flag counts the signals instead: 1 after the first, 2 after any
				 * later one (get -u: a second ^C stops waiting for the final report) */

/*
 * The stop signals of a command (bench, get, pv, pv -d, serve, serve -u, get -u): each of the n
 * signals in sigs gets a handler that stores the signal's number in *flag (or counts, with
 * CMD_STOP_COUNT) and does nothing else. No
 * SA_RESTART, so a blocked wait returns EINTR and the command looks at the flag; no signal is
 * blocked while the handler runs. A process has one stop flag: every call must pass the same.
 */
void cmd_catch_stop(volatile sig_atomic_t *flag, const int *sigs, size_t n, int flags);

/* Map a net_* error code to an exit code. */
int cmd_net_exit(int net_error);

/* The columns a summary is laid out for (wrap_clauses): 80, or the terminal's on stderr if
 * narrower. */
size_t cmd_summary_width(void);

/* Report an unknown option or missing argument as getopt found it. */
enum cmd_parse cmd_bad_option(const char *cmd, int optopt_char, const char *word);

/* Report getopt's ':' (an option without its argument); word is argv[optind - 1]. */
enum cmd_parse cmd_missing_argument(const char *cmd, int opt, const char *word);

#endif
