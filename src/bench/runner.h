/* SPDX-License-Identifier: ISC */
/* runner.h - start the servers and the methods as child processes, and measure
 * one run at the counting point: the kernel's byte count of the client's TCP
 * sockets (tcpdiag), and for files the completions the server logs. */
#ifndef NCPV_RUNNER_H
#define NCPV_RUNNER_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "result.h"

struct bench_probe;

struct bench_server {
	pid_t pid;		/* process group leader; 0 when not running */
	int log_fd;		/* ncpv serve's JSON log (read end); -1 for the seed's */
	int seed;		/* the seed's nc -l loop */
	char host[256];
	int port;
	uint64_t size;		/* bytes per connection (files); 0: endless */
	uint64_t listener;	/* the seed's: the nc -l socket the last run used */
	uint64_t done;		/* connections logged "done" with exactly size bytes */
	uint64_t short_or_reset; /* connections that ended any other way */
	struct bench_run *sink;	/* gets each done connection's seconds, or NULL */
	char line[1024];	/* partial log line */
	size_t linelen;
};

/* Run `ncpv serve --json [--tls] [--size SIZE] HOST:0` (size 0: endless; tls:
 * a self-signed certificate) and read back its port. Returns 0, or -1 with a
 * one-line reason in err. */
int runner_start_ncpv_server(struct bench_server *s, const char *ncpv, const char *host,
			     uint64_t size, int tls, char *err, size_t errlen);

/* Run the seed's `while true; do nc -l HOST PORT </dev/urandom; done` on a
 * free port, and wait (using diag_fd in the server's namespace) until it
 * listens. Returns 0, or -1 with a reason in err. */
int runner_start_seed_server(struct bench_server *s, const char *host, int diag_fd,
			     char *err, size_t errlen);

/* Stop the server's process group and close its log. Safe to repeat. */
void runner_stop_server(struct bench_server *s);

/* Read what the server logged so far, without blocking. */
void runner_drain_server(struct bench_server *s);

/* fork + exec argv (looked up on PATH) in a new process group of its own, under
 * the bench's guard: stdin /dev/null, stdout to out_fd (-1: /dev/null), stderr
 * to err_fd (-1: as stdout). Returns the PID (the group's), or -1 with errno. */
pid_t runner_spawn(char *const argv[], int out_fd, int err_fd);

/* SIGTERM the group pid leads, SIGKILL it after a bounded grace; reaps pid
 * and returns its wait status (0 for pid <= 0). */
int runner_stop_group(pid_t pid);

/* Make this process the child subreaper of its descendants, so that the
 * CPU time of a method's whole process tree is counted (call once). */
void runner_become_subreaper(void);

typedef void runner_progress_fn(void *arg, double elapsed, uint64_t bytes, uint64_t transfers);

struct runner_ctx {
	int diag_fd;		/* tcpdiag socket in the clients' namespace */
	int port;		/* counted: client sockets connected to this port */
	struct bench_server *server; /* NULL for --connect */
	int server_diag_fd;	/* for the seed's server: is it listening again? */
	const char *log_path;	/* the method's stderr goes here */
	volatile sig_atomic_t *stop; /* set by a signal handler: end now */
	struct bench_probe *probe; /* stream: the latency probe, or NULL */
	runner_progress_fn *progress;
	void *arg;
};

/* Take the probe's idle round trips (when there is a probe); run argv
 * (argv[0] looked up on PATH) and, from the first byte its sockets receive
 * (within 30 s), count the bytes and the probe's round trips for duration
 * seconds; then stop it. Fills run (ok, or error). Returns 0, or -1 when *stop ended the run
 * (then run is incomplete). */
int runner_stream(const struct runner_ctx *c, char *const argv[], double duration, struct bench_run *run);

/* Run argv until it exits (count downloads of size bytes), at
 * most timeout seconds. The time is from start to exit; the downloads are
 * counted at the server when there is one. Returns as runner_stream. */
int runner_files(const struct runner_ctx *c, char *const argv[], uint64_t count, uint64_t size,
		 double timeout, struct bench_run *run);

#endif
