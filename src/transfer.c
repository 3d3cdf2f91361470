/* SPDX-License-Identifier: ISC */
/* transfer.c - a transfer's amount, time and rate as JSON members and as text, in the shapes
 * get, get --count, nc and serve report them. */
#include "transfer.h"

#include <stdio.h>

#include "json.h"
#include "units.h"

uint64_t transfer_bytes(const struct transfer *t)
{
	return t->sent + t->received;
}

double transfer_rate(const struct transfer *t)
{
	return t->seconds > 0 ? (double)transfer_bytes(t) / t->seconds : 0;
}

double transfer_connection_rate(const struct transfer *t)
{
	return t->seconds > 0 ? (double)(t->wire + t->received) / t->seconds : 0;
}

/* A connection's rate counts what left for the wire: what was only handed to the kernel
 * of a cut transfer never reached its client. */
static double shape_rate(const struct transfer *t, enum transfer_shape shape)
{
	return shape == TRANSFER_CONNECTION ? transfer_connection_rate(t) : transfer_rate(t);
}

void transfer_json(struct json *j, const struct transfer *t, enum transfer_shape shape)
{
	if (shape == TRANSFER_CONNECTION || shape == TRANSFER_TWO_WAY) {
		json_uint(j, "sent", t->sent);
		if (shape == TRANSFER_CONNECTION) {
			json_uint(j, "wire", t->wire);
			json_uint(j, "acked", t->acked);
		}
		json_uint(j, "received", t->received);
	}
	if (shape != TRANSFER_CONNECTION)
		json_uint(j, "bytes", transfer_bytes(t));
	json_fixed(j, "seconds", t->seconds, 6);
	if (shape == TRANSFER_BATCH)
		json_fixed(j, "transfers_per_s", t->seconds > 0 ? t->transfers / t->seconds : 0, 1);
	json_fixed(j, "rate", shape_rate(t, shape), 0);
}

void transfer_parts(struct transfer_parts *p, const struct transfer *t, enum transfer_shape shape)
{
	double rate = shape_rate(t, shape);
	char amount[64], r[32];

	units_format_iec(r, sizeof(r), rate);
	switch (shape) {
	case TRANSFER_ONE_WAY:
		units_format_count(p->first, sizeof(p->first), transfer_bytes(t));
		snprintf(p->second, sizeof(p->second), "in %.3f s = %s/s (%.1f Mbit/s)", t->seconds, r,
			 rate * 8 / 1e6);
		break;
	case TRANSFER_BATCH:
		snprintf(p->first, sizeof(p->first), "in %.3f s = %.0f transfers/s,", t->seconds,
			 t->seconds > 0 ? t->transfers / t->seconds : 0);
		snprintf(p->second, sizeof(p->second), "%s (%s/s)",
			 units_format_iec(amount, sizeof(amount), (double)transfer_bytes(t)), r);
		break;
	case TRANSFER_CONNECTION:
	case TRANSFER_TWO_WAY:
		snprintf(p->first, sizeof(p->first), "sent %llu B, received %llu B", (unsigned long long)t->sent,
			 (unsigned long long)t->received);
		snprintf(p->second, sizeof(p->second), "in %.3f s (%s/s)", t->seconds, r);
		break;
	}
}

char *transfer_text(char *buf, size_t len, const struct transfer *t, enum transfer_shape shape)
{
	struct transfer_parts p;

	transfer_parts(&p, t, shape);
	snprintf(buf, len, "%s %s", p.first, p.second);
	return buf;
}
