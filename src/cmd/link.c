/* SPDX-License-Identifier: ISC */
/* link.c - "ncpv link": run a command behind an emulated link (rate, delay, jitter, loss, queue). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "../bench/tcpdiag.h"
#include "../clock.h"
#include "../link/supervisor.h"
#include "../units.h"
#include "../proc.h"

/* As env(1) and devtcp: the wrapper failed, the command cannot run, is missing. */
enum { LINK_EXIT_WRAPPER = 125, LINK_EXIT_CANNOT_RUN = 126, LINK_EXIT_NOT_FOUND = 127 };

/* How long --near has, once COMMAND ended and SIGTERM was sent, to end on its own: more than
 * serve's STOP_SETTLE_SECONDS. */
#define NEAR_STOP_SECONDS 3.0

/* Without --near-wait, how long the near command has to start listening. */
#define LINK_DEFAULT_NEAR_WAIT 10.0

struct link_opts {
	struct link_params p[2];	/* [0] down (near to far), [1] up */
	uint64_t seed;
	int seeded, verbose, queue_set;
	const char *near;		/* shell command for the near end, or NULL */
	double near_wait;		/* seconds for --near to listen before COMMAND starts; 0: no wait */
	int near_wait_set;
	enum link_mode mode;
	char **command;			/* borrowed from argv */
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ncpv link [OPTION]... [--] COMMAND [ARG]...\n"
		"Run COMMAND in a network namespace behind an emulated link; the near end of\n"
		"the link is " LINK_NEAR_ADDR " (COMMAND's own address is " LINK_FAR_ADDR ").\n"
		"Each value is one for both directions, or DOWN/UP (down: toward COMMAND).\n\n"
		"      --rate R      bandwidth, such as 94mbit or 1gbit (default: no limit)\n"
		"      --delay D     one-way delay, such as 20ms (a round trip is twice D)\n"
		"      --jitter J    add a uniform draw in [-J, +J] to each packet's delay\n"
		"                    (packets may then be reordered)\n"
		"      --loss P      drop each packet with probability P percent, such as 1%%\n"
		"      --queue Q     drop-tail queue before the rate: Q packets, or bytes with\n"
		"                    a unit such as 64K (default %d packets; needs --rate)\n"
		"      --seed N      random seed for loss and jitter (default: any; -v shows it)\n"
		"      --near CMD    run the shell command CMD at the near end meanwhile\n"
		"                    (a server for COMMAND to reach; stopped after COMMAND);\n"
		"                    COMMAND starts once CMD listens on a TCP port there\n"
		"                    (not on its loopback, which COMMAND cannot reach)\n"
		"      --near-wait T\n"
		"                    wait at most T for CMD to listen (default %gs); 0 starts\n"
		"                    COMMAND at once, for a CMD that does not listen\n"
		"      --mode M      tun: TUN devices; veth: veth pairs read by packet sockets\n"
		"                    (default: tun where /dev/net/tun opens, else veth)\n"
		"  -v, --verbose     print the link and its random seed first, and each\n"
		"                    direction's packet counts at the end\n"
		"  -h, --help        show this help\n\n"
		"T is in seconds (2.5), or takes a unit: 500ms, 30s, 1m.\n"
		"COMMAND cannot reach the host's addresses: 127.0.0.1 there is the namespace's\n"
		"own loopback, not the host's. Run its server with --near, at " LINK_NEAR_ADDR ":\n"
		"  ncpv link --near 'ncpv serve " LINK_NEAR_ADDR ":6666' -- ncpv get " LINK_NEAR_ADDR "\n\n"
		"Needs no root: an ordinary user gets a user namespace. Packets pass through\n"
		"ncpv's delay line, so no netem is needed; both modes emulate all of the\n"
		"above. NCPV_LINK_NEAR and NCPV_LINK_FAR hold the addresses for COMMAND.\n"
		"Exit status: COMMAND's; 125 if ncpv link fails (or CMD ends or does not\n"
		"listen in time), 126 if COMMAND cannot be run, 127 if it is not found, 2 for\n"
		"a bad option.\n",
		LINK_DEFAULT_QUEUE, LINK_DEFAULT_NEAR_WAIT);
}

enum { OPT_RATE = 300, OPT_DELAY, OPT_JITTER, OPT_LOSS, OPT_QUEUE, OPT_SEED, OPT_NEAR, OPT_NEAR_WAIT, OPT_MODE };

static enum cmd_parse parse_options(int argc, char **argv, struct link_opts *o)
{
	static const struct option longopts[] = {
		{ "rate", required_argument, NULL, OPT_RATE },
		{ "delay", required_argument, NULL, OPT_DELAY },
		{ "jitter", required_argument, NULL, OPT_JITTER },
		{ "loss", required_argument, NULL, OPT_LOSS },
		{ "queue", required_argument, NULL, OPT_QUEUE },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "near", required_argument, NULL, OPT_NEAR },
		{ "near-wait", required_argument, NULL, OPT_NEAR_WAIT },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char kinds[] = { 'r', 't', 'j', 'p', 'q' };
	static const char *const names[] = { "rate", "delay", "jitter", "loss", "queue" };
	const struct cmd_tail tail = { .cmd = "link", .usage = usage };
	enum cmd_parse tailed;
	char why[160];
	int c;

	memset(o, 0, sizeof(*o));
	o->near_wait = LINK_DEFAULT_NEAR_WAIT;
	opterr = 0;
	optind = 0;
	/* '+': options end at COMMAND, so its own options stay its own. */
	while ((c = getopt_long(argc, argv, "+:vh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_RATE:
		case OPT_DELAY:
		case OPT_JITTER:
		case OPT_LOSS:
		case OPT_QUEUE:
			if (link_parse_value(optarg, kinds[c - OPT_RATE], o->p, why, sizeof(why)) < 0) {
				cmd_bad_value("link", names[c - OPT_RATE], optarg, why);
				return CMD_PARSE_USAGE;
			}
			o->queue_set |= c == OPT_QUEUE;
			break;
		case OPT_SEED:
			if (units_parse_u64(optarg, UINT64_MAX, &o->seed) < 0) {
				cmd_bad_value("link", "seed", optarg, "expected a whole number from 0 to 2^64-1");
				return CMD_PARSE_USAGE;
			}
			o->seeded = 1;
			break;
		case OPT_NEAR:
			if (optarg[0] == '\0') {
				cmd_bad_value("link", "near", optarg, "expected a shell command");
				return CMD_PARSE_USAGE;
			}
			o->near = optarg;
			break;
		case OPT_NEAR_WAIT:
			if (units_parse_seconds(optarg, &o->near_wait) < 0 || o->near_wait > 3600) {
				cmd_bad_value("link", "near-wait", optarg, "expected a duration from 0 to 1h, such as 30s");
				return CMD_PARSE_USAGE;
			}
			o->near_wait_set = 1;
			break;
		case OPT_MODE:
			if (strcmp(optarg, "tun") == 0)
				o->mode = LINK_MODE_TUN;
			else if (strcmp(optarg, "veth") == 0)
				o->mode = LINK_MODE_VETH;
			else {
				/* The status written here: the analyzer cannot see into common.c. */
				cmd_bad_value("link", "mode", optarg, "expected tun or veth");
				return CMD_PARSE_USAGE;
			}
			break;
		case 'v':
			o->verbose = 1;
			break;
		default:
			if ((tailed = cmd_option_tail(&tail, c, argv)) != CMD_PARSE_RUN)
				return tailed;
		}
	}
	if (o->near_wait_set && o->near == NULL) {
		cmd_error("link", "--near-wait needs --near: there is nothing to wait for (try 'ncpv link --help')");
		return CMD_PARSE_USAGE;
	}
	if (o->queue_set && (!o->p[0].bits_per_s || !o->p[1].bits_per_s)) {
		cmd_error("link", "--queue needs --rate: without a rate nothing waits (try 'ncpv link --help')");
		return CMD_PARSE_USAGE;
	}
	for (int d = 0; d < 2; d++)
		if (o->p[d].bits_per_s && !o->p[d].queue_packets && !o->p[d].queue_bytes)
			o->p[d].queue_packets = LINK_DEFAULT_QUEUE;
	if (optind >= argc) {
		cmd_error("link", "missing COMMAND (try 'ncpv link --help')");
		return CMD_PARSE_USAGE;
	}
	o->command = argv + optind;
	return CMD_PARSE_RUN;
}

enum cmd_parse cmd_link_parse(int argc, char **argv)
{
	struct link_opts o;

	return parse_options(argc, argv, &o);
}

__attribute__((noreturn)) static void exec_command(char **argv)
{
	int saved;

	execvp(argv[0], argv);
	saved = errno;
	cmd_error("link", "%s: %s", argv[0], saved == ENOENT ? "command not found" : strerror(saved));
	_exit(saved == ENOENT ? LINK_EXIT_NOT_FOUND : LINK_EXIT_CANNOT_RUN);
}

/* A signal sent by a process (kill, our parent passing one on) rather than
 * by the terminal, which sends it to the whole foreground group itself. */
static int sent_by_process(int code)
{
	return code == SI_USER || code == SI_QUEUE || code == SI_TKILL;
}

/*
 * Wait, at most o->near_wait seconds, until a TCP socket listens at the near
 * end: a fresh namespace, so the near command's (or a child's). Returns 0
 * then; else says why (the near command ended first, the time ran out, a
 * signal) and returns the exit status for ncpv link.
 */
static int wait_near_listens(const struct link_opts *o, int diag, pid_t near, const sigset_t *mask)
{
	const struct timespec step = { 0, 5000000L }; /* a server listens within ms of its start */
	double deadline = clock_now() + o->near_wait;
	siginfo_t si;
	int status, n, lport = 0;

	for (;;) {
		if ((n = tcpdiag_listening_beyond_loopback(diag, &lport)) < 0) {
			cmd_error("link", "cannot see the near end's sockets: %s", strerror(errno));
			return LINK_EXIT_WRAPPER;
		}
		if (n > 0)
			return 0;
		/* A server on the near end's own loopback (ncpv serve's default) is out of
		 * COMMAND's reach: not ready. Waited out to --near-wait (a server may open a
		 * loopback port before its real one), then said so instead of "did not listen". */
		if (waitpid(near, &status, WNOHANG) == near) {
			if (WIFEXITED(status))
				cmd_error("link", "the --near command exited with status %d before it listened on a TCP port "
					  "(--near-wait 0 starts COMMAND without waiting)", WEXITSTATUS(status));
			else
				cmd_error("link", "the --near command was killed by signal %d before it listened on a TCP port",
					  WTERMSIG(status));
			return LINK_EXIT_WRAPPER;
		}
		if (clock_now() >= deadline && lport > 0) {
			cmd_error("link", "the --near command listens on loopback only (port %d), which COMMAND "
				  "cannot reach: listen on %s (NCPV_LINK_NEAR) or 0.0.0.0", lport, LINK_NEAR_ADDR);
			return LINK_EXIT_WRAPPER;
		}
		if (clock_now() >= deadline) {
			cmd_error("link", "the --near command did not listen on a TCP port within %gs "
				  "(--near-wait T waits longer, --near-wait 0 not at all)", o->near_wait);
			return LINK_EXIT_WRAPPER;
		}
		if (sigtimedwait(mask, &si, &step) > 0 && si.si_signo != SIGCHLD)
			return 128 + si.si_signo;
	}
}

/* After COMMAND, with SIGTERM sent to the rest: let what runs in the namespace end on its own
 * (a --near serve waits a moment for acknowledgements still in the link's delay line, then
 * writes its summary), at most NEAR_STOP_SECONDS, before PID 1's exit kills what stays. As
 * PID 1 we reap the orphans too: no child left (ECHILD) is the namespace's end. */
static void wait_namespace_ends(const sigset_t *mask)
{
	double until = clock_now() + NEAR_STOP_SECONDS;

	for (;;) {
		struct timespec ts;
		siginfo_t si;
		double left;
		pid_t p;

		while ((p = waitpid(-1, NULL, WNOHANG)) > 0)
			;
		left = until - clock_now();
		if ((p < 0 && errno == ECHILD) || left <= 0)
			return;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		sigtimedwait(mask, &si, &ts); /* SIGCHLD (in mask) or the bound; others wait too */
	}
}

/*
 * PID 1 of the command's PID namespace: starts --near and COMMAND, passes
 * signals on, and exits with COMMAND's status; its exit kills whatever
 * else runs in the namespace, and its parent's death (even SIGKILL) kills
 * it, so nothing outlives ncpv link.
 */
__attribute__((noreturn)) static void run_init(const struct link_opts *o, const struct link_net *net, int alive_fd, const sigset_t *mask)
{
	struct pollfd pfd = { .fd = alive_fd, .events = POLLIN };
	pid_t cmd_pid, pid, near_pid = -1;
	int status, diag = -1;
	siginfo_t si;

	/* The parent is outside our PID namespace (getppid() is 0): it holds
	 * the other end of alive_fd, which hangs up if it died before prctl. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || poll(&pfd, 1, 0) != 0)
		_exit(LINK_EXIT_WRAPPER);
	close(alive_fd);
	if (o->near != NULL && o->near_wait > 0 && (diag = link_sup_near_diag(net)) < 0) {
		cmd_error("link", "cannot see the near end's sockets: %s", strerror(errno));
		_exit(LINK_EXIT_WRAPPER);
	}
	if (o->near != NULL && (near_pid = fork()) == 0) {
		if (link_net_enter(net, 0) < 0) {
			cmd_error("link", "cannot enter the near end: %s", strerror(errno));
			_exit(LINK_EXIT_WRAPPER);
		}
		sigprocmask(SIG_UNBLOCK, mask, NULL);
		execl("/bin/sh", "sh", "-c", o->near, (char *)NULL);
		cmd_error("link", "/bin/sh: %s", strerror(errno));
		_exit(LINK_EXIT_CANNOT_RUN);
	}
	if (o->near != NULL && near_pid < 0) {
		cmd_error("link", "fork: %s", strerror(errno));
		_exit(LINK_EXIT_WRAPPER);
	}
	/* COMMAND, often a client of the near command, starts once that listens. */
	if (diag >= 0) {
		int rc = wait_near_listens(o, diag, near_pid, mask);

		close(diag);
		if (rc != 0) {
			proc_signal_namespace(SIGTERM);
			_exit(rc);
		}
	}
	if ((cmd_pid = fork()) < 0) {
		cmd_error("link", "fork: %s", strerror(errno));
		_exit(LINK_EXIT_WRAPPER);
	}
	if (cmd_pid == 0) {
		if (link_net_enter(net, 1) < 0) {
			cmd_error("link", "cannot enter the far end: %s", strerror(errno));
			_exit(LINK_EXIT_WRAPPER);
		}
		sigprocmask(SIG_UNBLOCK, mask, NULL);
		exec_command(o->command);
	}
	for (;;) {
		if (sigwaitinfo(mask, &si) < 0)
			continue;
		if (si.si_signo != SIGCHLD) {
			if (sent_by_process(si.si_code))
				proc_signal(cmd_pid, si.si_signo);
			continue;
		}
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
			if (pid != cmd_pid)
				continue;
			/* Let --near stop cleanly; the namespace's end kills what stays. */
			proc_signal_namespace(SIGTERM);
			wait_namespace_ends(mask);
			_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		}
	}
}

static void print_counts(const struct link_line *line, double seconds)
{
	static const char *const names[2] = { "down", "up" };
	struct rusage ru;

	for (int d = 0; d < 2; d++) {
		struct link_line_counts c;
		unsigned long long dropped;

		link_line_counts(line, d, &c);
		dropped = c.sched.overflow + c.held_overflow + c.write_errors + c.truncated;
		fprintf(stderr,
			"ncpv link: %s: offered %llu (%llu bytes) delivered %llu (%llu bytes) lost %llu overflow %llu "
			"max_queue %llu rate %.0f\n",
			names[d], (unsigned long long)c.sched.packets, (unsigned long long)c.sched.bytes,
			(unsigned long long)c.delivered, (unsigned long long)c.delivered_bytes,
			(unsigned long long)c.sched.lost,
			dropped, (unsigned long long)c.sched.max_queue,
			c.last_ns > c.first_ns ? (double)c.after_first_bytes * 8e9 / (double)(c.last_ns - c.first_ns) : 0);
	}
	/* What the delay line itself cost (its children are not counted). */
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		fprintf(stderr, "ncpv link: delay line cpu %.2fs user %.2fs system over %.2fs\n",
			(double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
			(double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, seconds);
}

/* A COMMAND that fails this soon without --near most often tried to reach the host. */
#define LINK_HINT_WITHIN 10.0

/* COMMAND failed: if no --near was given and it failed quickly (get's "refused or
 * unreachable" is 4, nc's 1; both come at once), say what the namespace cannot reach. */
static void hint_isolation(const struct link_opts *o, int rc, double seconds)
{
	if (o->near != NULL || rc == 0 || rc >= LINK_EXIT_WRAPPER || seconds >= LINK_HINT_WITHIN)
		return;
	cmd_error("link", "%s exited with status %d after %.1f s; if it could not connect: under link it "
		  "cannot reach the host's addresses (127.0.0.1 is the namespace's own loopback); run the "
		  "server with --near CMD and connect to " LINK_NEAR_ADDR " ($NCPV_LINK_NEAR)",
		  o->command[0], rc, seconds);
}

/* Move packets until PID 1 of the command's namespace ends; its status. */
static int run_line(struct link_line *line, int sigfd, pid_t init)
{
	char err[256];

	for (;;) {
		struct signalfd_siginfo si;
		int status;

		if (link_line_run(line, sigfd, err, sizeof(err)) < 0) {
			cmd_error("link", "%s", err);
			proc_signal(init, SIGKILL);
			waitpid(init, NULL, 0);
			return LINK_EXIT_WRAPPER;
		}
		if (read(sigfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
			continue;
		if (si.ssi_signo != SIGCHLD) {
			if (sent_by_process(si.ssi_code))
				proc_signal(init, (int)si.ssi_signo);
			continue;
		}
		if (waitpid(init, &status, WNOHANG) == init)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
}

int cmd_link(int argc, char **argv)
{
	struct link_opts o;
	struct link_sup sup;
	char err[256], down[128], up[128];
	sigset_t mask;
	pid_t init;
	int rc = LINK_EXIT_WRAPPER, sigfd, alive[2];

	enum cmd_parse parsed = parse_options(argc, argv, &o);

	if (parsed != CMD_PARSE_RUN)
		return cmd_parse_exit(parsed, NCPV_EXIT_USAGE);
	if (!o.seeded && getrandom(&o.seed, sizeof(o.seed), 0) != (ssize_t)sizeof(o.seed))
		o.seed = (uint64_t)getpid() ^ (uint64_t)time(NULL);
	/* Timers may otherwise fire up to 50 us late: the delay line's precision. */
	prctl(PR_SET_TIMERSLACK, 1UL);
	if (link_sup_open(&sup, o.p, o.seed, o.mode, err, sizeof(err)) < 0) {
		cmd_error("link", "%s", err);
		return LINK_EXIT_WRAPPER;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	setenv("NCPV_LINK_NEAR", LINK_NEAR_ADDR, 1);
	setenv("NCPV_LINK_FAR", LINK_FAR_ADDR, 1);
	if ((sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0 || pipe2(alive, O_CLOEXEC) < 0) {
		cmd_error("link", "%s: %s", sigfd < 0 ? "signalfd" : "pipe", strerror(errno));
		link_sup_close(&sup);
		return LINK_EXIT_WRAPPER;
	}
	if (o.verbose) {
		fprintf(stderr, "ncpv link: %s at %s, near end %s (%s); down: %s; up: %s\n", o.command[0],
			LINK_FAR_ADDR, LINK_NEAR_ADDR, sup.net.mode, link_params_describe(&o.p[0], down, sizeof(down)),
			link_params_describe(&o.p[1], up, sizeof(up)));
		fprintf(stderr, "ncpv link: seed %llu\n", (unsigned long long)o.seed);
		fflush(stderr);
	}
	if ((init = link_sup_fork_pid_ns()) < 0) {
		cmd_error("link", "cannot make a PID namespace: %s", strerror(errno));
		rc = LINK_EXIT_WRAPPER;
	} else if (init == 0) {
		/* The line is the parent's: this process only starts and waits. */
		link_sup_leave_line(&sup);
		close(sigfd);
		close(alive[1]);
		run_init(&o, &sup.net, alive[0], &mask);
	} else {
		close(alive[0]);
		double start = clock_now();

		rc = run_line(sup.line, sigfd, init);
		if (o.verbose)
			print_counts(sup.line, clock_now() - start);
		hint_isolation(&o, rc, clock_now() - start);
	}
	close(alive[1]);
	close(sigfd);
	link_sup_close(&sup);
	return rc;
}
