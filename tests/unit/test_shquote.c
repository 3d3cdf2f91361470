/* SPDX-License-Identifier: ISC */
/* test_shquote.c - shq_quote's words read back as exactly the input, by the
 * word-splitting model (shq_split) and by the real /bin/sh, for generated
 * strings: every byte alone, every pair of shell-special bytes, random ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "shquote.h"

static const char specials[] = " \t\n'\"\\$`;|&<>()*?[]{}~=#!%^,.-_:@+";

/* "x QUOTED y" splits into exactly x, s, y. */
static void assert_round_trip(const char *s)
{
	char q[4096], line[4200], buf[4200], *w[8];

	assert_true(shq_quote(s, q, sizeof(q)) < sizeof(q));
	snprintf(line, sizeof(line), "x %s y", q);
	assert_int_equal(shq_split(line, buf, sizeof(buf), w, 8), 3);
	assert_string_equal(w[0], "x");
	assert_string_equal(w[1], s);
	assert_string_equal(w[2], "y");
}

static void test_quote_known_forms(void **state)
{
	char q[64];

	(void)state;
	assert_int_equal(shq_quote("127.0.0.1", q, sizeof(q)), 9);
	assert_string_equal(q, "127.0.0.1");
	shq_quote("", q, sizeof(q));
	assert_string_equal(q, "''");
	shq_quote("a$(touch${IFS}PWNED)b", q, sizeof(q));
	assert_string_equal(q, "'a$(touch${IFS}PWNED)b'");
	shq_quote("it's", q, sizeof(q));
	assert_string_equal(q, "'it'\\''s'");
	shq_quote("a=b", q, sizeof(q));
	assert_string_equal(q, "'a=b'");
	/* Too small: the length needed, and a terminated prefix. */
	assert_int_equal(shq_quote("a b", q, 3), 5);
	assert_string_equal(q, "'a");
}

static void test_every_byte_and_pair_round_trips(void **state)
{
	char s[4];

	(void)state;
	for (int c = 1; c < 256; c++) {
		s[0] = (char)c;
		s[1] = '\0';
		assert_round_trip(s);
	}
	for (const char *a = specials; *a; a++)
		for (const char *b = specials; *b; b++) {
			s[0] = *a, s[1] = *b, s[2] = '\'', s[3] = '\0';
			assert_round_trip(s);
		}
}

/* A fixed-seed xorshift64: the same strings on every run, so a failure reproduces. */
static unsigned next_random(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return (unsigned)(*x >> 32);
}

static void test_random_strings_round_trip(void **state)
{
	uint64_t seed = 12345;
	char s[64];

	(void)state;
	for (int i = 0; i < 20000; i++) {
		size_t n = next_random(&seed) % (sizeof(s) - 1);

		for (size_t k = 0; k < n; k++)
			s[k] = next_random(&seed) % 2 ? specials[next_random(&seed) % (sizeof(specials) - 1)]
						      : (char)(1 + next_random(&seed) % 255);
		s[n] = '\0';
		assert_round_trip(s);
	}
}

static void test_split_refuses_what_sh_would_act_on(void **state)
{
	static const char *const unsafe[] = {
		"a$(b)", "a`b`", "a;b", "a|b", "a&b", "a<b", "a>b", "(a)", "a*", "a?", "[a]", "~a", "a=b",
		"#a", "\"a\"", "'open", "a\\\nb", "a\\", "$x", "a\nb", "{a,b}",
	};
	char buf[64], *w[4];

	(void)state;
	for (size_t i = 0; i < sizeof(unsafe) / sizeof(unsafe[0]); i++)
		assert_int_equal(shq_split(unsafe[i], buf, sizeof(buf), w, 4), -1);
	assert_int_equal(shq_split("  a\t'b c'\\'d  ''", buf, sizeof(buf), w, 4), 3);
	assert_string_equal(w[1], "b c'd");
	assert_string_equal(w[2], "");
	assert_int_equal(shq_split("a b c", buf, sizeof(buf), w, 2), -1);
	assert_int_equal(shq_split("abcdef", buf, 4, w, 2), -1);
}

/* What /bin/sh -c 'printf "%s\0" QUOTED' prints: the word it read. */
static size_t sh_reads(const char *quoted, char *out, size_t len)
{
	char line[4200];
	int pfd[2];
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	snprintf(line, sizeof(line), "printf '%%s' %s", quoted);
	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		execl("/bin/sh", "sh", "-c", line, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	while (n < len && (r = read(pfd[0], out + n, len - n)) > 0)
		n += (size_t)r;
	close(pfd[0]);
	waitpid(pid, NULL, 0);
	return n;
}

/* The model is only worth something if sh agrees: ask the real one. */
static void test_real_sh_reads_back_the_input(void **state)
{
	uint64_t seed = 54321;
	char s[32], q[256], got[256];

	(void)state;
	for (int i = 0; i < 300; i++) {
		size_t n = 1 + next_random(&seed) % (sizeof(s) - 2);

		for (size_t k = 0; k < n; k++)
			s[k] = i < 40 ? specials[(i + k) % (sizeof(specials) - 1)]
				      : specials[next_random(&seed) % (sizeof(specials) - 1)];
		s[n] = '\0';
		if (s[0] == '-')
			s[0] = 'x'; /* printf would take it for an option */
		shq_quote(s, q, sizeof(q));
		assert_int_equal(sh_reads(q, got, sizeof(got)), strlen(s));
		assert_memory_equal(got, s, strlen(s));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quote_known_forms),
		cmocka_unit_test(test_every_byte_and_pair_round_trips),
		cmocka_unit_test(test_random_strings_round_trip),
		cmocka_unit_test(test_split_refuses_what_sh_would_act_on),
		cmocka_unit_test(test_real_sh_reads_back_the_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
