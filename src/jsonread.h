/* SPDX-License-Identifier: ISC */
/* jsonread.h - a small JSON reader (RFC 8259) for what ncpv itself wrote, such as
 * bench's saved runs: a tree of values, bounded depth, no I/O. */
#ifndef NCPV_JSONREAD_H
#define NCPV_JSONREAD_H

#include <stddef.h>

enum jv_type { JV_NULL, JV_FALSE, JV_TRUE, JV_NUMBER, JV_STRING, JV_ARRAY, JV_OBJECT };

/* Objects keep their members in order: keys[i] names items[i]. */
struct jvalue {
	enum jv_type type;
	double number;		/* JV_NUMBER */
	char *string;		/* JV_STRING: UTF-8, NUL-terminated (a \u0000 ends it early) */
	struct jvalue *items;	/* JV_ARRAY, JV_OBJECT: n values */
	char **keys;		/* JV_OBJECT: n keys */
	size_t n;
};

#define JV_MAX_DEPTH 64

/* Parse len bytes of text into *out (free with json_free). Returns 0, or -1
 * with "offset N: what was wrong" in err (and errno EINVAL, or ENOMEM). */
int jv_parse(const char *text, size_t len, struct jvalue **out, char *err, size_t errlen);

/* The member key of an object, or NULL (also when v is not an object). */
const struct jvalue *jv_get(const struct jvalue *v, const char *key);

/* The number or string of a member, or def when it is missing or another type. */
double jv_number(const struct jvalue *v, const char *key, double def);
const char *jv_string(const struct jvalue *v, const char *key, const char *def);

void jv_free(struct jvalue *v);

#endif
