/* SPDX-License-Identifier: ISC */
/* wire.h - the UDP test's datagrams (docs/UDP.md): pure encode and decode, no I/O, no allocation. */
#ifndef NCPV_UDP_WIRE_H
#define NCPV_UDP_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define UDP_WIRE_MAGIC 0x4E435055u /* "NCPU" */
#define UDP_WIRE_VERSION 1

/* Sizes in bytes. A request is never smaller than the answer it may get (no amplification). */
#define UDP_WIRE_HEADER 20  /* magic, version, type, stream, test id, cookie */
#define UDP_WIRE_DATA_MIN 36 /* header + sequence + send time: the smallest -l */
#define UDP_WIRE_HELLO 64    /* HELLO and START, padded to this */
#define UDP_WIRE_GRANT 40    /* COOKIE and STARTED: the server's answer to HELLO and START */
#define UDP_WIRE_REPORT 112  /* REPORT, and REPORT_REQ padded to this */
#define UDP_WIRE_STOP 24
#define UDP_WIRE_MAX 65507   /* the largest UDP payload over IPv4 */

enum udp_type {
	UDP_HELLO = 1,	    /* client: may I test? (cookie 0) */
	UDP_COOKIE = 2,	    /* server: the cookie for this address and port, and the limits granted */
	UDP_START = 3,	    /* client: begin, with the cookie */
	UDP_STARTED = 4,    /* server: the flow exists */
	UDP_DATA = 5,	    /* either way: a numbered, timestamped datagram */
	UDP_REPORT_REQ = 6, /* client: send me your counters */
	UDP_REPORT = 7,	    /* server: its counters for this flow */
	UDP_STOP = 8	    /* client: end this flow now (no answer) */
};

/* HELLO / START flags, and COOKIE / STARTED too (what was granted). */
#define UDP_FLAG_REVERSE 1u /* the server sends, the client receives */
/* REPORT_REQ / REPORT flags. */
#define UDP_FLAG_FINAL 1u   /* the sender's totals are in the request: count the tail's loss */
#define UDP_FLAG_DONE 2u    /* REPORT, reverse: the server has sent all it will */
#define UDP_FLAG_CUT 4u	    /* REPORT_REQ with FINAL, reverse: the client was interrupted; stop
			     * sending now and answer DONE (a server without it goes on to its end) */

struct udp_header {
	uint8_t version, type;
	uint16_t stream;
	uint32_t test_id;
	uint64_t cookie;
};

/* HELLO, COOKIE, START, STARTED: what the client asks for and what the server grants. */
struct udp_params {
	uint32_t flags;	      /* UDP_FLAG_REVERSE */
	uint32_t length;      /* datagram length (reverse: the server's DATA) */
	uint64_t rate;	      /* bits per second; 0 as fast as possible */
	uint32_t duration_ms; /* how long the server sends (reverse); a bound for its state otherwise */
};

struct udp_data {
	uint64_t seq;	  /* from 0, per stream */
	uint64_t send_ns; /* the sender's CLOCK_MONOTONIC when it built the datagram */
};

/* REPORT_REQ: flags and, with UDP_FLAG_FINAL, what the client sent on this stream. */
struct udp_report_req {
	uint32_t flags;
	uint16_t req; /* the client's request number, echoed in the REPORT */
	uint64_t sent_packets, sent_bytes;
};

/* REPORT: a receiver's counters since the flow began (forward), or a sender's (reverse:
 * only packets and bytes mean anything). Times in nanoseconds; owd_* are signed. */
struct udp_report {
	uint32_t flags;
	uint16_t req; /* the REPORT_REQ's number this answers */
	uint64_t packets, bytes, expected, duplicates, out_of_order, late;
	uint64_t jitter_ns;
	int64_t owd_min_ns, owd_max_ns, owd_sum_ns;
	uint64_t span_ns; /* first to last arrival (reverse: first to last send) */
};

/*
 * udp_wire_header: check magic and version and read the header of buf.
 * Returns the type (> 0), or -1: shorter than the header, not ours (magic), or another
 * version (h->version then says which, for the caller's counters).
 * udp_wire_params / _data / _report_req / _report: the body of a datagram of that type
 * (its header already checked). Return 0, or -1 when buf is shorter than the type's size.
 */
int udp_wire_header(const uint8_t *buf, size_t len, struct udp_header *h);
int udp_wire_params(const uint8_t *buf, size_t len, struct udp_params *p);
int udp_wire_data(const uint8_t *buf, size_t len, struct udp_data *d);
int udp_wire_report_req(const uint8_t *buf, size_t len, struct udp_report_req *r);
int udp_wire_report(const uint8_t *buf, size_t len, struct udp_report *r);

/*
 * Writers: each fills buf (at least the type's size; for DATA, len bytes with the rest
 * zero, len >= UDP_WIRE_DATA_MIN) and returns the datagram's length, or 0 when cap is too
 * small. udp_wire_write_params pads to UDP_WIRE_HELLO for HELLO and START, and writes
 * UDP_WIRE_GRANT bytes for COOKIE and STARTED. udp_wire_write_data writes only the header
 * and the numbers when fill is 0 (the rest of buf is left as it is, for a reused buffer).
 */
size_t udp_wire_write_params(uint8_t *buf, size_t cap, const struct udp_header *h, const struct udp_params *p);
size_t udp_wire_write_data(uint8_t *buf, size_t len, const struct udp_header *h, const struct udp_data *d,
			   int fill);
size_t udp_wire_write_report_req(uint8_t *buf, size_t cap, const struct udp_header *h,
				 const struct udp_report_req *r);
size_t udp_wire_write_report(uint8_t *buf, size_t cap, const struct udp_header *h, const struct udp_report *r);
size_t udp_wire_write_stop(uint8_t *buf, size_t cap, const struct udp_header *h);

#endif
