/* SPDX-License-Identifier: ISC */
/* report_cells.c - how one figure reads in every report of the bench (text, CSV, JSON, HTML and
 * the throughput tables): a rate in its test's unit and its JSON key, the verdict cell, CPU
 * seconds, TCP's cells, and why a latency figure is missing. */
#include "report.h"

#include <stdio.h>
#include <string.h>

#include "../display.h"

char *report_value(char *buf, size_t len, enum bench_test test, double v)
{
	if (test == BENCH_STREAM)
		return display_amount(buf, len, v, 0, "B/s");
	snprintf(buf, len, v >= 100 ? "%.0f/s" : "%.1f/s", v);
	return buf;
}

const char *report_rate_key(enum bench_test test, const char *prefix)
{
	static const char *const keys[2][4] = {
		{ "bytes_per_s", "median_bytes_per_s", "min_bytes_per_s", "max_bytes_per_s" },
		{ "transfers_per_s", "median_transfers_per_s", "min_transfers_per_s", "max_transfers_per_s" },
	};
	int k = strcmp(prefix, "median_") == 0 ? 1 : strcmp(prefix, "min_") == 0 ? 2 : strcmp(prefix, "max_") == 0 ? 3 : 0;

	return keys[test == BENCH_STREAM ? 0 : 1][k];
}

char *report_verdict(char *buf, size_t len, const struct bench_result *r)
{
	if (r->is_baseline)
		snprintf(buf, len, "1.000x baseline");
	else if (r->ratio <= 0)
		snprintf(buf, len, "-");
	else if (strcmp(r->verdict, "too few runs") == 0)
		snprintf(buf, len, r->ratio >= 10 ? "%.1fx too few runs" : r->ratio >= 0.001 ? "%.3fx too few runs" : "%.2gx too few runs", r->ratio);
	else
		/* Three decimals near 1, so that a small but real difference shows. */
		snprintf(buf, len, r->ratio >= 10 ? "%.1fx %s p=%.2g" : r->ratio >= 0.001 ? "%.3fx %s p=%.2g" : "%.2gx %s p=%.2g", r->ratio,
			 strcmp(r->verdict, "within spread") == 0 ? "same" : r->verdict, r->p);
	return buf;
}

char *report_cpu(char *buf, size_t len, double seconds)
{
	if (seconds <= 0)
		snprintf(buf, len, "-");
	else if (seconds < 1e-3)
		snprintf(buf, len, "%.3gus", seconds * 1e6);
	else if (seconds < 1)
		snprintf(buf, len, "%.3gms", seconds * 1e3);
	else
		snprintf(buf, len, "%.3gs", seconds);
	return buf;
}

const char *report_no_latency(const struct bench_result *r, const struct bench_run *run)
{
	if (run ? !run->ok : r->ok_runs == 0)
		return "no run succeeded";
	return "with --connect the remote server's log is out of reach";
}

const char *report_no_ping(const struct bench_info *info, const struct bench_result *r, const struct bench_run *run)
{
	if (info->no_probe != NULL)
		return info->no_probe;
	if (run ? !run->ok : r->ok_runs == 0)
		return "no run succeeded";
	return "the probe got no round trip back";
}

void report_tcp_cells(const struct bench_result *r, char *retrans, size_t rlen, char *rtt, size_t tlen)
{
	if (r->retrans >= 0)
		snprintf(retrans, rlen, "%.6g", r->retrans);
	else
		snprintf(retrans, rlen, "-");
	report_cpu(rtt, tlen, r->rtt_ms >= 0 ? r->rtt_ms / 1000 : 0);
}
