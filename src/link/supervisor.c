/* SPDX-License-Identifier: ISC */
/* supervisor.c - one emulated link put together: the ends, the line, the processes (see supervisor.h). */
#include "supervisor.h"
#include "../proc.h"
#include "../bench/tcpdiag.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <linux/sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

void link_sup_symmetric(struct link_params p[2], double bits_per_s, double rtt, double loss)
{
	memset(p, 0, 2 * sizeof(p[0]));
	for (int d = 0; d < 2; d++) {
		p[d].bits_per_s = (uint64_t)(bits_per_s + 0.5);
		p[d].delay_ns = (int64_t)(rtt / 2 * 1e9 + 0.5);
		p[d].loss = loss;
		p[d].queue_packets = LINK_DEFAULT_QUEUE;
	}
}

int link_sup_open(struct link_sup *s, const struct link_params p[2], uint64_t seed, enum link_mode mode,
		  char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->line_fd = -1;
	s->net.ns_fd[0] = s->net.ns_fd[1] = s->net.pkt_fd[0] = s->net.pkt_fd[1] = -1;
	if (link_net_setup(&s->net, mode, err, errlen) < 0)
		return -1;
	if ((s->line = link_line_new(p, seed, s->net.pkt_fd, s->net.header, err, errlen)) == NULL) {
		link_net_close(&s->net);
		return -1;
	}
	return 0;
}

void link_sup_leave_line(struct link_sup *s)
{
	link_line_free(s->line);
	s->line = NULL;
	for (int side = 0; side < 2; side++) {
		if (s->net.pkt_fd[side] >= 0)
			close(s->net.pkt_fd[side]);
		s->net.pkt_fd[side] = -1;
	}
}

/* The line's child: moves packets until the parent closes its end of the
 * pipe, or dies (PR_SET_PDEATHSIG). Never returns. */
__attribute__((noreturn)) static void run_line_child(struct link_sup *s, int wake_fd, pid_t parent)
{
	char err[256];
	int rc;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(1);
	/* The parent's handlers only set its flags: here SIGTERM ends the line,
	 * and the parent decides what a terminal's SIGINT means. */
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_IGN);
	/* Timers may otherwise fire up to 50 us late: the delay line's precision. */
	prctl(PR_SET_TIMERSLACK, 1UL);
	rc = link_line_run(s->line, wake_fd, err, sizeof(err));
	link_line_free(s->line);
	_exit(rc < 0);
}

int link_sup_fork_line(struct link_sup *s, char *err, size_t errlen)
{
	pid_t parent = getpid();
	int pfd[2];

	if (pipe2(pfd, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "cannot start the delay line: %s", strerror(errno));
		return -1;
	}
	if ((s->line_pid = fork()) < 0) {
		snprintf(err, errlen, "cannot start the delay line: %s", strerror(errno));
		s->line_pid = 0;
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (s->line_pid == 0) {
		close(pfd[1]);
		run_line_child(s, pfd[0], parent);
	}
	close(pfd[0]);
	s->line_fd = pfd[1];
	/* The line holds the devices now; ours would keep them after it ended. */
	link_sup_leave_line(s);
	return 0;
}

/* clone3 rather than unshare(CLONE_NEWPID), which would put every later child
 * of ours there too (LeakSanitizer's tracer among them, which could then not see us). */
pid_t link_sup_fork_pid_ns(void)
{
	struct clone_args args;
	pid_t pid;

	memset(&args, 0, sizeof(args));
	args.flags = CLONE_NEWPID;
	args.exit_signal = SIGCHLD;
	pid = (pid_t)syscall(SYS_clone3, &args, sizeof(args));
	/* Kernels before 5.3 (and valgrind) have no clone3: the older way. */
	if (pid < 0 && errno == ENOSYS && unshare(CLONE_NEWPID) == 0)
		pid = fork();
	return pid;
}

void link_sup_close(struct link_sup *s)
{
	if (s->line_fd >= 0) {
		close(s->line_fd);
		s->line_fd = -1;
	}
	if (s->line_pid > 0) {
		proc_signal(s->line_pid, SIGTERM);
		waitpid(s->line_pid, NULL, 0);
		s->line_pid = 0;
	}
	link_line_free(s->line);
	s->line = NULL;
	link_net_close(&s->net);
}

/* A sock_diag socket that sees the near end's sockets (it keeps the namespace
 * it was made in); the caller is back in the far end's. -1 with errno. */
int link_sup_near_diag(const struct link_net *net)
{
	int fd;

	if (link_net_enter(net, 0) < 0)
		return -1;
	fd = tcpdiag_open();
	if (link_net_enter(net, 1) < 0) {
		int saved = errno;

		if (fd >= 0)
			close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}
