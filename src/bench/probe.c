/* SPDX-License-Identifier: ISC */
/* probe.c - the latency probe: an echo process, a pinger, and the round
 * trips it reports through a pipe (see probe.h). */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guard.h"
#include "../clock.h"
#include "../net.h"
#include "../proc.h"

/* What the pinger reports per round trip: when the message left, and how
 * long until its echo was back (seconds, CLOCK_MONOTONIC, the same clock
 * in every process of the machine). */
struct probe_record {
	double sent, rtt;
};

double probe_interval(double bits)
{
	double interval = bits > 0 ? PROBE_WIRE_BYTES * 8.0 / (bits * PROBE_SHARE) : 0;

	if (interval > PROBE_INTERVAL_MAX)
		return -1;
	return interval > PROBE_INTERVAL ? interval : PROBE_INTERVAL;
}

double probe_idle_seconds(double interval)
{
	return PROBE_IDLE_TRIPS * interval > PROBE_IDLE ? PROBE_IDLE_TRIPS * interval : PROBE_IDLE;
}

void probe_init(struct bench_probe *p)
{
	memset(p, 0, sizeof(*p));
	p->fd = -1;
}

/* In a forked child: die with the bench, and out of the terminal's reach
 * (the bench stops it itself). */
static void child_setup(pid_t parent)
{
	guard_child(parent);
	setpgid(0, 0);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
}

static void no_delay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* The echo process: one connection at a time, every byte sent back. */
static void echo_loop(int lfd)
{
	char buf[256];

	for (;;) {
		int c;

		net_wait(lfd, POLLIN, -1);
		if ((c = accept(lfd, NULL, NULL)) < 0)
			continue;
		net_set_nonblock(c, 0);
		no_delay(c);
		for (;;) {
			ssize_t n = read(c, buf, sizeof(buf));

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0 || net_write_all(c, buf, (size_t)n) < 0)
				break;
		}
		close(c);
	}
}

int probe_start_echo(struct bench_probe *p, const char *host, char *err, size_t errlen)
{
	struct net_opts o = { 0 };
	char name[128];
	const char *colon;
	pid_t parent = getpid();
	int lfd = net_listen(host, "0", &o, err, errlen);

	if (lfd < 0)
		return -1;
	net_local_name(lfd, name, sizeof(name));
	colon = strrchr(name, ':');
	p->port = colon ? (int)strtol(colon + 1, NULL, 10) : 0;
	if (p->port <= 0) {
		snprintf(err, errlen, "the latency probe's echo socket has no port (%s)", name);
		close(lfd);
		return -1;
	}
	p->echo_pid = fork();
	if (p->echo_pid == 0) {
		child_setup(parent);
		echo_loop(lfd);
		_exit(0);
	}
	close(lfd);
	if (p->echo_pid < 0) {
		p->echo_pid = 0;
		snprintf(err, errlen, "cannot start the latency probe's echo process: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* The pinger: send 8 bytes, wait for them back, report; every interval
 * seconds, or at once when the last round trip took longer. */
static void ping_loop(int fd, int out, double interval)
{
	double next = clock_now();

	for (uint64_t seq = 0;; seq++) {
		struct probe_record rec;
		char back[8];
		size_t got = 0;
		double now = clock_now();

		if (next > now)
			clock_sleep(next - now);
		rec.sent = clock_now();
		next = rec.sent + interval;
		if (net_write_all(fd, &seq, sizeof(seq)) < 0)
			return;
		while (got < sizeof(back)) {
			ssize_t n;

			if (net_wait(fd, POLLIN, PROBE_TIMEOUT_MS) == 0)
				return;
			n = read(fd, back + got, sizeof(back) - got);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return;
			got += (size_t)n;
		}
		rec.rtt = clock_now() - rec.sent;
		if (memcmp(back, &seq, sizeof(seq)) != 0 || net_write_all(out, &rec, sizeof(rec)) < 0)
			return;
	}
}

int probe_start_pinger(struct bench_probe *p, const char *host, double interval, char *err, size_t errlen)
{
	struct net_opts o = { .timeout_ms = 5000 };
	char port[16];
	int pfd[2], fd;
	pid_t parent = getpid();

	p->interval = interval;
	p->idle = probe_idle_seconds(interval);
	snprintf(port, sizeof(port), "%d", p->port);
	if ((fd = net_connect(host, port, &o, err, errlen)) < 0)
		return -1;
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		close(fd);
		return -1;
	}
	p->ping_pid = fork();
	if (p->ping_pid == 0) {
		child_setup(parent);
		close(pfd[0]);
		net_set_nonblock(fd, 0);
		no_delay(fd);
		ping_loop(fd, pfd[1], interval);
		_exit(0);
	}
	close(fd);
	close(pfd[1]);
	if (p->ping_pid < 0) {
		p->ping_pid = 0;
		close(pfd[0]);
		snprintf(err, errlen, "cannot start the latency probe's pinger: %s", strerror(errno));
		return -1;
	}
	p->fd = pfd[0];
	fcntl(p->fd, F_SETFL, O_NONBLOCK);
	return 0;
}

size_t probe_drain(struct bench_probe *p, struct bench_series *sink, double from, double to)
{
	unsigned char buf[4096];
	size_t kept = 0;
	ssize_t n;

	if (p == NULL || p->fd < 0)
		return 0;
	while ((n = read(p->fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			struct probe_record rec;

			p->part[p->npart++] = buf[i];
			if (p->npart < sizeof(rec))
				continue;
			memcpy(&rec, p->part, sizeof(rec));
			p->npart = 0;
			p->last = rec.rtt;
			if (p->best <= 0 || rec.rtt < p->best)
				p->best = rec.rtt;
			if (sink != NULL && rec.sent >= from && rec.sent < to && bench_series_add(sink, rec.rtt) == 0)
				kept++;
		}
	}
	if (n == 0)
		p->ended = 1;
	return kept;
}

size_t probe_idle(struct bench_probe *p, struct bench_series *sink, const volatile sig_atomic_t *stop)
{
	double from, end;
	size_t kept = 0;

	if (p == NULL || p->fd < 0 || p->ended)
		return 0;
	probe_drain(p, NULL, 0, 0);
	end = clock_now() + PROBE_SETTLE_MAX;
	while (p->best > 0 && p->last > 2 * p->best + PROBE_SETTLE_SLACK && !*stop && clock_now() < end && !p->ended) {
		net_wait(p->fd, POLLIN, net_ms_until(end, clock_now()));
		probe_drain(p, NULL, 0, 0);
	}
	from = clock_now();
	end = from + p->idle;
	while (!*stop && clock_now() < end && !p->ended) {
		net_wait(p->fd, POLLIN, net_ms_until(end, clock_now()));
		kept += probe_drain(p, sink, from, end);
	}
	return kept;
}

static void kill_and_reap(pid_t *pid)
{
	if (*pid > 0) {
		proc_signal(*pid, SIGKILL);
		waitpid(*pid, NULL, 0);
	}
	*pid = 0;
}

void probe_stop(struct bench_probe *p)
{
	kill_and_reap(&p->ping_pid);
	kill_and_reap(&p->echo_pid);
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}
