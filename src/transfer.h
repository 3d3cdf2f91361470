/* SPDX-License-Identifier: ISC */
/* transfer.h - the amount, time and rate of a transfer as every command reports it (get, get
 * --count, nc, serve): its JSON members and its text. Pure: the caller prints. */
#ifndef NCPV_TRANSFER_H
#define NCPV_TRANSFER_H

#include <stddef.h>
#include <stdint.h>

struct json;

/* What was moved and for how long. A one-way transfer counts its bytes in either field. */
struct transfer {
	uint64_t sent, received;
	uint64_t wire;	/* TRANSFER_CONNECTION: of sent, what had left for the wire ... */
	uint64_t acked;	/* ... and what the peer acknowledged */
	double seconds;
	long transfers; /* TRANSFER_BATCH: whole transfers finished */
};

/* The shapes the reports take (JSON members in this order; text as shown, S the seconds with
 * three decimals, R the rate in IEC units, AMOUNT units_format_count's for ONE_WAY and
 * units_format_iec's for BATCH):
 * ONE_WAY     get:         "bytes", "seconds", "rate"; "AMOUNT in S s = R/s (M Mbit/s)"
 * BATCH       get --count: "bytes", "seconds", "transfers_per_s", "rate";
 *                          "in S s = N transfers/s, AMOUNT (R/s)"
 * CONNECTION  serve:       "sent", "wire", "acked", "received", "seconds", "rate";
 *                          "sent N B, received N B in S s (R/s)"
 * TWO_WAY     nc:          "sent", "received", "bytes", "seconds", "rate"; text as CONNECTION
 * "seconds" has six decimals, "rate" (bytes per second) none, "transfers_per_s" one;
 * CONNECTION's rate counts wire, not sent (transfer_connection_rate). */
enum transfer_shape { TRANSFER_ONE_WAY, TRANSFER_BATCH, TRANSFER_CONNECTION, TRANSFER_TWO_WAY };

/* sent + received. */
uint64_t transfer_bytes(const struct transfer *t);

/* Bytes per second over t->seconds; 0 when no time passed. */
double transfer_rate(const struct transfer *t);

/* A serve connection's rate: what left for the wire (wire) and what came (received), per
 * second; the "rate" of TRANSFER_CONNECTION's JSON and text. */
double transfer_connection_rate(const struct transfer *t);

/* The shape's members, written into the object j is in. */
void transfer_json(struct json *j, const struct transfer *t, enum transfer_shape shape);

/* The shape's text in its two halves, where a summary laid out for a narrow terminal may break
 * the line: ONE_WAY "AMOUNT" and "in S s = ...", BATCH "in S s = N transfers/s," and
 * "AMOUNT (R/s)", CONNECTION and TWO_WAY "sent N B, received N B" and "in S s (R/s)". */
struct transfer_parts {
	char first[96], second[96];
};
void transfer_parts(struct transfer_parts *p, const struct transfer *t, enum transfer_shape shape);

/* The shape's text (the two parts joined by a space) into buf (cut to len, NUL-terminated); returns buf. */
char *transfer_text(char *buf, size_t len, const struct transfer *t, enum transfer_shape shape);

#endif
