/* SPDX-License-Identifier: ISC */
/* lowat.h - a TCP receiver's low-water mark (SO_RCVLOWAT) that follows the rate: where segments
 * arrive one at a time (a TUN device, ncpv link, a NIC without GRO: a 1448-byte segment every
 * 11.6 us at 1 Gbit/s), a reader woken per segment spends most of its CPU on the wake-ups; with
 * the mark at a millisecond of the rate (64 KiB at most) it is woken once per some 45 segments.
 * The mark is tcp_lowat_for's (pure); tcp_lowat_update and tcp_lowat_off make the system calls. */
#ifndef NCPV_TCP_LOWAT_H
#define NCPV_TCP_LOWAT_H

#include <stddef.h>
#include <stdint.h>

/* The rate is measured over windows this long (seconds). */
#define TCP_LOWAT_WINDOW 0.02
/* The most of the rate that may wait in the socket for a wake-up (seconds): 125 KB at 1 Gbit/s,
 * 31 KB for each of 4 streams sharing it. TCP acknowledges as the segments come, whether read or
 * not: the wait delays only what the reader sees, and by no more than this. */
#define TCP_LOWAT_WAIT 0.001
/* Marks: a power of two in [MIN, MAX]; under MIN the mark is 1 (every byte wakes, the default).
 * 64 KiB is the most one loopback or GRO segment brings: above it there is nothing to save. */
#define TCP_LOWAT_MIN ((size_t)8 * 1024)
#define TCP_LOWAT_MAX ((size_t)64 * 1024)
/* Reads that bring this much on average without a mark have little to save (loopback, GRO). */
#define TCP_LOWAT_BIG_READ ((size_t)16 * 1024)
/* A wait with a mark set lasts at most this long (ms): bytes under the mark are read then (the
 * sender paused or stopped without a FIN), and the mark goes back to 1 until the next window. */
#define TCP_LOWAT_STALL_MS 5

struct tcp_lowat {
	double since;	/* the window's start (clock seconds); 0: not started */
	uint64_t bytes; /* the byte count at since */
	uint64_t last;	/* the byte count at the last call */
	unsigned reads; /* calls in this window whose count had grown: reads that brought bytes */
	int mark;	/* what SO_RCVLOWAT holds: 1 (the kernel's default) or a mark */
};

/* The mark for a window in which bytes_per_s came in reads of mean_read bytes on average, on a
 * socket whose receive buffer is rcvbuf bytes and whose mark was set (marked): 1, or a power of
 * two from TCP_LOWAT_MIN to TCP_LOWAT_MAX, no more than TCP_LOWAT_WAIT of the rate and no more
 * than an eighth of rcvbuf (the kernel grows a buffer under twice a mark and clamps the window
 * to the mark: a mark set on a young socket capped a transfer through ncpv link at 64 KiB a
 * round trip, 20 Mbit/s). An unmarked socket whose reads already bring TCP_LOWAT_BIG_READ or
 * more (loopback's 64 KiB segments, GRO) stays at 1: nothing to save, and get's busy-polling
 * serves it better. Pure. */
size_t tcp_lowat_for(double bytes_per_s, int rcvbuf, double mean_read, int marked);

/* Count the bytes received so far (total) at now, once after each read (a count that grew is a
 * read that brought bytes), and at each window's end set fd's mark for that window's rate and
 * mean read when it changed. The mark, or -1 with errno if the kernel refused it
 * (then w->mark stays as it was). */
int tcp_lowat_update(struct tcp_lowat *w, int fd, uint64_t total, double now);

/* Put fd's mark back to 1 (a wait with a mark timed out) and start a new window at now. */
void tcp_lowat_off(struct tcp_lowat *w, int fd, uint64_t total, double now);

#endif
