/* SPDX-License-Identifier: ISC */
/* tcp_pair.h - a connected TCP pair on loopback for unit tests (blocking; fails the test). */
#ifndef NCPV_TEST_TCP_PAIR_H
#define NCPV_TEST_TCP_PAIR_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

/* fds[0] the connecting end, fds[1] the accepted one. */
static inline void tcp_pair(int fds[2])
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(l >= 0);
	assert_int_equal(bind(l, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&sin, &len), 0);
	fds[0] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fds[0] >= 0);
	assert_int_equal(connect(fds[0], (struct sockaddr *)&sin, sizeof(sin)), 0);
	fds[1] = accept(l, NULL, NULL);
	assert_true(fds[1] >= 0);
	close(l);
}

#endif
