/* SPDX-License-Identifier: ISC */
/* nc.c - "ncpv nc": a drop-in for OpenBSD netcat (Debian's netcat-openbsd) with a built-in meter:
 * the command line, messages and exit codes around the engine in ../nc/. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "nc_cmd.h"
#include "progress.h"
#include "../clock.h"
#include "../json.h"
#include "../termsafe.h"
#include "../transfer.h"

/* nc exits 1 on every failure, whatever its kind. */
#define NC_FAIL 1

/* What the engine's events need: the options (for -P's prompt) and the meter. */
struct nc_cmd {
	const struct nc_opts *o;
	struct progress meter;
	int metered;
};

/* -P's password: $NCPV_PROXY_PASSWORD, else asked on the terminal without echo. */
static int proxy_password(void *ctx, char *buf, size_t len)
{
	const struct nc_opts *o = ((const struct nc_cmd *)ctx)->o;
	const char *env = getenv("NCPV_PROXY_PASSWORD");
	struct termios old, quiet;
	int tty;
	ssize_t n;

	if (env) {
		snprintf(buf, len, "%s", env);
		return 0;
	}
	tty = open("/dev/tty", O_RDWR | O_CLOEXEC);
	if (tty < 0) {
		if (o->prog) /* nc's words: it reads the password from the terminal only */
			nc_error(o, "Unable to read proxy passphrase");
		else
			nc_error(o, "no password for proxy user %s: set NCPV_PROXY_PASSWORD", o->proxy_user);
		return -1;
	}
	dprintf(tty, "Proxy password for %s@%s: ", o->proxy_user, o->proxy);
	tcgetattr(tty, &old);
	quiet = old;
	quiet.c_lflag &= ~(tcflag_t)ECHO;
	tcsetattr(tty, TCSAFLUSH, &quiet);
	n = read(tty, buf, len - 1);
	tcsetattr(tty, TCSAFLUSH, &old);
	dprintf(tty, "\n");
	close(tty);
	if (n <= 0) {
		if (o->prog)
			nc_error(o, "Unable to read proxy passphrase");
		else
			nc_error(o, "no password read for proxy user %s", o->proxy_user);
		return -1;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	return 0;
}

static void say(void *ctx, int error, const char *line)
{
	const struct nc_cmd *c = ctx;

	char safe[1024];

	if (error)
		nc_error(c->o, "%s", line);
	else /* -v lines quote proxies' replies and peers' names: escaped as errors are */
		fprintf(stderr, "%s\n", termsafe_str(safe, sizeof(safe), line));
}

/* The live pv-style line (--progress): both directions count. */
static double tick(void *ctx, const struct nc_totals *t, int final)
{
	struct nc_cmd *c = ctx;
	double now = clock_now();

	if (!c->metered)
		return 0;
	c->meter.meter.bytes = t->sent + t->received;
	if (final)
		progress_draw(&c->meter, now, 1);
	else
		progress_tick(&c->meter, now);
	return c->meter.next;
}

static void print_json(const struct nc_opts *o, const struct nc_totals *t, int rc)
{
	struct transfer sum = { .sent = t->sent, .received = t->received, .seconds = clock_now() - t->start };
	char line[320];
	struct json j;

	json_init(&j, line, sizeof(line));
	json_object(&j, NULL);
	transfer_json(&j, &sum, TRANSFER_TWO_WAY);
	json_uint(&j, "unacked", t->unacked);
	json_uint(&j, "unconfirmed", t->unconfirmed);
	json_int(&j, "exit", rc);
	if (o->ssl) {
		json_int(&j, "tls_connections", t->tls_conns);
		json_int(&j, "ktls_connections", t->ktls_conns);
	}
	json_end(&j);
	fprintf(stderr, "%s\n", json_text(&j));
}

/* --ssl: one context for the run; a listener's certificate fingerprint with -v. 0, or the exit code. */
static int make_tls_ctx(struct nc_opts *o, const struct cmd_tls *tls)
{
	char fp[96];
	int rc;

	if (!o->ssl)
		return 0;
	if ((o->tls_ctx = cmd_tls_ctx("nc", tls, o->listen, &rc)) == NULL)
		return NC_FAIL;
	if (o->listen && o->verbose && tls_ctx_fingerprint(o->tls_ctx, fp, sizeof(fp)) == 0)
		fprintf(stderr, "TLS certificate %s, SHA-256 fingerprint %s\n",
			tls->cfg.cert_file ? tls->cfg.cert_file : "self-signed", fp);
	return 0;
}

int cmd_nc_as(int argc, char **argv, const char *prog)
{
	struct nc_opts *o = calloc(1, sizeof(*o));
	struct nc_totals t = { .start = clock_now() };
	struct cmd_tls tls;
	struct nc_cmd c;
	struct nc_events ev = { say, tick, proxy_password, &c };
	enum cmd_parse parsed;
	char err[512] = "";
	int rc;

	if (o == NULL) {
		fprintf(stderr, "%s: out of memory\n", prog ? prog : "ncpv nc");
		return NC_FAIL;
	}
	parsed = nc_parse_options(argc, argv, prog, o, &tls);
	if (parsed != CMD_PARSE_RUN) {
		free(o);
		return cmd_parse_exit(parsed, NC_FAIL);
	}
	if (make_tls_ctx(o, &tls) != 0) {
		free(o);
		return NC_FAIL;
	}
	memset(&c, 0, sizeof(c));
	c.o = o;
	c.metered = o->progress;
	if (c.metered)
		progress_init(&c.meter, 1, 1, 0, clock_now());
	rc = o->listen ? nc_listen_main(o, &ev, &t, err, sizeof(err)) : nc_connect_main(o, &ev, &t, err, sizeof(err));
	if (rc < 0 && err[0])
		nc_error(o, "%s", err);
	if (rc == 0 && t.unacked > 0) {
		nc_error(o, "%llu %s sent %s never acknowledged by the peer", (unsigned long long)t.unacked,
			 t.unacked == 1 ? "byte" : "bytes", t.unacked == 1 ? "was" : "were");
		rc = -1;
	} else if (rc == 0 && t.reset_after_fin > 0) {
		/* Its kernel acknowledged our bytes; the program then closed with data unread. */
		nc_error(o, "the peer reset the connection after nc's last byte: it closed with data unread, "
			 "so it may not have read all %llu bytes sent", (unsigned long long)t.sent);
		rc = -1;
	}
	rc = rc < 0 ? NC_FAIL : 0;
	tick(&c, &t, 1);
	if (o->json)
		print_json(o, &t, rc);
	tls_ctx_free(o->tls_ctx);
	free(o);
	return rc;
}

int cmd_nc(int argc, char **argv)
{
	return cmd_nc_as(argc, argv, NULL);
}
