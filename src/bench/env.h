/* SPDX-License-Identifier: ISC */
/* env.h - the environment a bench ran in, for every report: when, the kernel,
 * the CPU, the load at the start, the version of every tool the methods
 * used, and the exact command line (quoted so that it pastes). */
#ifndef NCPV_ENV_H
#define NCPV_ENV_H

#include <stddef.h>

#define ENV_MAX_TOOLS 16

struct bench_env {
	char date[32];		/* UTC, ISO 8601 */
	char kernel[272];	/* uname: sysname release version machine */
	char cpu[128];		/* model name */
	long ncpu;		/* online */
	double load[3];		/* 1, 5 and 15 minute load averages at the start */
	char command[4096];	/* the command line, each argument quoted */
	size_t ntools;
	struct {
		char name[24];
		char version[128]; /* its first line that names a version, or "unknown" */
	} tools[ENV_MAX_TOOLS];
};

/* Fill e: tools is a space-separated list of program names (repeats are
 * skipped), each asked for its version (at most 2 s each). */
void env_collect(struct bench_env *e, int argc, char **argv, const char *tools);

/* Add the versions of more tools (space-separated; those already listed are skipped). */
void env_add_tools(struct bench_env *e, const char *tools);

#endif
