/* SPDX-License-Identifier: ISC */
/* jsonread.h - a small JSON reader (RFC 8259) for what ncpv itself wrote, such as
 * bench's saved runs: a tree of values, bounded depth, no I/O. */
#ifndef NCPV_JSONREAD_H
#define NCPV_JSONREAD_H

#include <stddef.h>

enum jv_type { JV_NULL, JV_FALSE, JV_TRUE, JV_NUMBER, JV_STRING, JV_ARRAY, JV_OBJECT };

/* Objects keep their members in order: keys[i] names items[i]. Every
 * value, string and key of a document lives in one arena that jv_free
 * releases: 24 bytes a value, arrays sized exactly, no per-value malloc.
 * A key that matched jv_parse_keep's list points to that list's string. */
struct jvalue {
	enum jv_type type;
	unsigned n;		/* JV_ARRAY, JV_OBJECT: how many items */
	union {
		double number;		/* JV_NUMBER: finite */
		char *string;		/* JV_STRING: UTF-8, NUL-terminated (a \u0000 ends it early) */
		struct jvalue *items;	/* JV_ARRAY, JV_OBJECT: n values */
	};
	const char **keys;	/* JV_OBJECT: n keys */
};

#define JV_MAX_DEPTH 64

/* Parse len bytes of text into *out (free with jv_free). Any RFC 8259 number
 * is read, however many digits; one beyond a double's range (such as 1e400)
 * is refused, naming its member. Returns 0, or -1 with "offset N: what was
 * wrong" in err (and errno EINVAL, or ENOMEM). The text is not kept. */
int jv_parse(const char *text, size_t len, struct jvalue **out, char *err, size_t errlen);

/* As jv_parse, but an object member whose key is not in keep (a NULL-ended
 * list) is checked and left out, so a reader of a few fields holds only
 * those in memory. The same texts are accepted and refused as by jv_parse. */
int jv_parse_keep(const char *text, size_t len, const char *const *keep, struct jvalue **out, char *err,
		  size_t errlen);

/* The member key of an object, or NULL (also when v is not an object). */
const struct jvalue *jv_get(const struct jvalue *v, const char *key);

/* The number or string of a member, or def when it is missing or another type. */
double jv_number(const struct jvalue *v, const char *key, double def);
const char *jv_string(const struct jvalue *v, const char *key, const char *def);

/* Free a document that jv_parse returned (its root; NULL is fine). */
void jv_free(struct jvalue *v);

#endif
