/* SPDX-License-Identifier: ISC */
/* env.c - the environment a bench ran in (see env.h). */
#include "env.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../clock.h"
#include "../shquote.h"
#include "../proc.h"

#define VERSION_WAIT_S 2.0

/* How each tool tells its version; --version unless listed. OpenBSD nc has
 * no such option, but its usage names the version; openssl has a command. */
static const char *version_flag(const char *tool)
{
	if (strcmp(tool, "nc") == 0)
		return "-h";
	if (strcmp(tool, "socat") == 0)
		return "-V";
	if (strcmp(tool, "openssl") == 0)
		return "version";
	return "--version";
}

/* The first line of text holding a digit, trimmed, into out. */
static void first_versioned_line(const char *text, char *out, size_t len)
{
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n"), k = 0;

		while (k < n && (p[k] < '0' || p[k] > '9'))
			k++;
		if (k < n) {
			while (n > 0 && (p[n - 1] == '\r' || p[n - 1] == ' '))
				n--;
			snprintf(out, len, "%.*s", (int)n, p);
			return;
		}
		p += n + (p[n] == '\n');
	}
	snprintf(out, len, "unknown");
}

static void tool_version(const char *tool, char *out, size_t len)
{
	char text[4096];
	size_t n = 0;
	int pfd[2];
	pid_t pid;
	double deadline = clock_now() + VERSION_WAIT_S;

	snprintf(out, len, "unknown");
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, 0);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		execlp(tool, tool, version_flag(tool), (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		return;
	}
	while (n + 1 < sizeof(text) && clock_now() < deadline) {
		struct pollfd p = { pfd[0], POLLIN, 0 };
		ssize_t r;

		if (poll(&p, 1, 100) <= 0)
			continue;
		if ((r = read(pfd[0], text + n, sizeof(text) - 1 - n)) <= 0)
			break;
		n += (size_t)r;
	}
	text[n] = '\0';
	close(pfd[0]);
	proc_signal(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	first_versioned_line(text, out, len);
}

static void cpu_model(char *out, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512];

	snprintf(out, len, "unknown");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *colon = strchr(line, ':');

		if (colon != NULL && (strncmp(line, "model name", 10) == 0 || strncmp(line, "Model", 5) == 0)) {
			colon += 1 + (colon[1] == ' ');
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(out, len, "%s", colon);
			break;
		}
	}
	fclose(f);
}

void env_collect(struct bench_env *e, int argc, char **argv, const char *tools)
{
	time_t now = time(NULL);
	struct tm tm;
	struct utsname u;
	FILE *f;
	size_t n;

	memset(e, 0, sizeof(*e));
	gmtime_r(&now, &tm);
	strftime(e->date, sizeof(e->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (uname(&u) == 0)
		snprintf(e->kernel, sizeof(e->kernel), "%s %s %s %s", u.sysname, u.release, u.version, u.machine);
	cpu_model(e->cpu, sizeof(e->cpu));
	e->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if ((f = fopen("/proc/loadavg", "re")) != NULL) {
		char line[128], *p = line;

		if (fgets(line, sizeof(line), f) != NULL)
			for (int i = 0; i < 3; i++)
				e->load[i] = strtod(p, &p);
		fclose(f);
	}
	n = (size_t)snprintf(e->command, sizeof(e->command), "ncpv");
	for (int i = 0; i < argc && n + 1 < sizeof(e->command); i++) {
		e->command[n++] = ' ';
		n += shq_quote(argv[i], e->command + n, sizeof(e->command) - n);
	}
	env_add_tools(e, tools);
}

void env_add_tools(struct bench_env *e, const char *tools)
{
	char copy[512], *save = NULL;

	snprintf(copy, sizeof(copy), "%s", tools ? tools : "");
	for (char *t = strtok_r(copy, " ", &save); t && e->ntools < ENV_MAX_TOOLS; t = strtok_r(NULL, " ", &save)) {
		size_t k = 0;

		while (k < e->ntools && strcmp(e->tools[k].name, t) != 0)
			k++;
		if (k < e->ntools)
			continue;
		snprintf(e->tools[e->ntools].name, sizeof(e->tools[0].name), "%s", t);
		tool_version(t, e->tools[e->ntools].version, sizeof(e->tools[0].version));
		e->ntools++;
	}
}
