/* SPDX-License-Identifier: ISC */
/* figures.c - what a UDP test's figures derive to (pure): the receiver's half from a REPORT,
 * rates and loss, the end reason's words, and the options' defaults. The command only draws. */
#include <sys/socket.h>

#include "udp.h"
#include "wire.h"

void udp_figures_from_report(struct udp_figures *fig, const struct udp_report *r)
{
	fig->has_receiver = 1;
	fig->packets = r->packets;
	fig->bytes = r->bytes;
	fig->expected = r->expected;
	fig->lost = r->expected > r->packets ? r->expected - r->packets : 0;
	fig->duplicates = r->duplicates;
	fig->out_of_order = r->out_of_order;
	fig->late = r->late;
	fig->jitter_ms = (double)r->jitter_ns / 1e6;
	fig->owd_min_ms = (double)r->owd_min_ns / 1e6;
	fig->owd_max_ms = (double)r->owd_max_ns / 1e6;
	fig->owd_avg_ms = r->packets ? (double)r->owd_sum_ns / (double)r->packets / 1e6 : 0;
	fig->recv_span = (double)r->span_ns / 1e9;
}

double udp_percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static double per_second(double count, double seconds)
{
	return seconds > 0 ? count / seconds : 0;
}

void udp_figures_rates(const struct udp_figures *f, struct udp_rates *r)
{
	r->seconds = f->end - f->start;
	r->sent_bps = per_second((double)f->sent_bytes * 8, r->seconds);
	r->sent_pps = per_second((double)f->sent_packets, r->seconds);
	r->received_bps = per_second((double)f->bytes * 8, r->seconds);
	r->received_pps = per_second((double)f->packets, r->seconds);
	r->loss_percent = udp_percent(f->lost, f->expected);
}

const char *udp_end_name(enum udp_end e)
{
	return e == UDP_END_TIME ? "time" : e == UDP_END_CANCEL ? "interrupted" : "no final report";
}

void udp_client_defaults(struct udp_client_opts *o)
{
	*o = (struct udp_client_opts){ .family = AF_UNSPEC, .rate = 1e6, .length = 1400, .streams = 1,
				       .duration = 10, .interval = 1, .timeout = 5 };
}

void udp_server_defaults(struct udp_server_opts *o)
{
	*o = (struct udp_server_opts){ .family = AF_UNSPEC, .max_tests = 256, .max_rate = 1e9, .max_time = 60,
				       .idle = 10 };
}
