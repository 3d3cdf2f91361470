/* SPDX-License-Identifier: ISC */
/* proctitle.h - pv's -x processtitle: the progress line as the process's title (what ps shows). */
#ifndef NCPV_PV_PROCTITLE_H
#define NCPV_PV_PROCTITLE_H

/* Room for a title: the argument strings argv[0..argc-1] (contiguous, as the kernel lays them
 * out) are overwritten in place; argv must outlive the struct. The strings' old contents are
 * gone after the first pv_proctitle_set: read the options before. */
struct pv_proctitle {
	char *start;
	unsigned long len; /* bytes from start that may be written (0: no room) */
};

void pv_proctitle_init(struct pv_proctitle *t, int argc, char **argv);

/* Show "pv -- TEXT" (cut to the room; NUL padded so ps does not show the old arguments). */
void pv_proctitle_set(const struct pv_proctitle *t, const char *text);

#endif
