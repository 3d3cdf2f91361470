/* SPDX-License-Identifier: ISC */
/* recmap.c - map wire bytes to the whole records (and so the plaintext) they carry. */
#include "recmap.h"

void recmap_mark(struct recmap *m, uint64_t wire_end, uint64_t plain_end)
{
	m->wire[m->head] = wire_end;
	m->plain[m->head] = plain_end;
	m->head = (m->head + 1) % RECMAP_MARKS;
	if (m->n < RECMAP_MARKS)
		m->n++;
}

/* The i-th mark, oldest first. */
static unsigned slot(const struct recmap *m, unsigned i)
{
	return (m->head + RECMAP_MARKS - m->n + i) % RECMAP_MARKS;
}

uint64_t recmap_at_least(const struct recmap *m, uint64_t x, uint64_t wire_total, uint64_t plain_total)
{
	/* Every wire byte past x carries at most one byte of plaintext, and the
	 * record cut at x is lost whole. */
	uint64_t missing = (wire_total > x ? wire_total - x : 0) + RECMAP_RECORD_MAX;
	uint64_t best = plain_total > missing ? plain_total - missing : 0;

	for (unsigned i = m->n; i-- > 0;) {
		unsigned k = slot(m, i);

		if (m->wire[k] <= x) {
			if (m->plain[k] > best)
				best = m->plain[k];
			break;
		}
	}
	return best < plain_total ? best : plain_total;
}

uint64_t recmap_at_most(const struct recmap *m, uint64_t x, uint64_t plain_total)
{
	uint64_t most = plain_total;

	for (unsigned i = 0; i < m->n; i++) {
		unsigned k = slot(m, i);

		if (m->wire[k] >= x) {
			most = m->plain[k];
			break;
		}
	}
	return most < x ? most : x;
}
