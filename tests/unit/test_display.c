/* SPDX-License-Identifier: ISC */
/* test_display.c - pv 1.6.20's number formatting, bar layout and numeric lines, as measured. */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "display.h"

static const char *amount(double v, int decimal, const char *suffix)
{
	static char buf[64];

	return display_amount(buf, sizeof(buf), v, decimal, suffix);
}

static void test_amount_byte_boundaries(void **state)
{
	(void)state;
	assert_string_equal(amount(0, 0, "B"), "0.00 B");
	assert_string_equal(amount(1, 0, "B"), "1.00 B");
	assert_string_equal(amount(99, 0, "B"), "99.0 B");
	assert_string_equal(amount(100, 0, "B"), " 100 B");
	assert_string_equal(amount(1000, 0, "B"), "1000 B");
	assert_string_equal(amount(1023, 0, "B"), "1023 B");
	assert_string_equal(amount(1024, 0, "B"), "1.00KiB");
	assert_string_equal(amount(10240, 0, "B"), "10.0KiB");
	assert_string_equal(amount(1017856, 0, "B"), " 994KiB");
	assert_string_equal(amount(1048575, 0, "B"), "1023KiB");
	assert_string_equal(amount(1048576, 0, "B"), "1.00MiB");
	assert_string_equal(amount(1073741824.0, 0, "B"), "1.00GiB");
}

static void test_amount_lines_rates_and_small(void **state)
{
	(void)state;
	assert_string_equal(amount(999, 1, ""), " 999 ");
	assert_string_equal(amount(1000, 1, ""), "1.00k");
	assert_string_equal(amount(1500000, 1, ""), "1.50M");
	assert_string_equal(amount(51.3e6, 1, "/s"), "51.3M/s");
	assert_string_equal(amount(0, 0, "B/s"), "0.00 B/s");
	/* Below one: milli prefixes, with pv's "i" in byte mode. */
	assert_string_equal(amount(1.0 / 1.083, 0, "B/s"), " 945miB/s");
	assert_string_equal(amount(0.5, 1, "/s"), " 500m/s");
}

/* ncpv's own tables round where pv truncates; below 99.9 both print three digits. */
static void test_amount_rounded(void **state)
{
	static char buf[64];

	(void)state;
	assert_string_equal(display_amount_round(buf, sizeof(buf), 99.99e6, 1, "bit/s"), " 100Mbit/s");
	assert_string_equal(amount(99.99e6, 1, "bit/s"), "  99Mbit/s");
	assert_string_equal(display_amount_round(buf, sizeof(buf), 100.6e6, 1, "bit/s"), " 101Mbit/s");
	assert_string_equal(display_amount_round(buf, sizeof(buf), 999.7e6, 1, "bit/s"), "1.00Gbit/s");
	assert_string_equal(display_amount_round(buf, sizeof(buf), 999.4e6, 1, "bit/s"), " 999Mbit/s");
	assert_string_equal(display_amount_round(buf, sizeof(buf), 51.3e6, 1, "bit/s"), "51.3Mbit/s");
	assert_string_equal(display_amount_round(buf, sizeof(buf), 999.7, 1, ""), "1.00k");
	assert_string_equal(display_amount_round(buf, sizeof(buf), 1023.7, 0, "B"), "1.00KiB");
	assert_string_equal(display_amount_round(buf, sizeof(buf), 1000, 0, "B"), "1000 B");
	assert_string_equal(display_amount_round(buf, sizeof(buf), 0, 1, "bit/s"), "0.00 bit/s");
	/* Around the switch to whole numbers: three significant digits, rounded. */
	assert_string_equal(display_amount_round(buf, sizeof(buf), 99.94e6, 1, "bit/s"), "99.9Mbit/s");
	assert_string_equal(display_amount_round(buf, sizeof(buf), 99.95e6, 1, "bit/s"), " 100Mbit/s");
	assert_string_equal(display_amount_round(buf, sizeof(buf), -99.94e6, 1, "bit/s"), "-99.9Mbit/s");
	assert_string_equal(display_amount_round(buf, sizeof(buf), 9.994e6, 1, "bit/s"), "9.99Mbit/s");
}

static void render(struct display *d, uint64_t count, uint64_t size, int final, char *buf, size_t len)
{
	struct display_frame f;

	memset(&f, 0, sizeof(f));
	f.count = count;
	f.size = size;
	f.final = final;
	f.buffer_percent = -1;
	display_line(d, &f, buf, len);
}

static void bar(int width, uint64_t count, uint64_t size, const char *want)
{
	struct display_opts o;
	struct display d;
	char buf[256];

	memset(&o, 0, sizeof(o));
	o.progress = 1;
	o.width = width;
	display_init(&d, &o);
	render(&d, count, size, 1, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_bar_fill_rules(void **state)
{
	(void)state;
	bar(20, 1000, 3000, "[===>          ] 33%");
	bar(20, 1000, 1000, "[============>] 100%");
	bar(30, 1000, 990, "[======================>] 101%");
	bar(30, 1000, 900, "[=======================] 111%");
	bar(8, 1000, 3000, "[> ] 33%");
	bar(7, 1000, 3000, "[>] 33%");
	bar(6, 1000, 3000, "[] 33%");
	bar(5, 1000, 3000, "");
	/* Unknown size: "<=>" after one step, or nothing when it cannot fit. pv 1.10 wants a
	 * column to spare. */
	bar(20, 1000, 0, "[<=>               ]");
	bar(6, 1000, 0, "[<=> ]");
	bar(5, 1000, 0, "");
}

static void test_bounce_moves_only_with_data(void **state)
{
	struct display_opts o;
	struct display d;
	char buf[256];

	(void)state;
	memset(&o, 0, sizeof(o));
	o.progress = 1;
	o.width = 80;
	display_init(&d, &o);
	render(&d, 1, 0, 0, buf, sizeof(buf));
	assert_string_equal(buf, "[ <=>                                                                          ]");
	render(&d, 1, 0, 0, buf, sizeof(buf)); /* no new data: stays */
	assert_int_equal(d.bounce, 2);
	for (int i = 2; i < 60; i++)
		render(&d, (uint64_t)i, 0, 0, buf, sizeof(buf));
	assert_int_equal(d.bounce, 118);
	assert_int_equal(strchr(buf, '<') - buf, 1 + 75 * 82 / 100);
}

static void test_default_line_and_eta_blanking(void **state)
{
	struct display_opts o;
	struct display d;
	struct display_frame f;
	char buf[256];

	(void)state;
	display_defaults(&o);
	display_init(&d, &o);
	memset(&f, 0, sizeof(f));
	f.count = 1000;
	f.size = 500;
	f.elapsed = 0.5;
	f.rate = f.average = 2000;
	f.final = 1;
	display_line(&d, &f, buf, sizeof(buf));
	assert_string_equal(buf, "1000 B 0:00:00 [1.95KiB/s] [==================================] 200%            ");
	assert_int_equal(strlen(buf), 80);
	f.final = 0;
	f.count = 250;
	display_line(&d, &f, buf, sizeof(buf));
	assert_non_null(strstr(buf, "] 50% ETA 0:00:00"));
}

static void test_timer_and_eta_with_days(void **state)
{
	struct display_opts o;
	struct display d;
	struct display_frame f;
	char buf[128];

	(void)state;
	memset(&o, 0, sizeof(o));
	o.timer = o.eta = 1;
	display_init(&d, &o);
	memset(&f, 0, sizeof(f));
	f.elapsed = 90061;
	f.count = 1;
	f.size = 90062;
	f.average = 1;
	display_line(&d, &f, buf, sizeof(buf));
	assert_string_equal(buf, "1:01:01:01 ETA 1:01:01:01");
	f.final = 1;
	display_line(&d, &f, buf, sizeof(buf));
	assert_string_equal(buf, "1:01:01:01               ");
}

static void test_shorter_line_is_padded(void **state)
{
	struct display_opts o;
	struct display d;
	struct display_frame f;
	char buf[64];

	(void)state;
	memset(&o, 0, sizeof(o));
	o.rate = 1;
	display_init(&d, &o);
	memset(&f, 0, sizeof(f));
	f.rate = 1100;
	display_line(&d, &f, buf, sizeof(buf));
	assert_string_equal(buf, "[1.07KiB/s]");
	f.rate = 830;
	display_line(&d, &f, buf, sizeof(buf));
	assert_string_equal(buf, "[ 830 B/s] ");
}

/* Issue 15 item 4: after the terminal shrinks, leftovers are blanked only up to the new width,
 * or every update would wrap onto a second line. */
static void test_padding_stops_at_a_narrower_terminal(void **state)
{
	struct display_opts o;
	struct display d;
	char buf[256];

	(void)state;
	memset(&o, 0, sizeof(o));
	o.progress = 1;
	o.pv110 = 1;
	o.width = 100;
	display_init(&d, &o);
	render(&d, 10, 100, 0, buf, sizeof(buf));
	assert_int_equal(strlen(buf), 100);
	d.o.width = 60;
	render(&d, 20, 100, 0, buf, sizeof(buf));
	assert_int_equal(strlen(buf), 60);
}

static void test_format_sequences(void **state)
{
	struct display_opts o;
	struct display d;
	struct display_frame f;
	char buf[128], bad[32];
	static const unsigned char last[] = "ab\ncd";

	(void)state;
	memset(&o, 0, sizeof(o));
	o.name = "foo";
	o.format = "x%5Ay %% %z %{bytes}|%N|%{buffer-percent}%T %";
	display_init(&d, &o);
	memset(&f, 0, sizeof(f));
	f.count = 2048;
	f.buffer_percent = -1;
	f.last = last;
	f.last_len = 5;
	display_line(&d, &f, buf, sizeof(buf));
	assert_string_equal(buf, "xab.cdy % %z 2.00KiB|      foo:|{----}{----} %");
	assert_int_equal(display_check_format("%{progress} %{rate} %{average-rate} %{eta}", bad, sizeof(bad)), 0);
	/* pv 1.10 shows an unknown sequence as it is written, so no format is refused. */
	assert_int_equal(display_check_format("a %{nope} b %{ %3", bad, sizeof(bad)), 0);
	assert_int_equal(display_format_needs_buffer("%b %t"), 0);
	assert_int_equal(display_format_needs_buffer("%16A"), 1);
}

static const char *numeric(int timer, int bytes, uint64_t count, uint64_t size)
{
	static char buf[64];
	struct display_opts o;
	struct display d;
	struct display_frame f;

	memset(&o, 0, sizeof(o));
	o.timer = timer;
	o.bytes = bytes;
	display_init(&d, &o);
	memset(&f, 0, sizeof(f));
	f.count = count;
	f.size = size;
	f.elapsed = 1.08216;
	display_numeric(&d, &f, buf, sizeof(buf));
	return buf;
}

static void test_numeric_lines(void **state)
{
	(void)state;
	assert_string_equal(numeric(0, 0, 100, 300), "33\n");
	assert_string_equal(numeric(1, 0, 100, 300), "1.0822 33\n");
	assert_string_equal(numeric(0, 1, 100, 300), "100\n");
	assert_string_equal(numeric(1, 1, 100, 300), "1.0822 100\n");
	/* pv 1.10: above 100% the rounded value, no mirror; without a size the bar step. */
	assert_string_equal(numeric(0, 0, 1000, 990), "101\n");
	assert_string_equal(numeric(0, 0, 1000, 10), "10000\n");
	assert_string_equal(numeric(0, 0, 1000, 1), "100000\n");
	assert_string_equal(numeric(0, 0, 1000, 0), "2\n");
}

static void test_percent_and_eta(void **state)
{
	(void)state;
	assert_int_equal(display_percent(1, 3), 33);
	assert_int_equal(display_percent(5, 0), 0);
	assert_int_equal(display_percent(UINT64_MAX / 2, UINT64_MAX / 2), 100);
	assert_int_equal(display_eta_seconds(0, 100, 10), 0);
	assert_int_equal(display_eta_seconds(50, 100, 10), 5);
	assert_int_equal(display_eta_seconds(50, 100, 0.0001), 0);
	/* An ETA too far for a long (pv -s 1000P fed a byte a minute) stays
	 * far and positive instead of wrapping to "ETA 0:00:00". */
	assert_true(display_eta_seconds(1, 1ULL << 62, 0.01) >= DISPLAY_ETA_MAX);
	assert_true(display_eta_seconds(1, 1ULL << 62, 0.01) <= DISPLAY_ETA_MAX);
}

/* The layouts get, nc --progress and pv draw, against every width from 1 to 200 and every
 * state: with fit, no line takes more columns than the terminal; a line that fits anyway is
 * drawn as pv 1.10 draws it; a narrower one keeps the items on the left (pv 1.6's order). */
static void test_line_fits_every_width(void **state)
{
	static const char *const formats[] = {
		NULL, "%N %b %t %r %a %p %e %I %T %5A", "%{sgr:red}%b%{sgr:reset} %p %{progress-bar-only}%p",
		"x %{progress-amount-only} %t %L", "%e %t %r",
	};
	struct display_frame frames[6];
	size_t nframes = 0;
	(void)state;
	for (int kind = 0; kind < 6; kind++) {
		struct display_frame *f = &frames[nframes++];

		memset(f, 0, sizeof(*f));
		f->now = 1700000000;
		f->buffer_percent = -1;
		f->size = 1000000;
		if (kind == 1 || kind == 2) { /* the middle; the last line */
			f->count = 400000, f->elapsed = 3.5, f->rate = f->average = 114285;
			f->final = kind == 2;
		} else if (kind == 3) { /* no size */
			f->size = 0, f->count = 123456789, f->elapsed = 61, f->rate = f->average = 2e6;
		} else if (kind == 4) { /* huge: everything at its widest */
			f->size = UINT64_MAX, f->count = UINT64_MAX / 3, f->elapsed = 4e8;
			f->rate = 1e-3, f->average = 1e21;
		} else if (kind == 5) { /* far past the size */
			f->size = 1, f->count = UINT64_MAX, f->elapsed = 9, f->rate = f->average = 1e18;
		}
	}
	for (size_t fi = 0; fi < sizeof(formats) / sizeof(formats[0]); fi++) {
		for (int pv110 = 0; pv110 < 2; pv110++) {
			for (size_t k = 0; k < nframes; k++) {
				for (int width = 1; width <= 200; width++) {
					struct display_opts o;
					struct display d;
					char wide[DISPLAY_LINE_MAX], line[DISPLAY_LINE_MAX];
					size_t n;

					display_defaults(&o);
					o.format = formats[fi];
					o.name = fi == 0 && width % 2 ? "name" : "a-longer-name";
					o.pv110 = pv110;
					o.width = width;
					display_init(&d, &o);
					n = display_line(&d, &frames[k], wide, sizeof(wide));
					o.fit = width;
					display_init(&d, &o);
					display_line(&d, &frames[k], line, sizeof(line));
					if (display_columns(line, strlen(line)) > (size_t)width ||
					    (display_columns(wide, n) <= (size_t)width && strcmp(line, wide) != 0)) {
						print_error("format %zu pv110 %d frame %zu width %d:\n[%s]\n[%s]\n", fi,
							    pv110, k, width, line, wide);
						fail();
					}
					/* What is left is the start of the full line (but for the colour's reset). */
					if (formats[fi] == NULL || strstr(formats[fi], "sgr") == NULL)
						assert_memory_equal(line, wide, strlen(line));
				}
			}
		}
	}
	/* The narrower of width (pv -w) and fit (the terminal) is the limit. */
	{
		struct display_opts o;
		struct display d;
		char line[DISPLAY_LINE_MAX];

		display_defaults(&o);
		o.width = 30;
		o.fit = 200;
		display_init(&d, &o);
		display_line(&d, &frames[1], line, sizeof(line));
		assert_string_equal(line, " 390KiB 0:00:03 [ 111KiB/s]  ");
		o.width = 200;
		o.fit = 30;
		display_init(&d, &o);
		display_line(&d, &frames[1], line, sizeof(line));
		assert_string_equal(line, " 390KiB 0:00:03 [ 111KiB/s]  ");
	}
}

/* -n lines end with a newline and never wrap over themselves: fit leaves them whole. */
static void test_numeric_lines_ignore_fit(void **state)
{
	struct display_frame f;
	struct display_opts o;
	struct display d;
	char whole[256], fitted[256];
	(void)state;
	memset(&f, 0, sizeof(f));
	f.count = 123456789, f.size = 1000000000, f.elapsed = 12.5, f.rate = 9876543.2;
	display_defaults(&o);
	o.format = "%t %b %r %{progress-amount-only}";
	o.width = 80;
	display_init(&d, &o);
	display_numeric(&d, &f, whole, sizeof(whole));
	o.fit = 5;
	display_init(&d, &o);
	display_numeric(&d, &f, fitted, sizeof(fitted));
	assert_string_equal(fitted, whole);
	assert_true(strlen(whole) > 5);
}

static void test_columns_skip_escapes_and_utf8(void **state)
{
	(void)state;
	assert_int_equal(display_columns("abc", 3), 3);
	assert_int_equal(display_columns("\033[31;1mab\033[m", 12), 2);
	assert_int_equal(display_columns("", 0), 0);
	/* As pv 1.10.5: in the C locale, text that is not ASCII takes a column a byte. */
	assert_int_equal(display_columns("\xe2\x86\x92x", 4), 4);
	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL)
		skip();
	assert_int_equal(display_columns("\xe2\x86\x92x", 4), 2);
	/* Wide characters take two columns, a combining accent none. */
	assert_int_equal(display_columns("\xe6\x97\xa5\xe6\x9c\xac", 6), 4);
	assert_int_equal(display_columns("e\xcc\x81", 3), 1);
	assert_int_equal(display_columns("\033[1m\xe6\x97\xa5\033[m", 10), 2);
	/* Not UTF-8: a column a byte, never fewer than a terminal may give it. */
	assert_int_equal(display_columns("\xff\xe6\x97\xa5", 4), 4);
	setlocale(LC_CTYPE, "C");
}

static void test_wide_name_fits_and_fills(void **state)
{
	/* A -N name of wide characters: the line is exactly the terminal's width with a bar (as
	 * pv 1.10.5 fills it), and never wider without one. A column count of its own. */
	static const char name[] = "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"; /* 3 chars, 6 columns */
	(void)state;
	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL)
		skip();
	for (int width = 1; width <= 120; width++) {
		struct display_opts o;
		struct display d;
		struct display_frame f;
		char line[DISPLAY_LINE_MAX];
		size_t n, cols = 0;

		display_defaults(&o);
		o.name = name;
		o.width = o.fit = width;
		display_init(&d, &o);
		memset(&f, 0, sizeof(f));
		f.size = 1000;
		f.count = 500;
		f.elapsed = 1;
		f.rate = f.average = 500;
		n = display_line(&d, &f, line, sizeof(line));
		for (size_t i = 0; i < n; i++)
			cols += ((unsigned char)line[i] & 0xc0) != 0x80;
		if (strncmp(line, name, strlen(name)) == 0)
			cols += 3; /* the name's three characters are two columns each */
		if (cols > (size_t)width || (strstr(line, "[=") && cols != (size_t)width))
			fail_msg("width %d: %zu columns: '%s'", width, cols, line);
	}
	setlocale(LC_CTYPE, "C");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_amount_byte_boundaries),
		cmocka_unit_test(test_amount_lines_rates_and_small),
		cmocka_unit_test(test_amount_rounded),
		cmocka_unit_test(test_bar_fill_rules),
		cmocka_unit_test(test_bounce_moves_only_with_data),
		cmocka_unit_test(test_default_line_and_eta_blanking),
		cmocka_unit_test(test_timer_and_eta_with_days),
		cmocka_unit_test(test_shorter_line_is_padded),
		cmocka_unit_test(test_padding_stops_at_a_narrower_terminal),
		cmocka_unit_test(test_format_sequences),
		cmocka_unit_test(test_numeric_lines),
		cmocka_unit_test(test_percent_and_eta),
		cmocka_unit_test(test_line_fits_every_width),
		cmocka_unit_test(test_columns_skip_escapes_and_utf8),
		cmocka_unit_test(test_wide_name_fits_and_fills),
		cmocka_unit_test(test_numeric_lines_ignore_fit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
