/* SPDX-License-Identifier: ISC */
/* test_transfer.c - the one summary writer get, get --count, nc and serve share: each shape's
 * JSON members and text, exactly as the commands printed them before they shared it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "json.h"
#include "transfer.h"

static const char *members(const struct transfer *t, enum transfer_shape shape, char *buf, size_t len)
{
	struct json j;

	json_init(&j, buf, len);
	json_object(&j, NULL);
	transfer_json(&j, t, shape);
	json_end(&j);
	return json_text(&j);
}

static void test_json_shapes(void **state)
{
	struct transfer t = { .sent = 1000, .wire = 950, .acked = 900, .received = 3000, .seconds = 2.0, .transfers = 5 };
	struct transfer one = { .received = 4096, .seconds = 0.5 };
	char buf[512];

	(void)state;
	assert_string_equal(members(&one, TRANSFER_ONE_WAY, buf, sizeof(buf)),
			    "{\"bytes\":4096,\"seconds\":0.500000,\"rate\":8192}");
	assert_string_equal(members(&t, TRANSFER_BATCH, buf, sizeof(buf)),
			    "{\"bytes\":4000,\"seconds\":2.000000,\"transfers_per_s\":2.5,\"rate\":2000}");
	assert_string_equal(members(&t, TRANSFER_CONNECTION, buf, sizeof(buf)),
			    "{\"sent\":1000,\"wire\":950,\"acked\":900,\"received\":3000,\"seconds\":2.000000,\"rate\":1975}");
	assert_string_equal(members(&t, TRANSFER_TWO_WAY, buf, sizeof(buf)),
			    "{\"sent\":1000,\"received\":3000,\"bytes\":4000,\"seconds\":2.000000,\"rate\":2000}");
}

/* No time passed: every rate is 0, never a division by zero (inf or NaN would not be JSON). */
static void test_no_time_no_rate(void **state)
{
	struct transfer t = { .sent = 10, .received = 20, .seconds = 0, .transfers = 3 };
	char buf[512];

	(void)state;
	assert_true(transfer_rate(&t) == 0);
	assert_string_equal(members(&t, TRANSFER_BATCH, buf, sizeof(buf)),
			    "{\"bytes\":30,\"seconds\":0.000000,\"transfers_per_s\":0.0,\"rate\":0}");
	assert_string_equal(transfer_text(buf, sizeof(buf), &t, TRANSFER_CONNECTION),
			    "sent 10 B, received 20 B in 0.000 s (0 B/s)");
}

static void test_text_shapes(void **state)
{
	struct transfer one = { .received = 1048576, .seconds = 2.0 };
	struct transfer batch = { .received = 2048, .seconds = 0.25, .transfers = 2 };
	struct transfer conn = { .sent = 5, .wire = 5, .received = 7, .seconds = 1.5 };
	char buf[512];

	(void)state;
	assert_string_equal(transfer_text(buf, sizeof(buf), &one, TRANSFER_ONE_WAY),
			    "1048576 B (1.00MiB) in 2.000 s = 512KiB/s (4.2 Mbit/s)");
	assert_string_equal(transfer_text(buf, sizeof(buf), &batch, TRANSFER_BATCH),
			    "in 0.250 s = 8 transfers/s, 2.00KiB (8.00KiB/s)");
	assert_string_equal(transfer_text(buf, sizeof(buf), &conn, TRANSFER_CONNECTION),
			    "sent 5 B, received 7 B in 1.500 s (8 B/s)");
	assert_string_equal(transfer_text(buf, 12, &conn, TRANSFER_TWO_WAY), "sent 5 B, r");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_shapes),
		cmocka_unit_test(test_no_time_no_rate),
		cmocka_unit_test(test_text_shapes),
	};

	return cmocka_run_group_tests_name("transfer", tests, NULL, NULL);
}
