/* SPDX-License-Identifier: ISC */
/* tls_cert.c - X.509 certificates made in memory: serve's self-signed one, and test fixtures. */
#include "tls_cert.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static int hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int tls_is_ip_literal(const char *name)
{
	unsigned char buf[16];

	return inet_pton(AF_INET, name, buf) == 1 || inet_pton(AF_INET6, name, buf) == 1;
}

const char *tls_host_name_problem(const char *name)
{
	size_t label = 0;

	if (name == NULL || *name == '\0')
		return "empty: no host name would be checked";
	if (tls_is_ip_literal(name))
		return NULL;
	if (strlen(name) > 253)
		return "longer than 253 characters";
	if (name[0] == '.')
		return "starts with '.': every name under it would match";
	for (const char *p = name; *p; p++) {
		if (*p == '.') {
			if (label == 0)
				return "has an empty label ('..')";
			label = 0;
		} else if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_') {
			return "is not a host name (letters, digits, '-', '_' and '.' only)";
		} else if (++label > 63) {
			return "has a label longer than 63 characters";
		}
	}
	return NULL;
}

int tls_parse_pin(const char *text, unsigned char out[32])
{
	size_t n = 0;

	if (strncasecmp(text, "sha256//", 8) == 0)
		text += 8;
	else if (strncasecmp(text, "sha256:", 7) == 0)
		text += 7;
	while (*text) {
		int hi, lo;

		if (n == 32)
			return -1;
		hi = hex_value((unsigned char)text[0]);
		lo = hi < 0 ? -1 : hex_value((unsigned char)text[1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[n++] = (unsigned char)(hi << 4 | lo);
		text += 2;
		/* A colon only between pairs, never doubled or trailing. */
		if (*text == ':' && n < 32 && text[1] != '\0' && text[1] != ':')
			text++;
	}
	return n == 32 ? 0 : -1;
}

#ifndef NCPV_NO_TLS
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

static int fail(char *err, size_t errlen, const char *what)
{
	unsigned long e = ERR_get_error();
	char why[160] = "unknown reason";

	if (e != 0)
		ERR_error_string_n(e, why, sizeof(why));
	snprintf(err, errlen, "%s: %s", what, why);
	ERR_clear_error();
	return -1;
}

static int add_ext(X509 *cert, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *ext;
	int ok;

	X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	if (ext == NULL)
		return -1;
	ok = X509_add_ext(cert, ext, -1);
	X509_EXTENSION_free(ext);
	return ok ? 0 : -1;
}

/* "a,127.0.0.1" -> "DNS:a,IP:127.0.0.1", and the first name as the CN. */
static int san_value(const char *names, char *san, size_t sanlen, char *cn, size_t cnlen)
{
	char copy[512], *save = NULL;
	size_t used = 0;

	if (snprintf(copy, sizeof(copy), "%s", names) >= (int)sizeof(copy))
		return -1;
	san[0] = cn[0] = '\0';
	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		int is_ip = tls_is_ip_literal(name);
		int n = snprintf(san + used, sanlen - used, "%s%s:%s", used ? "," : "",
				 is_ip ? "IP" : "DNS", name);

		if (n < 0 || (size_t)n >= sanlen - used)
			return -1;
		used += (size_t)n;
		if (cn[0] == '\0')
			snprintf(cn, cnlen, "%s", name);
	}
	return used ? 0 : -1;
}

int tls_cert_make(const struct tls_cert_spec *spec, X509 *issuer, EVP_PKEY *issuer_key,
		  X509 **cert_out, EVP_PKEY **key_out, char *err, size_t errlen)
{
	char san[1024], cn[256];
	unsigned char serial[16];
	EVP_PKEY *key = NULL;
	X509 *cert = NULL;
	X509_NAME *name;
	BIGNUM *bn = NULL;

	if (san_value(spec->names, san, sizeof(san), cn, sizeof(cn)) < 0) {
		snprintf(err, errlen, "certificate names '%s': expected NAME[,NAME]...", spec->names);
		return -1;
	}
	key = EVP_EC_gen("P-256");
	if (key == NULL)
		return fail(err, errlen, "cannot make a key");
	cert = X509_new();
	if (cert == NULL || RAND_bytes(serial, sizeof(serial)) != 1)
		goto fail;
	serial[0] &= 0x7f; /* a positive serial number */
	bn = BN_bin2bn(serial, sizeof(serial), NULL);
	name = X509_get_subject_name(cert);
	if (bn == NULL || !BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert)) ||
	    !X509_set_version(cert, 2) ||
	    !X509_gmtime_adj(X509_getm_notBefore(cert), spec->not_before) ||
	    !X509_gmtime_adj(X509_getm_notAfter(cert), spec->not_after) ||
	    !X509_set_pubkey(cert, key) ||
	    !X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, (const unsigned char *)"ncpv", -1, -1, 0) ||
	    !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0) ||
	    !X509_set_issuer_name(cert, issuer ? X509_get_subject_name(issuer) : name))
		goto fail;
	if (add_ext(cert, issuer ? issuer : cert, NID_subject_alt_name, san) < 0 ||
	    add_ext(cert, issuer ? issuer : cert, NID_basic_constraints,
		    spec->is_ca ? "critical,CA:TRUE" : "critical,CA:FALSE") < 0 ||
	    add_ext(cert, issuer ? issuer : cert, NID_key_usage,
		    spec->is_ca ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature") < 0 ||
	    add_ext(cert, issuer ? issuer : cert, NID_subject_key_identifier, "hash") < 0 ||
	    (!spec->is_ca && add_ext(cert, issuer ? issuer : cert, NID_ext_key_usage,
				     "serverAuth,clientAuth") < 0))
		goto fail;
	if (issuer && add_ext(cert, issuer, NID_authority_key_identifier, "keyid:always") < 0)
		goto fail;
	if (!X509_sign(cert, issuer_key ? issuer_key : key, EVP_sha256()))
		goto fail;
	BN_free(bn);
	*cert_out = cert;
	*key_out = key;
	return 0;
fail:
	BN_free(bn);
	X509_free(cert);
	EVP_PKEY_free(key);
	return fail(err, errlen, "cannot make a certificate");
}

int tls_cert_write_pem(const char *path, X509 *cert, EVP_PKEY *key)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (f == NULL)
		return -1;
	ok = PEM_write_X509(f, cert) &&
	     (key == NULL || PEM_write_PrivateKey(f, key, NULL, NULL, 0, NULL, NULL));
	if (fclose(f) != 0 || !ok)
		return -1;
	return 0;
}

int tls_cert_fingerprint(X509 *cert, char *out, size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (len < 96 || !X509_digest(cert, EVP_sha256(), md, &n) || n != 32)
		return -1;
	for (size_t i = 0; i < n; i++)
		snprintf(out + 3 * i, len - 3 * i, "%02X%s", md[i], i + 1 < n ? ":" : "");
	return 0;
}
#endif
