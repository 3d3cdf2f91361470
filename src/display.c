/* SPDX-License-Identifier: ISC */
/* display.c - pv-style progress lines: number formatting and the line layout (pure). */
#include "display.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "units.h"

/* The pieces a format string is made of. */
enum item {
	ITEM_TEXT, ITEM_PROGRESS, ITEM_BAR_ONLY, ITEM_AMOUNT_ONLY, ITEM_TIMER, ITEM_ETA,
	ITEM_FINETA, ITEM_RATE, ITEM_AVERAGE, ITEM_BYTES, ITEM_BUFPERCENT, ITEM_LAST, ITEM_NAME
};

/* The long names later pv versions accept as %{name}. */
static const struct {
	const char *name;
	enum item item;
} long_names[] = {
	{ "progress", ITEM_PROGRESS },	     { "progress-bar-only", ITEM_BAR_ONLY },
	{ "progress-amount-only", ITEM_AMOUNT_ONLY }, { "timer", ITEM_TIMER },
	{ "eta", ITEM_ETA },		     { "fineta", ITEM_FINETA },
	{ "rate", ITEM_RATE },		     { "average-rate", ITEM_AVERAGE },
	{ "bytes", ITEM_BYTES },	     { "transferred", ITEM_BYTES },
	{ "buffer-percent", ITEM_BUFPERCENT }, { "last-written", ITEM_LAST },
	{ "name", ITEM_NAME },
};

/* One parsed piece: an item, or literal text (start, len) of the format. */
struct piece {
	enum item item;
	const char *text;
	size_t len;
	long arg; /* %nA: how many bytes */
};

void display_defaults(struct display_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->progress = o->timer = o->eta = o->rate = o->bytes = 1;
}

void display_frame_from(struct display_frame *f, const struct meter_reading *r, uint64_t size,
			int final)
{
	memset(f, 0, sizeof(*f));
	f->count = r->bytes;
	f->size = size;
	f->elapsed = r->elapsed;
	f->rate = r->rate;
	f->average = r->average;
	f->final = final;
	f->now = time(NULL);
	f->buffer_percent = -1;
}

void display_init(struct display *d, const struct display_opts *o)
{
	memset(d, 0, sizeof(*d));
	d->o = *o;
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

char *display_amount(char *buf, size_t len, double amount, int decimal, const char *suffix)
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
	if (!decimal && pos != mid)
		prefix[1] = 'i';
	if (amount > 100000)
		amount = 100000;
	if (amount < -100000)
		amount = -100000;
	if (amount > 99.9 || amount < -99.9)
		snprintf(buf, len, "%4ld%s%s", (long)amount, prefix, suffix);
	else
		snprintf(buf, len, "%#4.3g%s%s", amount, prefix, suffix);
	return buf;
}

/* Parse the piece at *f (a '%' sequence or a run of text); advance *f. */
static int parse_piece(const char **f, struct piece *p)
{
	const char *s = *f;

	memset(p, 0, sizeof(*p));
	p->item = ITEM_TEXT;
	if (*s != '%') {
		const char *e = strchr(s, '%');

		p->text = s;
		p->len = e ? (size_t)(e - s) : strlen(s);
		*f = s + p->len;
		return 0;
	}
	s++;
	while (*s >= '0' && *s <= '9' && p->arg < 100000)
		p->arg = p->arg * 10 + (*s++ - '0');
	switch (*s) {
	case 'p': p->item = ITEM_PROGRESS; break;
	case 't': p->item = ITEM_TIMER; break;
	case 'e': p->item = ITEM_ETA; break;
	case 'I': p->item = ITEM_FINETA; break;
	case 'r': p->item = ITEM_RATE; break;
	case 'a': p->item = ITEM_AVERAGE; break;
	case 'b': p->item = ITEM_BYTES; break;
	case 'T': p->item = ITEM_BUFPERCENT; break;
	case 'A': p->item = ITEM_LAST; break;
	case 'N': p->item = ITEM_NAME; break;
	case '%':
		p->text = s;
		p->len = 1;
		break;
	case '\0':
		/* A lone % at the end stays a %. */
		p->text = s - 1;
		p->len = 1;
		*f = s;
		return 0;
	case '{': {
		const char *end = strchr(s, '}');
		size_t n;

		if (end == NULL)
			return -1;
		n = (size_t)(end - s - 1);
		for (size_t i = 0; i < sizeof(long_names) / sizeof(long_names[0]); i++) {
			if (strlen(long_names[i].name) == n && strncmp(long_names[i].name, s + 1, n) == 0) {
				p->item = long_names[i].item;
				*f = end + 1;
				return 0;
			}
		}
		return -1;
	}
	default:
		/* Unknown sequences are shown as they are, as pv does. */
		p->text = *f;
		p->len = (size_t)(s - *f) + 1;
		break;
	}
	*f = s + 1;
	return 0;
}

int display_check_format(const char *format, char *bad, size_t len)
{
	const char *f = format;
	struct piece p;

	while (*f) {
		const char *at = f;

		if (parse_piece(&f, &p) < 0) {
			const char *end = strchr(at, '}');
			size_t n = end ? (size_t)(end - at) + 1 : strlen(at);

			snprintf(bad, len, "%.*s", (int)n, at);
			return -1;
		}
	}
	return 0;
}

int display_format_needs_buffer(const char *format)
{
	const char *f = format;
	struct piece p;

	while (*f) {
		if (parse_piece(&f, &p) < 0)
			break;
		if (p.item == ITEM_LAST || p.item == ITEM_BUFPERCENT)
			return 1;
	}
	return 0;
}

/* The format the display flags stand for, in pv's order. */
/* Without a size pv leaves the ETAs out altogether, separators included. */
static void default_format(const struct display_opts *o, uint64_t size, char *fmt, size_t len)
{
	static const struct {
		size_t offset;
		const char *seq;
	} order[] = {
		{ offsetof(struct display_opts, bytes), "%b" },
		{ offsetof(struct display_opts, bufpercent), "%T" },
		{ offsetof(struct display_opts, timer), "%t" },
		{ offsetof(struct display_opts, rate), "%r" },
		{ offsetof(struct display_opts, average), "%a" },
		{ offsetof(struct display_opts, progress), "%p" },
		{ offsetof(struct display_opts, eta), "%e" },
		{ offsetof(struct display_opts, fineta), "%I" },
	};
	size_t n = 0;

	fmt[0] = '\0';
	if (o->name)
		n += (size_t)snprintf(fmt + n, len - n, "%%N");
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]) && n < len; i++) {
		int eta = order[i].seq[1] == 'e' || order[i].seq[1] == 'I';

		if (eta && size == 0)
			continue;
		if (*(const int *)(const void *)((const char *)o + order[i].offset))
			n += (size_t)snprintf(fmt + n, len - n, "%s%s", n ? " " : "", order[i].seq);
	}
	if (o->last_written > 0 && n < len)
		snprintf(fmt + n, len - n, "%s%%%dA", n ? " " : "", o->last_written);
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
	/* More than six hours ahead, the date is shown as well. */
	strftime(out, len, eta > 6L * 3600 ? "ETA %Y-%m-%d %H:%M:%S" : "ETA %H:%M:%S", &tm);
}

static void format_last(char *out, size_t len, long want, const struct display_frame *f)
{
	size_t n = want > 0 ? (size_t)want : 1, have = f->last ? f->last_len : 0;

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

/* Every item but the progress bar, whose width depends on the rest. */
static void format_item(const struct display *d, const struct piece *p, const struct display_frame *f,
			char *out, size_t len)
{
	const struct display_opts *o = &d->o;
	char amount[64], hms[48];

	out[0] = '\0';
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
		display_amount(amount, sizeof(amount),
			       (p->item == ITEM_RATE ? f->rate : f->average) * unit_scale(o),
			       o->lines || o->si, unit_suffix(o, 1));
		snprintf(out, len, "[%s]", amount);
		break;
	case ITEM_BYTES:
		display_amount(amount, sizeof(amount), (double)f->count * unit_scale(o), o->lines || o->si,
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
		format_last(out, len, p->arg ? p->arg : o->last_written, f);
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
static void format_bar(const struct display *d, enum item item, const struct display_frame *f,
		       int room, char *out, size_t len)
{
	char pct[32];
	int inner, n = 0;

	out[0] = '\0';
	if (room > DISPLAY_LINE_MAX)
		room = DISPLAY_LINE_MAX;
	if (f->size > 0) {
		long p = display_percent(f->count, f->size);
		int full;

		snprintf(pct, sizeof(pct), "%ld%%", p);
		if (item == ITEM_AMOUNT_ONLY) {
			snprintf(out, len, "%s", pct);
			return;
		}
		inner = room - 2 - (item == ITEM_BAR_ONLY ? 0 : 1 + (int)strlen(pct));
		if (inner < 0 || (size_t)inner + 2 >= len)
			return;
		/* From 200% on the bar is full whatever its width; capping there keeps a
		 * count far past --size from overflowing (pv -s 1 after petabytes). */
		full = (int)((long long)inner * (p > 200 ? 200 : p) / 100) - 1;
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
		out[n++] = ']';
		out[n] = '\0';
		if (item != ITEM_BAR_ONLY)
			snprintf(out + n, len - (size_t)n, " %s", pct);
		return;
	}
	if (item == ITEM_AMOUNT_ONLY)
		return;
	inner = room - 2;
	if (inner < 3 || (size_t)inner + 2 >= len)
		return;
	{
		int step = d->bounce > 100 ? 200 - d->bounce : d->bounce;
		int pos = (inner - 3) * step / 100;

		memset(out, ' ', (size_t)inner + 2);
		out[0] = '[';
		memcpy(out + 1 + pos, "<=>", 3);
		out[inner + 1] = ']';
		out[inner + 2] = '\0';
	}
}

static int is_bar(enum item item)
{
	return item == ITEM_PROGRESS || item == ITEM_BAR_ONLY || item == ITEM_AMOUNT_ONLY;
}

/* pv moves the bouncing bar one step per update in which data moved. */
static void advance_bounce(struct display *d, const struct display_frame *f)
{
	if (f->size == 0 && f->count != d->bounce_count) {
		d->bounce += 2;
		if (d->bounce > 199)
			d->bounce = 0;
	}
	d->bounce_count = f->count;
}

size_t display_line(struct display *d, const struct display_frame *f, char *buf, size_t len)
{
	char fmt[DISPLAY_LINE_MAX], parts[DISPLAY_LINE_MAX];
	const char *s = d->o.format;
	struct piece p;
	int fixed = 0, width = d->o.width > 0 ? d->o.width : 80;
	size_t n = 0;

	if (len == 0)
		return 0;
	advance_bounce(d, f);
	if (s == NULL) {
		default_format(&d->o, f->size, fmt, sizeof(fmt));
		s = fmt;
	}
	/* First pass: the width of everything but the bars. */
	for (const char *f2 = s; *f2;) {
		if (parse_piece(&f2, &p) < 0)
			break;
		if (!is_bar(p.item)) {
			format_item(d, &p, f, parts, sizeof(parts));
			fixed += (int)strlen(parts);
		}
	}
	/* Second pass: the line, each bar filling what is left. */
	buf[0] = '\0';
	while (*s && n + 1 < len) {
		if (parse_piece(&s, &p) < 0)
			break;
		if (is_bar(p.item))
			format_bar(d, p.item, f, width - fixed, parts, sizeof(parts));
		else
			format_item(d, &p, f, parts, sizeof(parts));
		n += (size_t)snprintf(buf + n, len - n, "%s", parts);
		if (n >= len)
			n = len - 1;
	}
	while (n < d->prev_len && n + 1 < len)
		buf[n++] = ' ';
	buf[n] = '\0';
	d->prev_len = n;
	return n;
}

size_t display_numeric(struct display *d, const struct display_frame *f, char *buf, size_t len)
{
	size_t n = 0;

	if (len == 0)
		return 0;
	advance_bounce(d, f);
	if (d->o.timer)
		n += (size_t)snprintf(buf, len, "%.4f ", f->elapsed);
	if (n < len && d->o.bytes) {
		n += (size_t)snprintf(buf + n, len - n, "%llu\n", (unsigned long long)f->count);
	} else if (n < len) {
		long p = f->size > 0 ? display_percent(f->count, f->size) : d->bounce;

		n += (size_t)snprintf(buf + n, len - n, "%ld\n", p > 100 ? 200 - p : p);
	}
	return n < len ? n : len - 1;
}
