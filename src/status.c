/* SPDX-License-Identifier: ISC */
/* status.c - one meter reading to the status line's text: pv's last-line rate rule, the frame, the layout. */
#include "status.h"

size_t status_render(struct display *d, const struct meter_reading *r, uint64_t size, int final, int numeric,
		     const struct status_extra *x, time_t now, char *out, size_t cap)
{
	struct meter_reading m = *r;
	struct display_frame f;
	size_t n;

	if (final && m.elapsed > 0)
		m.rate = m.average = (double)m.bytes / m.elapsed;
	display_frame_from(&f, &m, size, final, now);
	if (x) {
		f.buffer_percent = x->buffer_percent;
		f.last = x->last;
		f.last_len = x->last_len;
		f.max_rate = x->max_rate;
	}
	if (numeric)
		return display_numeric(d, &f, out, cap);
	n = display_line(d, &f, out, cap - 2); /* room for the '\r' and the NUL */
	out[n++] = '\r';
	out[n] = '\0';
	return n;
}
