/* SPDX-License-Identifier: ISC */
/* cookie.h - the server's proof of a client's address: SipHash-2-4 with a per-process key (pure). */
#ifndef NCPV_UDP_COOKIE_H
#define NCPV_UDP_COOKIE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* The cookie changes every this many seconds; one from the previous period is still good. */
#define UDP_COOKIE_PERIOD 30

/* SipHash-2-4 (Aumasson and Bernstein, 2012) of msg under a 16-byte key. */
uint64_t udp_siphash(const uint8_t key[16], const uint8_t *msg, size_t len);

/* The cookie for a client address and port, its test id and a period number (now / PERIOD).
 * Never 0 (0 marks a HELLO). */
uint64_t udp_cookie(const uint8_t key[16], const struct sockaddr *sa, uint32_t test_id, uint64_t period);

/* Whether cookie is the one for sa and test_id in period or the one before. */
int udp_cookie_ok(const uint8_t key[16], const struct sockaddr *sa, uint32_t test_id, uint64_t period,
		  uint64_t cookie);

#endif
