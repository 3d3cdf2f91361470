/* SPDX-License-Identifier: ISC */
/* json.h - a small JSON reader (RFC 8259) for what ncpv itself wrote, such as
 * bench's saved runs: a tree of values, bounded depth, no I/O. */
#ifndef NCPV_JSON_H
#define NCPV_JSON_H

#include <stddef.h>

enum json_type { JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

/* Objects keep their members in order: keys[i] names items[i]. */
struct json {
	enum json_type type;
	double number;		/* JSON_NUMBER */
	char *string;		/* JSON_STRING: UTF-8, NUL-terminated (a \u0000 ends it early) */
	struct json *items;	/* JSON_ARRAY, JSON_OBJECT: n values */
	char **keys;		/* JSON_OBJECT: n keys */
	size_t n;
};

#define JSON_MAX_DEPTH 64

/* Parse len bytes of text into *out (free with json_free). Returns 0, or -1
 * with "offset N: what was wrong" in err (and errno EINVAL, or ENOMEM). */
int json_parse(const char *text, size_t len, struct json **out, char *err, size_t errlen);

/* The member key of an object, or NULL (also when v is not an object). */
const struct json *json_get(const struct json *v, const char *key);

/* The number or string of a member, or def when it is missing or another type. */
double json_number(const struct json *v, const char *key, double def);
const char *json_string(const struct json *v, const char *key, const char *def);

void json_free(struct json *v);

#endif
