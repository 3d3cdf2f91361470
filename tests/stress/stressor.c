/* SPDX-License-Identifier: ISC */
/* stressor.c - a load generator for `ncpv serve`, in one process on epoll: thousands of
 * clients that read and check every byte, that stop reading, that reset mid-stream or that
 * close at once; it samples serve's memory, descriptors and CPU time from /proc meanwhile.
 *
 *   stressor load    [OPTIONS] PORT   stalls, then good+reset+flash clients held at once and
 *                                     released; then the good clients again with nobody stalled
 *   stressor fdlimit [OPTIONS] PORT   more clients than serve has descriptors: the ones it
 *                                     accepted finish byte-exact, and it recovers afterwards
 *   stressor blackhole                a listener that never accepts, its queue full: connects to
 *                                     the port it prints hang until their timeout (until killed)
 *   stressor resetter                 a server that sends 1000 bytes to each client, then resets
 *                                     the connection (until killed)
 * OPTIONS: --pid PID (serve, for /proc), --expect FILE --size N (each good client must get FILE
 * repeated to N bytes), --good N --stall N --reset N --flash N, --timeout SEC.
 * Prints "key value" lines; exits 0 when every check passed, 1 otherwise, 2 on bad usage.
 * Loopback only: clients connect to 127.0.0.1 from 127.0.0.1..127.0.0.16. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <dirent.h>

#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT 24
#endif

enum kind { GOOD, STALL, RESET, FLASH };
static const char *const kind_name[] = { "good", "stall", "reset", "flash" };

enum state { CONNECTING, PAUSED, READING, DONE };

/* count()'s wildcard for an outcome. */
#define ANY_OUTCOME 9

struct client {
	int fd;
	enum kind kind;
	enum state state;
	uint64_t got;
	double start, end;
	int outcome; /* 0 open, 1 ok, -1 failed, -2 refused before any byte */
};

struct run {
	int ep;
	uint16_t port;
	pid_t pid;
	const uint8_t *expect;
	size_t expect_len;
	uint64_t size;
	double deadline;
	struct client *c;
	size_t n, cap;
	unsigned next_src;
	char first_error[160];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void nap_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* ---- serve's side, from /proc -------------------------------------------- */

static long proc_status_kb(pid_t pid, const char *key)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, klen) == 0 && line[klen] == ':')
			v = strtol(line + klen + 1, NULL, 10);
	fclose(f);
	return v;
}

/* utime + stime of pid in milliseconds. */
static double proc_cpu_ms(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut, st;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* After "(comm) " come state (field 3) ... utime (14) and stime (15). */
	if ((p = strrchr(buf, ')')) == NULL)
		return -1;
	p += 2;
	for (int field = 3; field < 14; field++)
		if ((p = strchr(p, ' ')) == NULL)
			return -1;
		else
			p++;
	ut = strtoul(p, &p, 10);
	st = strtoul(p, NULL, 10);
	return (double)(ut + st) * 1000.0 / (double)sysconf(_SC_CLK_TCK);
}

static long proc_fd_count(pid_t pid)
{
	char path[64];
	struct dirent *e;
	long n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static int alive(pid_t pid)
{
	return pid <= 0 || kill(pid, 0) == 0;
}

/* ---- clients --------------------------------------------------------------- */

static void fail(struct run *r, struct client *c, const char *why)
{
	if (r->first_error[0] == '\0')
		snprintf(r->first_error, sizeof(r->first_error), "%s client: %s after %llu bytes",
			 kind_name[c->kind], why, (unsigned long long)c->got);
	c->outcome = -1;
}

static void finish(struct run *r, struct client *c, int outcome)
{
	if (c->fd >= 0) {
		epoll_ctl(r->ep, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
	}
	c->fd = -1;
	c->state = DONE;
	c->end = now_s();
	if (c->outcome == 0)
		c->outcome = outcome;
}

static struct client *add_client(struct run *r, enum kind k)
{
	struct sockaddr_in src = { .sin_family = AF_INET }, dst = { .sin_family = AF_INET };
	struct epoll_event ev = { .events = EPOLLOUT };
	struct client *c;
	int one = 1;

	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 1024;
		if ((r->c = realloc(r->c, r->cap * sizeof(*r->c))) == NULL)
			abort();
	}
	c = &r->c[r->n++];
	memset(c, 0, sizeof(*c));
	c->kind = k;
	c->start = now_s();
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		fail(r, c, strerror(errno));
		finish(r, c, -1);
		return c;
	}
	if (k == STALL) {
		/* A small window keeps what a stalled reader pins in the kernel small. */
		int small = 4096;

		setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	}
	/* Spread the source addresses so that thousands of connections per run, and the
	 * TIME_WAIT they leave, do not use up one address's ephemeral ports. */
	setsockopt(c->fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
	src.sin_addr.s_addr = htonl(0x7f000001u + (r->next_src++ % 16));
	dst.sin_addr.s_addr = htonl(0x7f000001u);
	dst.sin_port = htons(r->port);
	if (bind(c->fd, (struct sockaddr *)&src, sizeof(src)) < 0 ||
	    (connect(c->fd, (struct sockaddr *)&dst, sizeof(dst)) < 0 && errno != EINPROGRESS)) {
		fail(r, c, strerror(errno));
		finish(r, c, -1);
		return c;
	}
	if (k == FLASH) {
		finish(r, c, 1); /* connect and close at once */
		return c;
	}
	ev.data.u64 = r->n - 1;
	epoll_ctl(r->ep, EPOLL_CTL_ADD, c->fd, &ev);
	return c;
}

static int check_bytes(struct run *r, struct client *c, const uint8_t *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t off = c->got + i;

		if (off >= r->size) {
			fail(r, c, "more bytes than --size");
			return -1;
		}
		if (r->expect && buf[i] != r->expect[off % r->expect_len]) {
			fail(r, c, "a byte differs from the source file");
			return -1;
		}
	}
	return 0;
}

static void on_readable(struct run *r, struct client *c)
{
	static uint8_t buf[1 << 16];

	for (int round = 0; round < 4; round++) {
		ssize_t n = recv(c->fd, buf, c->kind == RESET ? 1024 : sizeof(buf), 0);

		if (n > 0) {
			if (c->kind == GOOD && check_bytes(r, c, buf, (size_t)n) < 0) {
				finish(r, c, -1);
				return;
			}
			c->got += (uint64_t)n;
			if (c->kind == RESET) {
				/* Mid-stream reset: SO_LINGER 0 turns close into an RST. */
				struct linger lg = { 1, 0 };

				setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
				finish(r, c, 1);
				return;
			}
			continue;
		}
		if (n == 0) {
			if (c->got == 0)
				finish(r, c, -2);
			else if (c->kind == GOOD && c->got != r->size) {
				fail(r, c, "short transfer");
				finish(r, c, -1);
			} else {
				finish(r, c, 1);
			}
			return;
		}
		if (errno == EAGAIN || errno == EINTR)
			return;
		if (c->got == 0 && (errno == ECONNRESET || errno == ECONNREFUSED)) {
			finish(r, c, -2);
			return;
		}
		fail(r, c, strerror(errno));
		finish(r, c, -1);
		return;
	}
}

static void set_events(struct run *r, struct client *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.u64 = (uint64_t)(c - r->c) };

	epoll_ctl(r->ep, EPOLL_CTL_MOD, c->fd, &ev);
}

/* One round of events: connects complete (then the client waits PAUSED, or reads
 * at once when go is set), readers read. Returns how many events there were. */
static int pump(struct run *r, int go, int timeout_ms)
{
	struct epoll_event evs[256];
	int n = epoll_wait(r->ep, evs, 256, timeout_ms);

	if (r->c == NULL)
		return 0; /* no client was ever added, so no event can name one */

	for (int i = 0; i < n; i++) {
		struct client *c = &r->c[evs[i].data.u64];

		if (c->state == DONE)
			continue;
		if (c->state == CONNECTING) {
			int e = 0;
			socklen_t el = sizeof(e);

			getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &e, &el);
			if (e != 0) {
				if (r->first_error[0] == '\0')
					snprintf(r->first_error, sizeof(r->first_error), "connect: %s", strerror(e));
				finish(r, c, -2);
				continue;
			}
			/* A stalled client never reads: it leaves the epoll set for good. */
			if (c->kind == STALL) {
				epoll_ctl(r->ep, EPOLL_CTL_DEL, c->fd, NULL);
				c->state = PAUSED;
				continue;
			}
			c->state = go ? READING : PAUSED;
			set_events(r, c, go ? EPOLLIN : 0);
			continue;
		}
		if (c->state == READING)
			on_readable(r, c);
	}
	return n;
}

static size_t count(const struct run *r, int kind, int state, int outcome)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		if ((kind < 0 || r->c[i].kind == (enum kind)kind) && (state < 0 || r->c[i].state == (enum state)state) &&
		    (outcome == ANY_OUTCOME || r->c[i].outcome == outcome))
			n++;
	return n;
}

/* Open n clients of a kind, at most `burst` connects in flight, so that the listen
 * queue is not overrun (that would only measure SYN retransmission timers). */
static void open_clients(struct run *r, enum kind k, long n, int go)
{
	const size_t burst = 256;

	for (long i = 0; i < n && now_s() < r->deadline; i++) {
		add_client(r, k);
		while (count(r, -1, CONNECTING, ANY_OUTCOME) >= burst && now_s() < r->deadline)
			pump(r, go, 50);
	}
	while (count(r, -1, CONNECTING, ANY_OUTCOME) > 0 && now_s() < r->deadline)
		pump(r, go, 50);
}

static void release(struct run *r, enum kind k)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->c[i].kind == k && r->c[i].state == PAUSED) {
			r->c[i].state = READING;
			set_events(r, &r->c[i], EPOLLIN);
		}
}

/* Run until no client of these kinds reads any more; returns the seconds it took. */
static double drain(struct run *r)
{
	double t0 = now_s();

	while (count(r, -1, READING, ANY_OUTCOME) > 0 && now_s() < r->deadline)
		pump(r, 1, 100);
	return now_s() - t0;
}

static void close_kind(struct run *r, enum kind k)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->c[i].kind == k && r->c[i].state != DONE)
			finish(r, &r->c[i], 1);
}

/* Serve's CPU time over a quiet interval, in ms: it should sleep in epoll_wait. */
static double idle_cpu_ms(struct run *r, int ms)
{
	double before = proc_cpu_ms(r->pid), after;

	nap_ms(ms);
	after = proc_cpu_ms(r->pid);
	return before < 0 || after < 0 ? -1 : after - before;
}

/* Wait (bounded) until serve stops using CPU, after clients stopped reading. */
static void settle(struct run *r)
{
	for (int i = 0; i < 20 && idle_cpu_ms(r, 100) > 5; i++)
		;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median and max completion time of the good clients finished since index from. */
static void good_times(const struct run *r, size_t from, double t0, double *median, double *max)
{
	double *t = malloc((r->n + 1) * sizeof(*t));
	size_t n = 0;

	if (t == NULL)
		abort();
	for (size_t i = from; i < r->n; i++)
		if (r->c[i].kind == GOOD && r->c[i].outcome == 1)
			t[n++] = r->c[i].end - t0;
	qsort(t, n, sizeof(*t), cmp_double);
	*median = n ? t[n / 2] : 0;
	*max = n ? t[n - 1] : 0;
	free(t);
}

static void report_good(struct run *r, const char *phase, size_t from, double t0, double secs, long want,
			int *ok)
{
	size_t good = 0, bad = 0;
	double med, max;

	for (size_t i = from; i < r->n; i++)
		if (r->c[i].kind == GOOD)
			r->c[i].outcome == 1 ? good++ : bad++;
	good_times(r, from, t0, &med, &max);
	printf("%s_good_ok %zu\n%s_good_failed %zu\n%s_seconds %.3f\n%s_median_s %.3f\n%s_max_s %.3f\n",
	       phase, good, phase, bad, phase, secs, phase, med, phase, max);
	if ((long)good != want || bad)
		*ok = 0;
}

static int run_load(struct run *r, long good, long stall, long reset, long flash)
{
	long rss0, rss_held, fds_held, hwm;
	double t0, secs, cpu;
	size_t from;
	int ok = 1;

	rss0 = proc_status_kb(r->pid, "VmRSS");
	printf("serve_rss_start_kb %ld\n", rss0);

	/* Stalled readers first, then every other client held open before anyone reads. */
	open_clients(r, STALL, stall, 0);
	settle(r);
	printf("stall_held %zu\n", count(r, STALL, PAUSED, ANY_OUTCOME));
	open_clients(r, GOOD, good, 0);
	open_clients(r, RESET, reset, 0);
	open_clients(r, FLASH, flash, 0);
	settle(r);
	fds_held = proc_fd_count(r->pid);
	rss_held = proc_status_kb(r->pid, "VmRSS");
	cpu = idle_cpu_ms(r, 1000);
	printf("clients_held %zu\nserve_fds_held %ld\nserve_rss_held_kb %ld\n", count(r, -1, PAUSED, ANY_OUTCOME), fds_held,
	       rss_held);
	printf("serve_rss_per_conn_bytes %.0f\n",
	       (double)(rss_held - rss0) * 1024.0 / (double)(count(r, -1, PAUSED, ANY_OUTCOME) ? count(r, -1, PAUSED, ANY_OUTCOME) : 1));
	printf("serve_cpu_ms_per_s_all_stalled %.1f\n", cpu);
	if ((long)count(r, GOOD, PAUSED, ANY_OUTCOME) != good || (long)count(r, STALL, PAUSED, ANY_OUTCOME) != stall)
		ok = 0;

	/* Release: good clients read everything, reset clients reset after their first bytes. */
	from = 0;
	t0 = now_s();
	release(r, GOOD);
	release(r, RESET);
	secs = drain(r);
	report_good(r, "mixed", from, t0, secs, good, &ok);
	printf("reset_done %zu\nflash_done %zu\n", count(r, RESET, DONE, ANY_OUTCOME), count(r, FLASH, DONE, ANY_OUTCOME));
	if ((long)count(r, RESET, DONE, 1) != reset)
		ok = 0;
	printf("serve_rss_after_mixed_kb %ld\n", proc_status_kb(r->pid, "VmRSS"));

	/* The stalled readers are still there and cost nothing. */
	printf("stall_still_held %zu\n", count(r, STALL, PAUSED, ANY_OUTCOME));
	printf("serve_cpu_ms_per_s_stalled_only %.1f\n", idle_cpu_ms(r, 1000));

	/* The same good clients with nobody stalled: the baseline for "slow ones do not slow the rest". */
	close_kind(r, STALL);
	from = r->n;
	open_clients(r, GOOD, good, 0);
	t0 = now_s();
	release(r, GOOD);
	secs = drain(r);
	report_good(r, "alone", from, t0, secs, good, &ok);

	hwm = proc_status_kb(r->pid, "VmHWM");
	printf("serve_rss_end_kb %ld\nserve_hwm_kb %ld\n", proc_status_kb(r->pid, "VmRSS"), hwm);
	printf("serve_alive %d\n", alive(r->pid));
	if (!alive(r->pid))
		ok = 0;
	return ok;
}

static int run_fdlimit(struct run *r, long good)
{
	size_t from;
	long accepted, refused;
	double t0;
	int ok = 1;

	/* More clients than serve has descriptors, all held: some are accepted, the rest reset. */
	open_clients(r, GOOD, good, 0);
	settle(r);
	/* A refused client sees its reset only when it reads: poll them all once, briefly. */
	printf("serve_fds %ld\n", proc_fd_count(r->pid));
	printf("serve_cpu_ms_per_s_exhausted %.1f\n", idle_cpu_ms(r, 1000));
	t0 = now_s();
	release(r, GOOD);
	drain(r);
	accepted = (long)count(r, GOOD, DONE, 1);
	refused = (long)count(r, GOOD, DONE, -2);
	printf("exhausted_served_ok %ld\nexhausted_refused %ld\nexhausted_failed %zu\n", accepted, refused,
	       count(r, GOOD, DONE, -1));
	printf("exhausted_seconds %.3f\n", now_s() - t0);
	if (accepted == 0 || count(r, GOOD, DONE, -1) > 0)
		ok = 0;
	/* Recovery: with the descriptors back, new clients are served in full. */
	from = r->n;
	open_clients(r, GOOD, 10, 1);
	drain(r);
	printf("recovered_ok %zu\n", count(r, GOOD, DONE, 1) - (size_t)accepted);
	for (size_t i = from; i < r->n; i++)
		if (r->c[i].outcome != 1)
			ok = 0;
	printf("serve_alive %d\n", alive(r->pid));
	return ok && alive(r->pid);
}

/* Listen with the smallest queue, never accept, and fill the queue: further SYNs are
 * dropped, so a connect to the printed port times out, as to a host that is down. */
static int run_blackhole(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(0x7f000001u);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(lfd, 0) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &al) < 0) {
		perror("blackhole");
		return 1;
	}
	for (int i = 0; i < 2; i++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

		if (fd < 0 || (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 && errno != EINPROGRESS)) {
			perror("blackhole filler");
			return 1;
		}
	}
	printf("port %d\n", ntohs(a.sin_port));
	fflush(stdout);
	for (;;)
		pause();
}

/* Send 1000 bytes, wait until the peer has acknowledged them and had time to read
 * them, then reset: the client sees exactly 1000 bytes and then ECONNRESET. */
static int run_resetter(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char data[1000];

	memset(data, 'r', sizeof(data));
	a.sin_addr.s_addr = htonl(0x7f000001u);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(lfd, 16) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &al) < 0) {
		perror("resetter");
		return 1;
	}
	printf("port %d\n", ntohs(a.sin_port));
	fflush(stdout);
	for (;;) {
		struct linger lg = { 1, 0 };
		int fd = accept(lfd, NULL, NULL), queued = 1;

		if (fd < 0)
			continue;
		if (send(fd, data, sizeof(data), MSG_NOSIGNAL) == (ssize_t)sizeof(data))
			for (int i = 0; i < 100 && queued > 0; i++) {
				if (ioctl(fd, TIOCOUTQ, &queued) < 0)
					break;
				nap_ms(10);
			}
		nap_ms(50);
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(fd);
	}
}

/* A whole non-negative decimal number, or -1. */
static long number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	return errno || end == s || *end != '\0' || v < 0 ? -1 : v;
}

static int usage(void)
{
	fprintf(stderr, "usage: stressor load|fdlimit [--pid PID] [--expect FILE] --size N [--good N] [--stall N]\n"
			"                [--reset N] [--flash N] [--timeout SEC] PORT\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct run r = { .ep = -1 };
	struct rlimit rl;
	long good = 0, stall = 0, reset = 0, flash = 0, timeout = 120;
	const char *expect = NULL, *mode;
	int ok;

	if (argc == 2 && strcmp(argv[1], "blackhole") == 0)
		return run_blackhole();
	if (argc == 2 && strcmp(argv[1], "resetter") == 0)
		return run_resetter();
	if (argc < 3)
		return usage();
	mode = argv[1];
	for (int i = 2; i < argc - 1; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];

		if (i + 1 >= argc - 1)
			return usage();
		if (strcmp(k, "--pid") == 0)
			r.pid = (pid_t)number(v);
		else if (strcmp(k, "--expect") == 0)
			expect = v;
		else if (strcmp(k, "--size") == 0)
			r.size = (uint64_t)number(v);
		else if (strcmp(k, "--good") == 0)
			good = number(v);
		else if (strcmp(k, "--stall") == 0)
			stall = number(v);
		else if (strcmp(k, "--reset") == 0)
			reset = number(v);
		else if (strcmp(k, "--flash") == 0)
			flash = number(v);
		else if (strcmp(k, "--timeout") == 0)
			timeout = number(v);
		else
			return usage();
	}
	long port = number(argv[argc - 1]);

	r.port = (uint16_t)port;
	if (port <= 0 || port > 65535 || r.size == 0 || r.size == (uint64_t)-1 || good < 0 || stall < 0 ||
	    reset < 0 || flash < 0 || timeout <= 0)
		return usage();
	if (expect) {
		int fd = open(expect, O_RDONLY);
		struct stat sb;

		if (fd < 0 || fstat(fd, &sb) < 0 || sb.st_size == 0 ||
		    (r.expect = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
			perror(expect);
			return 2;
		}
		r.expect_len = (size_t)sb.st_size;
		close(fd);
	}
	signal(SIGPIPE, SIG_IGN);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	r.ep = epoll_create1(EPOLL_CLOEXEC);
	r.deadline = now_s() + (double)timeout;
	if (strcmp(mode, "load") == 0)
		ok = run_load(&r, good, stall, reset, flash);
	else if (strcmp(mode, "fdlimit") == 0)
		ok = run_fdlimit(&r, good);
	else
		return usage();
	if (now_s() >= r.deadline) {
		printf("timed_out 1\n");
		ok = 0;
	}
	if (r.first_error[0])
		printf("first_error %s\n", r.first_error);
	printf("result %s\n", ok ? "ok" : "FAILED");
	for (size_t i = 0; i < r.n; i++)
		if (r.c[i].fd >= 0)
			close(r.c[i].fd);
	free(r.c);
	return ok ? 0 : 1;
}
