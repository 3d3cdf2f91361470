/* SPDX-License-Identifier: ISC */
/* pace.h - a paced TCP sender: the kernel's pacing (SO_MAX_PACING_RATE) and the schedule on
 * which bytes are handed to the kernel, shared by get --send --rate and serve's paced
 * downloads (get --rate). The schedule is pure; tcp_pace_socket is the one system call. */
#ifndef NCPV_TCP_PACE_H
#define NCPV_TCP_PACE_H

#include <stddef.h>
#include <stdint.h>

/* What may go ahead of the schedule: the most of one wake-up (5 ms at the rate; a fixed 64 KiB
 * sent 8 s' worth at once at 8 kbit/s). The kernel paces the packets; this keeps the bytes
 * handed to it on the same schedule, so that the counts (and -t's end) follow the rate rather
 * than filling the socket buffer at the start and draining it after -t, and so that a paced
 * connection never fills its socket buffer (serve's other connections go on meanwhile). */
#define TCP_PACE_BURST_SECONDS 0.005

/* How many bytes may go at now for a sender that started at start (clock seconds), is paced to
 * bits per second and has sent sent bytes since. 0 with *at set to when at least a small send
 * (2 ms of the rate, 1 B to 16 KiB) may go, so that no caller wakes for one byte. Pure. */
uint64_t tcp_pace_room(double start, double bits, uint64_t sent, double now, double *at);

/* Have the kernel pace fd to bits per second (SO_MAX_PACING_RATE, in bytes/s; TCP paces on
 * its own since Linux 4.13, without the fq qdisc). 0, or -1 with errno and err filled. */
int tcp_pace_socket(int fd, double bits, char *err, size_t errlen);

#endif
