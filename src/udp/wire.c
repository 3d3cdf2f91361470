/* SPDX-License-Identifier: ISC */
/* wire.c - encode and decode the UDP test's datagrams: big-endian fields at fixed offsets (docs/UDP.md). */
#include <string.h>

#include "wire.h"

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

int udp_wire_header(const uint8_t *buf, size_t len, struct udp_header *h)
{
	if (len < UDP_WIRE_HEADER || get32(buf) != UDP_WIRE_MAGIC)
		return -1;
	h->version = buf[4];
	h->type = buf[5];
	h->stream = get16(buf + 6);
	h->test_id = get32(buf + 8);
	h->cookie = get64(buf + 12);
	if (h->version != UDP_WIRE_VERSION || h->type == 0)
		return -1;
	return h->type;
}

static void put_header(uint8_t *buf, const struct udp_header *h, uint8_t type)
{
	put32(buf, UDP_WIRE_MAGIC);
	buf[4] = UDP_WIRE_VERSION;
	buf[5] = type;
	put16(buf + 6, h->stream);
	put32(buf + 8, h->test_id);
	put64(buf + 12, h->cookie);
}

/* HELLO/START/COOKIE/STARTED body: 20 flags u8, 21 reserved, 22 length u16 (0 means 65536:
 * never used, lengths stop at UDP_WIRE_MAX), 24 rate u64, 32 duration_ms u32, 36 reserved. */
int udp_wire_params(const uint8_t *buf, size_t len, struct udp_params *p)
{
	if (len < UDP_WIRE_GRANT)
		return -1;
	p->flags = buf[20];
	p->length = get16(buf + 22);
	p->rate = get64(buf + 24);
	p->duration_ms = get32(buf + 32);
	return 0;
}

size_t udp_wire_write_params(uint8_t *buf, size_t cap, const struct udp_header *h, const struct udp_params *p)
{
	size_t n = h->type == UDP_HELLO || h->type == UDP_START ? UDP_WIRE_HELLO : UDP_WIRE_GRANT;

	if (cap < n || p->length > 0xffff)
		return 0;
	memset(buf, 0, n);
	put_header(buf, h, h->type);
	buf[20] = (uint8_t)p->flags;
	put16(buf + 22, (uint16_t)p->length);
	put64(buf + 24, p->rate);
	put32(buf + 32, p->duration_ms);
	return n;
}

/* DATA body: 20 seq u64, 28 send_ns u64, then payload. */
int udp_wire_data(const uint8_t *buf, size_t len, struct udp_data *d)
{
	if (len < UDP_WIRE_DATA_MIN)
		return -1;
	d->seq = get64(buf + 20);
	d->send_ns = get64(buf + 28);
	return 0;
}

size_t udp_wire_write_data(uint8_t *buf, size_t len, const struct udp_header *h, const struct udp_data *d,
			   int fill)
{
	if (len < UDP_WIRE_DATA_MIN || len > UDP_WIRE_MAX)
		return 0;
	if (fill)
		memset(buf + UDP_WIRE_DATA_MIN, 0, len - UDP_WIRE_DATA_MIN);
	put_header(buf, h, UDP_DATA);
	put64(buf + 20, d->seq);
	put64(buf + 28, d->send_ns);
	return len;
}

/* REPORT_REQ body: 20 flags u8, 21 reserved, 22 req u16, 24 sent_packets u64, 32 sent_bytes u64, zero to 112. */
int udp_wire_report_req(const uint8_t *buf, size_t len, struct udp_report_req *r)
{
	if (len < UDP_WIRE_REPORT)
		return -1;
	r->flags = buf[20];
	r->req = get16(buf + 22);
	r->sent_packets = get64(buf + 24);
	r->sent_bytes = get64(buf + 32);
	return 0;
}

size_t udp_wire_write_report_req(uint8_t *buf, size_t cap, const struct udp_header *h,
				 const struct udp_report_req *r)
{
	if (cap < UDP_WIRE_REPORT)
		return 0;
	memset(buf, 0, UDP_WIRE_REPORT);
	put_header(buf, h, UDP_REPORT_REQ);
	buf[20] = (uint8_t)r->flags;
	put16(buf + 22, r->req);
	put64(buf + 24, r->sent_packets);
	put64(buf + 32, r->sent_bytes);
	return UDP_WIRE_REPORT;
}

/* REPORT body: 20 flags u8, 21 reserved, 22 req u16, then u64s from 24: packets, bytes, expected,
 * duplicates, out_of_order, late, jitter_ns, owd_min_ns, owd_max_ns, owd_sum_ns (the owd
 * ones two's complement), span_ns; 112 bytes in all. */
int udp_wire_report(const uint8_t *buf, size_t len, struct udp_report *r)
{
	if (len < UDP_WIRE_REPORT)
		return -1;
	r->flags = buf[20];
	r->req = get16(buf + 22);
	r->packets = get64(buf + 24);
	r->bytes = get64(buf + 32);
	r->expected = get64(buf + 40);
	r->duplicates = get64(buf + 48);
	r->out_of_order = get64(buf + 56);
	r->late = get64(buf + 64);
	r->jitter_ns = get64(buf + 72);
	r->owd_min_ns = (int64_t)get64(buf + 80);
	r->owd_max_ns = (int64_t)get64(buf + 88);
	r->owd_sum_ns = (int64_t)get64(buf + 96);
	r->span_ns = get64(buf + 104);
	return 0;
}

size_t udp_wire_write_report(uint8_t *buf, size_t cap, const struct udp_header *h, const struct udp_report *r)
{
	if (cap < UDP_WIRE_REPORT)
		return 0;
	memset(buf, 0, UDP_WIRE_REPORT);
	put_header(buf, h, UDP_REPORT);
	buf[20] = (uint8_t)r->flags;
	put16(buf + 22, r->req);
	put64(buf + 24, r->packets);
	put64(buf + 32, r->bytes);
	put64(buf + 40, r->expected);
	put64(buf + 48, r->duplicates);
	put64(buf + 56, r->out_of_order);
	put64(buf + 64, r->late);
	put64(buf + 72, r->jitter_ns);
	put64(buf + 80, (uint64_t)r->owd_min_ns);
	put64(buf + 88, (uint64_t)r->owd_max_ns);
	put64(buf + 96, (uint64_t)r->owd_sum_ns);
	put64(buf + 104, r->span_ns);
	return UDP_WIRE_REPORT;
}

size_t udp_wire_write_stop(uint8_t *buf, size_t cap, const struct udp_header *h)
{
	if (cap < UDP_WIRE_STOP)
		return 0;
	memset(buf, 0, UDP_WIRE_STOP);
	put_header(buf, h, UDP_STOP);
	return UDP_WIRE_STOP;
}
