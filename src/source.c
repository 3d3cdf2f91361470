/* SPDX-License-Identifier: ISC */
/* source.c - where sent bytes come from: fresh random data, zeros, a file, or a device. */
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net.h"
#include "version.h"

/* 256 KiB stays in L2 while it is generated and then copied into the
 * socket; bigger pools measured slower (docs/BENCHMARKS.md). */
#define POOL_SIZE ((size_t)256 * 1024)
/* Refill once fewer than this many fresh bytes are left, to avoid tiny sends. */
#define POOL_LOW ((size_t)16 * 1024)
#define LANES 4

struct source {
	enum source_kind kind;
	int fd;
	uint64_t size;
	char name[256]; /* the spec as given, for logs (longer paths are cut) */
	unsigned char *pool;  /* SOURCE_REPEAT: the memfd's block, mapped (size bytes) */
	size_t pos, end;   /* fresh bytes are pool[pos..end) */
	uint64_t rng[4][LANES]; /* four xoshiro256+ states, interleaved for ILP */
};

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* One xoshiro256+ step of lane j: its output word, and the lane's state moved
 * on. Inlined into both loops below (and into each target clone), so the
 * full rounds still run the lanes in vector registers. */
static inline __attribute__((always_inline)) uint64_t rng_step(uint64_t *s0, uint64_t *s1, uint64_t *s2, uint64_t *s3,
							       int j)
{
	uint64_t word = s0[j] + s3[j], t = s1[j] << 17;

	s2[j] ^= s0[j];
	s3[j] ^= s1[j];
	s1[j] ^= s2[j];
	s0[j] ^= s3[j];
	s2[j] ^= t;
	s3[j] = rotl(s3[j], 45);
	return word;
}

/* xoshiro256+ over LANES independent states: 8 bytes per lane per step.
 * Its weak low bits do not matter for filler data; it is not a CSPRNG,
 * only fresh and incompressible. target_clones lets AVX2 machines run the
 * lanes in vector registers. */
#ifdef NCPV_TARGET_CLONES
__attribute__((target_clones("avx2", "default")))
#endif
static void rng_fill_words(uint64_t st[4][LANES], uint64_t *out, size_t nwords)
{
	uint64_t s0[LANES], s1[LANES], s2[LANES], s3[LANES];
	size_t i = 0;

	memcpy(s0, st[0], sizeof(s0));
	memcpy(s1, st[1], sizeof(s1));
	memcpy(s2, st[2], sizeof(s2));
	memcpy(s3, st[3], sizeof(s3));
	for (; i + LANES <= nwords; i += LANES)
		for (int j = 0; j < LANES; j++)
			out[i + j] = rng_step(s0, s1, s2, s3, j);
	for (int j = 0; i < nwords; i++, j++)
		out[i] = rng_step(s0, s1, s2, s3, j);
	memcpy(st[0], s0, sizeof(s0));
	memcpy(st[1], s1, sizeof(s1));
	memcpy(st[2], s2, sizeof(s2));
	memcpy(st[3], s3, sizeof(s3));
}

void source_random_fill(struct source *s, void *buf, size_t len)
{
	uint64_t tail;
	size_t words = len / 8;

	if (((uintptr_t)buf & 7) == 0) {
		rng_fill_words(s->rng, buf, words);
	} else {
		for (size_t i = 0; i < words; i++) {
			rng_fill_words(s->rng, &tail, 1);
			memcpy((char *)buf + i * 8, &tail, 8);
		}
	}
	if (len % 8) {
		rng_fill_words(s->rng, &tail, 1);
		memcpy((char *)buf + words * 8, &tail, len % 8);
	}
}

static int seed(struct source *s)
{
	size_t got = 0;

	while (got < sizeof(s->rng)) {
		ssize_t n = getrandom((char *)s->rng + got, sizeof(s->rng) - got, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		got += (size_t)n;
	}
	/* An all-zero xoshiro state would stay zero. */
	for (int j = 0; j < LANES; j++)
		if ((s->rng[0][j] | s->rng[1][j] | s->rng[2][j] | s->rng[3][j]) == 0)
			s->rng[0][j] = 0x9e3779b97f4a7c15ULL;
	return 0;
}

static struct source *source_fail(struct source *s, char *err, size_t errlen, const char *what,
				  const char *path)
{
	snprintf(err, errlen, "%s '%s': %s", what, path, strerror(errno));
	source_free(s);
	return NULL;
}

struct source *source_open(const char *spec, char *err, size_t errlen)
{
	struct source *s = calloc(1, sizeof(*s));
	const char *path = spec;
	struct stat st;

	if (s == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->fd = -1;
	snprintf(s->name, sizeof(s->name), "%s", spec);
	if (strcmp(spec, "random") == 0) {
		s->kind = SOURCE_RANDOM;
		if (seed(s) < 0)
			return source_fail(s, err, errlen, "cannot seed source", spec);
	} else if (strcmp(spec, "zero") == 0) {
		s->kind = SOURCE_ZERO;
	} else {
		if (strcmp(spec, "urandom") == 0)
			path = "/dev/urandom";
		s->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (s->fd < 0)
			return source_fail(s, err, errlen, "cannot open source", path);
		if (fstat(s->fd, &st) < 0)
			return source_fail(s, err, errlen, "cannot stat source", path);
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			return source_fail(s, err, errlen, "cannot read source", path);
		}
		if (S_ISREG(st.st_mode)) {
			s->kind = SOURCE_FILE;
			s->size = (uint64_t)st.st_size;
			/* Read a byte now so that an unreadable file fails at start, not per client. */
			if (s->size > 0 && pread(s->fd, &(char){ 0 }, 1, 0) < 0)
				return source_fail(s, err, errlen, "cannot read source", path);
			return s;
		}
		s->kind = SOURCE_STREAM;
		/* The open above may wait for a FIFO's writer, as `nc -l <fifo`
		 * does; reads from now on must not: a silent writer would stall
		 * every connection of a server. Our own open, so nobody else's
		 * descriptor (a shell's stdin) changes mode. */
		if (net_set_nonblock(s->fd, 1) < 0)
			return source_fail(s, err, errlen, "cannot set up source", path);
	}
	s->pool = malloc(POOL_SIZE);
	if (s->pool == NULL) {
		snprintf(err, errlen, "out of memory");
		source_free(s);
		return NULL;
	}
	if (s->kind == SOURCE_ZERO) {
		memset(s->pool, 0, POOL_SIZE);
		s->end = POOL_SIZE;
	}
	return s;
}

struct source *source_open_repeat(size_t block, char *err, size_t errlen)
{
	struct source *s = calloc(1, sizeof(*s));
	void *map;

	if (s == NULL || block == 0) {
		snprintf(err, errlen, "%s", s == NULL ? "out of memory" : "an empty block");
		free(s);
		return NULL;
	}
	s->kind = SOURCE_REPEAT;
	snprintf(s->name, sizeof(s->name), "random, a %zu KiB block repeated (-Z)", block / 1024);
	if ((s->fd = memfd_create("ncpv-zerocopy", MFD_CLOEXEC)) < 0)
		return source_fail(s, err, errlen, "cannot make the memory file for", "-Z");
	if (ftruncate(s->fd, (off_t)block) < 0 || seed(s) < 0)
		return source_fail(s, err, errlen, "cannot fill the memory file for", "-Z");
	map = mmap(NULL, block, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (map == MAP_FAILED)
		return source_fail(s, err, errlen, "cannot map the memory file for", "-Z");
	s->pool = map;
	s->size = block;
	source_random_fill(s, s->pool, block);
	return s;
}

void source_free(struct source *s)
{
	if (s == NULL)
		return;
	if (s->fd >= 0)
		close(s->fd);
	if (s->kind == SOURCE_REPEAT && s->pool != NULL)
		munmap(s->pool, s->size);
	else
		free(s->pool);
	free(s);
}

enum source_kind source_kind(const struct source *s)
{
	return s->kind;
}

const char *source_name(const struct source *s)
{
	return s->name;
}

int source_fd(const struct source *s)
{
	return s->kind == SOURCE_REPEAT ? -1 : s->fd;
}

uint64_t source_size(const struct source *s)
{
	return s->size;
}

uint64_t source_size_now(const struct source *s)
{
	struct stat st;

	if (s->kind != SOURCE_FILE || fstat(s->fd, &st) < 0 || st.st_size < 0)
		return s->size;
	return (uint64_t)st.st_size;
}

ssize_t source_peek(struct source *s, size_t max, const void **data)
{
	size_t avail;

	switch (s->kind) {
	case SOURCE_ZERO:
		*data = s->pool;
		return (ssize_t)(max < POOL_SIZE ? max : POOL_SIZE);
	case SOURCE_RANDOM:
		if (s->end - s->pos < POOL_LOW && s->end - s->pos < max) {
			rng_fill_words(s->rng, (uint64_t *)(void *)s->pool, POOL_SIZE / sizeof(uint64_t));
			s->pos = 0;
			s->end = POOL_SIZE;
		}
		break;
	case SOURCE_STREAM:
		if (s->pos == s->end) {
			ssize_t n;

			do
				n = read(s->fd, s->pool, POOL_SIZE);
			while (n < 0 && errno == EINTR);
			if (n <= 0)
				return n;
			s->pos = 0;
			s->end = (size_t)n;
		}
		break;
	case SOURCE_FILE:
		errno = EINVAL;
		return -1;
	case SOURCE_REPEAT:
		s->end = s->size; /* pos wraps in source_consume */
		break;
	}
	avail = s->end - s->pos;
	*data = s->pool + s->pos;
	return (ssize_t)(avail < max ? avail : max);
}

void source_consume(struct source *s, size_t n)
{
	if (s->kind == SOURCE_RANDOM || s->kind == SOURCE_STREAM)
		s->pos += n < s->end - s->pos ? n : s->end - s->pos;
	else if (s->kind == SOURCE_REPEAT)
		s->pos = (s->pos + n % s->size) % s->size;
}

ssize_t source_send(struct source *s, int sock, uint64_t pos, size_t max)
{
	const void *data;
	ssize_t k, n;

	if (s->kind == SOURCE_FILE) {
		off_t off = (off_t)pos;

		return sendfile(sock, s->fd, &off, max);
	}
	if (s->kind == SOURCE_REPEAT) {
		off_t off = (off_t)s->pos;
		size_t left = s->size - s->pos;

		n = sendfile(sock, s->fd, &off, max < left ? max : left);
		if (n > 0)
			source_consume(s, (size_t)n);
		return n;
	}
	k = source_peek(s, max, &data);
	if (k < 0)
		return errno == EAGAIN ? SOURCE_SEND_WAIT : SOURCE_SEND_EREAD;
	if (k == 0)
		return 0;
	n = send(sock, data, (size_t)k, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n > 0)
		source_consume(s, (size_t)n);
	return n;
}
