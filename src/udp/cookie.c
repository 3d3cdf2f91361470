/* SPDX-License-Identifier: ISC */
/* cookie.c - SipHash-2-4 written from its paper's description, and the address cookie built on it. */
#include <netinet/in.h>
#include <string.h>

#include "cookie.h"

static uint64_t rotl(uint64_t x, int b)
{
	return x << b | x >> (64 - b);
}

static uint64_t load_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

struct sip {
	uint64_t v0, v1, v2, v3;
};

static void sip_round(struct sip *s)
{
	s->v0 += s->v1;
	s->v1 = rotl(s->v1, 13) ^ s->v0;
	s->v0 = rotl(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = rotl(s->v3, 16) ^ s->v2;
	s->v0 += s->v3;
	s->v3 = rotl(s->v3, 21) ^ s->v0;
	s->v2 += s->v1;
	s->v1 = rotl(s->v1, 17) ^ s->v2;
	s->v2 = rotl(s->v2, 32);
}

static void sip_absorb(struct sip *s, uint64_t m)
{
	s->v3 ^= m;
	sip_round(s);
	sip_round(s);
	s->v0 ^= m;
}

uint64_t udp_siphash(const uint8_t key[16], const uint8_t *msg, size_t len)
{
	uint64_t k0 = load_le(key, 8), k1 = load_le(key + 8, 8);
	struct sip s = { k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull, k0 ^ 0x6c7967656e657261ull,
			 k1 ^ 0x7465646279746573ull };
	size_t whole = len / 8 * 8;

	for (size_t i = 0; i < whole; i += 8)
		sip_absorb(&s, load_le(msg + i, 8));
	sip_absorb(&s, load_le(msg + whole, len - whole) | (uint64_t)(len & 0xff) << 56);
	s.v2 ^= 0xff;
	for (int i = 0; i < 4; i++)
		sip_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

uint64_t udp_cookie(const uint8_t key[16], const struct sockaddr *sa, uint32_t test_id, uint64_t period)
{
	uint8_t msg[40];
	size_t n = 0;
	uint64_t c;

	memset(msg, 0, sizeof(msg));
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

		memcpy(msg, &s6->sin6_addr, 16);
		memcpy(msg + 16, &s6->sin6_port, 2);
		n = 18;
	} else if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;

		memcpy(msg, &s4->sin_addr, 4);
		memcpy(msg + 4, &s4->sin_port, 2);
		n = 6;
	}
	msg[n++] = (uint8_t)sa->sa_family;
	for (int i = 0; i < 4; i++)
		msg[n++] = (uint8_t)(test_id >> (8 * i));
	for (int i = 0; i < 8; i++)
		msg[n++] = (uint8_t)(period >> (8 * i));
	c = udp_siphash(key, msg, n);
	return c ? c : 1;
}

int udp_cookie_ok(const uint8_t key[16], const struct sockaddr *sa, uint32_t test_id, uint64_t period,
		  uint64_t cookie)
{
	return cookie != 0 && (cookie == udp_cookie(key, sa, test_id, period) ||
			       (period > 0 && cookie == udp_cookie(key, sa, test_id, period - 1)));
}
