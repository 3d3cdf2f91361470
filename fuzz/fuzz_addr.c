/* SPDX-License-Identifier: ISC */
/* fuzz_addr.c - libFuzzer harness for endpoint specs, ports and port ranges (src/addr.c). */
#include <stdio.h>

#include "fuzz.h"
#include "../src/addr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size), err[256];
	struct addr_spec spec;
	int lo, hi, port;

	/* Each default combination the commands use: listener, client, none. */
	if (addr_parse(s, "127.0.0.1", "6666", &spec, err, sizeof(err)) == 0) {
		if (memchr(spec.host, '\0', sizeof(spec.host)) == NULL ||
		    memchr(spec.port, '\0', sizeof(spec.port)) == NULL)
			abort(); /* the struct promises NUL-terminated copies */
	} else if (strlen(err) == 0) {
		abort(); /* every failure names its reason (cmd_error keeps it on one line) */
	}
	addr_parse(s, NULL, "6666", &spec, err, sizeof(err));
	addr_parse(s, NULL, NULL, &spec, err, sizeof(err));
	addr_parse(s, "::1", NULL, &spec, err, 1); /* the smallest error buffer */

	port = addr_parse_port(s);
	if (port < -1 || port > 65535)
		abort();
	if (addr_parse_port_range(s, &lo, &hi) == 0 && (lo < 1 || hi > 65535 || lo > hi))
		abort();
	free(s);
	return 0;
}
