/* SPDX-License-Identifier: ISC */
/* addr.c - split and check "HOST:PORT" style endpoint specs (pure). */
#include "addr.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "units.h"

int addr_parse_port(const char *s)
{
	long v;

	if (units_parse_long(s, 0, 65535, &v) < 0)
		return -1;
	return (int)v;
}

int addr_check_family(const char *host, int family, char *err, size_t errlen)
{
	unsigned char a[16];
	int other = family == AF_INET ? AF_INET6 : AF_INET;

	if ((family != AF_INET && family != AF_INET6) || inet_pton(other, host, a) != 1)
		return 0;
	snprintf(err, errlen, "%s is an IPv%c address, but %s asks for IPv%c only", host,
		 other == AF_INET ? '4' : '6', family == AF_INET ? "-4" : "-6", family == AF_INET ? '4' : '6');
	errno = EINVAL;
	return -1;
}

int addr_parse_port_range(const char *s, int *lo, int *hi)
{
	char first[8];
	const char *dash = strchr(s, '-');
	size_t n = dash ? (size_t)(dash - s) : strlen(s);
	int a, b;

	if (n == 0 || n >= sizeof(first)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(first, s, n);
	first[n] = '\0';
	a = addr_parse_port(first);
	b = dash ? addr_parse_port(dash + 1) : a;
	if (a < 1 || b < 1 || a > b) {
		errno = EINVAL;
		return -1;
	}
	*lo = a;
	*hi = b;
	return 0;
}

static int is_service_name(const char *s)
{
	if (!isalpha((unsigned char)*s))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_')
			return 0;
	return 1;
}

static int copy_part(char *dst, size_t cap, const char *src, size_t n)
{
	if (n >= cap)
		return -1;
	memcpy(dst, src, n);
	dst[n] = '\0';
	return 0;
}

static int all_digits(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* "::1:8080" is both the address ::1:8080 and ::1 with port 8080. For a
 * bare spec whose last group is a decimal number and whose rest is an IPv6
 * address, the user most likely meant a port: returns 2 when the whole is
 * an address as well (ambiguous), 1 when only the port reading makes sense,
 * 0 otherwise. */
static int v6_with_port(const char *spec)
{
	const char *last = strrchr(spec, ':');
	char head[INET6_ADDRSTRLEN + 1];
	struct in6_addr a;
	size_t n;

	if (last == NULL || !all_digits(last + 1) || strlen(last + 1) > 5)
		return 0;
	n = (size_t)(last - spec);
	if (n >= sizeof(head))
		return 0;
	memcpy(head, spec, n);
	head[n] = '\0';
	if (inet_pton(AF_INET6, head, &a) != 1)
		return 0;
	return inet_pton(AF_INET6, spec, &a) == 1 ? 2 : 1;
}

int addr_parse(const char *spec, const char *default_host, const char *default_port,
	       struct addr_spec *out, char *err, size_t errlen)
{
	const char *host = NULL, *port = NULL;
	size_t hostlen = 0;
	const char *colon;
	int v6;

	memset(out, 0, sizeof(*out));
	if (spec == NULL || *spec == '\0') {
		snprintf(err, errlen, "empty address");
		errno = EINVAL;
		return -1;
	}
	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');

		if (close == NULL || close == spec + 1) {
			snprintf(err, errlen, "invalid address '%s': unbalanced '['", spec);
			errno = EINVAL;
			return -1;
		}
		host = spec + 1;
		hostlen = (size_t)(close - host);
		if (close[1] == ':')
			port = close + 2;
		else if (close[1] != '\0') {
			snprintf(err, errlen, "invalid address '%s': junk after ']'", spec);
			errno = EINVAL;
			return -1;
		}
	} else if ((colon = strchr(spec, ':')) != NULL && strchr(colon + 1, ':') == NULL) {
		host = spec;
		hostlen = (size_t)(colon - spec);
		port = colon + 1;
	} else if (colon == NULL && all_digits(spec)) {
		port = spec;
	} else if ((v6 = v6_with_port(spec)) != 0) {
		const char *last = strrchr(spec, ':');
		int n = (int)(last - spec);

		if (v6 == 2)
			snprintf(err, errlen, "invalid address '%s': ambiguous: write '[%.*s]:%s' for port %s, "
				 "or '[%s]' for the address alone", spec, n, spec, last + 1, last + 1, spec);
		else
			snprintf(err, errlen, "invalid address '%s': an IPv6 address needs brackets before "
				 "its port: '[%.*s]:%s'", spec, n, spec, last + 1);
		errno = EINVAL;
		return -1;
	} else {
		host = spec; /* a name alone, or a bare IPv6 address (it has no port) */
		hostlen = strlen(spec);
	}

	if (host != NULL && hostlen > 0) {
		if (copy_part(out->host, sizeof(out->host), host, hostlen) < 0) {
			snprintf(err, errlen, "invalid address: host name too long");
			errno = EINVAL;
			return -1;
		}
	} else if (default_host != NULL) {
		snprintf(out->host, sizeof(out->host), "%s", default_host);
	}

	if (port == NULL || *port == '\0') {
		if (port != NULL || default_port == NULL) {
			snprintf(err, errlen, "invalid address '%s': missing port", spec);
			errno = EINVAL;
			return -1;
		}
		port = default_port;
	}
	if (!is_service_name(port) && addr_parse_port(port) < 0) {
		snprintf(err, errlen, "invalid port '%s': not a number from 0 to 65535", port);
		errno = EINVAL;
		return -1;
	}
	if (copy_part(out->port, sizeof(out->port), port, strlen(port)) < 0) {
		snprintf(err, errlen, "invalid port '%s': too long", port);
		errno = EINVAL;
		return -1;
	}
	return 0;
}
