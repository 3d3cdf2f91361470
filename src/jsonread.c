/* SPDX-License-Identifier: ISC */
/* jsonread.c - a small JSON reader (see jsonread.h): recursive descent over the
 * text with a depth bound, every value of a document in one arena. */
#include "jsonread.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The arena: chunks of values, keys and strings, freed together. A chunk
 * grows to 1 MiB; a larger request (a long array) gets one of its own. */
struct chunk {
	struct chunk *next;
	size_t used, cap;
	max_align_t data[];
};

#define CHUNK_FIRST 4096
#define CHUNK_MAX (1u << 20)

/* What jv_parse hands out is &doc->root; jv_free finds the arena from it. */
struct doc {
	struct chunk *chunks;
	struct jvalue root;
};

struct reader {
	const char *s;
	size_t len, pos;
	const char *const *keep;	/* NULL: keep every member */
	struct doc *doc;
	size_t key_at, key_len;		/* the member being read (raw text), for messages */
	char *err;
	size_t errlen;
};

static int fail(struct reader *r, int err, const char *what)
{
	if (r->errlen > 0 && r->err[0] == '\0')
		snprintf(r->err, r->errlen, "offset %zu: %s", r->pos, what);
	errno = err;
	return -1;
}

/* size bytes at an address that is a multiple of align (a power of two up
 * to sizeof(max_align_t)): values at 8, strings at 1. */
static void *arena_alloc_aligned(struct reader *r, size_t size, size_t align)
{
	struct chunk *c = r->doc->chunks, *fresh;
	size_t cap, at;

	if (c != NULL) {
		at = (c->used + align - 1) & ~(align - 1);
		if (at <= c->cap && c->cap - at >= size) {
			c->used = at + size;
			return (char *)c->data + at;
		}
	}
	cap = c == NULL ? CHUNK_FIRST : c->cap < CHUNK_MAX ? c->cap * 2 : CHUNK_MAX;
	if (size > cap / 4)
		cap = size;
	if (size > SIZE_MAX - sizeof(*fresh) || (fresh = malloc(sizeof(*fresh) + cap)) == NULL)
		return NULL;
	fresh->cap = cap;
	fresh->used = size;
	/* A chunk of its own goes behind the current one, whose room stays in use. */
	if (cap == size && c != NULL) {
		fresh->next = c->next;
		c->next = fresh;
	} else {
		fresh->next = c;
		r->doc->chunks = fresh;
	}
	return fresh->data;
}

static void *arena_alloc(struct reader *r, size_t size)
{
	return arena_alloc_aligned(r, size, sizeof(double));
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void skip_space(struct reader *r)
{
	while (r->pos < r->len && is_space(r->s[r->pos]))
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

/* Where the string at r->pos (its opening quote) closes, or r->len. */
static size_t string_end(const struct reader *r)
{
	size_t i = r->pos + 1;

	while (i < r->len && r->s[i] != '"')
		i += r->s[i] == '\\' ? 2 : 1;
	return i < r->len ? i : r->len;
}

/* The string at r->pos (its opening quote): decoded into the arena when out
 * is not NULL, else only checked. */
static int string(struct reader *r, char **out)
{
	size_t n = 0, end = string_end(r);
	char *buf = NULL;

	if (end >= r->len) {
		r->pos = r->len;
		return fail(r, EINVAL, "unterminated string");
	}
	/* Decoded UTF-8 is never longer than the escaped text. */
	if (out != NULL && (buf = arena_alloc_aligned(r, end - r->pos, 1)) == NULL)
		return fail(r, ENOMEM, "out of memory");
#define PUT(ch) do { if (buf != NULL) buf[n] = (char)(ch); n++; } while (0)
	for (r->pos++; r->s[r->pos] != '"';) {
		unsigned char c = (unsigned char)r->s[r->pos++];
		unsigned u, lo;

		if (c < 0x20)
			return fail(r, EINVAL, "control character in a string");
		if (c != '\\') {
			PUT(c);
			continue;
		}
		c = (unsigned char)r->s[r->pos++];
		switch (c) {
		case '"': case '\\': case '/': PUT(c); break;
		case 'b': PUT('\b'); break;
		case 'f': PUT('\f'); break;
		case 'n': PUT('\n'); break;
		case 'r': PUT('\r'); break;
		case 't': PUT('\t'); break;
		case 'u':
			if (hex4(r, &u) < 0)
				return -1;
			/* A surrogate pair is one code point; a lone half becomes U+FFFD. */
			if (u >= 0xd800 && u < 0xdc00 && r->len - r->pos >= 6 && r->s[r->pos] == '\\' &&
			    r->s[r->pos + 1] == 'u') {
				r->pos += 2;
				if (hex4(r, &lo) < 0)
					return -1;
				u = lo >= 0xdc00 && lo < 0xe000 ? 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00) : 0xfffd;
			} else if ((u >= 0xd800 && u < 0xe000) || u == 0) {
				/* U+0000 too: a NUL would end the C string the caller gets
				 * (a bench run named "a\u0000b" showed as "a"). */
				u = 0xfffd;
			}
			if (u < 0x80) {
				PUT(u);
			} else if (u < 0x800) {
				PUT(0xc0 | u >> 6);
				PUT(0x80 | (u & 0x3f));
			} else if (u < 0x10000) {
				PUT(0xe0 | u >> 12);
				PUT(0x80 | (u >> 6 & 0x3f));
				PUT(0x80 | (u & 0x3f));
			} else {
				PUT(0xf0 | u >> 18);
				PUT(0x80 | (u >> 12 & 0x3f));
				PUT(0x80 | (u >> 6 & 0x3f));
				PUT(0x80 | (u & 0x3f));
			}
			break;
		default:
			return fail(r, EINVAL, "bad escape in a string");
		}
	}
#undef PUT
	r->pos++;
	if (buf != NULL) {
		buf[n] = '\0';
		*out = buf;
	}
	return 0;
}

static int is_digit(const struct reader *r, size_t i)
{
	return i < r->len && r->s[i] >= '0' && r->s[i] <= '9';
}

/* Digits from *i on; how many. */
static size_t digits(const struct reader *r, size_t *i)
{
	size_t start = *i;

	while (is_digit(r, *i))
		(*i)++;
	return *i - start;
}

/* An RFC 8259 number of any length: -? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)? */
static int number(struct reader *r, double *out)
{
	size_t i = r->pos, n;
	char small[64], what[128], *tmp = small, *end;
	double d;

	if (i < r->len && r->s[i] == '-')
		i++;
	if (!is_digit(r, i))
		return fail(r, EINVAL, i == r->pos ? "expected a value" : "bad number");
	if (r->s[i] == '0' && is_digit(r, i + 1))
		return fail(r, EINVAL, "bad number (a leading zero)");
	digits(r, &i);
	if (i < r->len && r->s[i] == '.' && (i++, digits(r, &i) == 0))
		return fail(r, EINVAL, "bad number");
	if (i < r->len && (r->s[i] == 'e' || r->s[i] == 'E')) {
		i++;
		if (i < r->len && (r->s[i] == '+' || r->s[i] == '-'))
			i++;
		if (digits(r, &i) == 0)
			return fail(r, EINVAL, "bad number");
	}
	n = i - r->pos;
	if (n >= sizeof(small) && (n == SIZE_MAX || (tmp = malloc(n + 1)) == NULL))
		return fail(r, ENOMEM, "out of memory");
	memcpy(tmp, r->s + r->pos, n);
	tmp[n] = '\0';
	errno = 0;
	d = strtod(tmp, &end);
	/* Too small to tell from 0 is 0 (or the nearest subnormal); too large has no value. */
	if (errno == ERANGE && isinf(d)) {
		if (tmp != small)
			free(tmp);
		/* Named by its member (as written: the caller shows it escaped). */
		snprintf(small, sizeof(small), "%.*s", (int)(r->key_len < 40 ? r->key_len : 40), r->s + r->key_at);
		snprintf(what, sizeof(what), "number out of range (beyond 1.8e308)%s%s%s", r->key_len ? " in \"" : "",
			 small, r->key_len ? "\"" : "");
		return fail(r, ERANGE, what);
	}
	if (tmp != small)
		free(tmp);
	if (out != NULL)
		*out = d;
	r->pos = i;
	return 0;
}

static int value(struct reader *r, struct jvalue *v, int depth);

/* The keep list's entry for a key of len bytes at key; "" when there is no
 * list (everything is kept), NULL when the key is not in it. */
static const char *listed(const char *const *keep, const char *key, size_t len)
{
	if (keep == NULL)
		return "";
	for (; *keep != NULL; keep++)
		if (strlen(*keep) == len && memcmp(*keep, key, len) == 0)
			return *keep;
	return NULL;
}

/* How many values the container at r->pos (its opening bracket) holds at its
 * own level that will be kept: an array's commas and one (0 when empty), an
 * object's listed keys (and any written with escapes, decoded later).
 * Malformed text may count wrong, which parsing it then finds (and
 * container() checks). */
static size_t count_items(const struct reader *r, enum jv_type type)
{
	size_t depth = 0, commas = 0, keys = 0, i;
	int any = 0, expect_key = 1;

	for (i = r->pos + 1; i < r->len; i++) {
		char c = r->s[i];

		if (c == '"') {
			size_t at = i + 1;

			while (++i < r->len && r->s[i] != '"')
				i += r->s[i] == '\\';
			if (i > r->len)
				i = r->len;
			if (depth == 0 && expect_key &&
			    (memchr(r->s + at, '\\', i - at) != NULL || listed(r->keep, r->s + at, i - at) != NULL))
				keys++;
			expect_key = 0;
			any = 1;
		} else if (c == '[' || c == '{') {
			depth++;
			any = 1;
		} else if (c == ']' || c == '}') {
			if (depth-- == 0)
				break;
		} else if (c == ',' && depth == 0) {
			commas++;
			expect_key = 1;
		} else if (!is_space(c)) {
			any = 1;
		}
	}
	if (type == JV_OBJECT)
		return keys;
	return any || commas ? commas + 1 : 0;
}

/* An array or object into v (sized exactly, in the arena), or only checked
 * when v is NULL. */
static int container(struct reader *r, struct jvalue *v, enum jv_type type, int depth)
{
	char close = type == JV_ARRAY ? ']' : '}';
	size_t cap = 0, saved_at = r->key_at, saved_len = r->key_len;
	int overflow = 0;

	if (v != NULL) {
		v->type = type;
		v->n = 0;
		v->items = NULL;
		v->keys = NULL;
		cap = count_items(r, type);
		if (cap > UINT_MAX)
			return fail(r, EINVAL, "too many items");
		if (cap > 0 && ((v->items = arena_alloc(r, cap * sizeof(*v->items))) == NULL ||
				(type == JV_OBJECT && (v->keys = arena_alloc(r, cap * sizeof(*v->keys))) == NULL)))
			return fail(r, ENOMEM, "out of memory");
	}
	r->pos++;
	skip_space(r);
	if (r->pos < r->len && r->s[r->pos] == close) {
		r->pos++;
		return 0;
	}
	for (;;) {
		struct jvalue *item = v;
		char *decoded = NULL;
		const char *key = NULL;

		skip_space(r);
		if (type == JV_OBJECT) {
			size_t at = r->pos + 1, len;
			const char *entry = NULL;
			int escaped;

			if (r->pos >= r->len || r->s[r->pos] != '"')
				return fail(r, EINVAL, "expected a key");
			len = string_end(r) - at;
			/* A listed key is the list's own string; others are decoded
			 * into the arena only when they may be kept. */
			escaped = memchr(r->s + at, '\\', len) != NULL;
			if (v != NULL && !escaped)
				entry = listed(r->keep, r->s + at, len);
			if (string(r, v != NULL && (escaped || (entry != NULL && *entry == '\0')) ? &decoded : NULL) < 0)
				return -1;
			if (v != NULL && escaped)
				entry = listed(r->keep, decoded, strlen(decoded));
			if (entry == NULL)
				item = NULL;
			else
				key = *entry != '\0' ? entry : decoded;
			r->key_at = at;
			r->key_len = len;
			skip_space(r);
			if (r->pos >= r->len || r->s[r->pos] != ':')
				return fail(r, EINVAL, "expected ':'");
			r->pos++;
		}
		/* More items than the count found: the text is malformed inside this container
		 * (the count is exact otherwise). Checked on without keeping, so that the error is
		 * the one a reader that keeps none of it finds (jv_parse_keep's, fuzz_jsonread). */
		if (item != NULL && v->n == cap) {
			item = NULL;
			overflow = 1;
		}
		if (item != NULL)
			item = &v->items[v->n];
		if (value(r, item, depth + 1) < 0)
			return -1;
		if (item != NULL) {
			if (type == JV_OBJECT)
				v->keys[v->n] = key;
			v->n++;
		}
		skip_space(r);
		if (r->pos < r->len && r->s[r->pos] == ',') {
			r->pos++;
			continue;
		}
		if (r->pos < r->len && r->s[r->pos] == close) {
			if (overflow)
				return fail(r, EINVAL, type == JV_ARRAY ? "expected ']'" : "expected '}'");
			r->pos++;
			r->key_at = saved_at;
			r->key_len = saved_len;
			return 0;
		}
		return fail(r, EINVAL, type == JV_ARRAY ? "expected ',' or ']'" : "expected ',' or '}'");
	}
}

/* One value into v, or only checked when v is NULL. */
static int value(struct reader *r, struct jvalue *v, int depth)
{
	struct jvalue scratch;

	if (depth > JV_MAX_DEPTH)
		return fail(r, EINVAL, "nested too deep");
	skip_space(r);
	if (r->pos >= r->len)
		return fail(r, EINVAL, "expected a value");
	switch (r->s[r->pos]) {
	case '{':
		return container(r, v, JV_OBJECT, depth);
	case '[':
		return container(r, v, JV_ARRAY, depth);
	case '"':
		if (v != NULL)
			v->type = JV_STRING;
		return string(r, v != NULL ? &v->string : NULL);
	}
	if (v == NULL)
		v = &scratch;
	memset(v, 0, sizeof(*v));
	switch (r->s[r->pos]) {
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

int jv_parse_keep(const char *text, size_t len, const char *const *keep, struct jvalue **out, char *err,
		  size_t errlen)
{
	struct reader r = { .s = text, .len = len, .keep = keep, .err = err, .errlen = errlen };

	*out = NULL;
	if (errlen > 0)
		err[0] = '\0';
	if ((r.doc = calloc(1, sizeof(*r.doc))) == NULL)
		return fail(&r, ENOMEM, "out of memory");
	if (value(&r, &r.doc->root, 0) < 0) {
		jv_free(&r.doc->root);
		return -1;
	}
	skip_space(&r);
	if (r.pos != len) {
		jv_free(&r.doc->root);
		return fail(&r, EINVAL, "text after the value");
	}
	*out = &r.doc->root;
	return 0;
}

int jv_parse(const char *text, size_t len, struct jvalue **out, char *err, size_t errlen)
{
	return jv_parse_keep(text, len, NULL, out, err, errlen);
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

void jv_free(struct jvalue *v)
{
	struct doc *d;

	if (v == NULL)
		return;
	d = (struct doc *)(void *)((char *)v - offsetof(struct doc, root));
	while (d->chunks != NULL) {
		struct chunk *next = d->chunks->next;

		free(d->chunks);
		d->chunks = next;
	}
	free(d);
}
