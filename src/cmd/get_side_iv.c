/* SPDX-License-Identifier: ISC */
/* get_side_iv.c - -i with --server-view, --reverse and --bidir: get's own interval lines, and
 * after each the line of serve's figures for that stream and interval (docs/SIDECHANNEL.md).
 * serve's k-th report line of a stream goes with get's interval k of that stream (by order, not
 * by clocks). One that comes before get's waits (at most SIDE_IV_QUEUE of them); one that comes
 * after goes out at once: get's lines never wait for serve's. */
#include <limits.h>
#include <string.h>

#include "get_side_iv.h"

void side_iv_delta(const struct side_report *prev, const struct side_report *r, int upload, long index,
		   struct get_interval *out)
{
	uint64_t now = upload ? r->received : r->sent, before = upload ? prev->received : prev->sent;

	memset(out, 0, sizeof(*out));
	out->index = index;
	out->start = (double)prev->ms / 1000.0;
	out->end = (double)(r->ms > prev->ms ? r->ms : prev->ms) / 1000.0;
	out->bytes = now >= before ? now - before : 0;
	out->last = r->final;
	out->have_tcp = 1;
	out->tcp.retrans = (uint32_t)(r->retrans >= prev->retrans ? r->retrans - prev->retrans : 0);
	out->tcp.cwnd = (uint32_t)r->cwnd;
	out->tcp.rtt_us = (uint32_t)r->rtt_us;
	out->tcp.rttvar_us = (uint32_t)r->rttvar_us;
	out->tcp.pacing_rate = r->pacing;
	out->tcp.delivery_rate = r->delivery;
	out->tcp.have = TCPSTATE_HAVE_BASIC | (r->pacing ? TCPSTATE_HAVE_PACING : 0u) |
			(r->delivery ? TCPSTATE_HAVE_DELIVERY : 0u);
}

void side_iv_init(struct side_iv *x, const struct get_report *rp, int bidir, int reverse)
{
	memset(x, 0, sizeof(*x));
	pthread_mutex_init(&x->mu, NULL);
	x->rp = *rp;
	x->bidir = bidir;
	x->s[0].upload = reverse;
	x->s[1].upload = 1;
}

void side_iv_free(struct side_iv *x)
{
	pthread_mutex_destroy(&x->mu);
}

/* The label of get's line for stream i ("  1" alone; " dn" and " up" with --bidir), or of
 * serve's ("srv"; "sdn" and "sup"). */
static const char *label(const struct side_iv *x, int i, int server)
{
	static const char *const one[2] = { "  1", "srv" }, *const two[2][2] = { { " dn", "sdn" }, { " up", "sup" } };

	return x->bidir ? two[i][server] : one[server];
}

static void header(struct side_iv *x)
{
	if (!x->rp.header_shown)
		fprintf(x->rp.text_out, "%s\n", get_report_header());
	x->rp.header_shown = 1;
}

/* One of serve's intervals, as a line of the table or a "server_interval" JSON Line. */
static void put_server(struct side_iv *x, int i, const struct get_interval *iv, int final)
{
	const struct side_iv_stream *s = &x->s[i];
	char line[256];

	if (x->rp.json) {
		struct json j;

		json_init_grow(&j);
		json_object(&j, NULL);
		json_string(&j, "event", "server_interval");
		json_int(&j, "stream", i);
		json_string(&j, "direction", s->upload ? "send" : "receive"); /* get's, as its lines say */
		json_int(&j, "index", iv->index);
		json_bool(&j, "final", final);
		get_report_interval_json(&j, iv);
		json_end(&j);
		fprintf(x->rp.json_out, "%s\n", json_text(&j));
		fflush(x->rp.json_out);
		json_free(&j);
		return;
	}
	if (x->rp.quiet)
		return;
	header(x);
	fprintf(x->rp.text_out, "%s\n", get_report_line(line, sizeof(line), label(x, i, 1), iv));
	fflush(x->rp.text_out);
}

/* serve's lines of stream i waiting for get's intervals below upto go out, in order. */
static void release(struct side_iv *x, int i, long upto)
{
	struct side_iv_stream *s = &x->s[i];
	int k = 0;

	while (k < s->qn && s->q[k].index < upto) {
		put_server(x, i, &s->q[k], s->final[k]);
		k++;
	}
	memmove(s->q, s->q + k, (size_t)(s->qn - k) * sizeof(s->q[0]));
	memmove(s->final, s->final + k, (size_t)(s->qn - k) * sizeof(s->final[0]));
	s->qn -= k;
}

void side_iv_get(void *ctx, const struct get_interval *streams, long n, const struct get_interval *sum)
{
	struct side_iv *x = ctx;
	int i = streams[0].stream == 2;
	char line[256];

	(void)n;
	(void)sum;
	pthread_mutex_lock(&x->mu);
	x->rp.send = x->s[i].upload;
	if (x->rp.json)
		get_report_interval(&x->rp, streams, 1, NULL);
	else if (!x->rp.quiet) {
		header(x);
		fprintf(x->rp.text_out, "%s\n", get_report_line(line, sizeof(line), label(x, i, 0), &streams[0]));
		fflush(x->rp.text_out);
	}
	x->s[i].shown = streams[0].last ? LONG_MAX : streams[0].index + 1;
	release(x, i, x->s[i].shown);
	pthread_mutex_unlock(&x->mu);
}

void side_iv_server(void *ctx, const struct side_report *r)
{
	struct side_iv *x = ctx;
	struct side_iv_stream *s;
	struct get_interval iv;

	if (r->stream > 1 || (r->stream == 1 && !x->bidir))
		return;
	pthread_mutex_lock(&x->mu);
	s = &x->s[r->stream];
	side_iv_delta(&s->prev, r, s->upload, s->got++, &iv);
	s->prev = *r;
	if (s->qn == SIDE_IV_QUEUE)
		release(x, (int)r->stream, s->q[0].index + 1); /* serve is ahead: the oldest goes alone */
	s->q[s->qn] = iv;
	s->final[s->qn++] = r->final;
	release(x, (int)r->stream, s->shown); /* get's line is out (this one is late): it goes now */
	pthread_mutex_unlock(&x->mu);
}

void side_iv_flush(struct side_iv *x)
{
	pthread_mutex_lock(&x->mu);
	for (int i = 0; i < 2; i++)
		release(x, i, LONG_MAX);
	pthread_mutex_unlock(&x->mu);
}
