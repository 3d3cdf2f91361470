/* display.c - pv-style progress lines: number formatting and the line layout (pure). */
#include "display.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "units.h"

void display_defaults(struct display_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->progress = o->timer = o->eta = o->rate = o->bytes = 1;
}

char *display_amount(char *buf, size_t len, double amount, int si, const char *suffix)
{
	static const char prefixes[] = " KMGTPEZY";
	double ratio = si ? 1000.0 : 1024.0;
	/* pv moves to the next prefix a little below the ratio (993.28 of 1024). */
	double cutoff = ratio * 0.97;
	size_t i = 0;
	char prefix[3] = " ";

	if (fabs(amount) < 0.00001)
		amount = 0;
	while (amount > cutoff && prefixes[i + 1] != '\0') {
		amount /= ratio;
		i++;
	}
	if (i > 0) {
		prefix[0] = (si && i == 1) ? 'k' : prefixes[i];
		prefix[1] = si ? '\0' : 'i';
	}
	if (amount > 99.9)
		snprintf(buf, len, "%4ld%s%s", (long)amount, prefix, suffix);
	else
		snprintf(buf, len, "%#4.3g%s%s", amount, prefix, suffix);
	return buf;
}

/* One %-sequence rendered on its own; the bar is sized after the rest. */
static size_t render_item(char *out, size_t len, char item, const struct display_opts *o,
			  const struct meter_reading *r, uint64_t size, int final)
{
	double mult = o->bits ? 8 : 1;
	const char *unit = o->bits ? "b" : "B";
	const char *rate_unit = o->bits ? "b/s" : "B/s";
	char tmp[64], hms[32];

	switch (item) {
	case 'b':
		display_amount(tmp, sizeof(tmp), (double)r->bytes * mult, o->si, unit);
		return (size_t)snprintf(out, len, "%s", tmp);
	case 't':
		return (size_t)snprintf(out, len, "%s", units_format_hms(hms, sizeof(hms), r->elapsed));
	case 'r':
		display_amount(tmp, sizeof(tmp), r->rate * mult, o->si, rate_unit);
		return (size_t)snprintf(out, len, "[%s]", tmp);
	case 'a':
		display_amount(tmp, sizeof(tmp), r->average * mult, o->si, rate_unit);
		return (size_t)snprintf(out, len, "[%s]", tmp);
	case 'e':
		if (size == 0)
			return 0;
		units_format_hms(hms, sizeof(hms), r->eta > 0 ? r->eta : 0);
		if (final)
			return (size_t)snprintf(out, len, "%*s", (int)strlen(hms) + 4, "");
		return (size_t)snprintf(out, len, "ETA %s", hms);
	case 'N':
		return (size_t)snprintf(out, len, "%s:", o->name ? o->name : "");
	case '%':
		return (size_t)snprintf(out, len, "%%");
	default:
		return 0;
	}
}

static size_t render_bar(char *out, size_t len, int width, const struct meter_reading *r,
			 uint64_t size)
{
	int inner, filled;
	size_t n = 0;

	if (width < 3)
		width = 3;
	if (size > 0) {
		char pct[16];
		double p = r->percent < 0 ? 0 : r->percent;

		snprintf(pct, sizeof(pct), "%3d%%", (int)(p > 999999 ? 999999 : p));
		inner = width - (int)strlen(pct) - 3;
		if (inner < 1)
			inner = 1;
		filled = (int)(inner * (p > 100 ? 100 : p) / 100);
		n += (size_t)snprintf(out + n, len - n, "[");
		for (int i = 0; i < inner && n + 2 < len; i++)
			out[n++] = i < filled - 1 || (p >= 100 && i < filled) ? '=' : i == filled - 1 ? '>' : ' ';
		n += (size_t)snprintf(out + n, len - n, "] %s", pct);
		return n;
	}
	/* No size: a "<=>" bouncing from side to side, one step per second. */
	inner = width - 2;
	if (inner < 3)
		inner = 3;
	{
		int span = inner - 3, step = (int)r->elapsed, pos;

		pos = span > 0 ? step % (2 * span) : 0;
		if (pos > span)
			pos = 2 * span - pos;
		n += (size_t)snprintf(out + n, len - n, "[");
		for (int i = 0; i < inner && n + 2 < len; i++)
			out[n++] = i == pos ? '<' : i == pos + 1 ? '=' : i == pos + 2 ? '>' : ' ';
		n += (size_t)snprintf(out + n, len - n, "]");
	}
	return n;
}

size_t display_line(char *buf, size_t len, const struct display_opts *o,
		    const struct meter_reading *r, uint64_t size, int final)
{
	char fmt[128];
	const char *f = o->format;
	char before[512], after[512], *dst = before;
	size_t nb = 0, na = 0, *n = &nb, cap = sizeof(before);
	int has_bar = 0, width = o->width > 0 ? o->width : 80;

	if (f == NULL) {
		size_t k = 0;

		fmt[0] = '\0';
		if (o->name)
			k += (size_t)snprintf(fmt + k, sizeof(fmt) - k, "%%N ");
		if (o->bytes)
			k += (size_t)snprintf(fmt + k, sizeof(fmt) - k, "%%b ");
		if (o->timer)
			k += (size_t)snprintf(fmt + k, sizeof(fmt) - k, "%%t ");
		if (o->rate)
			k += (size_t)snprintf(fmt + k, sizeof(fmt) - k, "%%r ");
		if (o->average)
			k += (size_t)snprintf(fmt + k, sizeof(fmt) - k, "%%a ");
		if (o->progress)
			k += (size_t)snprintf(fmt + k, sizeof(fmt) - k, "%%p ");
		if (o->eta && size > 0)
			k += (size_t)snprintf(fmt + k, sizeof(fmt) - k, "%%e ");
		if (k > 0)
			fmt[k - 1] = '\0';
		f = fmt;
	}
	for (; *f; f++) {
		if (*f != '%' || f[1] == '\0') {
			if (*n + 1 < cap)
				dst[(*n)++] = *f;
			continue;
		}
		f++;
		if (*f == 'p' && !has_bar) {
			has_bar = 1;
			dst[*n] = '\0';
			dst = after;
			n = &na;
			cap = sizeof(after);
			continue;
		}
		*n += render_item(dst + *n, cap - *n, *f, o, r, size, final);
		if (*n >= cap)
			*n = cap - 1;
	}
	dst[*n] = '\0';
	if (has_bar) {
		char bar[512];
		int room = width - (int)nb - (int)na;

		if (room > (int)sizeof(bar) - 1)
			room = (int)sizeof(bar) - 1;
		render_bar(bar, sizeof(bar), room, r, size);
		return (size_t)snprintf(buf, len, "%s%s%s", before, bar, after) >= len ? len - 1
										: strlen(buf);
	}
	snprintf(buf, len, "%s", before);
	return strlen(buf);
}
