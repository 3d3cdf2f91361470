/* SPDX-License-Identifier: ISC */
/* runner.c - start the servers and the methods as child processes, and measure
 * one run at the counting point (see runner.h). */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guard.h"
#include "probe.h"
#include "tcpdiag.h"
#include "../clock.h"
#include "../loop.h"
#include "../net.h"
#include "../shquote.h"
#include "../proc.h"

/* How often the counting point is read during a stream run. */
#define SAMPLE_MS 100
/* Sockets one method may hold at once and still be counted apiece. */
#define MAX_SOCKS 64
/* How long a stream method may take to receive its first byte, and how
 * often that is checked (the run's clock starts there). */
#define STREAM_START_MAX 30.0
#define START_POLL_MS 5
/* How long a stopped process group gets before SIGKILL. */
#define STOP_GRACE_MS 2000

/* fork + exec argv in a new process group, stdin from /dev/null, stdout to
 * out_fd (or /dev/null when -1), stderr to err_fd (or the stdout's). */
static pid_t spawn(char *const argv[], int out_fd, int err_fd)
{
	pid_t parent = getpid(), pid = fork();

	if (pid != 0)
		return pid;
	guard_child(parent);
	setpgid(0, 0);
	/* The bench ignores SIGPIPE; nc | pv must behave as it does in a shell. */
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	{
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
	}
	int null = open("/dev/null", O_RDWR);

	dup2(null, 0);
	dup2(out_fd >= 0 ? out_fd : null, 1);
	dup2(err_fd >= 0 ? err_fd : 1, 2);
	execvp(argv[0], argv);
	dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* SIGTERM the group, wait a bounded time, then SIGKILL; reaps pid. */
static int stop_group(pid_t pid)
{
	int status = 0;

	if (pid <= 0)
		return 0;
	proc_signal_group(pid, SIGTERM);
	for (int i = 0; i < STOP_GRACE_MS / 10; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			proc_signal_group(pid, SIGKILL); /* stragglers of the group (pv of nc | pv) */
			return status;
		}
		clock_sleep(0.010);
	}
	proc_signal_group(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return status;
}

pid_t runner_spawn(char *const argv[], int out_fd, int err_fd)
{
	return spawn(argv, out_fd, err_fd);
}

int runner_stop_group(pid_t pid)
{
	return stop_group(pid);
}

/* CPU seconds (user + system) of every descendant reaped so far. */
static double children_cpu(void)
{
	return clock_cpu_seconds(RUSAGE_CHILDREN);
}

/* Reap what is left of a method's process group: with the bench a child
 * subreaper, orphans of the method's shell come back to it, and each one
 * reaped adds its CPU time to RUSAGE_CHILDREN. Bounded by STOP_GRACE_MS. */
static void reap_group(pid_t pgid)
{
	for (int i = 0; i < STOP_GRACE_MS / 5; i++) {
		while (waitpid(-pgid, NULL, WNOHANG) > 0)
			;
		if (proc_signal_group(pgid, 0) < 0 && errno == ESRCH)
			return;
		clock_sleep(0.005);
	}
}

void runner_become_subreaper(void)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1);
}

static int pidfd_of(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* One JSON close event from ncpv serve: count it as a completed download
 * when the server sent exactly size bytes and the peer then closed, and
 * give its duration (accept to close) to the run that collects them. */
static void take_log_line(struct bench_server *s, const char *line)
{
	const char *sent = strstr(line, "\"sent\":"), *secs = strstr(line, "\"seconds\":");
	const char *rtt = strstr(line, "\"rtt_ms\":"), *retrans = strstr(line, "\"retrans\":");

	if (strstr(line, "\"event\":\"close\"") == NULL || sent == NULL)
		return;
	if (strstr(line, "\"reason\":\"done\"") != NULL && strtoull(sent + 7, NULL, 10) == s->size) {
		s->done++;
		if (s->sink != NULL && secs != NULL)
			bench_series_add(&s->sink->latency, strtod(secs + 10, NULL));
		/* TCP's view of each download, as the server saw it at close. */
		if (s->sink != NULL && retrans != NULL)
			s->sink->retrans = (s->sink->retrans > 0 ? s->sink->retrans : 0) + strtol(retrans + 10, NULL, 10);
		if (s->sink != NULL && rtt != NULL && strtod(rtt + 9, NULL) > 0) {
			s->sink->rtt_sum += strtod(rtt + 9, NULL);
			s->sink->rtt_count++;
		}
	} else
		s->short_or_reset++;
}

void runner_drain_server(struct bench_server *s)
{
	char buf[8192];
	ssize_t n;

	if (s == NULL || s->log_fd < 0)
		return;
	while ((n = read(s->log_fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				s->line[s->linelen] = '\0';
				take_log_line(s, s->line);
				s->linelen = 0;
			} else if (s->linelen + 1 < sizeof(s->line)) {
				s->line[s->linelen++] = buf[i];
			}
		}
	}
}

int runner_start_ncpv_server(struct bench_server *s, const char *ncpv, const char *host,
			     uint64_t size, int tls, char *err, size_t errlen)
{
	char sizearg[32], at[300], line[512];
	char *argv[10] = { (char *)ncpv, "serve", "--json", "--max-conns", "100000" };
	int pfd[2], argc = 5;
	size_t len = 0;
	double deadline = clock_now() + 5;

	memset(s, 0, sizeof(*s));
	s->size = size;
	snprintf(s->host, sizeof(s->host), "%s", host);
	snprintf(sizearg, sizeof(sizearg), "%llu", (unsigned long long)size);
	snprintf(at, sizeof(at), strchr(host, ':') ? "[%s]:0" : "%s:0", host);
	if (tls)
		argv[argc++] = "--tls";
	if (size > 0) {
		argv[argc++] = "--size";
		argv[argc++] = sizearg;
	}
	argv[argc++] = at;
	argv[argc] = NULL;
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	s->pid = spawn(argv, -1, pfd[1]);
	close(pfd[1]);
	s->log_fd = pfd[0];
	if (s->pid < 0) {
		snprintf(err, errlen, "cannot start the server: %s", strerror(errno));
		close(pfd[0]);
		s->pid = 0;
		return -1;
	}
	/* The first line says where it listens, or why it cannot. */
	while (len + 1 < sizeof(line) && clock_now() < deadline) {
		ssize_t n;

		if (net_wait(s->log_fd, POLLIN, 100) == 0)
			continue;
		n = read(s->log_fd, line + len, 1);
		if (n <= 0 || line[len] == '\n')
			break;
		len++;
	}
	line[len] = '\0';
	{
		const char *addr = strstr(line, "\"address\":\""), *colon, *end;

		end = addr ? strchr(addr + 11, '"') : NULL;
		for (colon = end; colon && colon > addr && *colon != ':'; colon--)
			;
		if (addr == NULL || end == NULL || colon == NULL || (s->port = (int)strtol(colon + 1, NULL, 10)) <= 0) {
			snprintf(err, errlen, "the server did not start: %s", len ? line : "no output");
			runner_stop_server(s);
			return -1;
		}
	}
	fcntl(s->log_fd, F_SETFL, O_NONBLOCK);
	return 0;
}

static int free_port(const char *host)
{
	struct net_opts o = { 0 };
	char err[256], name[128];
	int fd = net_listen(host, "0", &o, err, sizeof(err)), port = -1;

	if (fd < 0)
		return -1;
	net_local_name(fd, name, sizeof(name));
	if (strrchr(name, ':'))
		port = (int)strtol(strrchr(name, ':') + 1, NULL, 10);
	close(fd);
	return port;
}

static int wait_listening(int diag_fd, int port, double seconds)
{
	double deadline = clock_now() + seconds;

	do {
		int rc = tcpdiag_listening(diag_fd, port, NULL);

		if (rc != 0)
			return rc;
		clock_sleep(0.005);
	} while (clock_now() < deadline);
	return 0;
}

int runner_start_seed_server(struct bench_server *s, const char *host, int diag_fd,
			     char *err, size_t errlen)
{
	char script[600], qhost[300];
	char *argv[] = { "sh", "-c", script, NULL };

	memset(s, 0, sizeof(*s));
	s->log_fd = -1;
	s->seed = 1;
	snprintf(s->host, sizeof(s->host), "%s", host);
	if ((s->port = free_port(host)) < 0) {
		snprintf(err, errlen, "no free port on %s", host);
		return -1;
	}
	/* The seed's server loop, with its address made loopback (or the link's). */
	shq_quote(host, qhost, sizeof(qhost));
	snprintf(script, sizeof(script), "while true; do nc -l %s %d </dev/urandom; done", qhost, s->port);
	s->pid = spawn(argv, -1, -1);
	if (s->pid < 0) {
		s->pid = 0;
		snprintf(err, errlen, "cannot start the seed's server: %s", strerror(errno));
		return -1;
	}
	if (wait_listening(diag_fd, s->port, 5) != 1) {
		snprintf(err, errlen, "the seed's server (nc -l %s %d) is not listening after 5 s", host, s->port);
		runner_stop_server(s);
		return -1;
	}
	return 0;
}

void runner_stop_server(struct bench_server *s)
{
	if (s->pid > 0)
		stop_group(s->pid);
	s->pid = 0;
	runner_drain_server(s);
	if (s->log_fd >= 0)
		close(s->log_fd);
	s->log_fd = -1;
}

/* The first line of the method's stderr, for an error message. */
static void first_log_line(const char *path, char *out, size_t len)
{
	FILE *f = path ? fopen(path, "r") : NULL;

	out[0] = '\0';
	if (f == NULL)
		return;
	if (fgets(out, (int)len, f) != NULL)
		out[strcspn(out, "\n")] = '\0';
	fclose(f);
}

/* The seed's nc -l keeps listening while it serves, and stops only when it
 * exits: a client that connects before the previous nc is gone lands in a
 * dying backlog. Ready means no connection of the last run is left on the
 * server's side and a new nc listens: a listening socket other than the
 * one the last run used (socket cookies are never reused). */
static int seed_ready(struct bench_server *s, int diag_fd, double seconds)
{
	double deadline = clock_now() + seconds;

	do {
		struct tcpdiag_sock socks[MAX_SOCKS];
		int n = tcpdiag_query(diag_fd, s->port, TCPDIAG_LOCAL_PORT, socks, MAX_SOCKS), busy = 0;
		uint64_t cookie = 0;

		for (int i = 0; i < n && i < MAX_SOCKS; i++)
			busy |= socks[i].state == TCP_STATE_ESTABLISHED || socks[i].state == TCP_STATE_CLOSE_WAIT;
		if (n >= 0 && !busy && tcpdiag_listening(diag_fd, s->port, &cookie) == 1 &&
		    cookie != s->listener) {
			s->listener = cookie;
			return 1;
		}
		clock_sleep(0.005);
	} while (clock_now() < deadline);
	return 0;
}

static pid_t start_method(const struct runner_ctx *c, char *const argv[], struct bench_run *run)
{
	int err_fd = open(c->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	pid_t pid;

	if (c->server && c->server->seed && !seed_ready(c->server, c->server_diag_fd, 5)) {
		snprintf(run->error, sizeof(run->error), "the seed's server is not listening again");
		if (err_fd >= 0)
			close(err_fd);
		return -1;
	}
	pid = spawn(argv, -1, err_fd);
	if (err_fd >= 0)
		close(err_fd);
	if (pid < 0)
		snprintf(run->error, sizeof(run->error), "fork: %s", strerror(errno));
	return pid;
}

static void describe_exit(const struct runner_ctx *c, int status, double t, struct bench_run *run)
{
	char first[120];

	first_log_line(c->log_path, first, sizeof(first));
	if (WIFEXITED(status))
		snprintf(run->error, sizeof(run->error), "exited with status %d after %.2f s%s%s",
			 WEXITSTATUS(status), t, first[0] ? ": " : "", first);
	else
		snprintf(run->error, sizeof(run->error), "killed by signal %d after %.2f s%s%s",
			 WTERMSIG(status), t, first[0] ? ": " : "", first);
}

/* The bytes every socket of the method received so far; sockets that have
 * closed keep their last count in socks. A failed read of the counters
 * keeps the last count and leaves its errno in *query_errno. */
static uint64_t count_bytes(const struct runner_ctx *c, struct tcpdiag_sock *socks, size_t *nsocks,
			    int *query_errno)
{
	struct tcpdiag_sock now[MAX_SOCKS];
	int n = tcpdiag_query(c->diag_fd, c->port, TCPDIAG_REMOTE_PORT, now, MAX_SOCKS);
	uint64_t total = 0;

	if (n < 0)
		*query_errno = errno;

	for (int i = 0; i < n && i < MAX_SOCKS; i++) {
		size_t k = 0;

		while (k < *nsocks && socks[k].cookie != now[i].cookie)
			k++;
		if (k == *nsocks && *nsocks < MAX_SOCKS)
			socks[(*nsocks)++] = now[i];
		else if (k < *nsocks && now[i].bytes_received >= socks[k].bytes_received)
			socks[k] = now[i];
	}
	for (size_t k = 0; k < *nsocks; k++)
		total += socks[k].bytes_received;
	return total;
}

/* TCP's view of the run, read before it is stopped: the server's sockets
 * (its retransmits, its RTT) when the server is ours, else the client's
 * receive-side RTT estimate. */
static void tcp_view(const struct runner_ctx *c, struct bench_run *run)
{
	struct tcpdiag_sock socks[MAX_SOCKS];
	int server = c->server != NULL && c->server_diag_fd >= 0;
	int n = server ? tcpdiag_query(c->server_diag_fd, c->port, TCPDIAG_LOCAL_PORT, socks, MAX_SOCKS)
		       : tcpdiag_query(c->diag_fd, c->port, TCPDIAG_REMOTE_PORT, socks, MAX_SOCKS);
	double rtt = 0;
	long retrans = 0;
	int k = 0;

	run->retrans = -1;
	run->rtt_ms = -1;
	for (int i = 0; i < n && i < MAX_SOCKS; i++) {
		uint32_t us = server ? socks[i].rtt_us : socks[i].rcv_rtt_us;

		retrans += socks[i].total_retrans;
		if (us > 0) {
			rtt += us / 1000.0;
			k++;
		}
	}
	if (n > 0 && server)
		run->retrans = retrans;
	if (k > 0)
		run->rtt_ms = rtt / k;
}

/* Sockets to the port from before this run (a previous method's, closing):
 * entered in socks with their count, which is subtracted, so that only
 * bytes arriving from now on are counted. Returns their total. */
static uint64_t count_before(const struct runner_ctx *c, struct tcpdiag_sock *socks, size_t *nsocks)
{
	int ignored = 0;

	return count_bytes(c, socks, nsocks, &ignored);
}

/* Wait for the method's first byte: a tool that starts slowly (ncat loads
 * its CA bundle) is not charged for it in a stream run. Returns 1 when bytes
 * came (time and count in *t0, *b0), 0 when the method exited or the wait
 * ended first (*exited says which), -1 when *stop. */
static int wait_first_byte(const struct runner_ctx *c, pid_t pid, int pfd, struct tcpdiag_sock *socks,
			   size_t *nsocks, int *query_errno, uint64_t old, double *t0, uint64_t *b0, int *exited,
			   int *status)
{
	double deadline = clock_now() + STREAM_START_MAX;

	while (!*c->stop) {
		uint64_t bytes = count_bytes(c, socks, nsocks, query_errno) - old;

		if (bytes > 0) {
			*t0 = clock_now();
			*b0 = bytes;
			return 1;
		}
		if ((pfd >= 0 && net_wait(pfd, POLLIN, START_POLL_MS) != 0) ||
		    waitpid(pid, status, WNOHANG) == pid) {
			*exited = 1;
			return 0;
		}
		if (pfd < 0)
			clock_sleep(START_POLL_MS / 1000.0);
		if (clock_now() > deadline)
			return 0;
	}
	return -1;
}

int runner_stream(const struct runner_ctx *c, char *const argv[], double duration, struct bench_run *run)
{
	struct tcpdiag_sock socks[MAX_SOCKS];
	size_t nsocks = 0;
	double tstart, t0, t = 0, cpu0;
	uint64_t bytes = 0, b0 = 0, old;
	pid_t pid;
	int pfd, status = 0, exited = 0, query_errno = 0, started;

	/* The latency probe's idle round trips, before the method starts. */
	probe_idle(c->probe, &run->ping_idle, c->stop);
	tstart = t0 = clock_now();
	old = count_before(c, socks, &nsocks);
	cpu0 = children_cpu();
	pid = start_method(c, argv, run);
	if (pid < 0)
		return 0;
	pfd = pidfd_of(pid);
	started = wait_first_byte(c, pid, pfd, socks, &nsocks, &query_errno, old, &t0, &b0, &exited, &status);
	run->first_byte = started == 1 ? t0 - tstart : 0;
	bench_run_add_sample(run, 0, 0);
	while (started == 1 && !*c->stop) {
		double left = duration - (clock_now() - t0);
		int wait = left * 1000 < SAMPLE_MS ? (int)(left * 1000) : SAMPLE_MS;

		if (wait > 0 && pfd >= 0 && net_wait(pfd, POLLIN, wait) != 0)
			exited = 1;
		else if (wait > 0 && pfd < 0)
			clock_sleep(wait / 1000.0);
		t = clock_now() - t0;
		bytes = count_bytes(c, socks, &nsocks, &query_errno) - old - b0;
		bench_run_add_sample(run, t, bytes);
		probe_drain(c->probe, &run->ping_load, t0, t0 + duration);
		runner_drain_server(c->server);
		if (c->progress)
			c->progress(c->arg, t, bytes, 0);
		if (exited || waitpid(pid, &status, WNOHANG) == pid) {
			exited = 1;
			break;
		}
		if (wait <= 1 || t >= duration)
			break; /* within a millisecond of the end: this was the last sample */
	}
	if (started != 1)
		t = clock_now() - tstart;
	/* Round trips sent while the stream ran; those still in flight are lost. */
	probe_drain(c->probe, &run->ping_load, t0, t0 + t);
	if (started == 1 && !exited)
		tcp_view(c, run);
	else
		run->retrans = -1, run->rtt_ms = -1;
	if (exited) {
		if (pfd >= 0)
			waitpid(pid, &status, 0);
		proc_signal_group(pid, SIGKILL);
		describe_exit(c, status, t, run);
	} else {
		stop_group(pid);
	}
	reap_group(pid);
	run->cpu = children_cpu() - cpu0;
	run->cpu_bytes = bytes + b0; /* the method's own, from its start */
	if (pfd >= 0)
		close(pfd);
	if (*c->stop)
		return -1;
	run->bytes = bytes;
	run->seconds = t;
	run->value = started == 1 && t > 0 ? (double)bytes / t : 0;
	if (!exited && started != 1 && query_errno != 0)
		snprintf(run->error, sizeof(run->error), "cannot read the socket counters (sock_diag): %s",
			 strerror(query_errno));
	else if (!exited && started != 1)
		snprintf(run->error, sizeof(run->error), "no bytes arrived in %.0f s (no socket to port %d seen)",
			 t, c->port);
	run->ok = !exited && started == 1;
	return 0;
}

int runner_files(const struct runner_ctx *c, char *const argv[], uint64_t count, uint64_t size,
		 double timeout, struct bench_run *run)
{
	struct bench_server *srv = c->server;
	uint64_t done0 = srv ? srv->done : 0;
	double t0 = clock_now(), t = 0, end, cpu0 = children_cpu();
	pid_t pid = start_method(c, argv, run);
	int pfd, status = 0, exited = 0;

	run->retrans = -1;
	run->rtt_ms = -1;
	if (pid < 0)
		return 0;
	if (srv)
		srv->sink = run;
	pfd = pidfd_of(pid);
	while (!*c->stop && !exited) {
		struct pollfd p[2] = { { pfd, POLLIN, 0 }, { srv ? srv->log_fd : -1, POLLIN, 0 } };

		if (poll(p, 2, SAMPLE_MS) < 0 && errno != EINTR)
			break;
		t = clock_now() - t0;
		if ((p[0].revents & POLLIN) || waitpid(pid, &status, WNOHANG) == pid)
			exited = 1;
		runner_drain_server(srv);
		if (c->progress)
			c->progress(c->arg, t, 0, srv ? srv->done - done0 : 0);
		if (!exited && t > timeout)
			break;
	}
	if (exited && pfd >= 0)
		waitpid(pid, &status, 0);
	if (!exited)
		status = stop_group(pid);
	proc_signal_group(pid, SIGKILL); /* anything the method left behind */
	reap_group(pid);
	run->cpu = children_cpu() - cpu0;
	if (pfd >= 0)
		close(pfd);
	if (*c->stop) {
		if (srv)
			srv->sink = NULL;
		return -1;
	}
	/* The server logs each download when the client closes: let it catch up. */
	end = clock_now() + 2;
	while (srv && srv->done - done0 < count && clock_now() < end) {
		net_wait(srv->log_fd, POLLIN, 50);
		runner_drain_server(srv);
	}
	if (srv)
		srv->sink = NULL;
	if (run->rtt_count > 0)
		run->rtt_ms = run->rtt_sum / (double)run->rtt_count;
	run->seconds = t;
	run->transfers = srv ? srv->done - done0 : (exited && status == 0 ? count : 0);
	run->bytes = run->transfers * size;
	run->value = t > 0 ? (double)run->transfers / t : 0;
	if (!exited)
		snprintf(run->error, sizeof(run->error), "still running after %g s (--timeout)", timeout);
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		describe_exit(c, status, t, run);
	else if (run->transfers != count)
		snprintf(run->error, sizeof(run->error), "the server saw %llu of %llu downloads complete",
			 (unsigned long long)run->transfers, (unsigned long long)count);
	run->ok = run->error[0] == '\0';
	return 0;
}
