/* SPDX-License-Identifier: ISC */
/* gather.h - -P's interval records brought together: each stream's thread puts its records, and
 * once every stream still running has closed interval k, the N records and their sum go out
 * through one callback, in order, one call at a time. */
#ifndef NCPV_GET_GATHER_H
#define NCPV_GET_GATHER_H

#include "get_engine.h"

struct gather;

typedef void gather_emit_fn(void *ctx, const struct get_interval *streams, long n, const struct get_interval *sum);

/* n streams (ids 1..n); emit and ctx are borrowed. NULL: out of memory. */
struct gather *gather_new(long n, gather_emit_fn *emit, void *ctx);
/* Stream id's record (copied). A stream more than a few intervals ahead of the slowest (one
 * still connecting, or stalled) has the oldest interval go out without the missing ones. */
void gather_put(struct gather *g, long id, const struct get_interval *rec);
/* Stream id puts no more records: intervals no longer wait for it. */
void gather_done(struct gather *g, long id);
/* Releases g (NULL is fine); call after every stream is done. */
void gather_free(struct gather *g);

#endif
