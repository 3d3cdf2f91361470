/* SPDX-License-Identifier: ISC */
/* serve_side.c - serve's half of the side channel: hello recognition, sessions, report lines. */
#include "serve_side.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tcp/tcpstate.h"

/* A whole hello at acc's start: take its bytes past what acc already holds off the socket. */
static int take_exact(int fd, size_t want)
{
	char sink[SIDE_LINE_MAX];

	while (want > 0) {
		ssize_t n = recv(fd, sink, want, MSG_DONTWAIT);

		if (n <= 0)
			return -1; /* peeked bytes are there: only a failing socket gets here */
		want -= (size_t)n;
	}
	return 0;
}

int serve_side_look(int fd, struct serve_side_acc **acc, struct side_hello *h, uint64_t *taken)
{
	char peek[SIDE_LINE_MAX];
	struct serve_side_acc *a = *acc;
	size_t have = a ? a->len : 0;
	ssize_t n;
	int rc;

	*taken = 0;
	/* Only as much as could still belong to one line. */
	n = recv(fd, peek, SIDE_LINE_MAX - have, MSG_PEEK | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return SERVE_SIDE_WAIT;
	if (n < 0) {
		*taken = have;
		return -1; /* the socket's error, which this recv took: the caller's to act on */
	}
	if (n == 0) {
		/* The peer's EOF (in the middle of a hello: what it sent was data after all). */
		*taken = have;
		return SERVE_SIDE_EOF;
	}
	if (a == NULL) {
		if (!side_maybe_hello(peek, (size_t)n))
			return SERVE_SIDE_NONE; /* the ordinary case: the bytes stay for the ordinary read */
		if ((a = malloc(sizeof(*a))) == NULL)
			return -1;
		a->len = 0;
		*acc = a;
	}
	memcpy(a->buf + have, peek, (size_t)n);
	rc = side_parse_hello(a->buf, have + (size_t)n, h);
	if (rc > 0) {
		/* The line ends inside what was peeked: take it and no byte more. */
		if (take_exact(fd, (size_t)rc - have) < 0) {
			*taken = have;
			return SERVE_SIDE_NONE;
		}
		return SERVE_SIDE_HELLO;
	}
	if (rc == SIDE_MALFORMED) {
		*taken = have; /* the peeked rest stays in the socket */
		return SERVE_SIDE_NONE;
	}
	/* A beginning: take it off the socket, or level-triggered epoll would wake for it forever. */
	if (take_exact(fd, (size_t)n) < 0) {
		*taken = have;
		return SERVE_SIDE_NONE;
	}
	a->len = have + (size_t)n;
	return SERVE_SIDE_WAIT;
}

int serve_side_unread(int fd, const struct serve_side_acc *acc)
{
	char peek[SIDE_LINE_MAX];
	ssize_t n;

	if (acc != NULL)
		return 1;
	n = recv(fd, peek, sizeof(peek), MSG_PEEK | MSG_DONTWAIT);
	return n > 0 && side_maybe_hello(peek, (size_t)n);
}

struct serve_side_session *serve_side_find(struct serve_side_table *t, const char *token)
{
	for (struct serve_side_session *ss = t->head; ss != NULL; ss = ss->next)
		if (strcmp(ss->token, token) == 0)
			return ss;
	return NULL;
}

struct serve_side_session *serve_side_open(struct serve_side_table *t, const struct side_hello *h, void *ctl,
					   double now, const uint64_t *size, const char **why)
{
	struct side_answer ans = { .version = SIDE_VERSION, .ok = 1 };
	struct serve_side_session *ss;
	char line[SIDE_LINE_MAX];
	int n;

	*why = NULL;
	if (serve_side_find(t, h->token) != NULL) {
		*why = "token";
		return NULL;
	}
	if ((ss = calloc(1, sizeof(*ss))) == NULL)
		return NULL;
	memcpy(ss->token, h->token, sizeof(ss->token));
	memcpy(ans.token, h->token, sizeof(ans.token));
	ss->interval_ms = h->interval_ms;
	ss->streams = h->streams;
	ss->rate_bps = ans.rate_bps = h->rate_bps;
	if (h->ask_size && size != NULL) {
		ss->said_size = ans.has_size = 1;
		ss->size = ans.size = *size;
	}
	ss->pace_waiting = h->rate_bps > 0 ? h->streams : 0;
	ss->start = now;
	ss->orphan_until = now + SERVE_SIDE_ORPHAN_SECONDS;
	ss->next_report = now + h->interval_ms / 1000.0;
	ss->ctl = ctl;
	n = side_format_answer(line, sizeof(line), &ans);
	if (n < 0 || serve_side_queue_raw(ss, line, (size_t)n) < 0) {
		free(ss->out);
		free(ss);
		errno = ENOMEM;
		return NULL;
	}
	ss->listed = 1;
	ss->next = t->head;
	if (t->head)
		t->head->prev = ss;
	t->head = ss;
	t->n++;
	t->nfast += SERVE_SIDE_FAST(ss);
	return ss;
}

void serve_side_close(struct serve_side_table *t, struct serve_side_session *ss)
{
	if (!ss->listed) {
		free(ss->out);
		free(ss);
		return;
	}
	if (ss->prev)
		ss->prev->next = ss->next;
	else
		t->head = ss->next;
	if (ss->next)
		ss->next->prev = ss->prev;
	t->n--;
	t->nfast -= SERVE_SIDE_FAST(ss);
	free(ss->out);
	free(ss);
}

struct serve_side_session *serve_side_refusal(const char *token, const char *why, void *ctl)
{
	struct side_answer a = { .version = SIDE_VERSION, .ok = 0 };
	struct serve_side_session *ss;
	char line[SIDE_LINE_MAX];
	int n;

	memcpy(a.token, token, sizeof(a.token));
	snprintf(a.reason, sizeof(a.reason), "%s", why);
	if ((n = side_format_answer(line, sizeof(line), &a)) < 0 || (ss = calloc(1, sizeof(*ss))) == NULL)
		return NULL;
	ss->ctl = ctl;
	if (serve_side_queue_raw(ss, line, (size_t)n) < 0) {
		free(ss);
		return NULL;
	}
	return ss;
}

int serve_side_queue_raw(struct serve_side_session *ss, const char *text, size_t len)
{
	if (ss->out_len + len > SERVE_SIDE_OUT_MAX)
		return -1;
	if (ss->out_len + len > ss->out_cap) {
		size_t cap = ss->out_cap ? ss->out_cap * 2 : 1024;
		char *p;

		while (cap < ss->out_len + len)
			cap *= 2;
		if ((p = realloc(ss->out, cap)) == NULL)
			return -1;
		ss->out = p;
		ss->out_cap = cap;
	}
	memcpy(ss->out + ss->out_len, text, len);
	ss->out_len += len;
	return 0;
}

int serve_side_queue(struct serve_side_session *ss, const struct side_report *r)
{
	char line[SIDE_LINE_MAX];
	int n = side_format_report(line, sizeof(line), r);

	return n < 0 ? -1 : serve_side_queue_raw(ss, line, (size_t)n);
}

long serve_side_flush(struct serve_side_session *ss, int fd, int *more)
{
	long total = 0;

	while (ss->out_len > 0) {
		ssize_t n = send(fd, ss->out, ss->out_len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0)
			return -1;
		memmove(ss->out, ss->out + n, ss->out_len - (size_t)n);
		ss->out_len -= (size_t)n;
		total += n;
	}
	*more = ss->out_len > 0;
	return total;
}

void serve_side_fill(struct side_report *r, int fd, unsigned stream, const struct serve_side_session *ss,
		     double now, uint64_t sent, uint64_t acked, uint64_t received)
{
	struct tcpstate ts;

	memset(r, 0, sizeof(*r));
	r->stream = stream;
	r->ms = now > ss->start ? (uint64_t)((now - ss->start) * 1000.0) : 0;
	r->sent = sent;
	r->acked = acked;
	r->received = received;
	if (tcpstate_read(fd, &ts) == 0) {
		r->retrans = ts.total_retrans;
		r->cwnd = ts.cwnd;
		r->rtt_us = ts.rtt_us;
		r->rttvar_us = ts.rttvar_us;
		r->pacing = ts.pacing_rate == UINT64_MAX ? 0 : ts.pacing_rate;
		r->delivery = ts.delivery_rate;
	}
}
