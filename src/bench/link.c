/* SPDX-License-Identifier: ISC */
/* link.c - --link: two network namespaces joined by ncpv's delay line (see link.h), from link/supervisor. */
#include "link.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../units.h"

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

int link_setup(struct bench_link *l, double bits_per_s, double delay, double loss, char *err, size_t errlen)
{
	struct link_params p[2];
	char why[200];

	memset(l, 0, sizeof(*l));
	l->sup.line_fd = -1;
	l->sup.net.ns_fd[0] = l->sup.net.ns_fd[1] = l->sup.net.pkt_fd[0] = l->sup.net.pkt_fd[1] = -1;
	l->orig_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (l->orig_fd < 0) {
		snprintf(err, errlen, "/proc/self/ns/net: %s", strerror(errno));
		return -1;
	}
	link_sup_symmetric(p, bits_per_s, delay, loss);
	if (link_sup_open(&l->sup, p, (uint64_t)getpid(), LINK_MODE_AUTO, why, sizeof(why)) < 0 ||
	    link_sup_fork_line(&l->sup, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "--link: %s", why);
		link_teardown(l);
		return -1;
	}
	return 0;
}

const char *link_devices(const struct bench_link *l)
{
	return l->sup.net.header ? "veth pairs and packet sockets" : "TUN devices";
}

int link_enter(struct bench_link *l, int side)
{
	return link_net_enter(&l->sup.net, side);
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
	link_sup_close(&l->sup);
}
