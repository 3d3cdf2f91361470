/* SPDX-License-Identifier: ISC */
/* units.h - parse and format byte counts, rates and durations (pure: no I/O, no allocation). */
#ifndef NCPV_UNITS_H
#define NCPV_UNITS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Parse a byte count: digits with an optional fraction and an optional IEC
 * suffix K, M, G, T, P (powers of 1024; "KiB", "KB" and lower case are
 * accepted and mean the same). "1.5M" is 1572864. Returns 0, or -1 with
 * errno EINVAL (not a size) or ERANGE (does not fit in 64 bits).
 */
int units_parse_size(const char *s, uint64_t *out);

/*
 * Parse a duration in seconds: a non-negative decimal number with an
 * optional suffix s, m (minutes), h, or ms. Returns 0, or -1 with errno
 * EINVAL or ERANGE (more than a year).
 */
int units_parse_seconds(const char *s, double *out);

/*
 * As units_parse_seconds, for a link's delay or jitter: a value other than 0 must
 * carry its unit, since a bare "20" reads as 20 ms to mm-delay, 20 us to tc, 20 s here.
 */
int units_parse_delay(const char *s, double *out);

/*
 * Parse a link rate for traffic shaping, in bits per second: a number with
 * an optional suffix bit, kbit, mbit, gbit (SI, as tc spells them) or the
 * byte forms bps, kbps, mbps, gbps (bytes per second, SI). Returns 0, or -1
 * with errno EINVAL.
 */
int units_parse_bitrate(const char *s, double *bits_per_s);

/*
 * The one strict parser for whole numbers (every PID, fd, port and count):
 * decimal digits only ("010" is ten, "0x10" is not a number), no blanks, no
 * '+', a '-' only where min < 0, no wrap-around. Returns 0, or -1 with errno
 * EINVAL (not a number: "", " 1", "1 ", "+1", "1.5") or ERANGE (a number
 * outside [min, max], however many digits; "-1" when min >= 0).
 */
int units_parse_long(const char *s, long min, long max, long *out);

/* The same for an unsigned 64-bit value in [0, max]. */
int units_parse_u64(const char *s, uint64_t max, uint64_t *out);

/* A process ID: 1 to INT_MAX (what pid_t holds; never 0 or negative, which
 * kill(2) reads as a process group or every process). */
int units_parse_pid(const char *s, pid_t *out);

/* A file descriptor: 0 to INT_MAX. */
int units_parse_fd(const char *s, int *out);

/*
 * Format a seconds count as pv does: "H:MM:SS", or "D:HH:MM:SS" from one
 * day on. Negative values print as 0:00:00. Writes at most len bytes
 * including the NUL and returns buf.
 */
char *units_format_hms(char *buf, size_t len, double seconds);

/* How pv 1.10 checks a number argument before reading it. */
enum units_pv_num {
	UNITS_PV_INTEGER,	/* digits only (-w, -H, -A, -m) */
	UNITS_PV_DECIMAL,	/* digits, then an optional '.' or ',' fraction (-i, -D) */
	UNITS_PV_SIZE		/* a decimal, then an optional k, m, g or t (-s, -L, -B, -Z) */
};

/* Whether s is a number pv 1.10 accepts as type: leading blanks, then as above, blanks
 * allowed before the suffix, nothing after it. */
int units_pv_check(const char *s, enum units_pv_num type);

/* Read a checked size as pv does: K, M, G, T are powers of 1024 (of 1000 when decimal);
 * at most four fraction digits count; saturates at INT64_MAX. */
uint64_t units_pv_size(const char *s, int decimal);

/* Read a checked decimal as pv does (six fraction digits at most). */
double units_pv_decimal(const char *s);

/* A plain decimal rendering of a byte count with IEC units, such as
 * "652MiB" or "4.00KiB", for summaries. Returns buf. */
char *units_format_iec(char *buf, size_t len, double bytes);

/* A summary's byte count: exact, and in IEC units too from 1 KiB on, when that says
 * more: "0 B", "1000 B", "1048576 B (1.00MiB)". Returns buf. */
char *units_format_count(char *buf, size_t len, uint64_t bytes);

#endif
