/* SPDX-License-Identifier: ISC */
/* nc_ports.c - "ncpv nc" operands: the host, and ports as nc takes them (numbers, service
 * names, ranges "lo-hi" in either order, -r's shuffled order), in nc's words on error. */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "nc_cmd.h"
#include "../addr.h"

/* One port or service name for proto: 1..65535, in nc's words on error. */
static int one_port(const struct nc_opts *o, const char *s)
{
	struct servent *sv;
	int p;

	if (s[0] >= '0' && s[0] <= '9') {
		p = addr_parse_port(s);
		if (p >= 1)
			return p;
		if (p == 0 || (p < 0 && errno == ERANGE))
			return nc_fail(o, p == 0 ? "port number too small: %s" : "port number too large: %s", s);
		return nc_fail(o, "port number invalid: %s", s);
	}
	sv = getservbyname(s, o->udp ? "udp" : "tcp");
	if (sv == NULL)
		return nc_fail(o, "port number invalid: %s", s);
	return ntohs((uint16_t)sv->s_port);
}

/* A port, a service name or a range "lo-hi" (either order), appended to o->ports. */
static int add_ports(struct nc_opts *o, const char *spec)
{
	const char *dash = strchr(spec, '-');
	int lo, hi;

	if (o->listen && strcmp(spec, "0") == 0) {
		/* ncpv's addition: listen on a port the kernel picks (-v prints it). */
		o->ports[o->nports++] = 0;
		return 0;
	}
	if (dash && spec[0] >= '0' && spec[0] <= '9' && getservbyname(spec, o->udp ? "udp" : "tcp") == NULL) {
		char a[16], b[16], range[40];

		if ((size_t)(dash - spec) >= sizeof(a) || strlen(dash + 1) >= sizeof(b))
			return nc_fail(o, "port range invalid: %s", spec);
		memcpy(a, spec, (size_t)(dash - spec));
		a[dash - spec] = '\0';
		snprintf(b, sizeof(b), "%s", dash + 1);
		if ((lo = one_port(o, a)) < 0 || (hi = one_port(o, b)) < 0)
			return -1;
		snprintf(range, sizeof(range), "%d-%d", lo < hi ? lo : hi, lo < hi ? hi : lo);
		if (addr_parse_port_range(range, &lo, &hi) < 0)
			return nc_fail(o, "port range invalid: %s", spec);
	} else {
		if ((lo = one_port(o, spec)) < 0)
			return -1;
		hi = lo;
	}
	for (int p = lo; p <= hi; p++) {
		if (o->nports >= NC_MAX_PORTS)
			return nc_fail(o, "too many ports: %s", spec);
		o->ports[o->nports++] = p;
	}
	return 0;
}

static void shuffle_ports(struct nc_opts *o)
{
	for (int i = o->nports - 1; i > 0; i--) {
		uint32_t r = 0;

		if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
			r = (uint32_t)i * 2654435761u;
		int j = (int)(r % (uint32_t)(i + 1)), t = o->ports[i];

		o->ports[i] = o->ports[j];
		o->ports[j] = t;
	}
}

int nc_parse_operands(struct nc_opts *o, int argc, char **argv)
{
	const char *spec;

	if (o->unix_sock) {
		o->host = argc > 0 ? argv[0] : o->source; /* nc -lU -s PATH listens at PATH */
		return 0;
	}
	if (o->listen) {
		if (argc == 2) {
			o->host = argv[0];
			argv++;
			argc--;
		} else {
			o->host = o->source;
		}
		spec = argc == 1 ? argv[0] : o->source_port;
		/* A listener has one port: nc hands a list, a range or a name it does not know to
		 * getaddrinfo, which says this (a number ncpv finds too large or oddly written is still
		 * refused in ncpv's words). */
		if ((strpbrk(spec, ",-") != NULL && spec[strspn(spec, "0123456789,-")] == '\0') ||
		    (spec[strspn(spec, " +")] && spec[strspn(spec, " +") + strspn(spec + strspn(spec, " +"), "0123456789")] &&
		     getservbyname(spec, o->udp ? "udp" : "tcp") == NULL))
			return nc_fail(o, "getaddrinfo: Servname not supported for ai_socktype%s", "");
		return add_ports(o, spec);
	}
	o->host = argv[0];
	for (int i = 1; i < argc; i++)
		if (add_ports(o, argv[i]) < 0)
			return -1;
	if (o->random_order)
		shuffle_ports(o);
	return 0;
}
