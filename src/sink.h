/* SPDX-License-Identifier: ISC */
/* sink.h - where received bytes go: dropped in the kernel, spliced, or written, byte-exact. */
#ifndef NCPV_SINK_H
#define NCPV_SINK_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The mirror of source.h, for a receiver (get). Bytes read from a socket are
 * - dropped inside the kernel (MSG_TRUNC) when there is no output,
 * - spliced straight into an output that is a pipe,
 * - spliced through an internal pipe into a regular file,
 * - or copied through one buffer into anything else (a terminal, a device,
 *   a file opened for appending).
 *
 * An output FILE that is new or regular is written as ".FILE.ncpv-XXXXXX"
 * beside it and becomes FILE only at sink_commit; sink_free removes it
 * otherwise, so a transfer that fails leaves FILE as it was. A device, a
 * FIFO or a symlink is written in place; a regular file reached through a
 * symlink is truncated only at sink_connected.
 *
 * Never prints, never exits. Waits for a blocked output give up once
 * *cancel is set (a signal handler's flag), so a stalled reader cannot
 * make the caller deaf to SIGTERM.
 */
struct sink;

/* output: NULL to discard, "-" for stdout (borrowed, never closed), or a
 * path. cancel is borrowed and may be NULL. Returns NULL with a one-line
 * reason in err ("cannot open output 'X': ..."). */
struct sink *sink_open(const char *output, const volatile sig_atomic_t *cancel, char *err,
		       size_t errlen);

/* The connection is up and sock is what sink_recv reads from (borrowed).
 * Returns 0, or -1 with errno if an in-place output could not be truncated. */
int sink_connected(struct sink *k, int sock);

/* --tls: read through tls (borrowed, on the socket of sink_connected) from now
 * on, every byte copied; a TLS failure is -1 with errno EPROTO and its reason
 * in sink_tls_error: a stream cut without close_notify is one. */
struct tls_conn;
void sink_set_tls(struct sink *k, struct tls_conn *tls);
const char *sink_tls_error(const struct sink *k);

/* Receive up to want bytes into the output. Returns the count (> 0), 0 at
 * the peer's end, -1 with errno from the socket (EAGAIN: nothing now;
 * EINTR: try again), or -2 with errno when the output failed; then
 * sink_partial says how many bytes of that chunk the output did take. */
ssize_t sink_recv(struct sink *k, size_t want);

/* Once all the bytes wanted are here: does the peer send more (> 0), end (0), or
 * nothing yet (-1, errno EAGAIN; another errno, EPROTO for TLS with its reason in
 * sink_tls_error)? Nothing reaches the output. Plain TCP looks with MSG_PEEK; TLS
 * reads through TLS, whose close_notify the socket would show as data. */
ssize_t sink_probe(struct sink *k);
uint64_t sink_partial(const struct sink *k);

/* Whether the last sink_recv spent its time waiting for the output (a
 * slow reader) rather than for the peer: the caller's idle timer must not
 * count that against the peer. */
int sink_waited_output(const struct sink *k);

/* The transfer succeeded: the temporary file becomes FILE (rename(2)).
 * 0, or -1 with errno. A no-op for the other outputs. */
int sink_commit(struct sink *k);

/* Close what sink_open opened; remove an uncommitted temporary file. NULL is fine. */
void sink_free(struct sink *k);

#endif
