/* SPDX-License-Identifier: ISC */
/* path.c - recognise /dev/tcp/HOST/PORT, /dev/udp/HOST/PORT and /dev/tcp-listen/[ADDR/]PORT (pure). */
#include "path.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *prefix;
	enum devtcp_kind kind;
} prefixes[] = {
	{ "/dev/tcp-listen/", DEVTCP_LISTEN },
	{ "/dev/tcp/", DEVTCP_TCP },
	{ "/dev/udp/", DEVTCP_UDP },
};

/* Split "HOST/PORT" (or "PORT" when a host is optional) at its one slash. */
static int split(const char *rest, int host_optional, char *host, size_t hostcap, const char **port)
{
	const char *slash = strchr(rest, '/');
	size_t n;

	if (slash == NULL) {
		if (!host_optional)
			return 0;
		host[0] = '\0';
		*port = rest;
		return 1;
	}
	n = (size_t)(slash - rest);
	if (n == 0 || n >= hostcap || strchr(slash + 1, '/') != NULL)
		return 0;
	memcpy(host, rest, n);
	host[n] = '\0';
	*port = slash + 1;
	return 1;
}

int devtcp_path_parse(const char *path, struct devtcp_path *out)
{
	char host[ADDR_HOST_MAX], spec[ADDR_HOST_MAX + ADDR_PORT_MAX + 4], err[160];
	const char *rest = NULL, *port, *h;
	size_t i, hl;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t n = strlen(prefixes[i].prefix);

		if (strncmp(path, prefixes[i].prefix, n) == 0) {
			rest = path + n;
			out->kind = prefixes[i].kind;
			break;
		}
	}
	if (rest == NULL || !split(rest, out->kind == DEVTCP_LISTEN, host, sizeof(host), &port) ||
	    *port == '\0' || strlen(port) >= ADDR_PORT_MAX)
		return 0;
	h = host;
	hl = strlen(host);
	if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') { /* [::1] as well as ::1 */
		h = host + 1;
		hl -= 2;
	}
	snprintf(spec, sizeof(spec), "[%.*s]:%s", (int)hl, h, port);
	if (hl == 0)
		snprintf(spec, sizeof(spec), ":%s", port);
	if (addr_parse(spec, "", NULL, &out->at, err, sizeof(err)) < 0 ||
	    (out->kind != DEVTCP_LISTEN && addr_parse_port(out->at.port) == 0)) {
		errno = EINVAL;
		return -1;
	}
	return 1;
}

uint64_t devtcp_path_ino(const char *path)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *path; path++) {
		h ^= (unsigned char)*path;
		h *= 0x100000001b3ULL;
	}
	return h ? h : 1;
}
