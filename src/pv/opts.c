/* SPDX-License-Identifier: ISC */
/* opts.c - "ncpv pv" command line: pv's options parsed once into struct pv_opts. */
#include "opts.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../cmd/cmd.h"
#include "../units.h"
#include "../version.h"

#define SHORT_OPTS ":ptIerabT8kA:F:nqvWD:s:l0i:m:w:H:N:fL:B:CESYXo:P:hVcd:R:Q:U:gx:u:KZ:"

static const struct option longopts[] = {
	{ "progress", no_argument, NULL, 'p' },	     { "timer", no_argument, NULL, 't' },
	{ "eta", no_argument, NULL, 'e' },		     { "fineta", no_argument, NULL, 'I' },
	{ "rate", no_argument, NULL, 'r' },	     { "average-rate", no_argument, NULL, 'a' },
	{ "bytes", no_argument, NULL, 'b' },	     { "bits", no_argument, NULL, '8' },
	{ "si", no_argument, NULL, 'k' },		     { "buffer-percent", no_argument, NULL, 'T' },
	{ "last-written", required_argument, NULL, 'A' }, { "format", required_argument, NULL, 'F' },
	{ "numeric", no_argument, NULL, 'n' },	     { "quiet", no_argument, NULL, 'q' },
	{ "stats", no_argument, NULL, 'v' },	     { "wait", no_argument, NULL, 'W' },
	{ "delay-start", required_argument, NULL, 'D' }, { "size", required_argument, NULL, 's' },
	{ "line-mode", no_argument, NULL, 'l' },	     { "null", no_argument, NULL, '0' },
	{ "interval", required_argument, NULL, 'i' },
	{ "average-rate-window", required_argument, NULL, 'm' },
	{ "width", required_argument, NULL, 'w' },	     { "height", required_argument, NULL, 'H' },
	{ "name", required_argument, NULL, 'N' },	     { "force", no_argument, NULL, 'f' },
	{ "rate-limit", required_argument, NULL, 'L' }, { "buffer-size", required_argument, NULL, 'B' },
	{ "no-splice", no_argument, NULL, 'C' },	     { "skip-errors", no_argument, NULL, 'E' },
	{ "stop-at-size", no_argument, NULL, 'S' },     { "sync", no_argument, NULL, 'Y' },
	{ "discard", no_argument, NULL, 'X' },	     { "output", required_argument, NULL, 'o' },
	{ "pidfile", required_argument, NULL, 'P' },    { "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	/* pv options ncpv refuses by name. */
	{ "cursor", no_argument, NULL, 'c' },	     { "watchfd", required_argument, NULL, 'd' },
	{ "remote", required_argument, NULL, 'R' },     { "query", required_argument, NULL, 'Q' },
	{ "store-and-forward", required_argument, NULL, 'U' }, { "gauge", no_argument, NULL, 'g' },
	{ "extra-display", required_argument, NULL, 'x' }, { "bar-style", required_argument, NULL, 'u' },
	{ "direct-io", no_argument, NULL, 'K' },	     { "error-skip-block", required_argument, NULL, 'Z' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ncpv pv [OPTION]... [FILE]...\n"
		"Concatenate FILE(s), or standard input, to standard output, showing progress\n"
		"on standard error (a drop-in for pv 1.6; also runs as 'pv' through a symlink).\n\n"
		"Display:\n"
		"  -p, --progress           progress bar          -t, --timer      elapsed time\n"
		"  -e, --eta                time left             -I, --fineta     time of arrival\n"
		"  -r, --rate               current rate          -a, --average-rate  average rate\n"
		"  -b, --bytes              bytes (lines) so far  -T, --buffer-percent  buffer in use\n"
		"  -8, --bits               count bits            -k, --si         powers of 1000\n"
		"  -A, --last-written NUM   last NUM bytes written\n"
		"  -F, --format FORMAT      %%p %%t %%e %%I %%r %%a %%b %%T %%nA %%N %%%% or %%{progress} %%{rate} ...\n"
		"  -n, --numeric            percentages (or -b counts, -t times) one per line\n"
		"  -q, --quiet              no display             -v, --stats      rate summary at the end\n"
		"Modifiers:\n"
		"  -W, --wait               show nothing until the first byte\n"
		"  -D, --delay-start SEC    show nothing for SEC seconds\n"
		"  -s, --size SIZE          expected size (K, M, G, T suffixes; @FILE: FILE's size)\n"
		"  -l, --line-mode          count lines            -0, --null       lines end with NUL\n"
		"  -i, --interval SEC       update every SEC seconds (default 1)\n"
		"  -m, --average-rate-window SEC  average rate over the last SEC seconds\n"
		"  -w, --width N  -H, --height N  -N, --name NAME  -f, --force\n"
		"Transfer:\n"
		"  -L, --rate-limit RATE    at most RATE bytes per second, without bursts\n"
		"  -B, --buffer-size BYTES  read/write buffer size (implies -C)\n"
		"  -C, --no-splice          never use splice(2)  -E, --skip-errors  skip read errors\n"
		"  -S, --stop-at-size       stop after --size    -Y, --sync       fdatasync each write\n"
		"  -X, --discard            write nothing        -o, --output FILE  write to FILE\n"
		"  -P, --pidfile FILE       save the process ID in FILE\n"
		"  -h, --help  -V, --version\n"
		"Not supported (refused by name): -c -d -R -Q -U -g -x -u -K -Z.\n"
		"Exit status: pv's bit mask: 1 pidfile, 2 unreadable input, 4 input is output,\n"
		"8 no input, 16 transfer error, 32 signal, 64 bad option.\n");
}

static int bad(const char *opt, const char *arg, const char *what)
{
	cmd_error("pv", "invalid %s '%s': %s", opt, arg, what);
	return PV_EXIT_USAGE;
}

static int refuse(int c)
{
	for (const struct option *l = longopts; l->name; l++) {
		if (l->val == c && strchr("cdRQUgxuKZ", c)) {
			cmd_error("pv", "option -%c (--%s) is not supported", c, l->name);
			return PV_EXIT_USAGE;
		}
	}
	cmd_error("pv", "option -%c is not supported", c);
	return PV_EXIT_USAGE;
}

static int parse_count(const char *opt, const char *arg, uint64_t *out)
{
	if (units_parse_size(arg, out) < 0)
		return bad(opt, arg, "expected a number such as 4096, 4K, 1.5M");
	return 0;
}

static int parse_int(const char *opt, const char *arg, long min, long max, long *out)
{
	if (units_parse_long(arg, min, max, out) < 0) {
		char why[64];

		snprintf(why, sizeof(why), "expected a whole number from %ld to %ld", min, max);
		return bad(opt, arg, why);
	}
	return 0;
}

static int parse_secs(const char *opt, const char *arg, double min, double *out)
{
	if (units_parse_seconds(arg, out) < 0 || *out < min)
		return bad(opt, arg, min > 0 ? "expected seconds greater than 0" : "expected seconds");
	return 0;
}

/* One option into o; returns 0, or an exit status. */
static int apply(int c, const char *arg, struct pv_opts *o, int *shown)
{
	struct display_opts *d = &o->disp;
	long v;
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
	case '8': d->bits = 1; break;
	case 'k': d->si = 1; break;
	case 'A':
		if ((rc = parse_int("--last-written", arg, 0, DISPLAY_LAST_MAX, &v)) == 0) {
			d->last_written = v < 1 ? 1 : (int)v;
			*shown = o->no_splice = 1;
		}
		break;
	case 'F': {
		char what[64];

		if (strlen(arg) >= DISPLAY_LINE_MAX)
			return bad("--format", "...", "longer than 1023 bytes");
		if (display_check_format(arg, what, sizeof(what)) < 0) {
			cmd_error("pv", "invalid --format sequence '%s'", what);
			return PV_EXIT_USAGE;
		}
		d->format = arg;
		*shown = 1;
		if (display_format_needs_buffer(arg))
			o->no_splice = 1; /* %A and %T need the bytes in our buffer */
		break;
	}
	case 'n': o->numeric = 1; break;
	case 'q': o->quiet = 1; break;
	case 'v': o->stats = 1; break;
	case 'W': o->wait = 1; break;
	case 'D': rc = parse_secs("--delay-start", arg, 0, &o->delay_start); break;
	case 's':
		if (arg[0] == '@') {
			o->size_file = arg + 1;
			o->has_size = 1;
		} else if ((rc = parse_count("--size", arg, &o->size)) == 0) {
			o->has_size = 1;
		}
		break;
	case 'l': o->lines = d->lines = 1; break;
	case '0': o->null = o->lines = d->lines = 1; break;
	case 'i': rc = parse_secs("--interval", arg, 0.001, &o->interval); break;
	case 'm': rc = parse_secs("--average-rate-window", arg, 0.001, &o->avg_window); break;
	case 'w':
		if ((rc = parse_int("--width", arg, 1, 100000, &v)) == 0) {
			d->width = (int)v;
			o->has_width = 1;
		}
		break;
	case 'H':
		if ((rc = parse_int("--height", arg, 1, 100000, &v)) == 0)
			o->height = (int)v;
		break;
	case 'N': d->name = arg; break;
	case 'f': o->force = 1; break;
	case 'L':
		if ((rc = parse_count("--rate-limit", arg, &o->rate_limit)) == 0 && o->rate_limit == 0)
			rc = bad("--rate-limit", arg, "expected a rate greater than 0");
		break;
	case 'B':
		if ((rc = parse_count("--buffer-size", arg, &o->buffer_size)) == 0 &&
		    (o->buffer_size == 0 || o->buffer_size > (1u << 30)))
			rc = bad("--buffer-size", arg, "expected 1 byte to 1G");
		o->no_splice = 1;
		break;
	case 'C': o->no_splice = 1; break;
	case 'E': o->skip_errors++; break;
	case 'S': o->stop_at_size = 1; break;
	case 'Y': o->sync = 1; break;
	case 'X': o->discard = 1; break;
	case 'o': o->output = arg; break;
	case 'P': o->pidfile = arg; break;
	default: return refuse(c);
	}
	return rc;
}

enum cmd_parse pv_parse_options(int argc, char **argv, struct pv_opts *o)
{
	int c, shown = 0;

	memset(o, 0, sizeof(*o));
	o->interval = 1;
	opterr = 0;
	optind = 0; /* 0, not 1: glibc then forgets a previous parse's half-read cluster */
	while ((c = getopt_long(argc, argv, SHORT_OPTS, longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return CMD_PARSE_DONE;
		case 'V':
			printf("ncpv pv %s (pv 1.6.20 compatible)\n", NCPV_VERSION);
			return CMD_PARSE_DONE;
		case ':':
			cmd_missing_argument("pv", optopt, argv[optind - 1]);
			return CMD_PARSE_USAGE;
		case '?':
			cmd_bad_option("pv", optopt, optopt ? NULL : argv[optind - 1]);
			return CMD_PARSE_USAGE;
		default:
			if (apply(c, optarg, o, &shown) != 0)
				return CMD_PARSE_USAGE; /* apply's only failure: pv's status 64 */
		}
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
		if (o->numeric)
			o->disp.bytes = o->disp.timer = 0;
	}
	if (o->output && o->discard) {
		cmd_error("pv", "--output and --discard conflict");
		return CMD_PARSE_USAGE;
	}
	o->files = argv + optind;
	o->nfiles = argc - optind;
	return CMD_PARSE_RUN;
}
