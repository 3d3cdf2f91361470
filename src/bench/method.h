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
	const char *shell;	/* "sh" or "bash": what runs command */
	const char *note;	/* "seed" for the blog post's own commands, or "" */
};

/* Copy the built-in methods into out (up to max); returns how many exist. */
size_t method_builtins(struct bench_method *out, size_t max);

/* Parse "NAME=COMMAND" from --method: the command runs with sh and must
 * name {host} and {port}, or contain {count} to make every download itself.
 * Returns 0, or -1 with a one-line reason in err. */
int method_parse_user(const char *spec, struct bench_method *out, char *err, size_t errlen);

struct method_vars {
	const char *host, *port, *size, *count, *ncpv;
};

/* Replace each placeholder in tmpl. Returns 0, or -1 with errno ENOSPC (out
 * too small) or EINVAL (an unknown {word}; its name goes in bad). */
int method_expand(const char *tmpl, const struct method_vars *v, char *out, size_t len,
		  char *bad, size_t badlen);

/* The full command a test runs for m, in out; the shell to run it with is
 * returned (always bash for a loop). NULL with errno as for method_expand. */
const char *method_command(const struct bench_method *m, enum bench_test test,
			   const struct method_vars *v, char *out, size_t len);

/* The first tool of m not found as an executable on path (a PATH-style
 * list), copied into missing; returns 1 when one is missing, else 0. */
int method_missing_tool(const struct bench_method *m, enum bench_test test, const char *path,
			char *missing, size_t len);

#endif
