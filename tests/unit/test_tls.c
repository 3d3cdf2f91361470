/* SPDX-License-Identifier: ISC */
/* test_tls.c - the TLS module over socketpairs: handshakes, each verify failure, pins, data both ways. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "clock.h"
#include "tls.h"
#include "tls_cert.h"

#ifndef NCPV_NO_TLS
#include <openssl/rand.h>

/* Fixture files in a scratch directory: a CA, a leaf it signed for localhost and
 * 127.0.0.1, an expired leaf, and a second CA that signed nothing we serve. */
static char dir[] = "/tmp/ncpv-tls-XXXXXX";
static char ca_pem[64], other_ca_pem[64], leaf_pem[64], expired_pem[64], self_pem[64];
static char self_fp[96];

static void write_fixture(char *path, size_t len, const char *name, X509 *cert, EVP_PKEY *key)
{
	snprintf(path, len, "%s/%s", dir, name);
	assert_int_equal(tls_cert_write_pem(path, cert, key), 0);
}

static int make_fixtures(void **state)
{
	struct tls_cert_spec ca_spec = { "ncpv test CA", -3600, 86400, 1 };
	struct tls_cert_spec leaf_spec = { "localhost,127.0.0.1", -3600, 86400, 0 };
	struct tls_cert_spec expired_spec = { "localhost,127.0.0.1", -7200, -3600, 0 };
	X509 *ca, *other, *leaf;
	EVP_PKEY *ca_key, *other_key, *leaf_key;
	char err[256];

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	if (mkdtemp(dir) == NULL)
		return -1;
	assert_int_equal(tls_cert_make(&ca_spec, NULL, NULL, &ca, &ca_key, err, sizeof(err)), 0);
	assert_int_equal(tls_cert_make(&ca_spec, NULL, NULL, &other, &other_key, err, sizeof(err)), 0);
	write_fixture(ca_pem, sizeof(ca_pem), "ca.pem", ca, NULL);
	write_fixture(other_ca_pem, sizeof(other_ca_pem), "other.pem", other, NULL);
	assert_int_equal(tls_cert_make(&leaf_spec, ca, ca_key, &leaf, &leaf_key, err, sizeof(err)), 0);
	write_fixture(leaf_pem, sizeof(leaf_pem), "leaf.pem", leaf, leaf_key);
	X509_free(leaf);
	EVP_PKEY_free(leaf_key);
	assert_int_equal(tls_cert_make(&expired_spec, ca, ca_key, &leaf, &leaf_key, err, sizeof(err)), 0);
	write_fixture(expired_pem, sizeof(expired_pem), "expired.pem", leaf, leaf_key);
	X509_free(leaf);
	EVP_PKEY_free(leaf_key);
	assert_int_equal(tls_cert_make(&leaf_spec, NULL, NULL, &leaf, &leaf_key, err, sizeof(err)), 0);
	write_fixture(self_pem, sizeof(self_pem), "self.pem", leaf, leaf_key);
	assert_int_equal(tls_cert_fingerprint(leaf, self_fp, sizeof(self_fp)), 0);
	X509_free(leaf);
	EVP_PKEY_free(leaf_key);
	X509_free(ca);
	X509_free(other);
	EVP_PKEY_free(ca_key);
	EVP_PKEY_free(other_key);
	return 0;
}

static int remove_fixtures(void **state)
{
	const char *files[] = { ca_pem, other_ca_pem, leaf_pem, expired_pem, self_pem };

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlink(files[i]);
	rmdir(dir);
	return 0;
}

/* A client and a server on the two ends of a non-blocking socketpair. */
struct pair {
	int fd[2];
	struct tls_ctx *sctx, *cctx;
	struct tls_conn *server, *client;
	int srv_rc, cli_rc;
	char serr[256], cerr[256];
};

static void pair_open(struct pair *p, const struct tls_config *scfg, const struct tls_config *ccfg,
		      const char *name)
{
	int code;

	memset(p, 0, sizeof(*p));
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, p->fd), 0);
	p->sctx = tls_ctx_server(scfg, &code, p->serr, sizeof(p->serr));
	assert_non_null(p->sctx);
	p->cctx = tls_ctx_client(ccfg, &code, p->cerr, sizeof(p->cerr));
	assert_non_null(p->cctx);
	p->server = tls_conn_new(p->sctx, p->fd[0], NULL, p->serr, sizeof(p->serr));
	p->client = tls_conn_new(p->cctx, p->fd[1], name, p->cerr, sizeof(p->cerr));
	assert_non_null(p->server);
	assert_non_null(p->client);
}

static int wants(int rc)
{
	return rc == TLS_WANT_READ || rc == TLS_WANT_WRITE;
}

/* Step both handshakes until neither wants more; bounded, since a failed side stops. */
static void pair_handshake(struct pair *p)
{
	p->srv_rc = p->cli_rc = TLS_WANT_READ;
	for (int i = 0; i < 1000 && (wants(p->srv_rc) || wants(p->cli_rc)); i++) {
		if (wants(p->cli_rc))
			p->cli_rc = tls_handshake(p->client, p->cerr, sizeof(p->cerr));
		if (wants(p->srv_rc))
			p->srv_rc = tls_handshake(p->server, p->serr, sizeof(p->serr));
		/* A side that failed has sent its alert; the other one only waits on. */
		if (!wants(p->cli_rc) && p->cli_rc != TLS_OK && i > 10)
			break;
		if (!wants(p->srv_rc) && p->srv_rc != TLS_OK && i > 10)
			break;
	}
}

static void pair_close(struct pair *p)
{
	tls_conn_free(p->server);
	tls_conn_free(p->client);
	tls_ctx_free(p->sctx);
	tls_ctx_free(p->cctx);
	close(p->fd[0]);
	close(p->fd[1]);
}

static const struct tls_config ca_signed = { .cert_file = NULL, .key_file = NULL };

/* Handshake against the CA-signed leaf (or cert) with client cfg; returns the client's result. */
static int client_result(const char *cert, const struct tls_config *ccfg, const char *name,
			 char *msg, size_t msglen)
{
	struct tls_config scfg = ca_signed;
	struct pair p;
	int rc;

	scfg.cert_file = cert;
	pair_open(&p, &scfg, ccfg, name);
	pair_handshake(&p);
	rc = p.cli_rc;
	snprintf(msg, msglen, "%s", p.cerr);
	pair_close(&p);
	return rc;
}

static void test_verified_handshake_by_name_and_ip(void **state)
{
	struct tls_config c = { .ca_file = ca_pem };
	char msg[256];

	(void)state;
	assert_int_equal(client_result(leaf_pem, &c, "localhost", msg, sizeof(msg)), TLS_OK);
	assert_int_equal(client_result(leaf_pem, &c, "127.0.0.1", msg, sizeof(msg)), TLS_OK);
}

static void test_each_verify_failure_is_named(void **state)
{
	struct tls_config trusted = { .ca_file = ca_pem }, other = { .ca_file = other_ca_pem };
	char msg[256];

	(void)state;
	assert_int_equal(client_result(leaf_pem, &trusted, "other.example", msg, sizeof(msg)), TLS_EHOST);
	assert_non_null(strstr(msg, "wrong host"));
	assert_non_null(strstr(msg, "other.example"));
	assert_int_equal(client_result(leaf_pem, &trusted, "127.0.0.2", msg, sizeof(msg)), TLS_EHOST);
	assert_int_equal(client_result(expired_pem, &trusted, "localhost", msg, sizeof(msg)), TLS_EEXPIRED);
	assert_non_null(strstr(msg, "certificate expired"));
	assert_int_equal(client_result(leaf_pem, &other, "localhost", msg, sizeof(msg)), TLS_EUNKNOWN_CA);
	assert_non_null(strstr(msg, "unknown CA"));
	assert_int_equal(client_result(self_pem, &trusted, "localhost", msg, sizeof(msg)), TLS_EUNKNOWN_CA);
}

/* Issue 22: SSL_set1_host(ssl, "") checks no name at all, and ".example" any name under it.
 * A verifying client refuses to start with such a name; insecure and pinned ones need none. */
static void test_no_name_is_no_verification(void **state)
{
	static const char *const bad[] = { NULL, "", ".", ".localhost", "*", "*.localhost", "local host",
					   "a..b", "localhost/x", "-\n" };
	struct tls_config verify = { .ca_file = ca_pem }, insecure = { .insecure = 1 };
	struct tls_ctx *ctx;
	struct tls_conn *c;
	char err[256], msg[256];
	int fd[2], code;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fd), 0);
	ctx = tls_ctx_client(&verify, &code, err, sizeof(err));
	assert_non_null(ctx);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_non_null(tls_host_name_problem(bad[i]));
		c = tls_conn_new(ctx, fd[1], bad[i], err, sizeof(err));
		if (c != NULL)
			fail_msg("a verifying client started with the name '%s'", bad[i] ? bad[i] : "(null)");
		assert_non_null(strstr(err, "cannot verify the server"));
	}
	assert_null(tls_host_name_problem("localhost"));
	assert_null(tls_host_name_problem("localhost."));
	assert_null(tls_host_name_problem("::1"));
	assert_null(tls_host_name_problem("xn--bcher-kva.example"));
	tls_ctx_free(ctx);
	ctx = tls_ctx_client(&insecure, &code, err, sizeof(err));
	c = tls_conn_new(ctx, fd[1], "", err, sizeof(err));
	assert_non_null(c);
	tls_conn_free(c);
	tls_ctx_free(ctx);
	close(fd[0]);
	close(fd[1]);
	/* The names that are refused are refused even where the handshake would have said yes. */
	assert_int_equal(client_result(leaf_pem, &verify, "localhost", msg, sizeof(msg)), TLS_OK);
}

static void test_insecure_skips_verification(void **state)
{
	struct tls_config c = { .insecure = 1 };
	char msg[256];

	(void)state;
	assert_int_equal(client_result(expired_pem, &c, "other.example", msg, sizeof(msg)), TLS_OK);
	assert_int_equal(client_result(self_pem, &c, "localhost", msg, sizeof(msg)), TLS_OK);
}

static void test_pin_replaces_ca_checks(void **state)
{
	struct tls_config c = { .pin = self_fp };
	char msg[256], wrong[96];

	(void)state;
	/* The right pin accepts a self-signed certificate under any name. */
	assert_int_equal(client_result(self_pem, &c, "elsewhere.example", msg, sizeof(msg)), TLS_OK);
	/* Any other certificate is refused, and the message gives its fingerprint. */
	assert_int_equal(client_result(leaf_pem, &c, "localhost", msg, sizeof(msg)), TLS_EPIN);
	assert_non_null(strstr(msg, "pin"));
	snprintf(wrong, sizeof(wrong), "%s", self_fp);
	wrong[0] = wrong[0] == '0' ? '1' : '0';
	c.pin = wrong;
	assert_int_equal(client_result(self_pem, &c, "localhost", msg, sizeof(msg)), TLS_EPIN);
	assert_non_null(strstr(msg, self_fp)); /* the certificate it did see */
}

static void test_parse_pin_forms(void **state)
{
	static const char hex[] = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
	static const struct {
		const char *text;
		int ok;
	} cases[] = {
		{ hex, 0 },
		{ "sha256:00112233445566778899AABBCCDDEEFF00112233445566778899aabbccddeeff", 0 },
		{ "SHA256//00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", 0 },
		{ "00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF", 0 },
		{ "", -1 },
		{ "0011", -1 },
		{ "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff00", -1 },
		{ "00112233445566778899aabbccddeeff00112233445566778899aabbccddeefg", -1 },
		{ "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff:", -1 },
		{ "00::11", -1 },
		{ "0", -1 },
	};
	unsigned char out[32];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(tls_parse_pin(cases[i].text, out), cases[i].ok);
	assert_int_equal(tls_parse_pin(hex, out), 0);
	assert_int_equal(out[0], 0x00);
	assert_int_equal(out[10], 0xaa);
	assert_int_equal(out[31], 0xff);
}

/* A seeded generator, so a failing schedule can be run again (rand() is not allowed by lint). */
static uint64_t rng_state;

static size_t next_random(size_t bound)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (size_t)(rng_state % bound);
}

/* Move len bytes from one end to the other in random chunks while both are non-blocking. */
static void transfer(struct tls_conn *from, struct tls_conn *to, const unsigned char *data,
		     size_t len, unsigned char *got)
{
	size_t sent = 0, recvd = 0;
	char err[256];

	for (int i = 0; i < 1000000 && recvd < len; i++) {
		if (sent < len) {
			size_t chunk = 1 + next_random(70000);
			ssize_t n = tls_write(from, data + sent, chunk < len - sent ? chunk : len - sent, err,
					      sizeof(err));

			if (n > 0)
				sent += (size_t)n;
			else
				assert_int_equal(n, TLS_WANT_WRITE);
		}
		for (;;) {
			size_t want = 1 + next_random(50000);
			ssize_t n = tls_read(to, got + recvd, want < len - recvd ? want : len - recvd, err,
					     sizeof(err));

			if (n <= 0) {
				assert_int_equal(n, TLS_WANT_READ);
				break;
			}
			recvd += (size_t)n;
			if (recvd == len)
				break;
		}
	}
	assert_int_equal(recvd, len);
	assert_memory_equal(data, got, len);
}

static void test_data_both_ways_byte_exact_then_close_notify(void **state)
{
	struct tls_config scfg = { 0 }, ccfg = { .insecure = 1 };
	static const size_t sizes[] = { 1, 2, 16383, 16384, 16385, 65536, 1000003 };
	unsigned char *data = malloc(1000003), *got = malloc(1000003), byte;
	struct pair p;
	char err[256];

	(void)state;
	assert_non_null(data);
	assert_non_null(got);
	assert_int_equal(RAND_bytes(data, 1000003), 1);
	rng_state = 18;
	pair_open(&p, &scfg, &ccfg, "localhost");
	pair_handshake(&p);
	assert_int_equal(p.cli_rc, TLS_OK);
	assert_int_equal(p.srv_rc, TLS_OK);
	assert_string_equal(tls_conn_version(p.client), "TLSv1.3");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		transfer(p.server, p.client, data, sizes[i], got);
		transfer(p.client, p.server, data, sizes[i], got);
	}
	/* This kernel may have no kTLS: either answer is fine, but it must be an answer. */
	assert_true(tls_conn_ktls_send(p.server) == 0 || tls_conn_ktls_send(p.server) == 1);
	assert_int_equal(tls_shutdown(p.server, err, sizeof(err)), TLS_OK);
	assert_int_equal(tls_shutdown(p.server, err, sizeof(err)), TLS_OK); /* once only */
	assert_int_equal(tls_read(p.client, &byte, 1, err, sizeof(err)), 0);
	pair_close(&p);
	free(data);
	free(got);
}

static void test_cut_without_close_notify_is_truncation(void **state)
{
	struct tls_config scfg = { 0 }, ccfg = { .insecure = 1 };
	unsigned char buf[16];
	struct pair p;
	char err[256];
	ssize_t n;

	(void)state;
	pair_open(&p, &scfg, &ccfg, "localhost");
	pair_handshake(&p);
	assert_int_equal(p.cli_rc, TLS_OK);
	assert_int_equal(tls_write(p.server, "abc", 3, err, sizeof(err)), 3);
	shutdown(p.fd[0], SHUT_WR);
	n = tls_read(p.client, buf, sizeof(buf), err, sizeof(err));
	assert_int_equal(n, 3);
	n = tls_read(p.client, buf, sizeof(buf), err, sizeof(err));
	assert_int_equal(n, TLS_ETRUNCATED);
	assert_non_null(strstr(err, "close_notify"));
	pair_close(&p);
}

static void test_alpn_and_resumption(void **state)
{
	struct tls_config scfg = { .alpn = "h2,ncpv" }, ccfg = { .insecure = 1, .alpn = "x,ncpv" };
	struct tls_ctx *sctx, *cctx;
	char err[256], alpn[64];
	int code;

	(void)state;
	sctx = tls_ctx_server(&scfg, &code, err, sizeof(err));
	cctx = tls_ctx_client(&ccfg, &code, err, sizeof(err));
	assert_non_null(sctx);
	assert_non_null(cctx);
	for (int round = 0; round < 3; round++) {
		struct pair p;
		unsigned char byte;

		memset(&p, 0, sizeof(p));
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, p.fd), 0);
		p.server = tls_conn_new(sctx, p.fd[0], NULL, err, sizeof(err));
		p.client = tls_conn_new(cctx, p.fd[1], "localhost", err, sizeof(err));
		pair_handshake(&p);
		assert_int_equal(p.cli_rc, TLS_OK);
		assert_string_equal(tls_conn_alpn(p.client, alpn, sizeof(alpn)), "ncpv");
		assert_string_equal(tls_conn_alpn(p.server, alpn, sizeof(alpn)), "ncpv");
		/* TLS 1.3 tickets come after the handshake: a read takes them in. */
		assert_int_equal(tls_write(p.server, "z", 1, err, sizeof(err)), 1);
		assert_int_equal(tls_read(p.client, &byte, 1, err, sizeof(err)), 1);
		assert_int_equal(tls_conn_resumed(p.client), round > 0);
		/* OpenSSL forgets a session whose connection was not closed cleanly. */
		assert_int_equal(tls_shutdown(p.client, err, sizeof(err)), TLS_OK);
		tls_conn_free(p.server);
		tls_conn_free(p.client);
		close(p.fd[0]);
		close(p.fd[1]);
	}
	tls_ctx_free(sctx);
	tls_ctx_free(cctx);
}

static void test_stalled_peer_times_out(void **state)
{
	struct tls_config ccfg = { .insecure = 1 };
	struct tls_ctx *cctx;
	struct tls_conn *c;
	char err[256];
	int fd[2], code;
	double t0 = clock_now();

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fd), 0);
	cctx = tls_ctx_client(&ccfg, &code, err, sizeof(err));
	c = tls_conn_new(cctx, fd[1], "localhost", err, sizeof(err));
	assert_int_equal(tls_handshake_wait(c, t0 + 0.3, NULL, err, sizeof(err)), TLS_ETIMEOUT);
	assert_true(clock_now() - t0 >= 0.29);
	assert_non_null(strstr(err, "timed out"));
	tls_conn_free(c);
	tls_ctx_free(cctx);
	close(fd[0]);
	close(fd[1]);
}

/* Whatever bytes a peer sends during the handshake, the client fails with a reason or
 * waits for more; it never crashes (ASan) and never claims success. */
static void test_malformed_handshake_bytes(void **state)
{
	struct tls_config ccfg = { .insecure = 1 };
	struct tls_ctx *cctx;
	char err[256];
	int code;

	(void)state;
	cctx = tls_ctx_client(&ccfg, &code, err, sizeof(err));
	rng_state = 1818;
	for (int i = 0; i < 300; i++) {
		unsigned char junk[600];
		size_t n = 1 + next_random(sizeof(junk));
		struct tls_conn *c;
		int fd[2], rc;

		for (size_t k = 0; k < n; k++)
			junk[k] = (unsigned char)next_random(256);
		/* Half the cases look like a handshake record, so parsing gets past the header. */
		if (i % 2 && n > 5) {
			junk[0] = 22;
			junk[1] = 3;
			junk[2] = (unsigned char)next_random(5);
			junk[3] = 0;
			junk[4] = (unsigned char)(n - 5);
		}
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fd), 0);
		c = tls_conn_new(cctx, fd[1], "localhost", err, sizeof(err));
		assert_int_equal(tls_handshake(c, err, sizeof(err)), TLS_WANT_READ);
		assert_int_equal(write(fd[0], junk, n), (ssize_t)n);
		if (i % 3 == 0)
			shutdown(fd[0], SHUT_WR);
		rc = tls_handshake(c, err, sizeof(err));
		assert_true(rc == TLS_WANT_READ || rc == TLS_EHANDSHAKE);
		tls_conn_free(c);
		close(fd[0]);
		close(fd[1]);
	}
	tls_ctx_free(cctx);
}

static void test_setup_errors_are_named(void **state)
{
	struct tls_config missing = { .cert_file = "/nonexistent/cert.pem" };
	struct tls_config bad_alpn = { .alpn = "h2,,x" }, bad_pin = { .pin = "abc" };
	struct tls_config bad_ca = { .ca_file = "/nonexistent/ca.pem" };
	char err[256];
	int code;

	(void)state;
	assert_null(tls_ctx_server(&missing, &code, err, sizeof(err)));
	assert_int_equal(code, TLS_EFILE);
	assert_non_null(strstr(err, "/nonexistent/cert.pem"));
	assert_null(tls_ctx_client(&bad_alpn, &code, err, sizeof(err)));
	assert_int_equal(code, TLS_ESETUP);
	assert_null(tls_ctx_client(&bad_pin, &code, err, sizeof(err)));
	assert_int_equal(code, TLS_ESETUP);
	assert_non_null(strstr(err, "pin"));
	assert_null(tls_ctx_client(&bad_ca, &code, err, sizeof(err)));
	assert_int_equal(code, TLS_EFILE);
}

static void test_self_signed_fingerprint(void **state)
{
	struct tls_config scfg = { 0 };
	struct tls_ctx *sctx;
	char err[256], fp[96];
	unsigned char raw[32];
	int code;

	(void)state;
	sctx = tls_ctx_server(&scfg, &code, err, sizeof(err));
	assert_non_null(sctx);
	assert_int_equal(tls_ctx_fingerprint(sctx, fp, sizeof(fp)), 0);
	assert_int_equal(strlen(fp), 95);
	assert_int_equal(tls_parse_pin(fp, raw), 0);
	assert_int_equal(tls_ctx_fingerprint(sctx, fp, 95), -1);
	tls_ctx_free(sctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verified_handshake_by_name_and_ip),
		cmocka_unit_test(test_each_verify_failure_is_named),
		cmocka_unit_test(test_no_name_is_no_verification),
		cmocka_unit_test(test_insecure_skips_verification),
		cmocka_unit_test(test_pin_replaces_ca_checks),
		cmocka_unit_test(test_parse_pin_forms),
		cmocka_unit_test(test_data_both_ways_byte_exact_then_close_notify),
		cmocka_unit_test(test_cut_without_close_notify_is_truncation),
		cmocka_unit_test(test_alpn_and_resumption),
		cmocka_unit_test(test_stalled_peer_times_out),
		cmocka_unit_test(test_malformed_handshake_bytes),
		cmocka_unit_test(test_setup_errors_are_named),
		cmocka_unit_test(test_self_signed_fingerprint),
	};

	return cmocka_run_group_tests(tests, make_fixtures, remove_fixtures);
}

#else /* a build without TLS: every constructor says so */

static void test_no_tls_build_refuses(void **state)
{
	struct tls_config cfg = { 0 };
	char err[256];
	int code;

	(void)state;
	assert_null(tls_ctx_server(&cfg, &code, err, sizeof(err)));
	assert_int_equal(code, TLS_ENOTSUP);
	assert_non_null(strstr(err, "no TLS"));
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_no_tls_build_refuses) };

	return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
