/* SPDX-License-Identifier: ISC */
/* progress.c - the live pv-style status line on stderr that get and nc share. */
#include "progress.h"

#include <stdio.h>
#include <string.h>

void progress_init(struct progress *p, int show, double interval, uint64_t size, double now)
{
	struct display_opts d;

	memset(p, 0, sizeof(*p));
	display_defaults(&d);
	display_init(&p->disp, &d);
	meter_start(&p->meter, now);
	p->size = size;
	p->interval = interval > 0 ? interval : 1;
	p->show = show;
	p->next = now + p->interval;
}

void progress_draw(struct progress *p, double now, int final)
{
	struct meter_reading r;
	struct display_frame f;
	char line[DISPLAY_LINE_MAX];

	meter_read(&p->meter, now, p->size, &r);
	if (final && r.elapsed > 0)
		r.rate = r.average; /* pv shows the overall rate on its last line */
	display_frame_from(&f, &r, p->size, final, time(NULL));
	display_line(&p->disp, &f, line, sizeof(line));
	fprintf(stderr, "%s\r%s", line, final ? "\n" : "");
	p->shown = 1;
}

void progress_tick(struct progress *p, double now)
{
	if (p->show && now >= p->next) {
		progress_draw(p, now, 0);
		while (p->next <= now)
			p->next += p->interval;
	}
}
