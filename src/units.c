/* SPDX-License-Identifier: ISC */
/* units.c - parse and format byte counts, rates and durations (pure). */
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Read a non-negative decimal "123" or "1.25" without locale surprises.
 * Returns a pointer past the number, or NULL when there are no digits. */
static const char *parse_decimal(const char *s, double *out)
{
	double v = 0, scale = 1;
	int digits = 0;

	for (; isdigit((unsigned char)*s); s++, digits++)
		v = v * 10 + (*s - '0');
	if (*s == '.') {
		for (s++; isdigit((unsigned char)*s); s++, digits++) {
			scale /= 10;
			v += (*s - '0') * scale;
		}
	}
	if (digits == 0)
		return NULL;
	*out = v;
	return s;
}

int units_parse_size(const char *s, uint64_t *out)
{
	static const char prefixes[] = "KMGTP";
	uint64_t whole = 0, mult = 1, v;
	double frac = 0, scale = 1;
	int digits = 0;
	const char *p = s;

	if (s == NULL) {
		errno = EINVAL;
		return -1;
	}
	/* The whole part in integers: a double would round counts past 2^53. */
	for (; isdigit((unsigned char)*p); p++, digits++) {
		unsigned d = (unsigned)(*p - '0');

		if (whole > (UINT64_MAX - d) / 10) {
			errno = ERANGE;
			return -1;
		}
		whole = whole * 10 + d;
	}
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++, digits++) {
			scale /= 10;
			frac += (*p - '0') * scale;
		}
	}
	if (digits == 0) {
		errno = EINVAL;
		return -1;
	}
	if (*p != '\0') {
		const char *hit = strchr(prefixes, toupper((unsigned char)*p));

		if (hit == NULL) {
			/* A bare "B" is allowed: "4096B". */
			if (toupper((unsigned char)*p) == 'B' && p[1] == '\0')
				p++;
			else {
				errno = EINVAL;
				return -1;
			}
		} else {
			for (long i = 0; i <= hit - prefixes; i++)
				mult *= 1024;
			p++;
			if (strcasecmp(p, "iB") == 0 || strcasecmp(p, "B") == 0)
				p += strlen(p);
		}
		if (*p != '\0') {
			errno = EINVAL;
			return -1;
		}
	}
	if (mult == 1 && frac > 0) {
		errno = EINVAL; /* "1.5" bytes */
		return -1;
	}
	if (whole > UINT64_MAX / mult) {
		errno = ERANGE;
		return -1;
	}
	v = whole * mult;
	/* frac * mult < mult <= 2^50: exact enough, and it fits. */
	if ((uint64_t)(frac * (double)mult) > UINT64_MAX - v) {
		errno = ERANGE;
		return -1;
	}
	*out = v + (uint64_t)(frac * (double)mult);
	return 0;
}

int units_parse_seconds(const char *s, double *out)
{
	double v, mult = 1;
	const char *p;

	if (s == NULL || (p = parse_decimal(s, &v)) == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (strcmp(p, "") == 0 || strcmp(p, "s") == 0)
		mult = 1;
	else if (strcmp(p, "ms") == 0)
		mult = 0.001;
	else if (strcmp(p, "m") == 0)
		mult = 60;
	else if (strcmp(p, "h") == 0)
		mult = 3600;
	else {
		errno = EINVAL;
		return -1;
	}
	v *= mult;
	if (v > 366.0 * 86400) {
		errno = ERANGE;
		return -1;
	}
	*out = v;
	return 0;
}

int units_parse_delay(const char *s, double *out)
{
	size_t n = s ? strlen(s) : 0;
	double v;

	if (units_parse_seconds(s, &v) < 0)
		return -1;
	if (n > 0 && isdigit((unsigned char)s[n - 1]) && v != 0) {
		errno = EINVAL;
		return -1;
	}
	*out = v;
	return 0;
}

int units_parse_bitrate(const char *s, double *bits_per_s)
{
	static const struct {
		const char *suffix;
		double mult;
	} units[] = {
		{ "", 1 },	     { "bit", 1 },	  { "kbit", 1e3 },
		{ "mbit", 1e6 },     { "gbit", 1e9 },	  { "bps", 8 },
		{ "kbps", 8e3 },     { "mbps", 8e6 },	  { "gbps", 8e9 },
	};
	double v;
	const char *p;

	if (s == NULL || (p = parse_decimal(s, &v)) == NULL) {
		errno = EINVAL;
		return -1;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(p, units[i].suffix) == 0) {
			*bits_per_s = v * units[i].mult;
			if (*bits_per_s <= 0)
				break;
			return 0;
		}
	}
	errno = EINVAL;
	return -1;
}

int units_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (s == NULL || *s == '\0') {
		errno = EINVAL;
		return -1;
	}
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9') {
			errno = EINVAL;
			return -1;
		}
	}
	/* Only now the value: "99999999999999999999x" is not a number, rather than too large. */
	for (; *s; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (v > (UINT64_MAX - d) / 10 || v * 10 + d > max) {
			errno = ERANGE;
			return -1;
		}
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int units_parse_long(const char *s, long min, long max, long *out)
{
	uint64_t mag, limit;
	long v;
	int neg = s != NULL && s[0] == '-' && min < 0;

	/* A '-' where no negative value is allowed: a number, but out of range ("-1"). */
	if (s != NULL && s[0] == '-' && min >= 0) {
		int rc = units_parse_u64(s + 1, UINT64_MAX, &mag);

		errno = (rc == 0 && mag > 0) || (rc < 0 && errno == ERANGE) ? ERANGE : EINVAL;
		return -1;
	}
	limit = neg ? (uint64_t)0 - (uint64_t)min : max < 0 ? 0 : (uint64_t)max;
	if (units_parse_u64(neg ? s + 1 : s, UINT64_MAX, &mag) < 0)
		return -1;
	if (mag > limit) {
		errno = ERANGE;
		return -1;
	}
	/* -mag as a long without overflow (mag <= -min here). */
	v = neg ? (mag == 0 ? 0 : -(long)(mag - 1) - 1) : (long)mag;
	if (v < min || v > max) {
		errno = ERANGE;
		return -1;
	}
	*out = v;
	return 0;
}

int units_parse_pid(const char *s, pid_t *out)
{
	long v;

	if (units_parse_long(s, 1, INT_MAX, &v) < 0)
		return -1;
	*out = (pid_t)v;
	return 0;
}

int units_parse_fd(const char *s, int *out)
{
	long v;

	if (units_parse_long(s, 0, INT_MAX, &v) < 0)
		return -1;
	*out = (int)v;
	return 0;
}

char *units_format_hms(char *buf, size_t len, double seconds)
{
	/* NaN, infinities and absurd ETAs (a rate near zero) must not reach the
	 * (long) conversion, which is undefined beyond LONG_MAX: cap at ~31 million years. */
	long t = seconds > 0 ? (long)(seconds < 1e15 ? seconds : 1e15) : 0;
	long d = t / 86400, h = (t / 3600) % 24, m = (t / 60) % 60, s = t % 60;

	if (d > 0)
		snprintf(buf, len, "%ld:%02ld:%02ld:%02ld", d, h, m, s);
	else
		snprintf(buf, len, "%ld:%02ld:%02ld", h, m, s);
	return buf;
}

char *units_format_iec(char *buf, size_t len, double bytes)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	size_t i = 0;

	while (bytes >= 1024 && i + 1 < sizeof(names) / sizeof(names[0])) {
		bytes /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, len, "%.0f B", bytes);
	else
		snprintf(buf, len, "%.*f%s", bytes < 10 ? 2 : bytes < 100 ? 1 : 0, bytes, names[i]);
	return buf;
}

char *units_format_count(char *buf, size_t len, uint64_t bytes)
{
	char iec[32];

	if (bytes < 1024)
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%llu B (%s)", (unsigned long long)bytes,
			 units_format_iec(iec, sizeof(iec), (double)bytes));
	return buf;
}

static int pv_digit(char c)
{
	return c >= '0' && c <= '9';
}

int units_pv_check(const char *s, enum units_pv_num type)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if (!pv_digit(*s))
		return 0;
	while (pv_digit(*s))
		s++;
	if (*s == '.' || *s == ',') {
		if (type == UNITS_PV_INTEGER)
			return 0;
		s++;
		while (pv_digit(*s))
			s++;
	}
	if (*s == '\0')
		return 1;
	if (type != UNITS_PV_SIZE)
		return 0;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '\0' || strchr("kKmMgGtT", *s) == NULL)
		return 0;
	return s[1] == '\0';
}

uint64_t units_pv_size(const char *s, int decimal)
{
	static const char suffixes[] = "kKmMgGtT";
	uint64_t whole = 0, frac = 0, div = 1, mul = 1;
	const char *suffix;

	while (*s && !pv_digit(*s))
		s++;
	for (; pv_digit(*s); s++)
		whole = whole > (INT64_MAX - 9) / 10 ? INT64_MAX : whole * 10 + (uint64_t)(*s - '0');
	if (*s == '.' || *s == ',') {
		for (s++; pv_digit(*s); s++) {
			if (div < 10000) {
				frac = frac * 10 + (uint64_t)(*s - '0');
				div *= 10;
			}
		}
	}
	while (*s == ' ' || *s == '\t')
		s++;
	suffix = *s ? strchr(suffixes, *s) : NULL;
	if (suffix != NULL) {
		int power = (int)(suffix - suffixes) / 2 + 1;

		for (int i = 0; i < power; i++)
			mul *= decimal ? 1000 : 1024;
	}
	if (whole > INT64_MAX / mul)
		return INT64_MAX;
	return whole * mul + frac * mul / div;
}

double units_pv_decimal(const char *s)
{
	double v = 0, step = 1;

	while (*s && !pv_digit(*s))
		s++;
	for (; pv_digit(*s); s++)
		v = v * 10 + (*s - '0');
	if (*s != '.' && *s != ',')
		return v;
	for (s++; pv_digit(*s) && step < 1000000; s++) {
		step *= 10;
		v += (*s - '0') / step;
	}
	return v;
}
