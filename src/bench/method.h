/* SPDX-License-Identifier: ISC */
/* method.h - the download methods the bench compares: the built-in table,
 * user methods from --method, command templates and the tools they need. */
#ifndef NCPV_METHOD_H
#define NCPV_METHOD_H

#include <stddef.h>

#define METHOD_NAME_MAX 48
#define METHOD_CMD_MAX 1024

enum bench_test { BENCH_STREAM = 1, BENCH_FILES = 2 };

/* A method is one download, written as a shell command template with the
 * placeholders {host}, {port}, {size}, {count} and {ncpv} (this binary).
 * stream runs it once for --duration; files runs files_command when set
 * (it makes all {count} downloads itself), else a bash loop of command. */
struct bench_method {
	char name[METHOD_NAME_MAX];
	char command[METHOD_CMD_MAX];
	char files_command[METHOD_CMD_MAX]; /* "" when the bench loops command */
	char tools[128];	/* programs it needs on PATH, space-separated */
	const char *shell;	/* "sh" or "bash": what runs command; NULL: no shell, exec its words */
	const char *note;	/* "seed" for the blog post's own commands, or "" */
	int tls;		/* a built-in that speaks TLS: runs only with bench --tls */
};

/* Copy the built-in methods, plain TCP's then TLS's, into out (up to max);
 * returns how many exist. */
size_t method_builtins(struct bench_method *out, size_t max);

/* Parse "NAME=COMMAND" from --method: the command runs with sh and must
 * name {host} and {port}, or contain {count} to make every download itself.
 * Returns 0, or -1 with a one-line reason in err. */
int method_parse_user(const char *spec, struct bench_method *out, char *err, size_t errlen);

struct method_vars {
	const char *host, *port, *size, *count, *ncpv;
};

/* What method_command returns for a method that runs without a shell. */
#define METHOD_NO_SHELL "exec"

/* Replace each placeholder in tmpl with its value as one shell word
 * (shq_quote), so that no value can be read as shell syntax. Returns 0, or -1 with errno ENOSPC (out
 * too small) or EINVAL (an unknown {word}; its name goes in bad). */
int method_expand(const char *tmpl, const struct method_vars *v, char *out, size_t len,
		  char *bad, size_t badlen);

/* The full command a test runs for m, in out, as a line a shell would run;
 * the shell to run it with is returned (always bash for a loop, and
 * METHOD_NO_SHELL for a method without one: see method_argv). NULL with errno as for method_expand. */
const char *method_command(const struct bench_method *m, enum bench_test test,
			   const struct method_vars *v, char *out, size_t len);

/* The argv that runs cmd: {shell, "-c", cmd} for a shell, or for
 * METHOD_NO_SHELL cmd's own words (split into buf as sh would). Returns the
 * count (argv[count] is NULL), or -1 when they do not fit or cmd is not
 * plain words. argv may point into cmd and buf. */
int method_argv(const char *shell, const char *cmd, char *buf, size_t buflen, char **argv, int max);

/* The line to paste into a shell that runs cmd as the bench does:
 * "SHELL -c 'CMD'" (quoted with shq_quote), or cmd itself without a shell.
 * Truncated to fit len; returns out. */
char *method_shell_line(const char *shell, const char *cmd, char *out, size_t len);

/* The first tool of m not found as an executable on path (a PATH-style
 * list), copied into missing; returns 1 when one is missing, else 0. */
int method_missing_tool(const struct bench_method *m, enum bench_test test, const char *path,
			char *missing, size_t len);

#endif
