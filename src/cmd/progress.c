/* SPDX-License-Identifier: ISC */
/* progress.c - the live pv-style status line on stderr that get and nc share. */
#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../status.h"
#include "../pv/tty.h"

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
	char line[STATUS_LINE_MAX];

	/* The terminal's width now: one ioctl a refresh follows a resize without a SIGWINCH
	 * handler (get's and nc's waits would see its EINTR). 80 columns off a terminal. */
	p->disp.o.width = pv_tty_width(STDERR_FILENO, 80);
	p->disp.o.fit = p->disp.o.width;
	meter_read(&p->meter, now, &r);
	status_render(&p->disp, &r, p->size, final, 0, NULL, time(NULL), line, sizeof(line));
	/* A terminal too narrow for the bar drops it, and its percentage with it, while the ETA
	 * after it may still fit (pv's fit order). With a size the percentage matters more: draw
	 * it alone where the bar was, so that the ETA is what goes. */
	if (p->size > 0 && strchr(line, '%') == NULL) {
		p->disp.o.format = "%b %t %r %{progress-amount-only} %e";
		status_render(&p->disp, &r, p->size, final, 0, NULL, time(NULL), line, sizeof(line));
		p->disp.o.format = NULL;
	}
	/* The last line starts with its own '\r': the terminal may have echoed "^C" after the
	 * line before, and the line drawn from there would wrap. */
	fprintf(stderr, "%s%s%s", final ? "\r" : "", line, final ? "\n" : "");
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
