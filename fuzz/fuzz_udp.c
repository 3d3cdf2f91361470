/* SPDX-License-Identifier: ISC */
/* fuzz_udp.c - libFuzzer harness for the UDP test's datagram parser (src/udp/wire.c) and the receiver's
 * figures it feeds (src/udp/stats.c): any bytes, at any length, parse or are refused, and what parses
 * writes back the same. */
#include "fuzz.h"
#include "../src/udp/stats.h"
#include "../src/udp/wire.h"

static struct udp_stats stats;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1), out[UDP_WIRE_REPORT], again[UDP_WIRE_REPORT];
	struct udp_header h;
	int type;

	if (buf == NULL)
		abort();
	memcpy(buf, data, size); /* an exact-size copy: ASan sees any read past the datagram */
	type = udp_wire_header(buf, size, &h);
	if (type > 0 && size < UDP_WIRE_HEADER)
		abort();
	if (type == UDP_DATA) {
		struct udp_data d;

		if (udp_wire_data(buf, size, &d) == 0) {
			if (size < UDP_WIRE_DATA_MIN)
				abort();
			udp_stats_add(&stats, d.seq, d.send_ns, d.send_ns ^ d.seq, size);
			if (stats.packets + stats.duplicates == 0 || udp_stats_lost(&stats) > stats.expected)
				abort();
		}
	} else if (type == UDP_HELLO || type == UDP_START || type == UDP_COOKIE || type == UDP_STARTED) {
		struct udp_params p, q;

		/* Decoding what was encoded gives back the same bytes (compared as bytes: the structs pad). */
		if (udp_wire_params(buf, size, &p) == 0) {
			size_t n = udp_wire_write_params(out, sizeof(out), &h, &p);

			if (n == 0 || udp_wire_params(out, n, &q) != 0 || udp_wire_write_params(again, sizeof(again), &h, &q) != n ||
			    memcmp(out, again, n) != 0)
				abort();
		}
	} else if (type == UDP_REPORT_REQ) {
		struct udp_report_req r, q;

		if (udp_wire_report_req(buf, size, &r) == 0) {
			udp_wire_write_report_req(out, sizeof(out), &h, &r);
			if (udp_wire_report_req(out, UDP_WIRE_REPORT, &q) != 0 ||
			    udp_wire_write_report_req(again, sizeof(again), &h, &q) != UDP_WIRE_REPORT ||
			    memcmp(out, again, UDP_WIRE_REPORT) != 0)
				abort();
		}
	} else if (type == UDP_REPORT) {
		struct udp_report r, q;

		if (udp_wire_report(buf, size, &r) == 0) {
			udp_wire_write_report(out, sizeof(out), &h, &r);
			if (udp_wire_report(out, UDP_WIRE_REPORT, &q) != 0 ||
			    udp_wire_write_report(again, sizeof(again), &h, &q) != UDP_WIRE_REPORT ||
			    memcmp(out, again, UDP_WIRE_REPORT) != 0)
				abort();
		}
	}
	free(buf);
	return 0;
}
