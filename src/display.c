/* SPDX-License-Identifier: ISC */
/* display.c - pv-style progress lines: number formatting and the line layout (pure); the format
 * strings are parsed by display_format.c. */
#include "display.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "display_format.h"
#include "units.h"

/* %{sgr:a,b,...}: the ECMA-48 select-graphic-rendition codes by name. */
static const struct {
	const char *name;
	int code;
} sgr_names[] = {
	{ "reset", 0 },	     { "none", 0 },	     { "bold", 1 },	      { "dim", 2 },
	{ "italic", 3 },     { "underscore", 4 },    { "underline", 4 },      { "blink", 5 },
	{ "reverse", 7 },    { "no-bold", 22 },      { "no-dim", 22 },	      { "no-italic", 23 },
	{ "no-underscore", 24 }, { "no-underline", 24 }, { "no-blink", 25 }, { "no-reverse", 27 },
	{ "black", 30 },     { "red", 31 },	     { "green", 32 },	      { "brown", 33 },
	{ "yellow", 33 },    { "blue", 34 },	     { "magenta", 35 },	      { "cyan", 36 },
	{ "white", 37 },     { "fg-black", 30 },     { "fg-red", 31 },	      { "fg-green", 32 },
	{ "fg-brown", 33 },  { "fg-yellow", 33 },    { "fg-blue", 34 },	      { "fg-magenta", 35 },
	{ "fg-cyan", 36 },   { "fg-white", 37 },     { "fg-default", 39 },    { "bg-black", 40 },
	{ "bg-red", 41 },    { "bg-green", 42 },     { "bg-brown", 43 },      { "bg-yellow", 43 },
	{ "bg-blue", 44 },   { "bg-magenta", 45 },   { "bg-cyan", 46 },	      { "bg-white", 47 },
	{ "bg-default", 49 },
};

void display_defaults(struct display_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->progress = o->timer = o->eta = o->rate = o->bytes = 1;
}

void display_frame_from(struct display_frame *f, const struct meter_reading *r, uint64_t size,
			int final, time_t now)
{
	memset(f, 0, sizeof(*f));
	f->count = r->bytes;
	f->size = size;
	f->elapsed = r->elapsed;
	f->rate = r->rate;
	f->average = r->average;
	f->final = final;
	f->now = now;
	f->buffer_percent = -1;
}

void display_init(struct display *d, const struct display_opts *o)
{
	memset(d, 0, sizeof(*d));
	d->o = *o;
}

double display_percent_exact(uint64_t count, uint64_t size)
{
	double p = size > 0 ? (double)count * 100.0 / (double)size : 0;

	return p > 100000 ? 100000 : p;
}

long display_percent(uint64_t count, uint64_t size)
{
	if (size == 0)
		return 0;
	/* Whole percent, in 128 bits so that huge counts do not overflow. */
	unsigned __int128 p = (unsigned __int128)count * 100 / size;

	return p > LONG_MAX ? LONG_MAX : (long)p; /* -s 1 and 2^64 bytes still fit */
}

long display_eta_seconds(uint64_t count, uint64_t size, double rate)
{
	double eta;

	if (count < 1 || rate < 0.001)
		return 0;
	eta = ((double)size - (double)count) / rate;
	/* Far past the size at a crawling rate, a negative eta must not overflow the cast either. */
	return eta > (double)DISPLAY_ETA_MAX ? DISPLAY_ETA_MAX : eta < -(double)DISPLAY_ETA_MAX ? -DISPLAY_ETA_MAX : (long)eta;
}

/* wide: 1 pads an IEC amount without a prefix as pv 1.10 does; 2 rounds three-digit amounts
 * instead of truncating them as pv does (99.99 M is "100M", not "99M"). */
static char *format_amount(char *buf, size_t len, double amount, int decimal, const char *suffix,
			   int wide)
{
	/* Moving right from the blank: kilo, mega...; left: milli, micro... */
	static const char iec[] = "yzafpnum KMGTPEZY";
	static const char si[] = "yzafpnum kMGTPEZY";
	const char *list = decimal ? si : iec;
	double ratio = decimal ? 1000.0 : 1024.0;
	size_t mid = 8, pos = mid;
	char prefix[3] = " ";

	if (amount > -1e-8 && amount < 1e-8)
		amount = 0;
	if (amount != 0) {
		while (fabs(amount) >= ratio && list[pos + 1] != '\0') {
			amount /= ratio;
			pos++;
		}
		while (fabs(amount) < 1.0 && pos > 0) {
			amount *= ratio;
			pos--;
		}
	}
	prefix[0] = list[pos];
	if (!decimal && (pos != mid || wide == 1))
		prefix[1] = pos != mid ? 'i' : ' ';
	if (amount > 100000)
		amount = 100000;
	if (amount < -100000)
		amount = -100000;
	if (wide == 2 && fabs(amount) > 99.9 && fabs(round(amount)) >= ratio && list[pos + 1] != '\0') {
		/* Rounded, 999.6 k is 1.00 M, not 1000 k. */
		prefix[0] = list[++pos];
		prefix[1] = !decimal && pos != mid ? 'i' : '\0';
		snprintf(buf, len, "%#4.3g%s%s", amount / ratio, prefix, suffix);
	} else if (wide == 2 ? fabs(amount) >= 99.95 : amount > 99.9 || amount < -99.9)
		/* pv truncates from 99.9 up; rounded, 99.94 is still "99.9" and 99.95 "100" */
		snprintf(buf, len, "%4ld%s%s", wide == 2 ? lround(amount) : (long)amount, prefix, suffix);
	else
		snprintf(buf, len, "%#4.3g%s%s", amount, prefix, suffix);
	return buf;
}

char *display_amount(char *buf, size_t len, double amount, int decimal, const char *suffix)
{
	return format_amount(buf, len, amount, decimal, suffix, 0);
}

char *display_amount_round(char *buf, size_t len, double amount, int decimal, const char *suffix)
{
	return format_amount(buf, len, amount, decimal, suffix, 2);
}

char *display_amount_pv110(char *buf, size_t len, double amount, int decimal, const char *suffix)
{
	return format_amount(buf, len, amount, decimal, suffix, 1);
}

static const char *unit_suffix(const struct display_opts *o, int rate)
{
	if (o->lines)
		return rate ? "/s" : "";
	if (o->bits)
		return rate ? "b/s" : "b";
	return rate ? "B/s" : "B";
}

static double unit_scale(const struct display_opts *o)
{
	return o->bits && !o->lines ? 8.0 : 1.0;
}

static void format_eta(char *out, size_t len, const struct display_frame *f)
{
	char hms[48];
	long eta;

	out[0] = '\0';
	if (f->size == 0)
		return;
	eta = display_eta_seconds(f->count, f->size, f->average);
	units_format_hms(hms, sizeof(hms), eta > 0 ? (double)eta : 0);
	if (f->final)
		snprintf(out, len, "%*s", (int)strlen(hms) + 4, "");
	else
		snprintf(out, len, "ETA %s", hms);
}

static void format_fineta(char *out, size_t len, const struct display_frame *f)
{
	struct tm tm;
	time_t then;
	long eta;

	out[0] = '\0';
	if (f->size == 0)
		return;
	eta = display_eta_seconds(f->count, f->size, f->average);
	if (eta < 0)
		eta = 0;
	then = f->now + eta;
	if (localtime_r(&then, &tm) == NULL)
		return;
	/* More than six hours ahead, the date is shown as well; the last line says when it finished. */
	if (f->final)
		strftime(out, len, "FIN %H:%M:%S", &tm);
	else
		strftime(out, len, eta > 6L * 3600 ? "ETA %Y-%m-%d %H:%M:%S" : "ETA %H:%M:%S", &tm);
}

static void format_last(char *out, size_t len, long want, const struct display_frame *f)
{
	size_t n = want > 0 ? (size_t)want : 0, have = f->last ? f->last_len : 0;

	if (n > DISPLAY_LAST_MAX)
		n = DISPLAY_LAST_MAX;
	if (n + 1 > len)
		n = len - 1;
	/* Right-aligned; what was not written yet, and unprintables, are dots. */
	for (size_t i = 0; i < n; i++) {
		size_t from_end = n - i;
		unsigned char c = from_end <= have ? f->last[have - from_end] : '.';

		out[i] = c >= 0x20 && c < 0x7f ? (char)c : '.';
	}
	out[n] = '\0';
}

/* %{sgr:NAME,...}: the escape sequence; unknown names and numbers past 255 are left out. */
static void format_sgr(const char *names, size_t len, char *out, size_t outlen)
{
	size_t n = 0, at = 0;
	int codes = 0;

	out[0] = '\0';
	while (at < len) {
		size_t w = strcspn(names + at, ",;}");
		int code = -1;

		if (w > len - at)
			w = len - at;
		if (w > 0 && strspn(names + at, "0123456789") >= w && w < 4) {
			code = (int)strtol(names + at, NULL, 10);
			if (code > 254)
				code = -1;
		}
		for (size_t i = 0; code < 0 && i < sizeof(sgr_names) / sizeof(sgr_names[0]); i++) {
			if (strlen(sgr_names[i].name) == w && strncmp(sgr_names[i].name, names + at, w) == 0)
				code = sgr_names[i].code;
		}
		if (code >= 0 && n + 8 < outlen)
			n += (size_t)snprintf(out + n, outlen - n, codes++ ? ";%d" : "\033[%d", code);
		at += w + 1;
	}
	if (codes > 0 && n + 2 < outlen)
		snprintf(out + n, outlen - n, "m");
}

/* -n: the raw number an item stands for; 0 when the item has none (shown as usual). */
static int format_numeric_item(const struct display_piece *p, const struct display_frame *f, double scale,
			       char *out, size_t len)
{
	switch (p->item) {
	case ITEM_TIMER:
		snprintf(out, len, "%.4f", f->elapsed);
		return 1;
	case ITEM_RATE:
	case ITEM_AVERAGE:
		snprintf(out, len, "%.4f", (p->item == ITEM_RATE ? f->rate : f->average) * scale);
		return 1;
	case ITEM_BYTES:
		snprintf(out, len, "%llu", (unsigned long long)f->count * (scale > 1 ? 8u : 1u));
		return 1;
	default:
		return 0;
	}
}

/* Every item but the progress bar, whose width depends on the rest. */
static void format_item(const struct display *d, const struct display_piece *p, const struct display_frame *f,
			char *out, size_t len)
{
	const struct display_opts *o = &d->o;
	char amount[64], hms[48];
	char *(*amount_fn)(char *, size_t, double, int, const char *) =
		o->pv110 ? display_amount_pv110 : display_amount;

	out[0] = '\0';
	if (o->numeric && format_numeric_item(p, f, unit_scale(o), out, len))
		return;
	switch (p->item) {
	case ITEM_TEXT:
		snprintf(out, len, "%.*s", (int)p->len, p->text);
		break;
	case ITEM_TIMER:
		snprintf(out, len, "%s", units_format_hms(hms, sizeof(hms), f->elapsed));
		break;
	case ITEM_ETA:
		format_eta(out, len, f);
		break;
	case ITEM_FINETA:
		format_fineta(out, len, f);
		break;
	case ITEM_RATE:
	case ITEM_AVERAGE:
		amount_fn(amount, sizeof(amount), (p->item == ITEM_RATE ? f->rate : f->average) * unit_scale(o),
			  o->lines || o->si, unit_suffix(o, 1));
		/* pv 1.10 tells the average from the current rate by its brackets. */
		snprintf(out, len, p->item == ITEM_AVERAGE && o->pv110 ? "(%s)" : "[%s]", amount);
		break;
	case ITEM_BYTES:
		amount_fn(amount, sizeof(amount), (double)f->count * unit_scale(o), o->lines || o->si,
			  unit_suffix(o, 0));
		snprintf(out, len, "%s", amount);
		break;
	case ITEM_BUFPERCENT:
		if (f->buffer_percent < 0)
			snprintf(out, len, "{----}");
		else
			snprintf(out, len, "{%3d%%}", f->buffer_percent);
		break;
	case ITEM_LAST:
		format_last(out, len, p->arg, f);
		break;
	case ITEM_SGR:
		format_sgr(p->text, p->len, out, len);
		break;
	case ITEM_NAME:
		if (o->name)
			snprintf(out, len, "%9.500s:", o->name);
		break;
	default:
		break;
	}
}

/* The bar in room columns: "[===>   ] 42%" with a size, a bouncing "<=>" without. */
static void format_bar(const struct display *d, enum display_item item, const struct display_frame *f,
		       int room, char *out, size_t len)
{
	char pct[64];
	int inner, n = 0, brackets = item != ITEM_BAR_ONLY || !d->o.pv110;

	out[0] = '\0';
	if (room > DISPLAY_LINE_MAX)
		room = DISPLAY_LINE_MAX;
	if (item == ITEM_PREVLINE) {
		/* No line of the data is kept: the room stays blank. */
		if (room > 0 && (size_t)room < len) {
			memset(out, ' ', (size_t)room);
			out[room] = '\0';
		}
		return;
	}
	if (d->o.numeric && item == ITEM_AMOUNT_ONLY) {
		/* pv 1.10: the percentage rounded; the bar's step when the size is unknown. */
		if (f->size > 0)
			snprintf(out, len, "%.0f", display_percent_exact(f->count, f->size));
		else
			snprintf(out, len, "%d", d->bounce);
		return;
	}
	if (f->size > 0 || d->o.gauge) {
		long p = display_percent(f->count, f->size);
		double fill = display_percent_exact(f->count, f->size); /* pv fills from the exact fraction */
		int full;
		const char *gap = " ";

		if (d->o.pv110 && p > 100000)
			p = 100000;
		snprintf(pct, sizeof(pct), d->o.pv110 ? "%3ld%%" : "%ld%%", p);
		if (f->size == 0) {
			/* -g without a size: the rate against the highest rate seen, "[===>  ]/5.10MiB/s". */
			char amount[48];

			fill = f->max_rate > 0 ? f->rate * 100 / f->max_rate : 0;
			display_amount_pv110(amount, sizeof(amount), f->max_rate * unit_scale(&d->o),
					     d->o.lines || d->o.si, unit_suffix(&d->o, 1));
			snprintf(pct, sizeof(pct), "/%s", amount);
			gap = "";
		}
		if (item == ITEM_AMOUNT_ONLY) {
			snprintf(out, len, "%s", pct);
			return;
		}
		inner = room - (brackets ? 2 : 0) - (item == ITEM_BAR_ONLY ? 0 : (int)strlen(gap) + (int)strlen(pct));
		if (inner < 0 || (size_t)inner + 2 >= len)
			return;
		/* From 200% on the bar is full whatever its width; capping there keeps a
		 * count far past --size from overflowing (pv -s 1 after petabytes). */
		full = (int)((double)inner * (fill > 200 ? 200 : fill) / 100) - 1;
		if (brackets)
			out[n++] = '[';
		if (full >= inner) {
			memset(out + n, '=', (size_t)inner);
			n += inner;
		} else {
			if (full < 0)
				full = 0;
			memset(out + n, '=', (size_t)full);
			n += full;
			if (full < inner) {
				out[n++] = '>';
				memset(out + n, ' ', (size_t)(inner - full - 1));
				n += inner - full - 1;
			}
		}
		if (brackets)
			out[n++] = ']';
		out[n] = '\0';
		if (item != ITEM_BAR_ONLY)
			snprintf(out + n, len - (size_t)n, "%s%s", gap, pct);
		return;
	}
	if (item == ITEM_AMOUNT_ONLY)
		return;
	/* pv 1.10 leaves the bar out rather than squeeze "<=>" into no room. */
	inner = room - (brackets ? 2 : 0);
	if (inner < (brackets ? 4 : 5) || (size_t)inner + 2 >= len)
		return;
	{
		int step = d->bounce > 100 ? 200 - d->bounce : d->bounce;
		int pos = (inner - 3) * step / 100, b = brackets ? 1 : 0;

		memset(out, ' ', (size_t)inner + 2 * (size_t)b);
		memcpy(out + b + pos, "<=>", 3);
		if (brackets) {
			out[0] = '[';
			out[inner + 1] = ']';
		}
		out[inner + 2 * b] = '\0';
	}
}

static int is_bar(enum display_item item)
{
	return item == ITEM_PROGRESS || item == ITEM_BAR_ONLY || item == ITEM_AMOUNT_ONLY ||
	       item == ITEM_PREVLINE;
}

/* pv moves the bouncing bar one step per update in which data moved, and once more on the
 * last update when anything moved at all (its rate there is the whole run's average). */
static void advance_bounce(struct display *d, const struct display_frame *f)
{
	if (f->size == 0 && (f->count != d->bounce_count || (f->final && f->count > 0))) {
		d->bounce += 2;
		if (d->bounce > 199)
			d->bounce = 0;
	}
	d->bounce_count = f->count;
}

/* Two passes over a format: the width of everything but the bars, then the line with each
 * bar filling what is left of width columns; with fit, no piece passes width. Returns the
 * length written (at most len - 1). */
/* Whether text holds a character wcswidth calls unprintable (a control character). */
static int unprintable(const char *text)
{
	mbstate_t st;
	size_t len = strlen(text);

	memset(&st, 0, sizeof(st));
	for (size_t i = 0; i < len;) {
		wchar_t wc;
		size_t k;

		if (text[i] == 0x1b && text[i + 1] == '[') {
			for (i += 2; i < len && !(text[i] >= 0x40 && text[i] <= 0x7e); i++)
				;
			i++;
			continue;
		}
		k = mbrtowc(&wc, text + i, len - i, &st);
		if (k == (size_t)-1 || k == (size_t)-2 || k == 0)
			return 0; /* undecodable: pv counts bytes then */
		if (wcwidth(wc) < 0)
			return 1;
		i += k;
	}
	return 0;
}

static size_t render(const struct display *d, const struct display_frame *f, const char *s, int width,
		     int fit, char *buf, size_t len)
{
	char parts[DISPLAY_LINE_MAX] = ""; /* zeroed: the analyser cannot follow format_item's terminator */
	struct display_piece p;
	int fixed = 0, bars = 0, sgr_on = 0;
	size_t n = 0, cols = 0;

	/* Wider than a line can hold (-w 5000): draw the widest line that fits, rather than
	 * dropping the bar or cutting off what follows it. */
	if (width > DISPLAY_LINE_MAX - 1)
		width = DISPLAY_LINE_MAX - 1;
	for (const char *f2 = s; *f2;) {
		if (display_parse_piece(&f2, &p) < 0)
			break;
		if (!is_bar(p.item) && p.item != ITEM_SGR) {
			format_item(d, &p, f, parts, sizeof(parts));
			fixed += (int)display_columns(parts, strlen(parts));
			/* pv 1.10 measures with wcswidth, which is -1 (huge, unsigned) for text with
			 * a control character (a -N with a newline): no room is left for a bar. */
			if (unprintable(parts))
				fixed += DISPLAY_LINE_MAX;
		}
	}
	/* Several bars share the room. */
	for (const char *f2 = s; *f2;) {
		if (display_parse_piece(&f2, &p) < 0)
			break;
		bars += is_bar(p.item) && p.item != ITEM_AMOUNT_ONLY;
	}
	buf[0] = '\0';
	while (*s && n + 1 < len) {
		if (display_parse_piece(&s, &p) < 0)
			break;
		if (is_bar(p.item))
			format_bar(d, p.item, f, (width - fixed) / (bars > 1 ? bars : 1), parts, sizeof(parts));
		else
			format_item(d, &p, f, parts, sizeof(parts));
		if (fit) {
			/* As pv 1.6: the first piece that would pass the edge ends the line there (a bar
			 * without room is already empty), so ETA goes before the rate, the rate before the
			 * timer; a wrapped line would leave a copy behind at every refresh. */
			size_t w = display_columns(parts, strlen(parts));

			if (w > 0 && cols + w > (size_t)width)
				break;
			cols += w;
		}
		if (p.item == ITEM_SGR && parts[0] != '\0') {
			/* The last code decides: 0 is itself a reset, anything else stays on. */
			const char *last = parts + strcspn(parts, "0123456789");

			for (const char *c = last; *c; c++)
				if (*c == ';')
					last = c + 1;
			sgr_on = strtol(last, NULL, 10) != 0;
		}
		n += (size_t)snprintf(buf + n, len - n, "%s", parts);
		if (n >= len)
			n = len - 1;
	}
	/* Pieces measured one by one can add up to less than the whole (an escape sequence
	 * or a character split between two pieces): with fit, cut the line to width as a
	 * whole. Only a format with such bytes in its text gets here. */
	while (fit && n > 0 && display_columns(buf, n) > (size_t)width)
		buf[--n] = '\0';
	/* As pv 1.10 does: a colour left on by %{sgr:...} is reset at the end of the line, so
	 * that it does not bleed into what the terminal shows after it. */
	if (sgr_on && n + 4 <= len)
		n += (size_t)snprintf(buf + n, len - n, "\033[m");
	return n;
}

size_t display_columns(const char *line, size_t len)
{
	/* As pv 1.10.5 (wcswidth in the user's LC_CTYPE): a wide character takes two columns, a
	 * combining one none; text the locale cannot decode (any non-ASCII byte in the C locale)
	 * takes a column a byte, never fewer than a UTF-8 terminal gives it. */
	mbstate_t st;
	size_t cols = 0, bytes = 0;
	int decoded = 1;

	memset(&st, 0, sizeof(st));
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)line[i];
		wchar_t wc;
		size_t k;
		int w;

		if (c == 0x1b && i + 1 < len && line[i + 1] == '[') {
			/* CSI: parameters up to a final byte from '@' to '~'. */
			for (i += 2; i < len && !(line[i] >= 0x40 && line[i] <= 0x7e); i++)
				;
			i++;
			continue;
		}
		if (c < 0x80) {
			cols++, bytes++, i++;
			continue;
		}
		k = mbrtowc(&wc, line + i, len - i, &st);
		if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
			memset(&st, 0, sizeof(st));
			decoded = 0;
			bytes++, i++;
			continue;
		}
		w = wcwidth(wc);
		cols += w < 0 ? 1 : (size_t)w;
		bytes += k;
		i += k;
	}
	return decoded ? cols : bytes;
}

size_t display_line(struct display *d, const struct display_frame *f, char *buf, size_t len)
{
	char fmt[DISPLAY_LINE_MAX];
	const char *s = d->o.format;
	int width = d->o.width > 0 ? d->o.width : 80;
	size_t n, cols, prev;

	if (len == 0)
		return 0;
	advance_bounce(d, f);
	if (s == NULL) {
		display_default_format(&d->o, f->size, fmt, sizeof(fmt));
		s = fmt;
	}
	if (d->o.fit > 0 && d->o.fit < width)
		width = d->o.fit;
	n = render(d, f, s, width, d->o.fit > 0, buf, len);
	/* Blank what the previous line left, but never past the (maybe narrower) terminal;
	 * columns, not bytes: a name in UTF-8 takes fewer columns than bytes. */
	cols = display_columns(buf, n);
	/* What is past the text is blank once padded: the next line pads only to this text's end. */
	prev = d->prev_cols;
	d->prev_cols = cols;
	for (; cols < prev && cols < (size_t)width && n + 1 < len; cols++)
		buf[n++] = ' ';
	buf[n] = '\0';
	return n;
}

size_t display_numeric(struct display *d, const struct display_frame *f, char *buf, size_t len)
{
	char fmt[64];
	const char *s = d->o.format;
	size_t n;

	if (len < 2)
		return 0;
	d->o.numeric = 1;
	advance_bounce(d, f);
	if (s == NULL) {
		const struct display_opts *o = &d->o;

		snprintf(fmt, sizeof(fmt), "%s%s%s%s%s", o->timer ? "%t " : "", o->bytes ? "%b" : "",
			 o->bytes && o->rate ? " " : "", o->rate ? "%r" : "",
			 o->bytes || o->rate ? "" : "%{progress-amount-only}");
		s = fmt;
	}
	/* A numeric line ends with a newline: it cannot wrap over itself, and pv 1.10 never cuts it. */
	n = render(d, f, s, d->o.width > 0 ? d->o.width : 80, 0, buf, len - 1);
	buf[n++] = '\n';
	buf[n] = '\0';
	return n;
}
