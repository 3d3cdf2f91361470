/* SPDX-License-Identifier: ISC */
/* jsonread.c - a small JSON reader (see jsonread.h): recursive descent over the
 * text with a depth bound, every allocation checked. */
#include "jsonread.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct reader {
	const char *s;
	size_t len, pos;
	char *err;
	size_t errlen;
};

static int fail(struct reader *r, int err, const char *what)
{
	if (r->err[0] == '\0')
		snprintf(r->err, r->errlen, "offset %zu: %s", r->pos, what);
	errno = err;
	return -1;
}

static void skip_space(struct reader *r)
{
	while (r->pos < r->len && strchr(" \t\r\n", r->s[r->pos]) != NULL && r->s[r->pos] != '\0')
		r->pos++;
}

static int literal(struct reader *r, const char *word)
{
	size_t n = strlen(word);

	if (r->len - r->pos < n || memcmp(r->s + r->pos, word, n) != 0)
		return fail(r, EINVAL, "expected a value");
	r->pos += n;
	return 0;
}

static int hex4(struct reader *r, unsigned *out)
{
	*out = 0;
	for (int i = 0; i < 4; i++, r->pos++) {
		char c = r->pos < r->len ? r->s[r->pos] : '\0';

		*out <<= 4;
		if (c >= '0' && c <= '9')
			*out |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*out |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*out |= (unsigned)(c - 'A' + 10);
		else
			return fail(r, EINVAL, "bad \\u escape");
	}
	return 0;
}

/* A string at r->pos (its opening quote), decoded into a new buffer. */
static int string(struct reader *r, char **out)
{
	/* Decoded UTF-8 is never longer than the escaped text. */
	char *buf = NULL;
	size_t n = 0, start = ++r->pos;

	while (r->pos < r->len && r->s[r->pos] != '"')
		r->pos += r->s[r->pos] == '\\' ? 2 : 1;
	if (r->pos >= r->len)
		return fail(r, EINVAL, "unterminated string");
	if ((buf = malloc(r->pos - start + 1)) == NULL)
		return fail(r, ENOMEM, "out of memory");
	for (r->pos = start; r->s[r->pos] != '"';) {
		unsigned char c = (unsigned char)r->s[r->pos++];
		unsigned u, lo;

		if (c < 0x20) {
			free(buf);
			return fail(r, EINVAL, "control character in a string");
		}
		if (c != '\\') {
			buf[n++] = (char)c;
			continue;
		}
		c = (unsigned char)r->s[r->pos++];
		switch (c) {
		case '"': case '\\': case '/': buf[n++] = (char)c; break;
		case 'b': buf[n++] = '\b'; break;
		case 'f': buf[n++] = '\f'; break;
		case 'n': buf[n++] = '\n'; break;
		case 'r': buf[n++] = '\r'; break;
		case 't': buf[n++] = '\t'; break;
		case 'u':
			if (hex4(r, &u) < 0) {
				free(buf);
				return -1;
			}
			/* A surrogate pair is one code point; a lone half becomes U+FFFD. */
			if (u >= 0xd800 && u < 0xdc00 && r->len - r->pos >= 6 && r->s[r->pos] == '\\' &&
			    r->s[r->pos + 1] == 'u') {
				r->pos += 2;
				if (hex4(r, &lo) < 0) {
					free(buf);
					return -1;
				}
				u = lo >= 0xdc00 && lo < 0xe000 ? 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00) : 0xfffd;
			} else if (u >= 0xd800 && u < 0xe000) {
				u = 0xfffd;
			}
			if (u < 0x80) {
				buf[n++] = (char)u;
			} else if (u < 0x800) {
				buf[n++] = (char)(0xc0 | u >> 6);
				buf[n++] = (char)(0x80 | (u & 0x3f));
			} else if (u < 0x10000) {
				buf[n++] = (char)(0xe0 | u >> 12);
				buf[n++] = (char)(0x80 | (u >> 6 & 0x3f));
				buf[n++] = (char)(0x80 | (u & 0x3f));
			} else {
				buf[n++] = (char)(0xf0 | u >> 18);
				buf[n++] = (char)(0x80 | (u >> 12 & 0x3f));
				buf[n++] = (char)(0x80 | (u >> 6 & 0x3f));
				buf[n++] = (char)(0x80 | (u & 0x3f));
			}
			break;
		default:
			free(buf);
			return fail(r, EINVAL, "bad escape in a string");
		}
	}
	r->pos++;
	buf[n] = '\0';
	*out = buf;
	return 0;
}

static int number(struct reader *r, double *out)
{
	char tmp[64], *end;
	size_t n = 0;

	while (r->pos + n < r->len && n + 1 < sizeof(tmp) && strchr("+-0123456789.eE", r->s[r->pos + n]) != NULL &&
	       r->s[r->pos + n] != '\0') {
		tmp[n] = r->s[r->pos + n];
		n++;
	}
	tmp[n] = '\0';
	if (n == 0 || (tmp[0] != '-' && (tmp[0] < '0' || tmp[0] > '9')))
		return fail(r, EINVAL, "expected a value");
	*out = strtod(tmp, &end);
	if ((size_t)(end - tmp) != n)
		return fail(r, EINVAL, "bad number");
	r->pos += n;
	return 0;
}

static int value(struct reader *r, struct jvalue *v, int depth);

/* Append one (zeroed) item to an array or object; returns it or NULL. */
static struct jvalue *grow(struct jvalue *v, size_t *cap)
{
	if (v->n == *cap) {
		size_t c = *cap ? *cap * 2 : 4;
		struct jvalue *items = realloc(v->items, c * sizeof(*items));

		if (items == NULL)
			return NULL;
		v->items = items;
		if (v->type == JV_OBJECT) {
			char **keys = realloc(v->keys, c * sizeof(*keys));

			if (keys == NULL)
				return NULL;
			v->keys = keys;
		}
		*cap = c;
	}
	memset(&v->items[v->n], 0, sizeof(v->items[0]));
	if (v->type == JV_OBJECT)
		v->keys[v->n] = NULL;
	return &v->items[v->n++];
}

static int container(struct reader *r, struct jvalue *v, int depth)
{
	char close = v->type == JV_ARRAY ? ']' : '}';
	size_t cap = 0;

	r->pos++;
	skip_space(r);
	if (r->pos < r->len && r->s[r->pos] == close) {
		r->pos++;
		return 0;
	}
	for (;;) {
		struct jvalue *item = grow(v, &cap);
		char *key = NULL;

		if (item == NULL)
			return fail(r, ENOMEM, "out of memory");
		skip_space(r);
		if (v->type == JV_OBJECT) {
			if (r->pos >= r->len || r->s[r->pos] != '"' || string(r, &key) < 0)
				return fail(r, EINVAL, "expected a key");
			v->keys[v->n - 1] = key;
			skip_space(r);
			if (r->pos >= r->len || r->s[r->pos] != ':')
				return fail(r, EINVAL, "expected ':'");
			r->pos++;
		}
		if (value(r, item, depth + 1) < 0)
			return -1;
		skip_space(r);
		if (r->pos < r->len && r->s[r->pos] == ',') {
			r->pos++;
			continue;
		}
		if (r->pos < r->len && r->s[r->pos] == close) {
			r->pos++;
			return 0;
		}
		return fail(r, EINVAL, v->type == JV_ARRAY ? "expected ',' or ']'" : "expected ',' or '}'");
	}
}

static int value(struct reader *r, struct jvalue *v, int depth)
{
	if (depth > JV_MAX_DEPTH)
		return fail(r, EINVAL, "nested too deep");
	skip_space(r);
	if (r->pos >= r->len)
		return fail(r, EINVAL, "expected a value");
	switch (r->s[r->pos]) {
	case '{':
		v->type = JV_OBJECT;
		return container(r, v, depth);
	case '[':
		v->type = JV_ARRAY;
		return container(r, v, depth);
	case '"':
		v->type = JV_STRING;
		return string(r, &v->string);
	case 't':
		v->type = JV_TRUE;
		return literal(r, "true");
	case 'f':
		v->type = JV_FALSE;
		return literal(r, "false");
	case 'n':
		v->type = JV_NULL;
		return literal(r, "null");
	default:
		v->type = JV_NUMBER;
		return number(r, &v->number);
	}
}

int jv_parse(const char *text, size_t len, struct jvalue **out, char *err, size_t errlen)
{
	struct reader r = { text, len, 0, err, errlen };
	struct jvalue *v = calloc(1, sizeof(*v));

	*out = NULL;
	if (errlen > 0)
		err[0] = '\0';
	if (v == NULL)
		return fail(&r, ENOMEM, "out of memory");
	if (value(&r, v, 0) < 0) {
		jv_free(v);
		return -1;
	}
	skip_space(&r);
	if (r.pos != len) {
		jv_free(v);
		return fail(&r, EINVAL, "text after the value");
	}
	*out = v;
	return 0;
}

const struct jvalue *jv_get(const struct jvalue *v, const char *key)
{
	if (v == NULL || v->type != JV_OBJECT)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (v->keys[i] != NULL && strcmp(v->keys[i], key) == 0)
			return &v->items[i];
	return NULL;
}

double jv_number(const struct jvalue *v, const char *key, double def)
{
	const struct jvalue *m = jv_get(v, key);

	return m != NULL && m->type == JV_NUMBER ? m->number : def;
}

const char *jv_string(const struct jvalue *v, const char *key, const char *def)
{
	const struct jvalue *m = jv_get(v, key);

	return m != NULL && m->type == JV_STRING ? m->string : def;
}

static void free_inside(struct jvalue *v)
{
	for (size_t i = 0; i < v->n; i++) {
		free_inside(&v->items[i]);
		if (v->type == JV_OBJECT)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->string);
}

void jv_free(struct jvalue *v)
{
	if (v == NULL)
		return;
	free_inside(v);
	free(v);
}
