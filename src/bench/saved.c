/* SPDX-License-Identifier: ISC */
/* saved.c - a saved bench run read back from its file (see saved.h). */
#include "saved.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The members compare.c reads; the rest of a document (samples, latencies,
 * the environment) is checked but not held, so memory follows what is read. */
static const char *const compare_keys[] = {
	"tests", "test", "methods", "name", "unit", "runs", "ok", "value", "schema_version", "interrupted",
	"path", "server", "ncpv", "duration", "count", "size",
	/* schema 4's names of value, duration and size */
	"bytes_per_s", "transfers_per_s", "duration_s", "size_bytes", NULL
};

struct jvalue *saved_read(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *text = NULL, why[256];
	size_t len = 0, cap = 0;
	struct jvalue *doc = NULL;
	struct stat st;

	if (f == NULL) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	/* A regular file is read into a buffer of its size (one byte more to see its end). */
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0 &&
	    (uint64_t)st.st_size < SAVED_MAX_BYTES)
		cap = (size_t)st.st_size + 1;
	for (;;) {
		size_t n;

		if (len == cap) {
			size_t next = cap ? cap * 2 : 65536;
			char *t = cap < SAVED_MAX_BYTES ? realloc(text, next) : NULL;

			if (t == NULL) {
				snprintf(err, errlen, "cannot read %s: %s", path,
					 cap < SAVED_MAX_BYTES ? strerror(ENOMEM) : "larger than 256 MiB");
				free(text);
				fclose(f);
				return NULL;
			}
			text = t;
			cap = next;
		} else if (text == NULL && (text = malloc(cap)) == NULL) {
			snprintf(err, errlen, "cannot read %s: %s", path, strerror(ENOMEM));
			fclose(f);
			return NULL;
		}
		n = fread(text + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
	} else if (jv_parse_keep(text, len, compare_keys, &doc, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s is not JSON: %s", path, why);
		doc = NULL;
	}
	fclose(f);
	free(text);
	return doc;
}

