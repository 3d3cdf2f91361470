/* SPDX-License-Identifier: ISC */
/* json.c - the JSON writer: string escaping (RFC 8259: quote, backslash and control characters)
 * and the commas between values, into a caller's buffer or one that grows. */
#include "json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void json_init(struct json *j, char *buf, size_t cap)
{
	memset(j, 0, sizeof(*j));
	j->buf = buf;
	j->cap = cap;
	if (cap > 0)
		buf[0] = '\0';
	else
		j->failed = 1;
}

void json_init_grow(struct json *j)
{
	memset(j, 0, sizeof(*j));
	j->growable = 1;
}

void json_free(struct json *j)
{
	if (j->growable)
		free(j->buf);
	j->buf = NULL;
	j->len = j->cap = 0;
}

/* Room for n more bytes and the NUL; 0, or -1 (and failed) when there is none. */
static int reserve(struct json *j, size_t n)
{
	size_t want;
	char *p;

	if (j->failed)
		return -1;
	if (j->len + n < j->cap)
		return 0;
	if (!j->growable) {
		j->failed = 1;
		return -1;
	}
	want = j->cap ? j->cap : 256;
	while (want <= j->len + n)
		want *= 2;
	if ((p = realloc(j->buf, want)) == NULL) {
		j->failed = 1;
		return -1;
	}
	j->buf = p;
	j->cap = want;
	return 0;
}

static void put(struct json *j, const char *s, size_t n)
{
	if (reserve(j, n) < 0)
		return;
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

static void putf(struct json *j, const char *fmt, ...)
{
	char tmp[512]; /* %.*f of the largest double with a few decimals */
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		j->failed = 1;
		return;
	}
	put(j, tmp, (size_t)n);
}

/* The escape of one byte: itself, a backslash pair, or \u00XX. Returns its length. */
static size_t escape_char(unsigned char c, char out[7])
{
	if (c == '"' || c == '\\') {
		out[0] = '\\';
		out[1] = (char)c;
		return 2;
	}
	if (c < 0x20)
		return (size_t)snprintf(out, 7, "\\u%04x", c);
	out[0] = (char)c;
	return 1;
}

static void put_escaped(struct json *j, const char *s)
{
	char e[7];

	for (; *s; s++)
		put(j, e, escape_char((unsigned char)*s, e));
}

/* The comma before a value (not the first in its object or array) and its key. Top-level
 * values follow each other without one: one per line, say. */
static void begin_value(struct json *j, const char *key)
{
	if (j->depth > 0 && j->has_item[j->depth])
		put(j, ",", 1);
	j->has_item[j->depth] = 1;
	if (key) {
		put(j, "\"", 1);
		put_escaped(j, key);
		put(j, "\":", 2);
	}
}

static void open_level(struct json *j, const char *key, const char *brackets)
{
	begin_value(j, key);
	if (j->depth >= JSON_DEPTH) {
		j->failed = 1;
		return;
	}
	put(j, brackets, 1);
	j->closer[j->depth] = brackets[1];
	j->has_item[++j->depth] = 0;
}

void json_object(struct json *j, const char *key)
{
	open_level(j, key, "{}");
}

void json_array(struct json *j, const char *key)
{
	open_level(j, key, "[]");
}

void json_end(struct json *j)
{
	if (j->depth == 0) {
		j->failed = 1;
		return;
	}
	j->depth--;
	put(j, &j->closer[j->depth], 1);
}

void json_string(struct json *j, const char *key, const char *s)
{
	begin_value(j, key);
	put(j, "\"", 1);
	put_escaped(j, s ? s : "");
	put(j, "\"", 1);
}

void json_uint(struct json *j, const char *key, unsigned long long v)
{
	begin_value(j, key);
	putf(j, "%llu", v);
}

void json_int(struct json *j, const char *key, long long v)
{
	begin_value(j, key);
	putf(j, "%lld", v);
}

void json_bool(struct json *j, const char *key, int v)
{
	begin_value(j, key);
	put(j, v ? "true" : "false", v ? 4 : 5);
}

void json_null(struct json *j, const char *key)
{
	begin_value(j, key);
	put(j, "null", 4);
}

void json_fixed(struct json *j, const char *key, double v, int decimals)
{
	begin_value(j, key);
	putf(j, "%.*f", decimals, isfinite(v) ? v : 0.0);
}

void json_general(struct json *j, const char *key, double v, int digits)
{
	begin_value(j, key);
	putf(j, "%.*g", digits, isfinite(v) ? v : 0.0);
}

void json_raw(struct json *j, const char *text)
{
	put(j, text, strlen(text));
}

int json_status(const struct json *j)
{
	return j->failed || j->depth != 0 ? -1 : 0;
}

const char *json_text(const struct json *j)
{
	return j->buf ? j->buf : "";
}
