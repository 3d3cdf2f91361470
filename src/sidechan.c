/* SPDX-License-Identifier: ISC */
/* sidechan.c - the side channel's hello, answer and report lines: parse and write (pure). */
#include "sidechan.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The line in buf: its length without the newline in *n, or SIDE_PARTIAL / SIDE_MALFORMED. */
static int line_of(const char *buf, size_t len, size_t *n)
{
	size_t lim = len < SIDE_LINE_MAX ? len : SIDE_LINE_MAX;
	const char *nl = memchr(buf, '\n', lim);

	if (nl == NULL)
		return len < SIDE_LINE_MAX ? SIDE_PARTIAL : SIDE_MALFORMED;
	*n = (size_t)(nl - buf);
	/* Words are one space apart: a space at the end (an empty last word) is not ours. */
	return *n > 0 && buf[*n - 1] == ' ' ? SIDE_MALFORMED : 0;
}

/* A field of [p, end) up to the next space: its start and length; p moves past it and one
 * space. 0 for none left. */
static size_t word(const char **p, const char *end, const char **w)
{
	const char *q = *p;

	while (q < end && *q != ' ')
		q++;
	*w = *p;
	size_t n = (size_t)(q - *p);
	*p = q < end ? q + 1 : q;
	return n;
}

/* A decimal number of 1..20 digits from w[0..n) into *v, at most max. 0, or -1. */
static int number(const char *w, size_t n, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;

	if (n == 0 || n > 20)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(w[i] - '0');

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	if (x > max)
		return -1;
	*v = x;
	return 0;
}

#define KEY_CHARS "abcdefghijklmnopqrstuvwxyz0123456789_"

/* w[0..n) is made of chars only. */
static int plain_word(const char *w, size_t n, const char *chars)
{
	for (size_t i = 0; i < n; i++)
		if (w[i] == '\0' || strchr(chars, w[i]) == NULL)
			return 0;
	return 1;
}

/* w[0..n) is printable ASCII without a space. */
static int printable(const char *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (w[i] < 0x21 || w[i] > 0x7e)
			return 0;
	return 1;
}

static int is(const char *w, size_t n, const char *lit)
{
	return n == strlen(lit) && memcmp(w, lit, n) == 0;
}

int side_check_token(const char *s)
{
	size_t n = strlen(s);

	return n == SIDE_TOKEN_LEN && strspn(s, "0123456789abcdef") == n ? 0 : -1;
}

static int token_of(const char *w, size_t n, char out[SIDE_TOKEN_LEN + 1])
{
	if (n != SIDE_TOKEN_LEN)
		return -1;
	memcpy(out, w, n);
	out[n] = '\0';
	return side_check_token(out);
}

int side_maybe_hello(const void *buf, size_t len)
{
	size_t n = len < SIDE_MAGIC_LEN ? len : SIDE_MAGIC_LEN;

	return memcmp(buf, SIDE_MAGIC, n) == 0;
}

/* The magic and the version at the start of a hello or an answer: p past them, or -1. */
static int head(const char *buf, size_t n, const char **p, unsigned *version)
{
	const char *w, *end = buf + n;
	uint64_t v;
	size_t wn;

	if (n < SIDE_MAGIC_LEN || memcmp(buf, SIDE_MAGIC, SIDE_MAGIC_LEN) != 0)
		return -1;
	*p = buf + SIDE_MAGIC_LEN;
	wn = word(p, end, &w);
	if (number(w, wn, 65535, &v) < 0 || v == 0)
		return -1;
	*version = (unsigned)v;
	return 0;
}

/* The comma list w[0..n) names word: 1, 0, or -1 for an empty item (",size", "size,,x", ",,,"),
 * which no client writes: a list with one is not a hello, as an empty ask= is not. */
static int asks_for(const char *w, size_t n, const char *word_)
{
	const char *q = w, *end = w + n;
	int found = 0;

	for (;;) {
		const char *c = memchr(q, ',', (size_t)(end - q));
		size_t len = (size_t)((c ? c : end) - q);

		if (len == 0)
			return -1;
		found |= is(q, len, word_);
		if (c == NULL)
			return found;
		q = c + 1;
	}
}

int side_parse_hello(const void *vbuf, size_t len, struct side_hello *h)
{
	const char *buf = vbuf, *p, *w, *end;
	size_t n, wn;
	uint64_t v;
	int have_interval = 0, have_streams = 0, have_stream = 0, have_rate = 0, have_ask = 0;

	if (!side_maybe_hello(buf, len))
		return SIDE_MALFORMED;
	int rc = line_of(buf, len, &n);
	if (rc < 0)
		return rc;
	memset(h, 0, sizeof(*h));
	end = buf + n;
	if (head(buf, n, &p, &h->version) < 0)
		return SIDE_MALFORMED;
	wn = word(&p, end, &w);
	if (is(w, wn, "ctl"))
		h->role = SIDE_CTL;
	else if (is(w, wn, "down"))
		h->role = SIDE_DOWN;
	else if (is(w, wn, "up"))
		h->role = SIDE_UP;
	else
		return SIDE_MALFORMED;
	wn = word(&p, end, &w);
	if (token_of(w, wn, h->token) < 0)
		return SIDE_MALFORMED;
	h->streams = 1;
	/* key=value pairs: known keys once each, unknown ones skipped (a newer client's). */
	for (int pairs = 0; p < end; pairs++) {
		const char *eq;

		if (pairs >= 8)
			return SIDE_MALFORMED;
		wn = word(&p, end, &w);
		eq = memchr(w, '=', wn);
		if (wn == 0 || eq == NULL || eq == w)
			return SIDE_MALFORMED;
		size_t kn = (size_t)(eq - w), vn = wn - kn - 1;
		/* A key is a word of lowercase letters, digits and '_', a value printable ASCII: the
		 * random bytes of an upload that happens to begin like a hello are not a hello. */
		if (!plain_word(w, kn, KEY_CHARS) || vn == 0 || !printable(eq + 1, vn))
			return SIDE_MALFORMED;
		if (is(w, kn, "interval")) {
			if (have_interval++ || number(eq + 1, vn, 60000, &v) < 0 || (v != 0 && v < 10))
				return SIDE_MALFORMED;
			h->interval_ms = (unsigned)v;
		} else if (is(w, kn, "streams")) {
			if (have_streams++ || number(eq + 1, vn, SIDE_MAX_STREAMS, &v) < 0 || v == 0)
				return SIDE_MALFORMED;
			h->streams = (unsigned)v;
		} else if (is(w, kn, "stream")) {
			if (have_stream++ || number(eq + 1, vn, SIDE_MAX_STREAMS - 1, &v) < 0)
				return SIDE_MALFORMED;
			h->stream = (unsigned)v;
		} else if (is(w, kn, "rate")) {
			if (have_rate++ || number(eq + 1, vn, SIDE_RATE_MAX, &v) < 0 || v < SIDE_RATE_MIN)
				return SIDE_MALFORMED;
			h->rate_bps = v;
		} else if (is(w, kn, "ask")) {
			if (have_ask++ || !plain_word(eq + 1, vn, KEY_CHARS ",") ||
			    (h->ask_size = asks_for(eq + 1, vn, "size")) < 0)
				return SIDE_MALFORMED;
		}
	}
	return (int)n + 1;
}

int side_parse_answer(const void *vbuf, size_t len, struct side_answer *a)
{
	const char *buf = vbuf, *p, *w, *end;
	size_t n, wn;

	if (!side_maybe_hello(buf, len))
		return SIDE_MALFORMED;
	int rc = line_of(buf, len, &n);
	if (rc < 0)
		return rc;
	memset(a, 0, sizeof(*a));
	end = buf + n;
	if (head(buf, n, &p, &a->version) < 0)
		return SIDE_MALFORMED;
	wn = word(&p, end, &w);
	if (is(w, wn, "ok"))
		a->ok = 1;
	else if (!is(w, wn, "no"))
		return SIDE_MALFORMED;
	wn = word(&p, end, &w);
	if (token_of(w, wn, a->token) < 0)
		return SIDE_MALFORMED;
	if (a->ok) {
		/* ok's pairs: rate= (what the hello asked for, honoured) and size= (asked for with
		 * ask=size), each once, either order; nothing else yet. */
		while (p < end) {
			uint64_t v;
			const char *eq;
			size_t kn;

			wn = word(&p, end, &w);
			eq = memchr(w, '=', wn);
			if (eq == NULL)
				return SIDE_MALFORMED;
			kn = (size_t)(eq - w);
			if (is(w, kn, "rate") && a->rate_bps == 0 &&
			    number(eq + 1, wn - kn - 1, SIDE_RATE_MAX, &v) == 0 && v > 0)
				a->rate_bps = v;
			else if (is(w, kn, "size") && !a->has_size && number(eq + 1, wn - kn - 1, UINT64_MAX, &v) == 0) {
				a->has_size = 1;
				a->size = v;
			} else
				return SIDE_MALFORMED;
		}
		return p == end ? (int)n + 1 : SIDE_MALFORMED;
	}
	wn = word(&p, end, &w);
	if (wn == 0 || wn >= sizeof(a->reason) || strspn(w, "abcdefghijklmnopqrstuvwxyz") < wn)
		return SIDE_MALFORMED;
	memcpy(a->reason, w, wn);
	return p == end ? (int)n + 1 : SIDE_MALFORMED;
}

int side_parse_report(const void *vbuf, size_t len, struct side_report *r)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "sent", offsetof(struct side_report, sent) },
		{ "received", offsetof(struct side_report, received) },
		{ "acked", offsetof(struct side_report, acked) },
		{ "retrans", offsetof(struct side_report, retrans) },
		{ "cwnd", offsetof(struct side_report, cwnd) },
		{ "rtt", offsetof(struct side_report, rtt_us) },
		{ "rttvar", offsetof(struct side_report, rttvar_us) },
		{ "pacing", offsetof(struct side_report, pacing) },
		{ "delivery", offsetof(struct side_report, delivery) },
	};
	const char *buf = vbuf, *p, *w, *end;
	size_t n, wn;
	uint64_t v;
	int rc = line_of(buf, len, &n);

	if (rc < 0)
		return rc;
	memset(r, 0, sizeof(*r));
	p = buf;
	end = buf + n;
	wn = word(&p, end, &w);
	if (is(w, wn, "end"))
		r->final = 1;
	else if (!is(w, wn, "iv"))
		return SIDE_MALFORMED;
	wn = word(&p, end, &w);
	if (number(w, wn, SIDE_MAX_STREAMS - 1, &v) < 0)
		return SIDE_MALFORMED;
	r->stream = (unsigned)v;
	wn = word(&p, end, &w);
	if (number(w, wn, UINT64_MAX, &r->ms) < 0)
		return SIDE_MALFORMED;
	while (p < end) {
		const char *eq;

		wn = word(&p, end, &w);
		eq = memchr(w, '=', wn);
		if (wn == 0 || eq == NULL || eq == w || number(eq + 1, wn - (size_t)(eq - w) - 1, UINT64_MAX, &v) < 0)
			return SIDE_MALFORMED;
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (is(w, (size_t)(eq - w), keys[i].key))
				memcpy((char *)r + keys[i].off, &v, sizeof(v));
	}
	return (int)n + 1;
}

/* snprintf's result as a writer's: the length, or -1 when cut short. */
static int fitted(int n, size_t buflen)
{
	return n < 0 || (size_t)n >= buflen ? -1 : n;
}

int side_format_hello(char *buf, size_t buflen, const struct side_hello *h)
{
	static const char *const roles[] = { "ctl", "down", "up" };
	int n;

	if (buflen > 0)
		buf[0] = '\0';
	if (buflen < SIDE_MAGIC_LEN + 1 || side_check_token(h->token) < 0 || (unsigned)h->role > SIDE_UP ||
	    h->version == 0 || h->version > 65535 || h->streams == 0 || h->streams > SIDE_MAX_STREAMS ||
	    h->stream >= SIDE_MAX_STREAMS || h->interval_ms > 60000 || (h->interval_ms && h->interval_ms < 10) ||
	    h->rate_bps > SIDE_RATE_MAX || (h->rate_bps && h->rate_bps < SIDE_RATE_MIN) ||
	    ((h->rate_bps || h->ask_size) && h->role != SIDE_CTL))
		return -1;
	memcpy(buf, SIDE_MAGIC, SIDE_MAGIC_LEN);
	if (h->role == SIDE_CTL) {
		char rate[32] = "";

		if (h->rate_bps > 0)
			snprintf(rate, sizeof(rate), " rate=%llu", (unsigned long long)h->rate_bps);
		n = snprintf(buf + SIDE_MAGIC_LEN, buflen - SIDE_MAGIC_LEN, "%u ctl %s interval=%u streams=%u%s%s\n",
			     h->version, h->token, h->interval_ms, h->streams, rate, h->ask_size ? " ask=size" : "");
	} else
		n = snprintf(buf + SIDE_MAGIC_LEN, buflen - SIDE_MAGIC_LEN, "%u %s %s stream=%u\n", h->version,
			     roles[h->role], h->token, h->stream);
	n = fitted(n, buflen - SIDE_MAGIC_LEN);
	return n < 0 || n + SIDE_MAGIC_LEN > SIDE_LINE_MAX ? -1 : n + SIDE_MAGIC_LEN;
}

int side_format_answer(char *buf, size_t buflen, const struct side_answer *a)
{
	int n;

	if (buflen > 0)
		buf[0] = '\0';
	if (buflen < SIDE_MAGIC_LEN + 1 || side_check_token(a->token) < 0 || a->version == 0 ||
	    a->version > 65535 || (!a->ok && (a->reason[0] == '\0' || strspn(a->reason, "abcdefghijklmnopqrstuvwxyz") != strlen(a->reason))) ||
	    a->rate_bps > SIDE_RATE_MAX || ((a->rate_bps || a->has_size) && !a->ok))
		return -1;
	memcpy(buf, SIDE_MAGIC, SIDE_MAGIC_LEN);
	if (a->ok) {
		char rate[32] = "", size[32] = "";

		if (a->rate_bps > 0)
			snprintf(rate, sizeof(rate), " rate=%llu", (unsigned long long)a->rate_bps);
		if (a->has_size)
			snprintf(size, sizeof(size), " size=%llu", (unsigned long long)a->size);
		n = snprintf(buf + SIDE_MAGIC_LEN, buflen - SIDE_MAGIC_LEN, "%u ok %s%s%s\n", a->version, a->token,
			     rate, size);
	} else
		n = snprintf(buf + SIDE_MAGIC_LEN, buflen - SIDE_MAGIC_LEN, "%u %s %s%s%s\n", a->version,
			     a->ok ? "ok" : "no", a->token, a->ok ? "" : " ", a->ok ? "" : a->reason);
	n = fitted(n, buflen - SIDE_MAGIC_LEN);
	return n < 0 ? -1 : n + SIDE_MAGIC_LEN;
}

int side_format_report(char *buf, size_t buflen, const struct side_report *r)
{
	if (r->stream >= SIDE_MAX_STREAMS)
		return -1;
	return fitted(snprintf(buf, buflen,
			       "%s %u %llu sent=%llu received=%llu acked=%llu retrans=%llu cwnd=%llu rtt=%llu "
			       "rttvar=%llu pacing=%llu delivery=%llu\n",
			       r->final ? "end" : "iv", r->stream, (unsigned long long)r->ms,
			       (unsigned long long)r->sent, (unsigned long long)r->received,
			       (unsigned long long)r->acked, (unsigned long long)r->retrans,
			       (unsigned long long)r->cwnd, (unsigned long long)r->rtt_us,
			       (unsigned long long)r->rttvar_us, (unsigned long long)r->pacing,
			       (unsigned long long)r->delivery),
		      buflen < SIDE_LINE_MAX ? buflen : SIDE_LINE_MAX);
}
