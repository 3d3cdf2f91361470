/* SPDX-License-Identifier: ISC */
/* json.h - a JSON writer into memory: objects, arrays, escaped strings and numbers, commas placed
 * for the caller. No I/O: the caller prints json_text() where it wants. */
#ifndef NCPV_JSON_H
#define NCPV_JSON_H

#include <stddef.h>

#define JSON_DEPTH 16

struct json {
	char *buf;    /* the text so far, always NUL-terminated (once cap > 0) */
	size_t len, cap;
	int growable; /* buf is ours (json_init_grow): realloc'd as needed, json_free releases it */
	int failed;   /* a fixed buffer was too small, memory ran out, or nesting went past JSON_DEPTH */
	int depth;
	unsigned char has_item[JSON_DEPTH + 1]; /* per level: a value was written, the next needs a comma */
	char closer[JSON_DEPTH];		/* per open level: '}' or ']' */
};

/* Write into the caller's buffer of cap bytes (borrowed; the text stays there). */
void json_init(struct json *j, char *buf, size_t cap);
/* Write into memory json grows itself; release it with json_free. */
void json_init_grow(struct json *j);
void json_free(struct json *j);

/* Each value takes a key (inside an object) or NULL (inside an array, or at the top). */
void json_object(struct json *j, const char *key);
void json_array(struct json *j, const char *key);
void json_end(struct json *j); /* closes the innermost object or array */
void json_string(struct json *j, const char *key, const char *s); /* NULL writes "" */
void json_uint(struct json *j, const char *key, unsigned long long v);
void json_int(struct json *j, const char *key, long long v);
void json_bool(struct json *j, const char *key, int v);
void json_null(struct json *j, const char *key); /* a value not measured */
/* A number with `decimals` digits after the point ("%.*f"), or `digits` significant ones ("%.*g").
 * JSON has no NaN or infinity: those are written as 0. */
void json_fixed(struct json *j, const char *key, double v, int decimals);
void json_general(struct json *j, const char *key, double v, int digits);
/* Text written as it is (a newline to end a JSON line, say). */
void json_raw(struct json *j, const char *text);

/* 0 when the text is complete (every value fitted), -1 otherwise. */
int json_status(const struct json *j);
const char *json_text(const struct json *j);

#endif
