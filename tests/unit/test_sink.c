/* SPDX-License-Identifier: ISC */
/* test_sink.c - the sink without a command: every output kind gets the bytes exactly, and an
 * output FILE changes only at sink_commit (sink_free alone leaves it as it was). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "sink.h"

#define PAYLOAD 300001 /* odd, and more than a socket buffer holds */

static char dir[64];

static void fill(char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (char)((i * 2654435761u + seed) >> 13);
}

/* Feed n bytes through a socketpair into k, the writer side in a child, and
 * return what sink_recv counted. */
static uint64_t pump(struct sink *k, const char *data, size_t n)
{
	int sv[2];
	uint64_t total = 0;
	pid_t pid;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(sv[0]);
		fcntl(sv[1], F_SETFL, 0);
		for (size_t off = 0; off < n;) {
			ssize_t w = write(sv[1], data + off, n - off);

			if (w <= 0)
				_exit(1);
			off += (size_t)w;
		}
		_exit(0);
	}
	close(sv[1]);
	assert_int_equal(sink_connected(k, sv[0]), 0);
	for (int spins = 0; spins < 10000000; spins++) {
		ssize_t r = sink_recv(k, 1u << 20);

		if (r == 0)
			break;
		if (r > 0)
			total += (uint64_t)r;
		else
			assert_true(errno == EAGAIN || errno == EINTR);
	}
	close(sv[0]);
	waitpid(pid, NULL, 0);
	return total;
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *p = malloc(PAYLOAD + 64);
	size_t got;

	assert_non_null(f);
	got = fread(p, 1, PAYLOAD + 64, f);
	fclose(f);
	*n = got;
	return p;
}

/* Files in dir other than "out": a temporary file left behind would show here. */
static int strays(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && strcmp(e->d_name, "out") != 0)
			n++;
	closedir(d);
	return n;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/ncpv-sink.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char path[96];

	(void)state;
	snprintf(path, sizeof(path), "%s/out", dir);
	unlink(path);
	return rmdir(dir);
}

static void test_discard_counts_every_byte(void **state)
{
	char err[256], *data = malloc(PAYLOAD);
	struct sink *k = sink_open(NULL, NULL, err, sizeof(err));

	(void)state;
	fill(data, PAYLOAD, 1);
	assert_non_null(k);
	assert_int_equal(pump(k, data, PAYLOAD), PAYLOAD);
	assert_int_equal(sink_commit(k), 0);
	sink_free(k);
	free(data);
}

static void test_file_replaced_only_at_commit(void **state)
{
	char err[256], path[96], *data = malloc(PAYLOAD), *got;
	struct sink *k;
	struct stat sb;
	size_t n;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/out", dir);
	f = fopen(path, "w");
	fputs("old\n", f);
	fclose(f);
	chmod(path, 0604);
	fill(data, PAYLOAD, 2);

	/* A transfer that is not committed: FILE keeps its bytes, no stray file. */
	k = sink_open(path, NULL, err, sizeof(err));
	assert_non_null(k);
	assert_int_equal(pump(k, data, PAYLOAD), PAYLOAD);
	sink_free(k);
	got = slurp(path, &n);
	assert_int_equal(n, 4);
	assert_memory_equal(got, "old\n", 4);
	free(got);
	assert_int_equal(strays(), 0);

	/* A committed one: FILE is exactly the bytes, with its old mode. */
	k = sink_open(path, NULL, err, sizeof(err));
	assert_non_null(k);
	assert_int_equal(pump(k, data, PAYLOAD), PAYLOAD);
	assert_int_equal(sink_commit(k), 0);
	sink_free(k);
	got = slurp(path, &n);
	assert_int_equal(n, PAYLOAD);
	assert_memory_equal(got, data, PAYLOAD);
	free(got);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0604);
	assert_int_equal(strays(), 0);
	free(data);
}

static void test_open_names_the_output(void **state)
{
	char err[256], path[96];

	(void)state;
	snprintf(path, sizeof(path), "%s/missing/x", dir);
	assert_null(sink_open(path, NULL, err, sizeof(err)));
	assert_non_null(strstr(err, "cannot open output '"));
	assert_non_null(strstr(err, "No such file or directory"));
	assert_null(sink_open(dir, NULL, err, sizeof(err)));
	assert_non_null(strstr(err, "Is a directory"));
}

/* A stdout that is a non-blocking socket read slowly (get -o - under inetd, say) takes the
 * writes in pieces: every piece goes out in order, the bytes exact. */
static void test_copy_to_a_slow_socket_keeps_every_byte(void **state)
{
	char *data = malloc(PAYLOAD), err[256];
	int so[2], saved = dup(STDOUT_FILENO), st = 0;
	struct sink *k;
	uint64_t total;
	pid_t reader;

	(void)state;
	assert_non_null(data);
	fill(data, PAYLOAD, 7);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, so), 0);
	reader = fork();
	assert_true(reader >= 0);
	if (reader == 0) {
		char buf[4096];
		size_t at = 0;
		ssize_t r;

		close(so[0]);
		while ((r = read(so[1], buf, sizeof(buf))) > 0) {
			if (at + (size_t)r > PAYLOAD || memcmp(buf, data + at, (size_t)r) != 0)
				_exit(2);
			at += (size_t)r;
			usleep(200);
		}
		_exit(at == PAYLOAD ? 0 : 1);
	}
	close(so[1]);
	assert_int_equal(fcntl(so[0], F_SETFL, O_NONBLOCK), 0);
	assert_true(dup2(so[0], STDOUT_FILENO) == STDOUT_FILENO);
	close(so[0]);
	k = sink_open("-", NULL, err, sizeof(err));
	assert_non_null(k);
	total = pump(k, data, PAYLOAD);
	sink_free(k);
	assert_true(dup2(saved, STDOUT_FILENO) == STDOUT_FILENO);
	close(saved);
	assert_int_equal(waitpid(reader, &st, 0), reader);
	assert_int_equal(total, PAYLOAD);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_discard_counts_every_byte),
		cmocka_unit_test(test_file_replaced_only_at_commit),
		cmocka_unit_test(test_open_names_the_output),
		cmocka_unit_test(test_copy_to_a_slow_socket_keeps_every_byte),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
