/* SPDX-License-Identifier: ISC */
/* devtcp.c - "ncpv devtcp": run a command with the /dev/tcp library preloaded. */
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "../devtcp/dial.h"
#include "../units.h"

#ifndef NCPV_PKGLIBDIR
#define NCPV_PKGLIBDIR "/usr/local/lib/ncpv"
#endif
#define DEVTCP_LIB_NAME "libncpv-devtcp.so"
#define DEVTCP_ENV_LIB "NCPV_DEVTCP_LIB"

/* As env(1), timeout(1) and shells: the wrapper failed, the command cannot run, is missing. */
enum { DEVTCP_EXIT_WRAPPER = 125, DEVTCP_EXIT_CANNOT_RUN = 126, DEVTCP_EXIT_NOT_FOUND = 127 };

struct devtcp_opts {
	const char *timeout; /* validated, passed on as NCPV_DEVTCP_TIMEOUT */
	int verbose;
	char **command;	     /* borrowed from argv */
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ncpv devtcp [OPTION]... [--] COMMAND [ARG]...\n"
		"Run COMMAND with /dev/tcp paths working in it, as they do in bash redirections:\n"
		"  /dev/tcp/HOST/PORT          a TCP connection to HOST\n"
		"  /dev/udp/HOST/PORT          a connected UDP socket\n"
		"  /dev/tcp-listen/[ADDR/]PORT wait for one TCP client and return its connection\n"
		"                              (no ADDR: every interface, as nc -l PORT)\n\n"
		"  -t, --timeout SEC   give up connecting, or waiting for a client, after SEC\n"
		"                      (the open fails with ETIMEDOUT); 0, the default: never\n"
		"  -v, --verbose       one line on stderr per listen, connection and failure\n"
		"  -h, --help          show this help\n\n"
		"SEC is in seconds (2.5), or takes a unit: 500ms, 30s, 1m, 1h.\n"
		"The library is found beside ncpv, in ../lib/ncpv, in " NCPV_PKGLIBDIR ",\n"
		"or where " DEVTCP_ENV_LIB " says. Static and setuid programs cannot be reached.\n"
		"Exit status: COMMAND's; 125 if ncpv devtcp fails, 126 if COMMAND cannot be\n"
		"run, 127 if it is not found, 2 for a bad option.\n");
}

static enum cmd_parse parse_options(int argc, char **argv, struct devtcp_opts *o)
{
	static const struct option longopts[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct cmd_tail tail = { .cmd = "devtcp", .usage = usage };
	enum cmd_parse tailed;
	double secs;
	int c;

	memset(o, 0, sizeof(*o));
	opterr = 0;
	optind = 0; /* 0, not 1: glibc then forgets a previous parse's half-read cluster */
	/* '+': options end at COMMAND, so its own options stay its own. */
	while ((c = getopt_long(argc, argv, "+:t:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (units_parse_seconds(optarg, &secs) < 0 || secs < 0 || secs > 86400) {
				/* The result written here, not taken from cmd_bad_value's return:
				 * the analyzer cannot see into common.c and assumed success. */
				cmd_bad_value("devtcp", "timeout", optarg,
					      "expected seconds from 0 to 86400, such as 5 or 0.5");
				return CMD_PARSE_USAGE;
			}
			/* 0 means no timeout, as get -w 0 and the library's NCPV_DEVTCP_TIMEOUT=0. */
			o->timeout = optarg;
			break;
		case 'v':
			o->verbose = 1;
			break;
		default:
			if ((tailed = cmd_option_tail(&tail, c, argv)) != CMD_PARSE_RUN)
				return tailed;
		}
	}
	if (optind >= argc) {
		cmd_error("devtcp", "missing COMMAND (try 'ncpv devtcp --help')");
		return CMD_PARSE_USAGE;
	}
	o->command = argv + optind;
	return CMD_PARSE_RUN;
}

/* dir/name into out when it is a readable file. */
static int try_lib(const char *dir, const char *name, char *out, size_t cap)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path) ||
	    access(path, R_OK) != 0 || realpath(path, out) == NULL || strlen(out) >= cap)
		return 0;
	return 1;
}

/* Find the library: NCPV_DEVTCP_LIB, beside the executable (the build tree),
 * ../lib/ncpv from it (an installed tree, wherever it was moved), then the
 * compiled-in install directory. Returns 0 with the absolute path in out. */
static int find_library(char *out, size_t cap)
{
	const char *env = getenv(DEVTCP_ENV_LIB);
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if (env != NULL && *env != '\0') {
		if (access(env, R_OK) != 0 || realpath(env, out) == NULL) {
			cmd_error("devtcp", "%s=%s: %s", DEVTCP_ENV_LIB, env, strerror(errno));
			return -1;
		}
		return 0;
	}
	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) > 0) {
		exe[n] = '\0';
		if ((slash = strrchr(exe, '/')) != NULL) {
			*slash = '\0';
			if (try_lib(exe, DEVTCP_LIB_NAME, out, cap) ||
			    try_lib(exe, "../lib/ncpv/" DEVTCP_LIB_NAME, out, cap))
				return 0;
		}
	}
	if (try_lib(NCPV_PKGLIBDIR, DEVTCP_LIB_NAME, out, cap))
		return 0;
	cmd_error("devtcp", "cannot find %s (looked beside ncpv, in ../lib/ncpv and in %s; set %s)",
		  DEVTCP_LIB_NAME, NCPV_PKGLIBDIR, DEVTCP_ENV_LIB);
	return -1;
}

/* Put lib first in LD_PRELOAD (so it sees device paths before other preloads),
 * keeping what is there. */
static int add_preload(const char *lib)
{
	const char *old = getenv("LD_PRELOAD");
	char *both;
	int rc;

	if (strpbrk(lib, " :") != NULL) {
		cmd_error("devtcp", "library path '%s' contains a space or colon, which LD_PRELOAD cannot hold", lib);
		return -1;
	}
	if (old == NULL || *old == '\0')
		return setenv("LD_PRELOAD", lib, 1);
	if (strstr(old, lib) != NULL)
		return 0;
	if ((both = malloc(strlen(lib) + strlen(old) + 2)) == NULL)
		return -1;
	sprintf(both, "%s %s", lib, old);
	rc = setenv("LD_PRELOAD", both, 1);
	free(both);
	return rc;
}

/* The file execvp would run for cmd, into out: 1 when found. */
static int which(const char *cmd, char *out, size_t cap)
{
	const char *path = getenv("PATH"), *p, *end;

	if (strchr(cmd, '/') != NULL)
		return snprintf(out, cap, "%s", cmd) < (int)cap;
	for (p = path && *path ? path : "/usr/local/bin:/usr/bin:/bin"; p; p = end ? end + 1 : NULL) {
		struct stat st;
		int n;

		end = strchr(p, ':');
		n = end ? (int)(end - p) : (int)strlen(p);
		if (snprintf(out, cap, "%.*s/%s", n, n ? p : ".", cmd) < (int)cap &&
		    stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
			return 1;
	}
	return 0;
}

/* Why the loader will not preload anything into the program at path, or NULL:
 * set-id programs run in secure mode; static ones (no PT_INTERP) load no libraries. */
static const char *unreachable(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	struct stat st;
	int fd, dynamic = 0;

	if (stat(path, &st) < 0)
		return NULL;
	if (st.st_mode & (S_ISUID | S_ISGID))
		return "is setuid or setgid: the loader ignores LD_PRELOAD for it";
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph)) {
		close(fd); /* a script, or an ELF we do not read: let it run */
		return NULL;
	}
	for (int i = 0; i < eh.e_phnum && i < 256 && !dynamic; i++)
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (Elf64_Off)i * sizeof(ph))) ==
		    (ssize_t)sizeof(ph))
			dynamic = ph.p_type == PT_INTERP;
	close(fd);
	return dynamic ? NULL : "is statically linked: it cannot load the library";
}

enum cmd_parse cmd_devtcp_parse(int argc, char **argv)
{
	struct devtcp_opts o;

	return parse_options(argc, argv, &o);
}

int cmd_devtcp(int argc, char **argv)
{
	enum cmd_parse parsed;
	struct devtcp_opts o;
	char lib[PATH_MAX], path[PATH_MAX];
	const char *why;
	int rc;

	if ((parsed = parse_options(argc, argv, &o)) != CMD_PARSE_RUN)
		return cmd_parse_exit(parsed, NCPV_EXIT_USAGE);
	if (find_library(lib, sizeof(lib)) < 0 || add_preload(lib) < 0 ||
	    (o.timeout && setenv(DEVTCP_ENV_TIMEOUT, o.timeout, 1) < 0) ||
	    (o.verbose && setenv(DEVTCP_ENV_VERBOSE, "1", 1) < 0))
		return DEVTCP_EXIT_WRAPPER;
	/* It will still run, as it asked; the warning explains the ENOENT it will meet. */
	if (which(o.command[0], path, sizeof(path)) && (why = unreachable(path)) != NULL)
		cmd_error("devtcp", "warning: %s %s; /dev/tcp paths will not work in it", path, why);
	/* main() ignores SIGPIPE for ncpv's own I/O; the command gets the default
	 * back, or `yes | head` inside it would print EPIPE errors. */
	signal(SIGPIPE, SIG_DFL);
	execvp(o.command[0], o.command);
	rc = errno;
	if (rc == ENOENT || rc == ENOTDIR) {
		cmd_error("devtcp", "%s: command not found", o.command[0]);
		return DEVTCP_EXIT_NOT_FOUND;
	}
	cmd_error("devtcp", "%s: %s", o.command[0], strerror(rc));
	return DEVTCP_EXIT_CANNOT_RUN;
}
