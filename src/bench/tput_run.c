/* SPDX-License-Identifier: ISC */
/* tput_run.c - the servers and the client runs of bench's throughput tests:
 * ncpv serve (-u), iperf3 -s and iperf -s (-u) on a free port of the given
 * address (loopback, or --link's near end), each
 * stopped by its PID; one client run with its CPU time (wait4's rusage, and
 * the server's own from /proc/PID/stat) and its figures parsed. Never prints. */
#include "tput_run.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner.h"
#include "../clock.h"

/* How long a server may take to bind, and a client past its -t to exit. */
#define SERVER_START_S 5.0
#define CLIENT_GRACE_S 15.0
/* How long iperf2's UDP server may take to print a client's line. */
#define IPERF2_REPORT_S 1.5
#define OUT_MAX (1u << 20)

/* A port of addr the kernel picked as free just now (the server binds it next;
 * a taken one makes the server exit, and the caller tries another). */
static int free_port(struct in_addr addr, int udp)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr = addr };
	socklen_t alen = sizeof(a);
	int fd = socket(AF_INET, (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0), port = -1;

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && getsockname(fd, (struct sockaddr *)&a, &alen) == 0)
		port = ntohs(a.sin_port);
	close(fd);
	return port;
}

/* Is a socket bound to addr:port (TCP: listening) in /proc/net/tcp or udp (of
 * this process's network namespace)? */
static int port_bound(struct in_addr addr, int port, int udp)
{
	FILE *f = fopen(udp ? "/proc/net/udp" : "/proc/net/tcp", "re");
	char line[512], want[32];
	int found = 0;

	if (f == NULL)
		return 0;
	/* The kernel prints the address as the number its bytes in network order make here. */
	snprintf(want, sizeof(want), "%08X:%04X", (unsigned)addr.s_addr, port);
	while (!found && fgets(line, sizeof(line), f)) {
		char local[64], remote[64], state[8];

		if (sscanf(line, " %*s %63s %63s %7s", local, remote, state) == 3 && strcmp(local, want) == 0) {
			unsigned long st = strtoul(state, NULL, 16);

			found = udp ? st == 7 : st == 10; /* TCP_CLOSE for a bound UDP socket, TCP_LISTEN */
		}
	}
	fclose(f);
	return found;
}

/* The user + system seconds of pid and its reaped children, from /proc/PID/stat; -1 unknown. */
static double proc_cpu(pid_t pid)
{
	char path[64], buf[1024], *p, *save = NULL;
	unsigned long long sum = 0;
	ssize_t n;
	int fd, field = 3;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* Past "(comm)", which may hold blanks, field 3 on: utime, stime, cutime and
	 * cstime are fields 14 to 17 (proc(5)). */
	if ((p = strrchr(buf, ')')) == NULL)
		return -1;
	for (char *t = strtok_r(p + 1, " ", &save); t && field <= 17; t = strtok_r(NULL, " ", &save), field++)
		if (field >= 14)
			sum += strtoull(t, NULL, 10);
	if (field <= 17)
		return -1;
	return (double)sum / (double)sysconf(_SC_CLK_TCK);
}

/* The server's command for method m and test into argv (strings in buf). */
static int server_argv(enum tput_method m, enum tput_test test, const char *ncpv, const char *host, int port,
		       char *buf, size_t len, char **argv)
{
	int n = 0;

	snprintf(buf, 64, "%s:%d", host, port);
	snprintf(buf + 64, len - 64, "%d", port);
	switch (m) {
	case TPUT_NCPV:
		argv[n++] = (char *)ncpv;
		argv[n++] = "serve";
		if (test == TPUT_UDP)
			argv[n++] = "-u";
		argv[n++] = "-q";
		argv[n++] = buf;
		break;
	case TPUT_IPERF3: /* one server takes TCP and UDP tests (its control is TCP) */
		argv[n++] = "iperf3";
		argv[n++] = "-s";
		argv[n++] = "-B";
		argv[n++] = (char *)host;
		argv[n++] = "-p";
		argv[n++] = buf + 64;
		break;
	case TPUT_IPERF2:
		/* Its UDP server prints loss and jitter as CSV: line-buffered, so that
		 * each client's line comes out when the test ends. */
		if (test == TPUT_UDP)
			argv[n++] = "stdbuf", argv[n++] = "-oL";
		argv[n++] = "iperf";
		argv[n++] = "-s";
		if (test == TPUT_UDP)
			argv[n++] = "-u", argv[n++] = "-y", argv[n++] = "C";
		argv[n++] = "-B";
		argv[n++] = (char *)host;
		argv[n++] = "-p";
		argv[n++] = buf + 64;
		break;
	case TPUT_NMETHODS:
		break;
	}
	argv[n] = NULL;
	return n;
}

int tput_server_start(struct tput_server *s, enum tput_method m, enum tput_test test, const char *ncpv,
		      const char *host, const char *scratch, char *err, size_t errlen)
{
	int udp_bound = test == TPUT_UDP && m != TPUT_IPERF3; /* iperf3 listens on TCP for its control */
	struct in_addr addr;

	memset(s, 0, sizeof(*s));
	s->out_fd = -1;
	s->method = m;
	if (snprintf(s->host, sizeof(s->host), "%s", host) >= (int)sizeof(s->host) || inet_pton(AF_INET, host, &addr) != 1) {
		snprintf(err, errlen, "'%s' is not an IPv4 address", host);
		return -1;
	}
	if (m == TPUT_IPERF2 && test == TPUT_UDP) {
		snprintf(s->out_path, sizeof(s->out_path), "%s/iperf2-udp-server.csv", scratch);
		if ((s->out_fd = open(s->out_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) {
			snprintf(err, errlen, "%s: %s", s->out_path, strerror(errno));
			return -1;
		}
	}
	/* A port another process takes between our look and the server's bind
	 * makes the server exit: try a few. */
	for (int attempt = 0; attempt < 5; attempt++) {
		char buf[160], *argv[16];
		double deadline = clock_now() + SERVER_START_S;
		int status;

		if ((s->port = free_port(addr, udp_bound)) < 0) {
			snprintf(err, errlen, "no free port on %s: %s", host, strerror(errno));
			return -1;
		}
		server_argv(m, test, ncpv, host, s->port, buf, sizeof(buf), argv);
		if ((s->pid = runner_spawn(argv, s->out_fd, -1)) < 0) {
			snprintf(err, errlen, "cannot start %s: %s", argv[0], strerror(errno));
			s->pid = 0;
			return -1;
		}
		while (clock_now() < deadline && !port_bound(addr, s->port, udp_bound)) {
			if (waitpid(s->pid, &status, WNOHANG) == s->pid)
				break;
			clock_sleep(0.01);
		}
		if (port_bound(addr, s->port, udp_bound) && waitpid(s->pid, &status, WNOHANG) == 0)
			return 0;
		runner_stop_group(s->pid);
		s->pid = 0;
	}
	snprintf(err, errlen, "the %s server did not start on %s (5 ports tried)", tput_method_name(m), host);
	return -1;
}

void tput_server_stop(struct tput_server *s)
{
	if (s->pid > 0)
		runner_stop_group(s->pid);
	s->pid = 0;
	if (s->out_fd >= 0) {
		close(s->out_fd);
		unlink(s->out_path);
	}
	s->out_fd = -1;
}

/* The client's command for one run into argv (numbers in buf). */
static void client_argv(const struct tput_server *s, enum tput_test test, int streams, double rate, int length,
			int seconds, const char *ncpv, char *buf, size_t len, char **argv)
{
	char *addr = buf, *port = buf + 40, *p = buf + 60, *t = buf + 80, *r = buf + 100, *l = buf + 130;
	int n = 0;

	(void)len;
	snprintf(addr, 40, "%s:%d", s->host, s->port);
	snprintf(port, 20, "%d", s->port);
	snprintf(p, 20, "%d", streams);
	snprintf(t, 20, "%d", seconds);
	/* iperf2 has no "as fast as possible": 10G is what people type for it. */
	snprintf(r, 30, "%.0f", rate == 0 && s->method == TPUT_IPERF2 ? 10e9 : rate);
	snprintf(l, 20, "%d", length);
	if (s->method == TPUT_NCPV) {
		argv[n++] = (char *)ncpv;
		argv[n++] = "get";
		if (test == TPUT_UDP) {
			argv[n++] = "-u", argv[n++] = "--rate", argv[n++] = r;
			argv[n++] = "-l", argv[n++] = l, argv[n++] = "-i", argv[n++] = "0";
		} else {
			argv[n++] = "-P", argv[n++] = p;
		}
		argv[n++] = "-t", argv[n++] = t, argv[n++] = "-q", argv[n++] = "-j", argv[n++] = addr;
	} else {
		argv[n++] = s->method == TPUT_IPERF3 ? "iperf3" : "iperf";
		argv[n++] = "-c", argv[n++] = (char *)s->host, argv[n++] = "-p", argv[n++] = port;
		/* -R: the server sends, as serve does to get; without it iperf measures an upload,
		 * another direction through a link than ncpv's download. */
		if (test == TPUT_UDP)
			argv[n++] = "-u", argv[n++] = "-b", argv[n++] = r, argv[n++] = "-l", argv[n++] = l;
		else
			argv[n++] = "-R", argv[n++] = "-P", argv[n++] = p;
		argv[n++] = "-t", argv[n++] = t;
		if (s->method == TPUT_IPERF3)
			argv[n++] = "-J";
		else
			argv[n++] = "-y", argv[n++] = "C";
	}
	argv[n] = NULL;
}

/* Up to max bytes of the file open on fd from its start, NUL-ended, into a
 * malloc'd buffer (*len its length); NULL when out of memory. */
static char *slurp(int fd, size_t max, size_t *len)
{
	char *buf = malloc(max + 1);
	size_t n = 0;
	ssize_t got;

	if (buf == NULL)
		return NULL;
	while (n < max && (got = pread(fd, buf + n, max - n, (off_t)n)) > 0)
		n += (size_t)got;
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* The first line of the client's stderr, as the reason a run failed. */
static void first_line(int fd, char *out, size_t len)
{
	size_t n;
	char *text = slurp(fd, 4096, &n), *nl;

	out[0] = '\0';
	if (text == NULL)
		return;
	if ((nl = strchr(text, '\n')) != NULL)
		*nl = '\0';
	snprintf(out, len, "%s", text);
	free(text);
}

static int parse_out(const struct tput_server *s, enum tput_test test, int length, const char *text, size_t n,
		     const char *server, struct tput_figures *f, char *err, size_t errlen)
{
	int udp = test == TPUT_UDP;

	if (s->method == TPUT_NCPV)
		return udp ? tput_parse_ncpv_udp(text, n, f, err, errlen) : tput_parse_ncpv_streams(text, n, f, err, errlen);
	if (s->method == TPUT_IPERF3)
		return tput_parse_iperf3(text, n, udp, f, err, errlen);
	return tput_parse_iperf2(text, n, udp, length, server, f, err, errlen);
}

int tput_client_run(const struct tput_server *s, enum tput_test test, int streams, double rate, int length,
		    int seconds, const char *ncpv, const char *scratch, volatile sig_atomic_t *stop,
		    struct tput_run *run, char *command, size_t cmdlen)
{
	char buf[200], out_path[4200], err_path[4200], *argv[32], *text;
	double server_cpu0 = proc_cpu(s->pid), deadline = clock_now() + seconds + CLIENT_GRACE_S, server_cpu1;
	struct rusage ru;
	int out_fd, err_fd, status = 0, rc = -1;
	pid_t pid, got = 0;
	size_t n = 0, k = 0;

	memset(run, 0, sizeof(*run));
	client_argv(s, test, streams, rate, length, seconds, ncpv, buf, sizeof(buf), argv);
	command[0] = '\0';
	for (int i = 0; argv[i] && k < cmdlen; i++)
		k += (size_t)snprintf(command + k, cmdlen - k, "%s%s", i ? " " : "", i == 0 && s->method == TPUT_NCPV ? "ncpv" : argv[i]);
	snprintf(out_path, sizeof(out_path), "%s/tput.out", scratch);
	snprintf(err_path, sizeof(err_path), "%s/tput.err", scratch);
	out_fd = open(out_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	err_fd = open(err_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out_fd < 0 || err_fd < 0) {
		snprintf(run->error, sizeof(run->error), "scratch file: %s", strerror(errno));
		goto out;
	}
	if ((pid = runner_spawn(argv, out_fd, err_fd)) < 0) {
		snprintf(run->error, sizeof(run->error), "fork: %s", strerror(errno));
		goto out;
	}
	while ((got = wait4(pid, &status, WNOHANG, &ru)) == 0 && clock_now() < deadline && !*stop)
		clock_sleep(0.01);
	if (got != pid) {
		runner_stop_group(pid);
		if (*stop)
			goto out;
		snprintf(run->error, sizeof(run->error), "still running %d s past its -t: stopped", (int)CLIENT_GRACE_S);
		rc = 0;
		goto out;
	}
	rc = 0;
	server_cpu1 = proc_cpu(s->pid);
	if ((text = slurp(out_fd, OUT_MAX, &n)) == NULL) {
		snprintf(run->error, sizeof(run->error), "out of memory");
		goto out;
	}
	{
		char why[200];
		char *server = NULL;
		size_t sn = 0;
		int parsed = parse_out(s, test, length, text, n, NULL, &run->f, why, sizeof(why));

		/* iperf2's UDP server prints its line for this client a little after the client ends. */
		for (double until = clock_now() + IPERF2_REPORT_S;
		     parsed == 0 && s->out_fd >= 0 && run->f.loss_percent < 0 && clock_now() < until;) {
			free(server);
			if ((server = slurp(s->out_fd, OUT_MAX, &sn)) == NULL)
				break;
			parse_out(s, test, length, text, n, server, &run->f, why, sizeof(why));
			if (run->f.loss_percent < 0)
				clock_sleep(0.02);
		}
		free(server);
		if (parsed < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			first_line(err_fd, run->error, sizeof(run->error));
			if (run->error[0] == '\0' || parsed < 0)
				snprintf(run->error, sizeof(run->error), "%.150s (exit status %d)", parsed < 0 ? why : "failed",
					 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		} else {
			run->ok = 1;
		}
	}
	free(text);
	run->cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
		     ru.ru_stime.tv_usec / 1e6;
	if (server_cpu0 >= 0 && server_cpu1 >= server_cpu0)
		run->cpu_s += server_cpu1 - server_cpu0;
	else
		run->cpu_s = -1;
out:
	if (out_fd >= 0)
		close(out_fd);
	if (err_fd >= 0)
		close(err_fd);
	unlink(out_path);
	unlink(err_path);
	return rc;
}
