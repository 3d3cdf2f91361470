/* SPDX-License-Identifier: ISC */
/* saved.h - a bench run saved with --json (or the JSON beside a report), read back from its file
 * for `ncpv bench compare`. Never prints: what went wrong comes back in the caller's buffer. */
#ifndef NCPV_BENCH_SAVED_H
#define NCPV_BENCH_SAVED_H

#include <stddef.h>

#include "../jsonread.h"

/* The largest file read: a bench document is a few MiB even with every sample. */
#define SAVED_MAX_BYTES (256u << 20)

/* Read path and parse it, holding only the members compare.c reads (the
 * rest is checked, not kept, so memory follows what is read). Returns the
 * document (free with jv_free), or NULL with err: "cannot read PATH: why"
 * or "PATH is not JSON: why" (which may quote a member's name from the
 * file: escape it before it reaches a terminal). */
struct jvalue *saved_read(const char *path, char *err, size_t errlen);

#endif
