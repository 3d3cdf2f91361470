/* SPDX-License-Identifier: ISC */
/* remote.h - pv -R and -Q: one ncpv pv changes or asks another, through a file and SIGUSR2. */
#ifndef NCPV_PV_REMOTE_H
#define NCPV_PV_REMOTE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The sender writes its message to $TMPDIR/ncpv-pv-remote-SENDER-UID (created anew, 0600),
 * sends SIGUSR2 to the target and waits up to PV_REMOTE_WAIT seconds for SIGUSR2 back. The
 * target, knowing the sender from the signal, reads that file (only if it is a regular file
 * of its own user), acts, writes its answer to a query in ...-reply-SENDER-UID, and signals
 * back. Only processes of the same user can signal each other, and only they can write there.
 */
#define PV_REMOTE_WAIT 1.1

/* What -R changes (each part only when has_*), or a query (-Q). */
struct pv_remote_msg {
	int query;
	int has_rate, has_size, has_interval, has_width, has_name, has_format;
	/* The sender's display switches (pv -R sends them all, as pv: they replace the target's,
	 * and so do its -N and -F, or their absence). */
	int has_items;
	int bytes, timer, rate_item, average, progress, eta, fineta, bufpercent, last_written;
	uint64_t rate, size;
	double interval;
	int width;
	char name[256];
	char format[1024];
	int has_extra;	/* -x SPEC */
	char extra[256];
};

/* A query's answer: how far the target is. */
struct pv_remote_state {
	uint64_t count, size;
	double elapsed;
};

/* The message file of sender (reply: the answer file). */
void pv_remote_path(char *buf, size_t len, pid_t sender, int reply);

/* Write text to path, creating it (never following or reusing a file). 0, or -1 with errno. */
int pv_remote_put(const char *path, const char *text);

/* Read path into buf if it is a regular file of ours, then remove it. Length, or -1 (errno). */
ssize_t pv_remote_take(const char *path, char *buf, size_t len);

/* The message as text, and back (pure). Format: a line per part, "KEY VALUE". */
int pv_remote_format(const struct pv_remote_msg *m, char *buf, size_t len);
void pv_remote_parse(const char *text, struct pv_remote_msg *m);
int pv_remote_state_format(const struct pv_remote_state *s, char *buf, size_t len);
int pv_remote_state_parse(const char *text, struct pv_remote_state *s);

/* Block SIGUSR2 (so that an answer cannot be missed), send it to target, and wait for target's
 * SIGUSR2 back. 0, or -1 with errno (ESRCH, EPERM, ETIMEDOUT). */
int pv_remote_signal_and_wait(pid_t target);

/* 1 when target runs this very program (its /proc/PID/exe is ours), 0 when it runs another,
 * -1 with errno when that cannot be read. SIGUSR2 ends a process that does not catch it, so
 * -R and -Q signal only a process that is ncpv pv. */
int pv_remote_is_pv(pid_t target);

#endif
