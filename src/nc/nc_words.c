/* SPDX-License-Identifier: ISC */
/* nc_words.c - run as nc: OpenBSD nc's own wording for failures the engine reports (pure). */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>

#include "nc.h"

/* The reply-code texts nc prints (RFC 1928's and the SOCKS4 protocol's names): scripts match them. */
static const char *socks5_words(int code)
{
	static const char *const words[] = {
		"Succeeded", "General SOCKS server failure", "Connection not allowed by ruleset",
		"Network unreachable", "Host unreachable", "Connection refused", "TTL expired",
		"Command not supported", "Address type not supported",
	};

	return code >= 0 && (size_t)code < sizeof(words) / sizeof(words[0]) ? words[code] : "Unknown error";
}

static const char *socks4_words(int code)
{
	switch (code) {
	case 90: return "Succeeded";
	case 91: return "Request rejected or failed";
	case 92: return "SOCKS server cannot connect to identd on the client";
	case 93: return "Client program and identd report different user-ids";
	default: return "Unknown error";
	}
}

/* nc reads each reply part whole; a close before that is "read failed (GOT/WANT)" with the errno
 * its read loop leaves: EPIPE on end of file, the read's own on an error (a reset). WANT is nc's
 * own figure, 3 for a 2-byte read. */
static void short_read(char *out, size_t outlen, size_t got, size_t want, size_t cap, int err)
{
	snprintf(out, outlen, "read failed (%zu/%zu): %s", got < cap ? got : cap, want, strerror(err));
}

/* A SOCKS reply cut short, by end of file (EPIPE) or an error; 0 if the step is not a read nc
 * words this way. */
static int socks_cut(const struct proxy_failure *why, int err, char *out, size_t outlen)
{
	size_t got = why->got;

	if (why->step == PROXY_STEP_SOCKS5_METHOD)
		short_read(out, outlen, got, 3, 2, err);
	else if (why->step == PROXY_STEP_SOCKS4_REPLY)
		short_read(out, outlen, got, 8, 8, err);
	else if (why->step == PROXY_STEP_SOCKS5_REPLY && got < 4)
		short_read(out, outlen, got, 4, 4, err);
	else if (why->step == PROXY_STEP_SOCKS5_REPLY && why->atyp == 3)
		snprintf(out, outlen, "connection failed, unsupported address type");
	else if (why->step == PROXY_STEP_SOCKS5_REPLY)
		short_read(out, outlen, got - 4, why->atyp == 4 ? 18 : 6, why->atyp == 4 ? 18 : 6, err);
	else
		return 0;
	return 1;
}

void nc_words_proxy(const struct proxy_failure *why, const char *err, char *out, size_t outlen)
{
	snprintf(out, outlen, "%s", err); /* ncpv's words where nc has none (a timeout, a long reply) */
	switch (why->kind) {
	case PROXY_FAIL_NOMETHOD:
		snprintf(out, outlen, "authentication method negotiation failed");
		break;
	case PROXY_FAIL_REFUSED:
		snprintf(out, outlen, "connection failed, SOCKSv%d error: %s",
			 why->step == PROXY_STEP_SOCKS4_REPLY ? 4 : 5,
			 why->step == PROXY_STEP_SOCKS4_REPLY ? socks4_words(why->code) : socks5_words(why->code));
		break;
	case PROXY_FAIL_NAME:
		snprintf(out, outlen, "host name too long for SOCKS5");
		break;
	case PROXY_FAIL_ATYP:
		snprintf(out, outlen, "connection failed, unsupported address type");
		break;
	case PROXY_FAIL_IO:
		if (why->step == PROXY_STEP_HTTP_REPLY)
			snprintf(out, outlen, "proxy read: %s", strerror(why->code));
		else if (why->reading) { /* nc's read loop counts nothing on an error */
			struct proxy_failure at_error = *why;

			at_error.got = why->got < 4 ? 0 : 4;
			socks_cut(&at_error, why->code, out, outlen);
		}
		break;
	case PROXY_FAIL_CLOSED:
		if (socks_cut(why, EPIPE, out, outlen))
			break;
		if (why->step == PROXY_STEP_HTTP_REPLY)
			snprintf(out, outlen, "proxy read: %s", strerror(EPIPE));
		break;
	default:
		break;
	}
}

const char *nc_words_gai(const char *err)
{
	const char *why = strrchr(err, ':');

	if (strncmp(err, "unknown port '", 14) == 0) /* ncpv's own words for EAI_SERVICE */
		return gai_strerror(EAI_SERVICE);

	return why && why[1] == ' ' ? why + 2 : err;
}
