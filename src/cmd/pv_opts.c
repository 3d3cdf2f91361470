/* SPDX-License-Identifier: ISC */
/* pv_opts.c - "ncpv pv" command line: pv's options parsed once into struct pv_opts, its --help,
 * and its "pv: " messages (shared by pv.c, pv_remote.c and pv_watch.c). */
#include "pv_cmd.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "../units.h"

#define SHORT_OPTS ":ptIerabT8kA:F:nqvWD:s:l0i:m:w:H:N:fL:B:CESYXo:P:hVcd:R:Q:U:gx:u:KOZ:M"
#define PV_TRY_HELP "Try `pv --help' for more information."

/* In pv 1.10's order, so that an ambiguous abbreviation lists the same possibilities. */
static const struct option longopts[] = {
	{ "help", no_argument, NULL, 'h' },		{ "version", no_argument, NULL, 'V' },
	{ "progress", no_argument, NULL, 'p' },		{ "timer", no_argument, NULL, 't' },
	{ "eta", no_argument, NULL, 'e' },		{ "fineta", no_argument, NULL, 'I' },
	{ "rate", no_argument, NULL, 'r' },		{ "average-rate", no_argument, NULL, 'a' },
	{ "bytes", no_argument, NULL, 'b' },		{ "bits", no_argument, NULL, '8' },
	{ "si", no_argument, NULL, 'k' },		{ "buffer-percent", no_argument, NULL, 'T' },
	{ "last-written", required_argument, NULL, 'A' }, { "force", no_argument, NULL, 'f' },
	{ "numeric", no_argument, NULL, 'n' },		{ "quiet", no_argument, NULL, 'q' },
	{ "cursor", no_argument, NULL, 'c' },		{ "wait", no_argument, NULL, 'W' },
	{ "delay-start", required_argument, NULL, 'D' }, { "size", required_argument, NULL, 's' },
	{ "gauge", no_argument, NULL, 'g' },		{ "line-mode", no_argument, NULL, 'l' },
	{ "null", no_argument, NULL, '0' },		{ "interval", required_argument, NULL, 'i' },
	{ "width", required_argument, NULL, 'w' },	{ "height", required_argument, NULL, 'H' },
	{ "name", required_argument, NULL, 'N' },	{ "bar-style", required_argument, NULL, 'u' },
	{ "format", required_argument, NULL, 'F' },	{ "extra-display", required_argument, NULL, 'x' },
	{ "stats", no_argument, NULL, 'v' },		{ "rate-limit", required_argument, NULL, 'L' },
	{ "buffer-size", required_argument, NULL, 'B' }, { "no-splice", no_argument, NULL, 'C' },
	{ "skip-errors", no_argument, NULL, 'E' },	{ "error-skip-block", required_argument, NULL, 'Z' },
	{ "stop-at-size", no_argument, NULL, 'S' },	{ "sync", no_argument, NULL, 'Y' },
	{ "direct-io", no_argument, NULL, 'K' },	{ "sparse", no_argument, NULL, 'O' },
	{ "sparse-output", no_argument, NULL, 'O' },	{ "discard", no_argument, NULL, 'X' },
	{ "store-and-forward", required_argument, NULL, 'U' }, { "remote", required_argument, NULL, 'R' },
	{ "query", required_argument, NULL, 'Q' },	{ "pidfile", required_argument, NULL, 'P' },
	{ "watchfd", required_argument, NULL, 'd' },	{ "output", required_argument, NULL, 'o' },
	{ "average-rate-window", required_argument, NULL, 'm' },
	{ "monitor", no_argument, NULL, 'M' }, /* not in pv 1.10.5; refused by name all the same */
	{ NULL, 0, NULL, 0 },
};

/* The error text, as pv 1.10 words it; returns PV_PARSE_ERROR. */
static int fail(struct pv_parse_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct pv_parse_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return PV_PARSE_ERROR;
}

/* Check arg as pv does ("-L: x: numeric value not understood"); 0 or PV_PARSE_ERROR. */
static int check(struct pv_parse_err *e, int c, const char *arg, enum units_pv_num type)
{
	static const char *const why[] = {
		[UNITS_PV_INTEGER] = "integer argument expected",
		[UNITS_PV_DECIMAL] = "numeric argument expected",
		[UNITS_PV_SIZE] = "numeric value not understood",
	};

	return units_pv_check(arg, type) ? 0 : fail(e, "-%c: %s: %s", c, arg, why[type]);
}

/* -R PID, -Q PID: a whole number (pv's words when it is not), then a process ID that
 * fits pid_t and is above 0: a wrapped value would reach kill(2) as 0 or -1. */
static int pid_option(struct pv_parse_err *e, int c, const char *arg, long *out)
{
	pid_t pid;

	if (units_parse_pid(arg, &pid) == 0) {
		*out = pid;
		return 0;
	}
	if (errno == ERANGE && arg[0] != '-') /* pv finds no number in "-1" */
		return fail(e, "-%c: %s: invalid process ID", c, arg);
	return fail(e, "-%c: %s: integer argument expected", c, arg);
}

/* -d PID[:FD] (option: for the -d option itself, else a further argument): pv's words for what
 * is not that shape. A PID out of range is refused (pv would wrap it into a probe of PID -1, or a
 * process group): in pv's words for -d 0, the value named only for a further argument, as pv. */
static int watchfd_check(struct pv_parse_err *e, const char *arg, int option)
{
	char pid[32];
	const char *colon = strchr(arg, ':');
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);
	pid_t p;
	int fd = -1;

	/* pv 1.10's lists (@FILE) and process names (=NAME): said, never taken for a bad PID. */
	if (arg[0] == '@' || arg[0] == '=')
		return fail(e, "-d: %s: %s is not supported by ncpv pv: give process IDs", arg,
			    arg[0] == '@' ? "a list file (@FILE)" : "a process name (=NAME)");
	if (n >= sizeof(pid))
		n = sizeof(pid) - 1; /* too long to be a PID: refused as one below */
	memcpy(pid, arg, n);
	pid[n] = '\0';
	if (units_parse_pid(pid, &p) < 0) {
		if (errno != ERANGE)
			return fail(e, "-d: process ID or pid:fd pair expected");
		return option ? fail(e, "-d: invalid process ID") : fail(e, "-d: %s: invalid process ID", arg);
	}
	if (colon && units_parse_fd(colon + 1, &fd) < 0)
		return errno == ERANGE ? fail(e, "-d: %s: invalid file descriptor", arg)
				       : fail(e, "-d: process ID or pid:fd pair expected");
	return 0;
}

static int watchfd_option(struct pv_parse_err *e, const char *arg, struct pv_opts *o)
{
	int rc = watchfd_check(e, arg, 1);

	if (rc != 0)
		return rc;
	if (o->nwatch == PV_WATCH_OPTS)
		return fail(e, "-d: at most %d -d options: name further processes as arguments", PV_WATCH_OPTS);
	o->watch[o->nwatch++] = arg;
	return 0;
}

/* pv 1.10.5 runs the last of -d, -R, -Q and -U; with -d what makes no sense there is refused,
 * in pv's words and order. 0, or PV_PARSE_ERROR. */
static int action_check(struct pv_parse_err *e, struct pv_opts *o)
{
	if (o->action == 'd') {
		int rc;

		if (o->lines || o->stop_at_size || o->skip_errors || o->buffer_size > 0 || o->rate_limit > 0)
			return fail(e, "cannot use line mode or transfer modifier options when watching file descriptors");
		if (o->cursor)
			return fail(e, "cannot use cursor positioning when watching file descriptors");
		if (o->remote_pid > 0)
			return fail(e, "cannot use remote control when watching file descriptors");
		if (o->query_pid > 0)
			return fail(e, "cannot use remote query when watching file descriptors");
		if (o->output)
			return fail(e, "-o: cannot transfer files when watching file descriptors");
		/* Further arguments are more processes to watch, as in pv: each checked as -d's. */
		for (int i = 0; i < o->nfiles; i++)
			if ((rc = watchfd_check(e, o->files[i], 0)) != 0)
				return rc;
	}
	if (o->remote_pid > 0 && o->query_pid > 0)
		return fail(e, "cannot use remote control and remote query together");
	return 0;
}

/* -x SPEC: words separated by commas (windowtitle or window; processtitle, proctitle, process
 * or proc), then optionally ":FORMAT" for the extra display. Unknown words are ignored, as pv
 * does. */
void pv_extra_display(const char *spec, struct pv_opts *o)
{
	const char *w = spec;

	o->extra_spec = spec;
	o->window_title = o->process_title = 0;
	o->extra_format = NULL;
	while (*w) {
		size_t n = strcspn(w, ",:");

		if ((n == 11 && strncmp(w, "windowtitle", n) == 0) || (n == 6 && strncmp(w, "window", n) == 0))
			o->window_title = 1;
		else if ((n == 12 && strncmp(w, "processtitle", n) == 0) ||
			 (n == 9 && strncmp(w, "proctitle", n) == 0) || (n == 7 && strncmp(w, "process", n) == 0) ||
			 (n == 4 && strncmp(w, "proc", n) == 0))
			o->process_title = 1;
		if (w[n] == ':') {
			o->extra_format = w + n + 1;
			break;
		}
		w += n + (w[n] == ',');
	}
}

static int refuse(struct pv_parse_err *e, int c)
{
	for (const struct option *l = longopts; l->name; l++)
		if (l->val == c)
			return fail(e, "option -%c (--%s) is not supported by ncpv", c, l->name);
	return fail(e, "option -%c is not supported by ncpv", c);
}

/* One option into o; returns 0, or PV_PARSE_ERROR with e filled. */
static int apply(int c, const char *arg, struct pv_opts *o, int *shown, struct pv_parse_err *e)
{
	struct display_opts *d = &o->disp;
	int rc = 0;

	switch (c) {
	case 'p': d->progress = *shown = 1; break;
	case 't': d->timer = *shown = 1; break;
	case 'e': d->eta = *shown = 1; break;
	case 'I': d->fineta = *shown = 1; break;
	case 'r': d->rate = *shown = 1; break;
	case 'a': d->average = *shown = 1; break;
	case 'b': d->bytes = *shown = 1; break;
	case 'T': d->bufpercent = *shown = o->no_splice = 1; break;
	case '8': d->bits = d->bytes = *shown = 1; break; /* pv 1.10: -8 shows the count in bits */
	case 'k': d->si = 1; break;
	case 'A':
		if ((rc = check(e, c, arg, UNITS_PV_INTEGER)) == 0) {
			uint64_t v = units_pv_size(arg, 0);

			d->last_written = v > DISPLAY_LAST_MAX ? DISPLAY_LAST_MAX : (int)v;
			*shown = 1;
			o->no_splice |= d->last_written > 0;
		}
		break;
	case 'F':
		if (strlen(arg) >= DISPLAY_LINE_MAX)
			return fail(e, "-F: format longer than %d bytes", DISPLAY_LINE_MAX - 1);
		d->format = arg;
		*shown = 1;
		if (display_format_needs_buffer(arg))
			o->no_splice = 1; /* %A and %T need the bytes in our buffer */
		break;
	case 'c': o->cursor = 1; break;
	case 'x':
		pv_extra_display(arg, o);
		break;
	case 'g': d->gauge = 1; break;
	case 'n': o->numeric = 1; break;
	case 'q': o->quiet = 1; break;
	case 'v': o->stats = 1; break;
	case 'W': o->wait = 1; break;
	case 'D':
		if ((rc = check(e, c, arg, UNITS_PV_DECIMAL)) == 0)
			o->delay_start = units_pv_decimal(arg);
		break;
	case 's':
		if (arg[0] == '@') {
			o->size_file = arg + 1;
			o->has_size = 1;
		} else if ((rc = check(e, c, arg, UNITS_PV_SIZE)) == 0) {
			o->size_arg = arg; /* read after the loop: -k changes the suffixes */
		}
		break;
	case 'l': o->lines = d->lines = 1; break;
	case '0': o->null = o->lines = d->lines = 1; break;
	case 'i':
		if ((rc = check(e, c, arg, UNITS_PV_DECIMAL)) == 0) {
			/* pv keeps the interval between 0.1 s and 10 minutes. */
			o->interval = units_pv_decimal(arg);
			o->interval = o->interval < 0.1 ? 0.1 : o->interval > 600 ? 600 : o->interval;
			o->interval_given = 1;
		}
		break;
	case 'm':
		if ((rc = check(e, c, arg, UNITS_PV_INTEGER)) == 0)
			o->avg_window = (double)units_pv_size(arg, 0);
		break;
	case 'w':
		if ((rc = check(e, c, arg, UNITS_PV_INTEGER)) == 0) {
			uint64_t v = units_pv_size(arg, 0);

			/* 0 means "ask the terminal", as in pv. */
			d->width = v > 100000 ? 100000 : (int)v;
			o->has_width = v > 0;
		}
		break;
	case 'H':
		if ((rc = check(e, c, arg, UNITS_PV_INTEGER)) == 0) {
			uint64_t v = units_pv_size(arg, 0);

			o->height = v > 100000 ? 100000 : (int)v;
		}
		break;
	case 'N': d->name = arg; break;
	case 'f': o->force = 1; break;
	case 'L':
		if ((rc = check(e, c, arg, UNITS_PV_SIZE)) == 0)
			o->rate_arg = arg; /* 0: no limit, as in pv */
		break;
	case 'B':
		if ((rc = check(e, c, arg, UNITS_PV_SIZE)) == 0) {
			o->buffer_arg = arg; /* 0: the default */
			o->no_splice = 1;
		}
		break;
	case 'C': o->no_splice = 1; break;
	case 'O': o->sparse = 1; break;
	case 'K': o->direct = 1; break;
	case 'U':
		o->store_file = arg;
		o->action = 'U';
		break;
	case 'E': o->skip_errors++; break;
	case 'S': o->stop_at_size = 1; break;
	case 'Y': o->sync = 1; break;
	case 'X': o->discard = 1; break;
	case 'o': o->output = strcmp(arg, "-") == 0 ? NULL : arg; break; /* "-": stdout, as in pv */
	case 'P': o->pidfile = arg; break;
	case 'R':
	case 'Q':
		o->action = (char)c;
		return pid_option(e, c, arg, c == 'R' ? &o->remote_pid : &o->query_pid);
	case 'd':
		o->action = 'd';
		return watchfd_option(e, arg, o);
	case 'Z':
		if ((rc = check(e, c, arg, UNITS_PV_SIZE)) == 0)
			o->skip_block = units_pv_size(arg, 0);
		break;
	default: return refuse(e, c);
	}
	return rc;
}

/* The long option that "--WORD[=...]" (maybe abbreviated) stands for, or NULL. */
static const char *long_name(const char *word)
{
	const char *eq = strchr(word, '=');
	size_t len = eq ? (size_t)(eq - word) - 2 : strlen(word) - 2;
	const char *found = NULL;

	for (const struct option *l = longopts; l->name; l++) {
		if (strncmp(l->name, word + 2, len) != 0)
			continue;
		if (l->name[len] == '\0')
			return l->name;
		found = found ? found : l->name;
	}
	return found;
}

/* getopt's complaint, in glibc's words as pv prints them (the option's full name). */
static int getopt_failure(struct pv_parse_err *e, int c, char **argv)
{
	const char *word = argv[optind - 1];
	const char *full = strncmp(word, "--", 2) == 0 ? long_name(word) : NULL;
	const char *eq = strchr(word, '=');

	if (c == ':') {
		if (full)
			return fail(e, "option '--%s' requires an argument\n%s", full, PV_TRY_HELP);
		return fail(e, "option requires an argument -- '%c'\n%s", optopt, PV_TRY_HELP);
	}
	if (optopt != 0 && full)
		return fail(e, "option '--%s' doesn't allow an argument\n%s", full, PV_TRY_HELP);
	if (optopt != 0)
		return fail(e, "invalid option -- '%c'\n%s", optopt, PV_TRY_HELP);
	if (strncmp(word, "--", 2) == 0) {
		/* getopt says nothing more with opterr off: find the ambiguous case ourselves. */
		size_t len = eq ? (size_t)(eq - word) - 2 : strlen(word) - 2, n;
		int matches = 0;

		for (const struct option *l = longopts; l->name; l++)
			matches += strncmp(l->name, word + 2, len) == 0;
		if (matches > 1) {
			n = (size_t)snprintf(e->msg, sizeof(e->msg), "option '%s' is ambiguous; possibilities:", word);
			for (const struct option *l = longopts; l->name && n < sizeof(e->msg); l++)
				if (strncmp(l->name, word + 2, len) == 0)
					n += (size_t)snprintf(e->msg + n, sizeof(e->msg) - n, " '--%s'", l->name);
			if (n < sizeof(e->msg))
				snprintf(e->msg + n, sizeof(e->msg) - n, "\n%s", PV_TRY_HELP);
			return PV_PARSE_ERROR;
		}
	}
	return fail(e, "unrecognized option '%s'\n%s", word, PV_TRY_HELP);
}

int pv_parse_options(int argc, char **argv, struct pv_opts *o, struct pv_parse_err *e)
{
	int c, shown = 0, rc;

	memset(o, 0, sizeof(*o));
	e->msg[0] = '\0';
	o->interval = 1;
	opterr = 0;
	optind = 0; /* 0, not 1: glibc then forgets a previous parse's half-read cluster */
	while ((c = getopt_long(argc, argv, SHORT_OPTS, longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return PV_PARSE_HELP;
		case 'V':
			return PV_PARSE_VERSION;
		case ':':
		case '?':
			return getopt_failure(e, c, argv);
		default:
			if ((rc = apply(c, optarg, o, &shown, e)) != 0)
				return rc;
		}
	}
	if (o->size_arg) {
		o->size = units_pv_size(o->size_arg, o->disp.si);
		o->has_size = o->size > 0; /* -s 0: the inputs' size, as without -s */
	}
	if (o->rate_arg)
		o->rate_limit = units_pv_size(o->rate_arg, o->disp.si);
	if (o->buffer_arg) {
		o->buffer_size = units_pv_size(o->buffer_arg, o->disp.si);
		if (o->buffer_size > PV_BUFFER_MAX)
			o->buffer_size = PV_BUFFER_MAX;
	}
	if (!shown) {
		/* No display switch: pv's default -pterb (numeric mode shows the percentage). */
		struct display_opts keep = o->disp;

		display_defaults(&o->disp);
		o->disp.bits = keep.bits;
		o->disp.si = keep.si;
		o->disp.lines = keep.lines;
		o->disp.width = keep.width;
		o->disp.name = keep.name;
		o->disp.format = keep.format;
		o->disp.gauge = keep.gauge;
		if (o->numeric)
			o->disp.bytes = o->disp.timer = o->disp.rate = 0;
	}
	o->disp.numeric = o->numeric;
	o->disp.pv110 = 1;
	o->files = argv + optind;
	o->nfiles = argc - optind;
	if ((rc = action_check(e, o)) != 0)
		return rc;
	if (o->remote_pid > 0 && o->nfiles > 0)
		return fail(e, "-R: files cannot be specified with this option");
	if (o->query_pid > 0 && o->nfiles > 0)
		return fail(e, "-Q: files cannot be specified with this option");
	return PV_PARSE_RUN;
}

void pv_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cmd_verror("pv", fmt, ap);
	va_end(ap);
}

void pv_usage(FILE *f)
{
	fprintf(f,
		"Usage: ncpv pv [OPTION]... [FILE]...\n"
		"Concatenate FILE(s), or standard input, to standard output, showing\n"
		"progress on standard error (a drop-in for pv 1.10.5; also runs as 'pv'\n"
		"through a symlink).\n\n"
		"Display:\n"
		"  -p, --progress           progress bar       -t, --timer   elapsed time\n"
		"  -e, --eta                time left          -I, --fineta  time of arrival\n"
		"  -r, --rate               current rate       -a, --average-rate  average rate\n"
		"  -b, --bytes              bytes (lines) so far\n"
		"  -T, --buffer-percent     buffer in use\n"
		"  -8, --bits               count bits         -k, --si      powers of 1000\n"
		"  -A, --last-written NUM   last NUM bytes written\n"
		"  -F, --format FORMAT      %%p %%t %%e %%I %%r %%a %%b %%T %%nA %%N %%%%\n"
		"                           or %%{progress} %%{rate} ...\n"
		"  -n, --numeric            percentages (or -b counts, -t times) one per line\n"
		"  -q, --quiet              no display\n"
		"  -v, --stats              rate summary at the end\n"
		"  -c, --cursor             several pv in a pipeline, each on its own\n"
		"                           terminal row\n"
		"  -g, --gauge              without a size, the bar shows the rate against\n"
		"                           its maximum\n"
		"  -x, --extra-display SPEC  windowtitle[:FORMAT]: also as the terminal's title;\n"
		"                            processtitle[:FORMAT]: as the process title (ps)\n"
		"  -d, --watchfd PID[:FD] [PID[:FD]]...  watch the files the processes have open\n"
		"  -R, --remote PID         send -L -s -i -w -N -F given here to ncpv pv PID\n"
		"  -Q, --query PID          show the progress of ncpv pv PID\n"
		"Modifiers:\n"
		"  -W, --wait               show nothing until the first byte\n"
		"  -D, --delay-start SEC    show nothing for SEC seconds\n"
		"  -s, --size SIZE          expected size (K, M, G, T suffixes;\n"
		"                           @FILE: FILE's size)\n"
		"  -l, --line-mode          count lines        -0, --null    lines end with NUL\n"
		"  -i, --interval SEC       update every SEC seconds (default 1)\n"
		"  -m, --average-rate-window SEC  average rate over the last SEC seconds\n"
		"  -w, --width N  -H, --height N  -N, --name NAME  -f, --force\n"
		"Transfer:\n"
		"  -L, --rate-limit RATE    at most RATE bytes per second, without bursts\n"
		"  -B, --buffer-size BYTES  read/write buffer size (implies -C)\n"
		"  -C, --no-splice          never use splice(2)\n"
		"  -E, --skip-errors        skip read errors\n"
		"  -Z, --error-skip-block BYTES  with -E, skip to the next multiple of BYTES\n"
		"  -O, --sparse             seek over blocks of zeros instead of writing them\n"
		"  -K, --direct-io          O_DIRECT on input and output, bypassing the\n"
		"                           page cache\n"
		"  -U, --store-and-forward FILE  all input into FILE first, then FILE to the\n"
		"                                output\n"
		"  -S, --stop-at-size       stop after --size  -Y, --sync    fdatasync each write\n"
		"  -X, --discard            write nothing      -o, --output FILE  write to FILE\n"
		"  -P, --pidfile FILE       save the process ID in FILE\n"
		"  -h, --help  -V, --version\n"
		"Not supported (refused by name): -u -M.\n"
		"Exit status: pv's bit mask: 1 pidfile, 2 unreadable input, 4 input is output,\n"
		"16 transfer error, 32 signal, 64 bad option.\n");
}
