/* SPDX-License-Identifier: ISC */
/* display_format.c - pv's -F format strings: the pieces (%p, %3A, %{name}, %{sgr:...}, text),
 * their checks, and the format the display flags stand for (pure). display.c renders them. */
#include "display_format.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The long names later pv versions accept as %{name}. */
static const struct {
	const char *name;
	enum display_item item;
} long_names[] = {
	{ "progress", ITEM_PROGRESS },	     { "progress-bar-only", ITEM_BAR_ONLY },
	{ "progress-amount-only", ITEM_AMOUNT_ONLY }, { "timer", ITEM_TIMER },
	{ "eta", ITEM_ETA },		     { "fineta", ITEM_FINETA },
	{ "rate", ITEM_RATE },		     { "average-rate", ITEM_AVERAGE },
	{ "bytes", ITEM_BYTES },	     { "transferred", ITEM_BYTES },
	{ "buffer-percent", ITEM_BUFPERCENT }, { "last-written", ITEM_LAST },
	{ "name", ITEM_NAME },		     { "bar-plain", ITEM_BAR_ONLY },
	{ "bar-block", ITEM_BAR_ONLY },	     { "bar-granular", ITEM_BAR_ONLY },
	{ "bar-shaded", ITEM_BAR_ONLY },     { "previous-line", ITEM_PREVLINE },
};

int display_parse_piece(const char **f, struct display_piece *p)
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
	case 'L': p->item = ITEM_PREVLINE; break;
	case '%':
		p->text = s;
		p->len = 1;
		break;
	case '\0':
		/* A lone % (or "%3") at the end stays as it is. */
		p->text = *f;
		p->len = (size_t)(s - *f);
		*f = s;
		return 0;
	case '{': {
		/* As pv 1.10 scans it: up to '}', or up to (not over) a '%' or the end. */
		size_t n = strcspn(s + 1, "}%");
		const char *end = s + 1 + n;

		if (*end == '}') {
			for (size_t i = 0; i < sizeof(long_names) / sizeof(long_names[0]); i++) {
				if (strlen(long_names[i].name) == n &&
				    strncmp(long_names[i].name, s + 1, n) == 0) {
					p->item = long_names[i].item;
					*f = end + 1;
					return 0;
				}
			}
			if (strncmp(s + 1, "sgr:", 4) == 0) {
				p->item = ITEM_SGR;
				p->text = s + 5;
				p->len = n - 4;
				*f = end + 1;
				return 0;
			}
			end++;
		}
		/* Unknown: shown as it is written. */
		p->text = *f;
		p->len = (size_t)(end - *f);
		*f = end;
		return 0;
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
	struct display_piece p;

	while (*f) {
		const char *at = f;

		if (display_parse_piece(&f, &p) < 0) {
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
	struct display_piece p;

	while (*f) {
		if (display_parse_piece(&f, &p) < 0)
			break;
		if (p.item == ITEM_LAST || p.item == ITEM_BUFPERCENT)
			return 1;
	}
	return 0;
}

void display_default_format(const struct display_opts *o, uint64_t size, char *fmt, size_t len)
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
