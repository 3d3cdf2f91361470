/* SPDX-License-Identifier: ISC */
/* guard.c - the bench's children die with it (see guard.h): the mark, the
 * supervisor, and the sweep for marks of benches that are gone. */
#include "guard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../clock.h"
#include "../proc.h"

/* How long the supervisor and the sweep keep killing (new children of a
 * dying shell may appear for a moment). */
#define KILL_PASSES 100
#define PASS_MS 20

/* The start time of pid in clock ticks since boot (field 22 of its stat),
 * which with the pid names a process for good; 0 when it is gone. */
static unsigned long long start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long t = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	if (fgets(buf, sizeof(buf), f) != NULL && (p = strrchr(buf, ')')) != NULL &&
	    p[1] == ' ' && p[2] != 'Z' && p[2] != 'X') {
		/* after "pid (comm)": state is field 3 (a zombie, exited but not yet reaped,
		 * is gone: it counts as no process), start time field 22 */
		for (int field = 2; field < 22 && p != NULL; field++)
			p = strchr(p + 1, ' ');
		if (p != NULL)
			t = strtoull(p + 1, NULL, 10);
	}
	fclose(f);
	return t;
}

/* The mark in pid's environment, copied into out ("" when none). */
static void mark_of(pid_t pid, char *out, size_t len)
{
	static const char key[] = GUARD_ENV "=";
	char path[64], env[65536];
	ssize_t n;
	int fd;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	n = read(fd, env, sizeof(env) - 1);
	close(fd);
	if (n <= 0)
		return;
	env[n] = '\0';
	for (char *p = env; p < env + n; p += strlen(p) + 1)
		if (strncmp(p, key, sizeof(key) - 1) == 0) {
			snprintf(out, len, "%s", p + sizeof(key) - 1);
			return;
		}
}

/* Is the bench that wrote mark still running? */
static int owner_alive(const char *mark)
{
	char *dot;
	long pid = strtol(mark, &dot, 10);

	if (pid <= 0 || *dot != '.')
		return 0;
	return start_time((pid_t)pid) == strtoull(dot + 1, NULL, 10);
}

/* One pass over /proc: SIGKILL every process whose mark is mark (or, with
 * mark NULL, whose mark's bench is gone). Returns how many. */
static int kill_marked(const char *mark)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char found[64];
	int n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		pid_t pid = (pid_t)strtol(e->d_name, NULL, 10);

		if (pid <= 0 || pid == getpid())
			continue;
		mark_of(pid, found, sizeof(found));
		if (found[0] == '\0')
			continue;
		if (mark != NULL ? strcmp(found, mark) == 0 : !owner_alive(found)) {
			proc_signal(pid, SIGKILL);
			n++;
		}
	}
	closedir(d);
	return n;
}

static int kill_until_none(const char *mark)
{
	int total = 0, n;

	for (int pass = 0; pass < KILL_PASSES && (n = kill_marked(mark)) > 0; pass++) {
		total += n;
		clock_sleep(PASS_MS / 1000.0);
	}
	return total;
}

/* The supervisor: out of the terminal's signals, holding nothing of the
 * bench's but the pipe; when the pipe closes, kill whatever carries mark. */
static void supervise(int fd, const char *mark)
{
	static const int quiet[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE };
	char c;
	int null = open("/dev/null", O_RDWR);

	setsid();
	prctl(PR_SET_NAME, "ncpv-guard");
	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
		signal(quiet[i], SIG_IGN);
	/* Its stdout may be a pipe someone reads to the end: hold none of them. */
	dup2(fd, 3);
	dup2(null, 0);
	dup2(null, 1);
	dup2(null, 2);
	for (int i = 4; i < 1024; i++)
		close(i);
	while (read(3, &c, 1) != 0 && (errno == EINTR || errno == EAGAIN))
		;
	kill_until_none(mark);
}

int guard_start(struct bench_guard *g, char *err, size_t errlen)
{
	int pfd[2];

	g->pid = 0;
	g->fd = -1;
	snprintf(g->mark, sizeof(g->mark), "%d.%llu", (int)getpid(), start_time(getpid()));
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	g->pid = fork();
	if (g->pid == 0) {
		supervise(pfd[0], g->mark);
		_exit(0);
	}
	close(pfd[0]);
	if (g->pid < 0) {
		g->pid = 0;
		close(pfd[1]);
		snprintf(err, errlen, "cannot start the supervisor: %s", strerror(errno));
		return -1;
	}
	g->fd = pfd[1];
	if (setenv(GUARD_ENV, g->mark, 1) < 0) {
		snprintf(err, errlen, "cannot mark the environment: %s", strerror(errno));
		guard_stop(g);
		return -1;
	}
	return 0;
}

void guard_child(pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* The parent may have died before the line above: then no signal comes. */
	if (getppid() != parent)
		_exit(127);
}

void guard_stop(struct bench_guard *g)
{
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
	if (g->pid > 0)
		waitpid(g->pid, NULL, 0);
	g->pid = 0;
}

int guard_sweep(void)
{
	return kill_until_none(NULL);
}
