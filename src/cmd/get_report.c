/* SPDX-License-Identifier: ISC */
/* get_report.c - get's interval records (src/get/interval.c) as 80-column lines on stderr, or
 * as JSON Lines on stdout, one object per interval (the sum, and each stream under -P), written
 * and flushed as the interval ends. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "get_report.h"

/* "8.76G": bits per second in five characters or so, for a column headed bit/s. */
static const char *short_bits(char *buf, size_t len, double bits)
{
	static const char unit[] = { 0, 'k', 'M', 'G', 'T' };
	int u = 0;

	while (bits >= 999.5 && u < 4) {
		bits /= 1000;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%.0f", bits);
	else
		snprintf(buf, len, bits < 9.995 ? "%.2f%c" : bits < 99.95 ? "%.1f%c" : "%.0f%c", bits, unit[u]);
	return buf;
}

/* "1023.9 MiB", "512 B". */
static const char *short_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = 0;

	while (v >= 1023.95 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, u == 0 ? "%.0f %s" : "%.1f %s", v, unit[u]);
	return buf;
}

static double bits_per_second(const struct get_interval *iv)
{
	double s = iv->end - iv->start;

	return s > 0 ? (double)iv->bytes * 8 / s : 0;
}

/* A kernel rate in bytes/s as bits/s; none when not paced (all ones), not reported, or 0 (a
 * receiver's delivery rate: it delivers nothing). */
static int kernel_rate(const struct get_interval *iv, unsigned bit, uint64_t bytes, double *bits)
{
	if (!iv->have_tcp || !(iv->tcp.have & bit) || bytes == 0 || bytes == UINT64_MAX || bytes == UINT32_MAX)
		return 0;
	*bits = (double)bytes * 8;
	return 1;
}

/* The columns: the header and the lines share these widths. */
#define COLUMNS "[%s] %13s %10s %7s%s"
#define TCP_COLUMNS " %5s %5s %11s %7s %7s"

const char *get_report_header(void)
{
	static char line[128];
	char tcp[64];

	snprintf(tcp, sizeof(tcp), TCP_COLUMNS, "retr", "cwnd", "rtt/var ms ", "pacing", "deliver");
	snprintf(line, sizeof(line), COLUMNS, " ID", "   seconds   ", "bytes", "bit/s", tcp);
	return line;
}

char *get_report_line(char *line, size_t len, const char *label, const struct get_interval *iv)
{
	char bytes[24], rate[24], tcp[160] = "", pace[24] = "-", deliver[24] = "-", seconds[64];
	double b;

	if (iv->have_tcp) {
		if (kernel_rate(iv, TCPSTATE_HAVE_PACING, iv->tcp.pacing_rate, &b))
			short_bits(pace, sizeof(pace), b);
		if (kernel_rate(iv, TCPSTATE_HAVE_DELIVERY, iv->tcp.delivery_rate, &b))
			short_bits(deliver, sizeof(deliver), b);
		char retr[16], cwnd[16], rtt[32];

		snprintf(retr, sizeof(retr), "%u", iv->tcp.retrans);
		snprintf(cwnd, sizeof(cwnd), "%u", iv->tcp.cwnd);
		snprintf(rtt, sizeof(rtt), "%.2f/%-5.2f", iv->tcp.rtt_us / 1000.0, iv->tcp.rttvar_us / 1000.0);
		snprintf(tcp, sizeof(tcp), TCP_COLUMNS, retr, cwnd, rtt, pace, deliver);
	}
	if (iv->omitted) /* the columns past the rate would be cut: the mark goes there */
		snprintf(tcp, sizeof(tcp), "  (omitted: --omit)");
	snprintf(seconds, sizeof(seconds), "%6.2f-%-6.2f", iv->start, iv->end);
	snprintf(line, len, COLUMNS, label, seconds, short_bytes(bytes, sizeof(bytes), iv->bytes),
		 short_bits(rate, sizeof(rate), bits_per_second(iv)), tcp);
	return line;
}

/* One record's members, as every JSON interval object and stream entry has them. */
void get_report_interval_json(struct json *j, const struct get_interval *iv)
{
	double b;

	json_fixed(j, "start", iv->start, 3);
	json_fixed(j, "end", iv->end, 3);
	json_fixed(j, "seconds", iv->end - iv->start, 6);
	json_uint(j, "bytes", iv->bytes);
	json_fixed(j, "bits_per_second", bits_per_second(iv), 0);
	json_bool(j, "omitted", iv->omitted);
	if (!iv->have_tcp) {
		json_null(j, "retransmits");
		return;
	}
	json_uint(j, "retransmits", iv->tcp.retrans);
	json_uint(j, "cwnd_segments", iv->tcp.cwnd);
	json_uint(j, "rtt_us", iv->tcp.rtt_us);
	json_uint(j, "rttvar_us", iv->tcp.rttvar_us);
	if (kernel_rate(iv, TCPSTATE_HAVE_PACING, iv->tcp.pacing_rate, &b))
		json_fixed(j, "pacing_bits_per_second", b, 0);
	else
		json_null(j, "pacing_bits_per_second");
	if (kernel_rate(iv, TCPSTATE_HAVE_DELIVERY, iv->tcp.delivery_rate, &b))
		json_fixed(j, "delivery_bits_per_second", b, 0);
	else
		json_null(j, "delivery_bits_per_second");
}

static void interval_json_line(const struct get_report *rp, const struct get_interval *streams, long n,
			       const struct get_interval *sum)
{
	const struct get_interval *top = sum ? sum : &streams[0];
	struct json j;

	json_init_grow(&j);
	json_object(&j, NULL);
	json_string(&j, "event", "interval");
	json_string(&j, "direction", rp->send ? "send" : "receive");
	json_int(&j, "index", top->index);
	get_report_interval_json(&j, top);
	if (sum) {
		json_array(&j, "streams");
		for (long i = 0; i < n; i++) {
			json_object(&j, NULL);
			json_int(&j, "stream", streams[i].stream);
			get_report_interval_json(&j, &streams[i]);
			json_end(&j);
		}
		json_end(&j);
	}
	json_end(&j);
	fprintf(rp->json_out, "%s\n", json_text(&j));
	fflush(rp->json_out);
	json_free(&j);
}

/* One line of the table, cut to rp->width (the lines are ASCII: a byte a column). */
static void put_line(const struct get_report *rp, const char *line)
{
	int len = (int)strlen(line);

	if (rp->width > 0 && len > rp->width)
		len = rp->width;
	fprintf(rp->text_out, "%.*s\n", len, line);
}

void get_report_interval(void *ctx, const struct get_interval *streams, long n, const struct get_interval *sum)
{
	struct get_report *rp = ctx;
	char line[256], label[24];

	if (rp->json) {
		interval_json_line(rp, streams, n, sum);
		return;
	}
	if (rp->quiet)
		return;
	if (!rp->header_shown) {
		put_line(rp, get_report_header());
		rp->header_shown = 1;
	}
	for (long i = 0; i < n && sum; i++) {
		snprintf(label, sizeof(label), "%3ld", streams[i].stream);
		put_line(rp, get_report_line(line, sizeof(line), label, &streams[i]));
	}
	put_line(rp, get_report_line(line, sizeof(line), sum ? "SUM" : "  1", sum ? sum : &streams[0]));
	fflush(rp->text_out);
}

void get_report_omit_json(struct json *j, const struct get_result *r)
{
	json_fixed(j, "omitted_seconds", r->omitted_seconds, 3);
	json_uint(j, "omitted_bytes", r->omitted_bytes);
}

char *get_report_omit_text(char *buf, size_t len, double omit, const struct get_result *r)
{
	char bytes[24];

	if (omit <= 0)
		snprintf(buf, len, "%s", "");
	else if (r->omitted_seconds > 0)
		snprintf(buf, len, "(the first %.2f s, %s, left out: --omit)", r->omitted_seconds,
			 short_bytes(bytes, sizeof(bytes), r->omitted_bytes));
	else
		snprintf(buf, len, "(ended within --omit %g s: nothing left out)", omit);
	return buf;
}
