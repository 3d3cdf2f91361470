/* SPDX-License-Identifier: ISC */
/* test_bench_tput.c - the throughput tests' pure parts: the parsers of ncpv get's
 * JSON, iperf3's --json and iperf2's -y C lines, the option lists, and the summary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "bench/tput.h"
#include "test_random.h"

#define PARSE_IPERF3(text, udp, f) tput_parse_iperf3(text, strlen(text), udp, f, err, sizeof(err))

static void test_iperf3_tcp_takes_the_receiver_sum(void **state)
{
	/* The members iperf3's manual documents for --json, trimmed to what is read. */
	const char *doc = "{\"start\":{\"test_start\":{\"num_streams\":2}},\"end\":{"
			  "\"sum_sent\":{\"seconds\":1.0,\"bytes\":2000,\"bits_per_second\":16000,\"retransmits\":3},"
			  "\"sum_received\":{\"seconds\":2.0,\"bytes\":1000,\"bits_per_second\":4000}}}";
	struct tput_figures f;
	char err[200];

	(void)state;
	assert_int_equal(PARSE_IPERF3(doc, 0, &f), 0);
	assert_true(f.bytes == 1000);
	assert_float_equal(f.bytes_per_s, 500, 1e-9);
	assert_float_equal(f.seconds, 2.0, 1e-9);
}

static void test_iperf3_error_is_said(void **state)
{
	struct tput_figures f;
	char err[200];

	(void)state;
	assert_int_equal(PARSE_IPERF3("{\"start\":{},\"end\":{},\"error\":\"the server is busy\"}", 0, &f), -1);
	assert_non_null(strstr(err, "the server is busy"));
	assert_int_equal(PARSE_IPERF3("iperf3: error - unable to connect", 0, &f), -1);
	assert_non_null(strstr(err, "not JSON"));
	assert_int_equal(PARSE_IPERF3("{\"end\":{}}", 0, &f), -1);
	assert_non_null(strstr(err, "sum_received"));
}

static void test_iperf3_udp_rate_pps_loss_jitter(void **state)
{
	const char *doc = "{\"end\":{"
			  "\"sum\":{\"jitter_ms\":0.5,\"lost_packets\":25,\"packets\":100,\"lost_percent\":25},"
			  "\"sum_sent\":{\"seconds\":2,\"bytes\":140000,\"bits_per_second\":560000,\"packets\":100},"
			  "\"sum_received\":{\"seconds\":2.5,\"bytes\":105000,\"packets\":100}}}";
	struct tput_figures f;
	char err[200];

	(void)state;
	assert_int_equal(PARSE_IPERF3(doc, 1, &f), 0);
	assert_float_equal(f.bytes_per_s, 70000, 1e-9);
	assert_true(f.bytes == 140000);
	assert_float_equal(f.sent_pps, 50, 1e-9);
	assert_float_equal(f.received_pps, 30, 1e-9); /* (100 - 25) / 2.5 */
	assert_float_equal(f.loss_percent, 25, 1e-9);
	assert_float_equal(f.jitter_s, 0.0005, 1e-12);
}

static void test_iperf2_sums_the_streams_final_lines(void **state)
{
	const char *csv = "20260101000000,127.0.0.1,40000,127.0.0.1,5001,3,1.0-2.0,999,999\n"
			  "20260101000000,127.0.0.1,40000,127.0.0.1,5001,3,0.0-2.0,1000,4000\n"
			  "20260101000000,127.0.0.1,40002,127.0.0.1,5001,4,0.0-2.5,3000,9600\n";
	struct tput_figures f;
	char err[200];

	(void)state;
	assert_int_equal(tput_parse_iperf2(csv, strlen(csv), 0, 0, NULL, &f, err, sizeof(err)), 0);
	assert_true(f.bytes == 4000);
	assert_float_equal(f.bytes_per_s, 13600 / 8.0, 1e-9);
	/* The time the added-up rate stands for (iperf -R -P 2 prints no sum line, each stream's
	 * interval in tenths), not the longest interval's 2.5. */
	assert_float_equal(f.seconds, 4000 * 8 / 13600.0, 1e-9);
}

static void test_iperf2_sum_line_wins(void **state)
{
	const char *csv = "t,127.0.0.1,40000,127.0.0.1,5001,3,0.0-2.0,1000,4000\n"
			  "t,127.0.0.1,40002,127.0.0.1,5001,4,0.0-2.0,3000,12000\n"
			  "t,127.0.0.1,0,127.0.0.1,5001,-1,0.0-2.0,4000,16000\n";
	struct tput_figures f;
	char err[200];

	(void)state;
	assert_int_equal(tput_parse_iperf2(csv, strlen(csv), 0, 0, NULL, &f, err, sizeof(err)), 0);
	assert_true(f.bytes == 4000);
	assert_float_equal(f.bytes_per_s, 2000, 1e-9);
	assert_float_equal(f.seconds, 2.0, 1e-9);
	assert_int_equal(tput_parse_iperf2("", 0, 0, 0, NULL, &f, err, sizeof(err)), -1);
	assert_int_equal(tput_parse_iperf2("connect failed: refused\n", 24, 0, 0, NULL, &f, err, sizeof(err)), -1);
	/* A run that moved nothing in no time (iperf2 -R -P 1 prints this) is no report. */
	assert_int_equal(tput_parse_iperf2("t,a,1,b,2,1,0.0-0.0,0,0\n", 24, 0, 0, NULL, &f, err, sizeof(err)), -1);
}

/* The interval's tenths are not the run's time: one report's seconds are its bytes over its
 * rate (iperf -R -P 2 -t 1 printed 0.0-1.1 with a rate taken over 1.039 s), -P's sum line too. */
static void test_iperf2_seconds_from_its_own_rate(void **state)
{
	const char *one = "t,127.0.0.1,40000,127.0.0.1,5001,3,0.0-1.1,1472331776,11337000000\n";
	const char *sum = "t,127.0.0.1,40000,127.0.0.1,5001,3,0.0-1.1,700000000,5000000000\n"
			  "t,127.0.0.1,40002,127.0.0.1,5001,4,0.0-1.1,772331776,6337000000\n"
			  "t,127.0.0.1,0,127.0.0.1,5001,-1,0.0-1.1,1472331776,11337000000\n";
	struct tput_figures f;
	char err[200];

	(void)state;
	assert_int_equal(tput_parse_iperf2(one, strlen(one), 0, 0, NULL, &f, err, sizeof(err)), 0);
	assert_float_equal(f.seconds, 1472331776 * 8.0 / 11337000000, 1e-9);
	assert_float_equal((double)f.bytes / f.seconds, f.bytes_per_s, 1e-3);
	assert_int_equal(tput_parse_iperf2(sum, strlen(sum), 0, 0, NULL, &f, err, sizeof(err)), 0);
	assert_float_equal(f.seconds, 1472331776 * 8.0 / 11337000000, 1e-9);
}

/* Random streams with a printed seed: the parser's totals are the sums. */
static void test_iperf2_random_streams_add_up(void **state)
{
	unsigned seed = (unsigned)time(NULL);

	(void)state;
	printf("# test_iperf2_random_streams_add_up seed %u\n", seed);
	test_seed(seed);
	for (int round = 0; round < 200; round++) {
		char csv[4096];
		size_t n = 0;
		int streams = 1 + test_rand() % 8;
		double bytes = 0, bps = 0;
		struct tput_figures f;
		char err[200];

		for (int s = 0; s < streams; s++) {
			long b = test_rand() % 1000000000, r = test_rand() % 100000000;

			bytes += (double)b;
			bps += (double)r;
			n += (size_t)snprintf(csv + n, sizeof(csv) - n, "t,127.0.0.1,%d,127.0.0.1,5001,%d,0.0-1.0,%ld,%ld\n",
					      40000 + s, s + 1, b, r);
		}
		assert_int_equal(tput_parse_iperf2(csv, n, 0, 0, NULL, &f, err, sizeof(err)), 0);
		assert_float_equal((double)f.bytes, bytes, 0.5);
		assert_float_equal(f.bytes_per_s * 8, bps, 1e-3);
	}
}

static void test_iperf2_udp_takes_its_server_line(void **state)
{
	const char *client = "t,127.0.0.1,41234,127.0.0.1,5001,1,0.0-2.0,14000,56000,0.000,0,-1,-0.000,0\n";
	/* Another client's line (a later port) after this one's must not be taken. */
	const char *server = "t,127.0.0.1,41234,127.0.0.1,5001,1,0.0-2.0,12600,50400,0.250,1,10,10.000,0\n"
			     "t,127.0.0.1,49999,127.0.0.1,5001,1,0.0-2.0,1,1,0.9,0,1,0.0,0\n";
	struct tput_figures f;
	char err[200];

	(void)state;
	assert_int_equal(tput_parse_iperf2(client, strlen(client), 1, 1400, server, &f, err, sizeof(err)), 0);
	assert_float_equal(f.bytes_per_s, 7000, 1e-9);
	assert_float_equal(f.sent_pps, 5, 1e-9); /* 14000 / 1400 / 2 */
	assert_float_equal(f.jitter_s, 0.00025, 1e-12);
	assert_float_equal(f.loss_percent, 10, 1e-9);
	assert_float_equal(f.received_pps, 4.5, 1e-9); /* (10 - 1) / 2 */
	/* No line of its port yet: loss and jitter unknown, the sender's figures kept. */
	assert_int_equal(tput_parse_iperf2(client, strlen(client), 1, 1400, "", &f, err, sizeof(err)), 0);
	assert_true(f.loss_percent < 0 && f.jitter_s < 0 && f.sent_pps > 0);
}

static void test_ncpv_outputs(void **state)
{
	const char *get = "{\"direction\":\"receive\",\"bytes\":5000,\"seconds\":2.0,\"rate\":2500,\"streams\":[]}";
	const char *udp = "{\"event\":\"interval\",\"sent_bps\":1}\n"
			  "{\"event\":\"summary\",\"seconds\":1.0,\"sent_bytes\":1400,\"sent_bps\":11200,"
			  "\"sent_pps\":1.0,\"received_pps\":1.0,\"loss_percent\":0.0,\"jitter_ms\":0.002}\n";
	struct tput_figures f;
	char err[200];

	(void)state;
	assert_int_equal(tput_parse_ncpv_streams(get, strlen(get), &f, err, sizeof(err)), 0);
	assert_float_equal(f.bytes_per_s, 2500, 1e-9);
	assert_true(f.bytes == 5000);
	assert_int_equal(tput_parse_ncpv_udp(udp, strlen(udp), &f, err, sizeof(err)), 0);
	assert_float_equal(f.bytes_per_s, 1400, 1e-9);
	assert_float_equal(f.jitter_s, 2e-6, 1e-12);
	assert_float_equal(f.loss_percent, 0, 1e-12);
	assert_int_equal(tput_parse_ncpv_udp(udp, 30, &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no summary"));
}

static void test_option_lists(void **state)
{
	struct tput_opts o = { 0 };

	(void)state;
	assert_int_equal(tput_parse_streams("1,2,4", &o), 0);
	assert_int_equal((int)o.nstreams, 3);
	assert_int_equal(o.streams[2], 4);
	assert_int_equal(tput_parse_streams("0", &o), -1);
	assert_int_equal(tput_parse_streams("129", &o), -1);
	assert_int_equal(tput_parse_streams("1,2,3,4,5,6,7,8,9", &o), -1);
	assert_int_equal(tput_parse_streams("", &o), -1);
	/* Empty items are errors wherever they are. */
	assert_int_equal(tput_parse_streams("1,,2", &o), -1);
	assert_int_equal(tput_parse_streams("1,", &o), -1);
	assert_int_equal(tput_parse_streams(",1", &o), -1);
	assert_int_equal(tput_parse_streams(",", &o), -1);
	assert_int_equal(tput_parse_rates("10M,,1G", &o), -1);
	assert_int_equal(tput_parse_rates("10M,1G,0", &o), 0);
	assert_float_equal(o.rates[0], 1e7, 1e-3);
	assert_float_equal(o.rates[1], 1e9, 1e-3);
	assert_float_equal(o.rates[2], 0, 0);
	assert_int_equal(tput_parse_rates("fast", &o), -1);
	assert_int_equal(tput_parse_lengths("36,65507", &o), 0);
	assert_int_equal(tput_parse_lengths("35", &o), -1);
	assert_int_equal(tput_parse_lengths("65508", &o), -1);
}

static void test_summary_medians_ratio_accuracy(void **state)
{
	struct tput_run ncpv_runs[3] = { 0 }, other_runs[3] = { 0 };
	struct tput_row rows[2] = { 0 };
	struct tput_results r = { .rows = rows, .n = 2 };
	const double ncpv_rate[3] = { 300, 100, 200 }, other_rate[3] = { 50, 150, 100 };

	(void)state;
	for (int k = 0; k < 3; k++) {
		ncpv_runs[k] = (struct tput_run){ .ok = 1, .cpu_s = 2, .f = { .bytes = 1ull << 30, .bytes_per_s = ncpv_rate[k],
							       .sent_pps = -1, .received_pps = -1, .loss_percent = k,
							       .jitter_s = -1 } };
		other_runs[k] = (struct tput_run){ .ok = k != 2, .cpu_s = 1, .f = { .bytes = 1ull << 29,
							       .bytes_per_s = other_rate[k] } };
	}
	rows[0] = (struct tput_row){ .test = TPUT_UDP, .method = TPUT_NCPV, .rate_bits = 1600, .length = 64,
				     .runs = ncpv_runs, .nruns = 3 };
	rows[1] = (struct tput_row){ .test = TPUT_UDP, .method = TPUT_IPERF3, .rate_bits = 1600, .length = 64,
				     .runs = other_runs, .nruns = 3 };
	tput_summarize(&r);
	assert_float_equal(rows[0].median, 200, 1e-9);
	assert_float_equal(rows[0].min, 100, 1e-9);
	assert_float_equal(rows[0].max, 300, 1e-9);
	assert_float_equal(rows[0].cpu_per_gib_s, 2, 1e-9);
	assert_float_equal(rows[0].accuracy, 1.0, 1e-9); /* 200 B/s = 1600 bit/s */
	assert_float_equal(rows[0].loss_percent, 1, 1e-9);
	assert_true(rows[0].jitter_s < 0);
	assert_float_equal(rows[0].ratio, 1.0, 1e-9);
	/* The failed run is left out: median of 50 and 150. */
	assert_int_equal((int)rows[1].ok_runs, 2);
	assert_float_equal(rows[1].median, 100, 1e-9);
	assert_float_equal(rows[1].ratio, 0.5, 1e-9);
	assert_float_equal(rows[1].cpu_per_gib_s, 2, 1e-9);
	assert_int_equal(tput_failed(&r), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_iperf3_tcp_takes_the_receiver_sum),
		cmocka_unit_test(test_iperf3_error_is_said),
		cmocka_unit_test(test_iperf3_udp_rate_pps_loss_jitter),
		cmocka_unit_test(test_iperf2_sums_the_streams_final_lines),
		cmocka_unit_test(test_iperf2_sum_line_wins),
		cmocka_unit_test(test_iperf2_seconds_from_its_own_rate),
		cmocka_unit_test(test_iperf2_random_streams_add_up),
		cmocka_unit_test(test_iperf2_udp_takes_its_server_line),
		cmocka_unit_test(test_ncpv_outputs),
		cmocka_unit_test(test_option_lists),
		cmocka_unit_test(test_summary_medians_ratio_accuracy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
