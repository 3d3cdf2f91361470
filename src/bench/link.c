/* SPDX-License-Identifier: ISC */
/* link.c - --link: two network namespaces joined by a shaped veth pair (see link.h). */
#include "link.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guard.h"
#include "method.h"
#include "../units.h"

#define NS_PREFIX "ncpv-bench-"

int link_parse(const char *spec, double *bits_per_s, double *delay, char *err, size_t errlen)
{
	char rate[64];
	const char *comma = strchr(spec, ',');
	size_t n = comma ? (size_t)(comma - spec) : strlen(spec);

	*delay = 0;
	if (n == 0 || n >= sizeof(rate)) {
		snprintf(err, errlen, "expected RATE[,DELAY] such as 94mbit or 94mbit,20ms");
		return -1;
	}
	memcpy(rate, spec, n);
	rate[n] = '\0';
	if (units_parse_bitrate(rate, bits_per_s) < 0 || *bits_per_s < 8000 || *bits_per_s > 100e9) {
		snprintf(err, errlen, "rate '%s': expected 8kbit to 100gbit, such as 94mbit", rate);
		return -1;
	}
	if (comma && (units_parse_seconds(comma + 1, delay) < 0 || *delay > 10)) {
		snprintf(err, errlen, "delay '%s': expected a round trip of 0 to 10 s, such as 20ms", comma + 1);
		return -1;
	}
	return 0;
}

/* Run argv and wait; on failure put "PROGRAM: its first line of output" in err. */
static int run_tool(char *const argv[], char *err, size_t errlen)
{
	int pfd[2], status = 0;
	char out[512];
	ssize_t n, len = 0;
	pid_t pid, parent;

	if (pipe2(pfd, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	parent = getpid();
	pid = fork();
	if (pid == 0) {
		guard_child(parent);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		execvp(argv[0], argv);
		dprintf(2, "cannot run: %s", strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	while ((n = read(pfd[0], out + len, sizeof(out) - 1 - (size_t)len)) > 0 && len + n < (ssize_t)sizeof(out) - 1)
		len += n;
	if (n > 0)
		len += n;
	out[len] = '\0';
	close(pfd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		out[strcspn(out, "\n")] = '\0';
		snprintf(err, errlen, "%s %s %s %s: %s", argv[0], argv[1] ? argv[1] : "",
			 argv[1] && argv[2] ? argv[2] : "", argv[1] && argv[2] && argv[3] ? argv[3] : "",
			 out[0] ? out : "failed");
		return -1;
	}
	return 0;
}

#define TOOL(...) run_tool((char *const[]){ __VA_ARGS__, NULL }, err, errlen)

static int on_path(const char *tool)
{
	struct bench_method m = { .shell = "sh" };
	char missing[32];

	snprintf(m.tools, sizeof(m.tools), "%s", tool);
	return !method_missing_tool(&m, BENCH_STREAM, getenv("PATH") ? getenv("PATH") : "/usr/sbin:/usr/bin:/sbin:/bin",
				    missing, sizeof(missing));
}

/* Namespaces left by a bench that was killed (SIGKILL cannot be cleaned up after). */
static void remove_stale(void)
{
	DIR *d = opendir("/run/netns");
	struct dirent *e;
	char err[256];
	size_t errlen = sizeof(err);

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		const size_t plen = strlen(NS_PREFIX);
		char *end;
		long pid;

		/* NS_PREFIX PID "-" SIDE, with strtol rather than sscanf's unchecked %d. */
		if (strncmp(e->d_name, NS_PREFIX, plen) != 0)
			continue;
		pid = strtol(e->d_name + plen, &end, 10);
		if (end != e->d_name + plen && end[0] == '-' && end[1] != '\0' && pid > 0 && pid <= INT_MAX &&
		    kill((pid_t)pid, 0) < 0 && errno == ESRCH)
			TOOL("ip", "netns", "del", e->d_name);
	}
	closedir(d);
}

static int shape(struct bench_link *l, int side, char *err, size_t errlen)
{
	char rate[32], burst[32], delay[32];
	double bytes_per_s = l->bits_per_s / 8, b = bytes_per_s / 250;

	/* tbf needs a bucket of at least rate / HZ; a few full frames at least. */
	if (b < 10 * 1514)
		b = 10 * 1514;
	snprintf(rate, sizeof(rate), "%.0fbit", l->bits_per_s);
	snprintf(burst, sizeof(burst), "%.0f", b);
	if (TOOL("tc", "-n", l->ns[side], "qdisc", "add", "dev", l->dev[side], "root", "handle", "1:", "tbf",
		 "rate", rate, "burst", burst, "latency", "50ms") < 0)
		return -1;
	if (l->delay <= 0)
		return 0;
	snprintf(delay, sizeof(delay), "%.3fms", l->delay * 1000 / 2);
	if (TOOL("tc", "-n", l->ns[side], "qdisc", "add", "dev", l->dev[side], "parent", "1:1", "handle", "10:",
		 "netem", "delay", delay) < 0) {
		char why[200];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "cannot add delay: netem is not available (%s); try --link RATE alone", why);
		return -1;
	}
	return 0;
}

static int build(struct bench_link *l, char *err, size_t errlen)
{
	static const char *const addr[2] = { LINK_SERVER_ADDR "/30", LINK_CLIENT_ADDR "/30" };
	char path[80];

	if (TOOL("ip", "netns", "add", l->ns[0]) < 0)
		return -1;
	l->created = 1;
	if (TOOL("ip", "netns", "add", l->ns[1]) < 0 ||
	    TOOL("ip", "link", "add", l->dev[0], "type", "veth", "peer", "name", l->dev[1]) < 0)
		return -1;
	for (int side = 0; side < 2; side++) {
		if (TOOL("ip", "link", "set", l->dev[side], "netns", l->ns[side]) < 0 ||
		    TOOL("ip", "-n", l->ns[side], "addr", "add", (char *)addr[side], "dev", l->dev[side]) < 0 ||
		    TOOL("ip", "-n", l->ns[side], "link", "set", l->dev[side], "up") < 0 ||
		    TOOL("ip", "-n", l->ns[side], "link", "set", "lo", "up") < 0 || shape(l, side, err, errlen) < 0)
			return -1;
		snprintf(path, sizeof(path), "/run/netns/%s", l->ns[side]);
		if ((l->ns_fd[side] = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

int link_setup(struct bench_link *l, double bits_per_s, double delay, char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	l->ns_fd[0] = l->ns_fd[1] = l->orig_fd = -1;
	l->bits_per_s = bits_per_s;
	l->delay = delay;
	if (geteuid() != 0) {
		snprintf(err, errlen, "--link needs root: it makes network namespaces and shapes them with tc");
		return -1;
	}
	if (!on_path("ip") || !on_path("tc")) {
		snprintf(err, errlen, "--link needs iproute2 ('ip' and 'tc' on PATH): apt-get install iproute2");
		return -1;
	}
	remove_stale();
	snprintf(l->ns[0], sizeof(l->ns[0]), NS_PREFIX "%d-s", (int)getpid());
	snprintf(l->ns[1], sizeof(l->ns[1]), NS_PREFIX "%d-c", (int)getpid());
	snprintf(l->dev[0], sizeof(l->dev[0]), "ncpvs%d", (int)getpid());
	snprintf(l->dev[1], sizeof(l->dev[1]), "ncpvc%d", (int)getpid());
	l->orig_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (l->orig_fd < 0) {
		snprintf(err, errlen, "/proc/self/ns/net: %s", strerror(errno));
		return -1;
	}
	if (build(l, err, errlen) < 0) {
		link_teardown(l);
		return -1;
	}
	return 0;
}

int link_enter(struct bench_link *l, int side)
{
	return setns(l->ns_fd[side], CLONE_NEWNET);
}

void link_teardown(struct bench_link *l)
{
	char err[256];
	size_t errlen = sizeof(err);

	if (l->orig_fd >= 0) {
		setns(l->orig_fd, CLONE_NEWNET);
		close(l->orig_fd);
		l->orig_fd = -1;
	}
	for (int side = 0; side < 2; side++)
		if (l->ns_fd[side] >= 0) {
			close(l->ns_fd[side]);
			l->ns_fd[side] = -1;
		}
	if (l->created) {
		/* The veth pair goes with its namespaces; delete it too in case
		 * setup stopped before moving it. */
		TOOL("ip", "netns", "del", l->ns[0]);
		TOOL("ip", "netns", "del", l->ns[1]);
		TOOL("ip", "link", "del", l->dev[0]);
		l->created = 0;
	}
}
