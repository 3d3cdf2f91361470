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

/* One round trip every PROBE_INTERVAL seconds at most (or as soon as the
 * last one came back, when it took longer): 100 small messages a second, a
 * load that the streams measured do not notice (docs/BENCHMARKS.md). On a
 * slow link the probe waits longer between round trips, so that its
 * PROBE_WIRE_BYTES each way stay within PROBE_SHARE of the link's rate;
 * past PROBE_INTERVAL_MAX that is impossible, and there is no probe. */
#define PROBE_INTERVAL 0.010
#define PROBE_INTERVAL_MAX 0.2
#define PROBE_WIRE_BYTES 120
#define PROBE_SHARE 0.01
/* Seconds of idle round trips taken just before each stream run: at least
 * this, and at least PROBE_IDLE_TRIPS intervals. */
#define PROBE_IDLE 0.5
#define PROBE_IDLE_TRIPS 5
/* Before its idle round trips, the probe waits (up to PROBE_SETTLE_MAX s)
 * for the link to drain: the last run's data still queued on a slow link
 * (seconds of it) would delay them, and the next method's "idle" figures
 * would be the last one's queue. Drained: a round trip within twice the
 * shortest so far plus PROBE_SETTLE_SLACK s. */
#define PROBE_SETTLE_MAX 30.0
#define PROBE_SETTLE_SLACK 0.001
/* How long a round trip may take before the pinger gives up. */
#define PROBE_TIMEOUT_MS 10000

struct bench_probe {
	pid_t echo_pid, ping_pid; /* 0 when not running */
	int port;		  /* where the echo process listens */
	int fd;			  /* the pinger's records (read end, non-blocking); -1 */
	unsigned char part[16];	  /* a record read in part */
	size_t npart;
	int ended;		  /* the pinger stopped (EOF): no more round trips */
	double interval;	  /* seconds between round trips */
	double idle;		  /* seconds of idle round trips before each run */
	double best, last;	  /* the shortest round trip so far, and the latest (0: none) */
};

/* The probe's interval on a link of bits per second (0: loopback, no
 * limit): PROBE_INTERVAL, or longer on a slow link; -1 when the link is too
 * slow for the probe to stay within PROBE_SHARE of it (pure). */
double probe_interval(double bits);

/* Seconds of idle round trips before each stream run at that interval. */
double probe_idle_seconds(double interval);

/* Zero p (nothing running). */
void probe_init(struct bench_probe *p);

/* Fork the echo process, listening on host:0 in the current namespace,
 * and read back its port into p->port. Returns 0, or -1 with a reason. */
int probe_start_echo(struct bench_probe *p, const char *host, char *err, size_t errlen);

/* Fork the pinger, connecting from the current namespace to host:p->port,
 * one round trip per interval seconds (from probe_interval). Returns 0, or
 * -1 with a reason in err. */
int probe_start_pinger(struct bench_probe *p, const char *host, double interval, char *err, size_t errlen);

/* Read the round trips the pinger has reported so far, without blocking:
 * those of messages sent at from <= t < to go into sink (when not NULL),
 * the others are dropped. Returns how many went into sink. */
size_t probe_drain(struct bench_probe *p, struct bench_series *sink, double from, double to);

/* Wait for the link to drain (see PROBE_SETTLE_MAX), then take idle round
 * trips for p->idle seconds into sink (fewer when *stop is set). Returns
 * how many. */
size_t probe_idle(struct bench_probe *p, struct bench_series *sink, const volatile sig_atomic_t *stop);

/* SIGKILL and reap both processes, close the pipe. Safe to repeat. */
void probe_stop(struct bench_probe *p);

#endif
