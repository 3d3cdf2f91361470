/* SPDX-License-Identifier: ISC */
/* fuzz_tls_handshake.c - libFuzzer harness for what the TLS module reads from a peer during the
 * handshake: the input, cut into writes by its own bytes, is what a server sends our client
 * (first byte even) or what a client sends our server (odd), over a socketpair; the result must
 * be "wait for more" or a named failure, never success, a crash or a hang. */
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"
#include "../src/tls.h"

static struct tls_ctx *client_ctx, *server_ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct tls_config client = { .insecure = 1 }, server = { 0 };
	char err[256];
	int code;

	(void)argc;
	(void)argv;
	signal(SIGPIPE, SIG_IGN);
	client_ctx = tls_ctx_client(&client, &code, err, sizeof(err));
	server_ctx = tls_ctx_server(&server, &code, err, sizeof(err)); /* self-signed, made once */
	if (client_ctx == NULL || server_ctx == NULL)
		abort();
	return 0;
}

static int settled(int rc)
{
	return rc != TLS_WANT_READ && rc != TLS_WANT_WRITE;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int server = size > 0 && (data[0] & 1), fd[2], rc;
	struct tls_conn *c;
	char err[256];
	size_t off = 1;

	if (size < 1 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fd) < 0)
		return 0;
	c = tls_conn_new(server ? server_ctx : client_ctx, fd[1], "localhost", err, sizeof(err));
	if (c == NULL)
		abort();
	rc = tls_handshake(c, err, sizeof(err)); /* a client sends its hello */
	/* Each piece: one length byte, then up to that many bytes, written and stepped. */
	while (!settled(rc) && off < size) {
		size_t n = data[off++] + 1u;

		if (n > size - off)
			n = size - off;
		if (write(fd[0], data + off, n) != (ssize_t)n)
			break;
		off += n;
		rc = tls_handshake(c, err, sizeof(err));
	}
	if (!settled(rc)) {
		shutdown(fd[0], SHUT_WR); /* and then the peer hangs up */
		rc = tls_handshake(c, err, sizeof(err));
	}
	/* No input can finish a handshake: the client's random is in what must be signed. */
	if (rc == TLS_OK || (!settled(rc) && rc != TLS_WANT_READ) || (settled(rc) && err[0] == '\0'))
		abort();
	tls_conn_free(c);
	close(fd[0]);
	close(fd[1]);
	return 0;
}
