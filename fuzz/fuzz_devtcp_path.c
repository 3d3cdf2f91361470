/* SPDX-License-Identifier: ISC */
/* fuzz_devtcp_path.c - libFuzzer harness for the /dev/tcp, /dev/udp and /dev/tcp-listen paths
 * that any program's open() hands the devtcp library (src/devtcp/path.c). */
#include "fuzz.h"
#include "../src/devtcp/path.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size);
	struct devtcp_path p;
	int rc;

	if (devtcp_path_claims(s)) {
		rc = devtcp_path_parse(s, &p);
		if (rc < -1 || rc > 1)
			abort(); /* the header documents 1, 0 and -1 only */
		if (rc == 1 && (memchr(p.at.host, '\0', sizeof(p.at.host)) == NULL ||
				memchr(p.at.port, '\0', sizeof(p.at.port)) == NULL || p.at.port[0] == '\0'))
			abort();
		if (devtcp_path_ino(s) == 0)
			abort(); /* never 0: it is reported as an inode number */
	}
	devtcp_path_claims_relative(s);
	free(s);
	return 0;
}
