/* SPDX-License-Identifier: ISC */
/* sidechan.h - the side channel's wire format (docs/SIDECHANNEL.md): the hello a client sends
 * as the first bytes of a connection to ask an ordinary serve for a session, and the report
 * lines serve sends back with the sender's figures. Pure, picohttpparser-style: no allocation,
 * no I/O, no global state. Every parser returns SIDE_PARTIAL (-2: need more bytes, and fewer
 * than SIDE_LINE_MAX have come), SIDE_MALFORMED (-1: not ours, or broken; also any line longer
 * than SIDE_LINE_MAX), or the bytes consumed (> 0, the newline included). */
#ifndef NCPV_SIDECHAN_H
#define NCPV_SIDECHAN_H

#include <stddef.h>
#include <stdint.h>

#define SIDE_VERSION 1
#define SIDE_LINE_MAX 512    /* the longest line either end accepts, newline included */
#define SIDE_MAGIC "\0ncpv-side " /* a NUL first: no text client (nc, curl, bash) sends it */
#define SIDE_MAGIC_LEN 11
#define SIDE_TOKEN_LEN 32    /* 128 random bits in lowercase hex */
#define SIDE_MAX_STREAMS 128
/* The highest rate= a hello may ask for, in bits/s: 10 Tbit/s (SO_MAX_PACING_RATE takes 64 bits
 * of bytes/s; anything faster than a host can send is no pacing at all). */
#define SIDE_RATE_MAX 10000000000000ULL
/* The lowest: a kilobyte a second. Slower is no measurement (a 1 bit/s download holds a slot of
 * serve's for as long as its client waits: 8 s a byte); get refuses it at its option. */
#define SIDE_RATE_MIN 8000ULL
#define SIDE_PARTIAL (-2)
#define SIDE_MALFORMED (-1)

enum side_role {
	SIDE_CTL,  /* the control connection: reports come back on it */
	SIDE_DOWN, /* a data connection on which serve sends (its usual work) */
	SIDE_UP	   /* a data connection on which serve receives: --reverse, half of --bidir */
};

/* "\0ncpv-side VERSION ROLE TOKEN [interval=MS] [streams=N] [rate=BPS] [ask=size] [stream=I]\n" */
struct side_hello {
	unsigned version;
	enum side_role role;
	char token[SIDE_TOKEN_LEN + 1];
	unsigned interval_ms; /* ctl: how often to report, 10..60000; 0 only at the end */
	unsigned streams;     /* ctl: data connections to expect, 1..SIDE_MAX_STREAMS */
	unsigned stream;      /* down/up: this connection's index, 0..streams-1 */
	uint64_t rate_bps;    /* ctl: pace each down connection to this many bits/s, SIDE_RATE_MIN..SIDE_RATE_MAX
			       * (get --rate on a download); 0: not asked (the key is left out) */
	int ask_size;	      /* ctl: "ask=size": say in the answer how many bytes each down
			       * connection will get, when serve knows (a comma list; words other
			       * than size are skipped, a newer client's) */
};

/* Serve's answer on the control connection: "\0ncpv-side VERSION ok TOKEN [rate=BPS] [size=N]\n",
 * or "no" with a reason word ("version", "busy", "token") in place of ok, after which it closes.
 * An ok's pairs are these two, in either order, each at most once; anything else (an unknown
 * key, a value that is not a number in range) makes the line not an answer. Each is said only
 * to a hello that asked (rate=, ask=size), so an older get never sees a pair it would refuse.
 * rate= only by a serve that paces: a serve older than the key skips it as unknown and answers
 * a bare ok, which get takes as a refusal. size= only when serve knows each down connection's
 * bytes exactly (--size, or a --source file sent once); a bare ok: not known, or an older serve. */
struct side_answer {
	unsigned version;
	int ok;
	char token[SIDE_TOKEN_LEN + 1];
	char reason[16]; /* "" when ok */
	uint64_t rate_bps; /* ok: the rate each down connection is paced to; 0: none said */
	int has_size;	   /* ok: size= said: each down connection gets exactly size bytes */
	uint64_t size;	   /* 0..UINT64_MAX */
};

/* One report line, "iv STREAM MS k=v ...\n" during the run and "end STREAM MS k=v ...\n" at
 * its close, serve's view of one data connection (MS: milliseconds since the session began).
 * A key the parser does not know is skipped: a newer serve may add some. */
struct side_report {
	int final;	/* 1: the "end" line */
	unsigned stream;
	uint64_t ms;
	uint64_t sent, received;   /* bytes through the socket by serve (payload) */
	uint64_t acked, retrans;   /* TCP: bytes the client acknowledged, segments sent again */
	uint64_t cwnd, rtt_us, rttvar_us, pacing, delivery; /* the sender's gauges (0: unknown) */
};

/* 1 when buf[0..len) could still begin a hello (it agrees with the magic as far as it goes),
 * 0 when it cannot: what serve looks at in the first bytes a client sends. */
int side_maybe_hello(const void *buf, size_t len);

int side_parse_hello(const void *buf, size_t len, struct side_hello *h);
int side_parse_answer(const void *buf, size_t len, struct side_answer *a);
int side_parse_report(const void *buf, size_t len, struct side_report *r);

/* Writers: the line into buf (always NUL-terminated when buflen > 0); return its length
 * (the NUL not counted, and a hello's leading NUL counted), or -1 when it does not fit or a
 * field is out of range. */
int side_format_hello(char *buf, size_t buflen, const struct side_hello *h);
int side_format_answer(char *buf, size_t buflen, const struct side_answer *a);
int side_format_report(char *buf, size_t buflen, const struct side_report *r);

/* 0 when s is SIDE_TOKEN_LEN lowercase hex digits, -1 otherwise. */
int side_check_token(const char *s);

#endif
