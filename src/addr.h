/* SPDX-License-Identifier: ISC */
/* addr.h - split and check "HOST:PORT" style endpoint specs (pure: no lookups). */
#ifndef NCPV_ADDR_H
#define NCPV_ADDR_H

#include <stddef.h>

#define ADDR_HOST_MAX 256
#define ADDR_PORT_MAX 32

/* An endpoint as written by the user; host may be empty (meaning "any"
 * for a listener). Both are NUL-terminated copies owned by the struct. */
struct addr_spec {
	char host[ADDR_HOST_MAX];
	char port[ADDR_PORT_MAX];
};

/*
 * Split "HOST:PORT", "[V6]:PORT", "[V6]", "V6" (two or more colons, no
 * brackets: a host alone), "HOST", or ":PORT" / "PORT" (digits only: a port
 * alone). Missing parts take default_host / default_port (either may be
 * NULL for none). The port must be a number 0..65535 or a service name
 * ([A-Za-z][A-Za-z0-9-]*).
 * Returns 0, or -1 with a one-line reason in err (errno EINVAL).
 */
int addr_parse(const char *spec, const char *default_host, const char *default_port,
	       struct addr_spec *out, char *err, size_t errlen);

/*
 * With -4 or -6 (family AF_INET or AF_INET6; anything else passes), an address
 * literal of the other family can never be reached. Returns 0 when host is not
 * one, else -1 with a one-line reason in err naming the option.
 */
int addr_check_family(const char *host, int family, char *err, size_t errlen);

/*
 * Parse a numeric port "0".."65535". Returns the port, or -1 (errno
 * EINVAL for a non-number, ERANGE for one out of range).
 */
int addr_parse_port(const char *s);

/*
 * Parse a port or a range "LO-HI" (1..65535, LO <= HI). Returns 0 and
 * fills *lo and *hi (equal for a single port), or -1 with errno EINVAL.
 */
int addr_parse_port_range(const char *s, int *lo, int *hi);

#endif
