/* SPDX-License-Identifier: ISC */
/* link.c - --link: two network namespaces joined by ncpv's delay line (see link.h). */
#include "link.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../link/line.h"
#include "../link/sched.h"
#include "../units.h"
#include "../proc.h"

/* As `ncpv link` without --queue: a NIC's usual txqueuelen. */
#define BENCH_LINK_QUEUE 1000

int link_parse(const char *spec, double *bits_per_s, double *delay, double *loss, char *err, size_t errlen)
{
	char part[3][64];
	const char *p = spec;
	int n = 0;

	*delay = *loss = 0;
	for (; n < 3; n++) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len == 0 || len >= sizeof(part[n])) {
			snprintf(err, errlen, "expected RATE[,DELAY[,LOSS]] such as 94mbit, 94mbit,20ms or 94mbit,20ms,1%%");
			return -1;
		}
		memcpy(part[n], p, len);
		part[n][len] = '\0';
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	if (n == 3) {
		snprintf(err, errlen, "expected RATE[,DELAY[,LOSS]] such as 94mbit, 94mbit,20ms or 94mbit,20ms,1%%");
		return -1;
	}
	if (units_parse_bitrate(part[0], bits_per_s) < 0 || *bits_per_s < 8000 || *bits_per_s > 100e9) {
		snprintf(err, errlen, "rate '%s': expected 8kbit to 100gbit, such as 94mbit", part[0]);
		return -1;
	}
	if (n >= 1 && (units_parse_delay(part[1], delay) < 0 || *delay > 10)) {
		snprintf(err, errlen, "delay '%s': expected a round trip of 0 to 10 s with its unit, such as 20ms",
			 part[1]);
		return -1;
	}
	if (n >= 2) {
		struct link_params p2[2];
		char why[128];

		memset(p2, 0, sizeof(p2));
		if (link_parse_value(part[2], 'p', p2, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "loss '%s': %s", part[2], why);
			return -1;
		}
		*loss = p2[0].loss;
	}
	return 0;
}

/* The delay line's process: moves packets until the bench closes its end
 * of the pipe, or dies (PR_SET_PDEATHSIG). Never returns. */
__attribute__((noreturn)) static void run_line(struct bench_link *l, int wake_fd, pid_t parent)
{
	struct link_params p[2];
	struct link_line *line;
	char err[256];
	int rc;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(1);
	/* The bench's handlers only set its flags: here SIGTERM ends the line,
	 * and the bench decides what a terminal's SIGINT means. */
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_IGN);
	prctl(PR_SET_TIMERSLACK, 1UL);
	memset(p, 0, sizeof(p));
	for (int d = 0; d < 2; d++) {
		p[d].bits_per_s = (uint64_t)(l->bits_per_s + 0.5);
		p[d].delay_ns = (int64_t)(l->delay / 2 * 1e9 + 0.5);
		p[d].loss = l->loss;
		p[d].queue_packets = BENCH_LINK_QUEUE;
	}
	line = link_line_new(p, (uint64_t)getpid(), l->net.pkt_fd, l->net.header, err, sizeof(err));
	if (line == NULL)
		_exit(1);
	rc = link_line_run(line, wake_fd, err, sizeof(err));
	link_line_free(line);
	_exit(rc < 0);
}

int link_setup(struct bench_link *l, double bits_per_s, double delay, double loss, char *err, size_t errlen)
{
	int pfd[2];
	pid_t parent = getpid();

	memset(l, 0, sizeof(*l));
	l->net.ns_fd[0] = l->net.ns_fd[1] = l->net.pkt_fd[0] = l->net.pkt_fd[1] = -1;
	l->line_fd = -1;
	l->bits_per_s = bits_per_s;
	l->delay = delay;
	l->loss = loss;
	l->orig_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (l->orig_fd < 0) {
		snprintf(err, errlen, "/proc/self/ns/net: %s", strerror(errno));
		return -1;
	}
	if (link_net_setup(&l->net, LINK_MODE_AUTO, err, errlen) < 0) {
		char why[200];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "--link: %s", why);
		link_teardown(l);
		return -1;
	}
	if (pipe2(pfd, O_CLOEXEC) < 0 || (l->line = fork()) < 0) {
		snprintf(err, errlen, "--link: cannot start the delay line: %s", strerror(errno));
		l->line = 0;
		link_teardown(l);
		return -1;
	}
	if (l->line == 0) {
		close(pfd[1]);
		run_line(l, pfd[0], parent);
	}
	close(pfd[0]);
	l->line_fd = pfd[1];
	/* The line holds the devices now; ours would keep them after it ended. */
	for (int side = 0; side < 2; side++) {
		close(l->net.pkt_fd[side]);
		l->net.pkt_fd[side] = -1;
	}
	return 0;
}

const char *link_devices(const struct bench_link *l)
{
	return l->net.header ? "veth pairs and packet sockets" : "TUN devices";
}

int link_enter(struct bench_link *l, int side)
{
	return link_net_enter(&l->net, side);
}

void link_teardown(struct bench_link *l)
{
	if (l->orig_fd >= 0) {
		/* Refused in a user namespace of our own (not root): then there is
		 * nothing to go back to that children would need. */
		(void)setns(l->orig_fd, CLONE_NEWNET);
		close(l->orig_fd);
		l->orig_fd = -1;
	}
	if (l->line_fd >= 0) {
		close(l->line_fd);
		l->line_fd = -1;
	}
	if (l->line > 0) {
		proc_signal(l->line, SIGTERM);
		waitpid(l->line, NULL, 0);
		l->line = 0;
	}
	link_net_close(&l->net);
}
