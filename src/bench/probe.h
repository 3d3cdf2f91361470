/* SPDX-License-Identifier: ISC */
/* probe.h - the bench's latency probe, as flent's RRUL measures latency
 * under load: a ping-pong of small messages over a second TCP connection
 * to the server's host while a method's stream runs. An echo process on
 * the server's side, a pinger on the clients' side (each forked in the
 * network namespace the caller is in at the time), the round trips read
 * back through a pipe. Library code: errors go to the caller's buffer. */
#ifndef NCPV_PROBE_H
#define NCPV_PROBE_H

#include <stddef.h>
#include <signal.h>
#include <sys/types.h>

#include "result.h"

/* One round trip every PROBE_INTERVAL seconds (or as soon as the last one
 * came back, when it took longer): 100 small messages a second, a load
 * that the streams measured do not notice (docs/BENCHMARKS.md). */
#define PROBE_INTERVAL 0.010
/* Seconds of idle round trips taken just before each stream run. */
#define PROBE_IDLE 0.5
/* How long a round trip may take before the pinger gives up. */
#define PROBE_TIMEOUT_MS 10000

struct bench_probe {
	pid_t echo_pid, ping_pid; /* 0 when not running */
	int port;		  /* where the echo process listens */
	int fd;			  /* the pinger's records (read end, non-blocking); -1 */
	unsigned char part[16];	  /* a record read in part */
	size_t npart;
	int ended;		  /* the pinger stopped (EOF): no more round trips */
};

/* Zero p (nothing running). */
void probe_init(struct bench_probe *p);

/* Fork the echo process, listening on host:0 in the current namespace,
 * and read back its port into p->port. Returns 0, or -1 with a reason. */
int probe_start_echo(struct bench_probe *p, const char *host, char *err, size_t errlen);

/* Fork the pinger, connecting from the current namespace to host:p->port.
 * Returns 0, or -1 with a reason in err. */
int probe_start_pinger(struct bench_probe *p, const char *host, char *err, size_t errlen);

/* Read the round trips the pinger has reported so far, without blocking:
 * those of messages sent at from <= t < to go into sink (when not NULL),
 * the others are dropped. Returns how many went into sink. */
size_t probe_drain(struct bench_probe *p, struct bench_series *sink, double from, double to);

/* Take idle round trips for PROBE_IDLE seconds into sink (fewer when *stop
 * is set). Returns how many. */
size_t probe_idle(struct bench_probe *p, struct bench_series *sink, const volatile sig_atomic_t *stop);

/* SIGKILL and reap both processes, close the pipe. Safe to repeat. */
void probe_stop(struct bench_probe *p);

#endif
