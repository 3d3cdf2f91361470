/* SPDX-License-Identifier: ISC */
/* method.c - the download methods the bench compares: the built-in table,
 * user methods from --method, command templates and the tools they need. */
#include "method.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../shquote.h"

/* The seed's two pipelines exactly as the blog post wrote them, then the
 * other ways a sysadmin would download. Each is one download; the files
 * test loops it in bash, except where the tool loops itself. */
static const struct bench_method builtins[] = {
	/* ncpv's own method runs without a shell: its words go straight to exec. */
	{ "ncpv", "{ncpv} get -q {host} {port}", "{ncpv} get -q --count {count} {host} {port}", "", NULL, "", 0 },
	{ "nc-pv", "nc {host} {port} | pv >/dev/null", "", "nc pv", "sh", "seed", 0 },
	{ "pv-devtcp", "pv >/dev/null </dev/tcp/{host}/{port}", "", "bash pv", "bash", "seed", 0 },
	{ "nc", "nc {host} {port} >/dev/null", "", "nc", "sh", "", 0 },
	{ "cat-devtcp", "cat </dev/tcp/{host}/{port} >/dev/null", "", "bash cat", "bash", "", 0 },
	{ "bash-read",
	  "exec 3</dev/tcp/{host}/{port}; while read -r -N 65536 -u 3 chunk; do :; done; exec 3<&-",
	  "", "bash", "bash", "", 0 },
	{ "socat", "socat -u TCP:{host}:{port} - >/dev/null", "", "socat", "sh", "", 0 },
	{ "ncat", "ncat --recv-only {host} {port} >/dev/null", "", "ncat", "sh", "", 0 },
	/* bench --tls: the server speaks TLS (self-signed), so no client verifies it.
	 * s_client's -quiet implies -ign_eof: it reads until the server closes. */
	{ "ncpv-tls", "{ncpv} get -q --tls --insecure {host} {port}",
	  "{ncpv} get -q --tls --insecure --count {count} {host} {port}", "", NULL, "", 1 },
	{ "ncat-ssl", "ncat --ssl --recv-only {host} {port} >/dev/null", "", "ncat", "sh", "", 1 },
	{ "socat-openssl", "socat -u OPENSSL:{host}:{port},verify=0 - >/dev/null", "", "socat", "sh", "", 1 },
	{ "s_client", "openssl s_client -quiet -connect {host}:{port} </dev/null >/dev/null", "", "openssl",
	  "sh", "", 1 },
};

#define NBUILTINS (sizeof(builtins) / sizeof(builtins[0]))

size_t method_builtins(struct bench_method *out, size_t max)
{
	for (size_t i = 0; i < NBUILTINS && i < max; i++)
		out[i] = builtins[i];
	return NBUILTINS;
}

static const char *const placeholders[] = { "host", "port", "size", "count", "ncpv" };
#define NPLACEHOLDERS (sizeof(placeholders) / sizeof(placeholders[0]))

/* The placeholder at p ("{host}" ...), as an index, or -1. */
static int placeholder_at(const char *p)
{
	for (size_t i = 0; p[0] == '{' && i < NPLACEHOLDERS; i++) {
		size_t n = strlen(placeholders[i]);

		if (strncmp(p + 1, placeholders[i], n) == 0 && p[1 + n] == '}')
			return (int)i;
	}
	return -1;
}

/* The first placeholder written inside the template's own quotes, or -1:
 * the bench quotes each value itself, and quotes inside quotes end them. */
static int placeholder_in_quotes(const char *tmpl)
{
	char quote = 0;

	for (const char *p = tmpl; *p; p++) {
		if (quote != '\'' && *p == '\\' && p[1] != '\0')
			p++;
		else if (quote == 0 && (*p == '\'' || *p == '"'))
			quote = *p;
		else if (quote != 0 && *p == quote)
			quote = 0;
		else if (quote != 0 && placeholder_at(p) >= 0)
			return placeholder_at(p);
	}
	return -1;
}

int method_parse_user(const char *spec, struct bench_method *out, char *err, size_t errlen)
{
	const char *eq = strchr(spec, '=');
	size_t namelen = eq ? (size_t)(eq - spec) : 0;
	struct method_vars probe = { "h", "p", "s", "c", "n" };
	char scratch[METHOD_CMD_MAX * 2], bad[32];
	int q;

	memset(out, 0, sizeof(*out));
	if (eq == NULL || namelen == 0) {
		snprintf(err, errlen, "method '%s': expected NAME='COMMAND with {host} {port}'", spec);
		return -1;
	}
	if (namelen >= sizeof(out->name)) {
		snprintf(err, errlen, "method name '%.*s' is longer than %zu characters", (int)namelen, spec,
			 sizeof(out->name) - 1);
		return -1;
	}
	for (size_t i = 0; i < namelen; i++)
		if (spec[i] == ',' || spec[i] == ' ' || (unsigned char)spec[i] < 0x21) {
			snprintf(err, errlen, "method name '%.*s': no spaces or commas", (int)namelen, spec);
			return -1;
		}
	if (strlen(eq + 1) >= sizeof(out->command)) {
		snprintf(err, errlen, "method '%.*s': command longer than %zu bytes", (int)namelen, spec,
			 sizeof(out->command) - 1);
		return -1;
	}
	memcpy(out->name, spec, namelen);
	snprintf(out->command, sizeof(out->command), "%s", eq + 1);
	if (method_expand(out->command, &probe, scratch, sizeof(scratch), bad, sizeof(bad)) < 0) {
		snprintf(err, errlen, "method '%s': unknown placeholder {%s} (use {host} {port} {size} {count} {ncpv})",
			 out->name, bad);
		return -1;
	}
	if ((q = placeholder_in_quotes(out->command)) >= 0) {
		snprintf(err, errlen, "method '%s': write {%s} without quotes around it (the bench quotes every value)",
			 out->name, placeholders[q]);
		return -1;
	}
	if (strstr(out->command, "{count}") != NULL) {
		memcpy(out->files_command, out->command, sizeof(out->command));
	} else if (strstr(out->command, "{host}") == NULL || strstr(out->command, "{port}") == NULL) {
		snprintf(err, errlen, "method '%s': the command must use {host} and {port}", out->name);
		return -1;
	}
	out->shell = "sh";
	out->note = "user";
	return 0;
}

int method_expand(const char *tmpl, const struct method_vars *v, char *out, size_t len,
		  char *bad, size_t badlen)
{
	const char *vals[] = { v->host, v->port, v->size, v->count, v->ncpv };
	size_t n = 0;

	for (const char *p = tmpl; *p;) {
		const char *close = p[0] == '{' ? strchr(p, '}') : NULL;
		int k = placeholder_at(p);

		if (k < 0 && close != NULL) {
			/* Shell braces such as ${x} or {a,b} are not ours. */
			size_t wlen = (size_t)(close - p - 1);
			int word = wlen > 0;

			for (size_t i = 0; i < wlen; i++)
				if (!((p[1 + i] >= 'a' && p[1 + i] <= 'z') || p[1 + i] == '_'))
					word = 0;
			if (word && (p == tmpl || p[-1] != '$')) {
				snprintf(bad, badlen, "%.*s", (int)wlen, p + 1);
				errno = EINVAL;
				return -1;
			}
		}
		if (k < 0) {
			if (n + 1 >= len)
				goto full;
			out[n++] = *p++;
			continue;
		}
		/* Every value is one shell word, whatever bytes it holds. */
		n += shq_quote(vals[k] ? vals[k] : "", out + n, len - n);
		if (n >= len)
			goto full;
		p += strlen(placeholders[k]) + 2;
	}
	out[n] = '\0';
	return 0;
full:
	if (len > 0)
		out[0] = '\0';
	errno = ENOSPC;
	return -1;
}

const char *method_command(const struct bench_method *m, enum bench_test test,
			   const struct method_vars *v, char *out, size_t len)
{
	char one[METHOD_CMD_MAX * 2], loop[METHOD_CMD_MAX * 3], bad[32];
	const char *shell = m->shell ? m->shell : METHOD_NO_SHELL;

	if (test == BENCH_STREAM || m->files_command[0] != '\0') {
		const char *t = test == BENCH_FILES ? m->files_command : m->command;

		return method_expand(t, v, out, len, bad, sizeof(bad)) < 0 ? NULL : shell;
	}
	if (method_expand(m->command, v, one, sizeof(one), bad, sizeof(bad)) < 0)
		return NULL;
	/* A user's sh command runs in a sh child, so bash's syntax cannot change it. */
	if (m->shell != NULL && strcmp(m->shell, "sh") == 0 && strcmp(m->note, "user") == 0) {
		memcpy(loop, "sh -c ", 6);
		if (shq_quote(one, loop + 6, sizeof(loop) - 6) >= sizeof(loop) - 6) {
			errno = ENOSPC;
			return NULL;
		}
	} else {
		snprintf(loop, sizeof(loop), "%s", one);
	}
	if ((size_t)snprintf(out, len, "for ((i = 0; i < %s; i++)); do %s; done", v->count, loop) >= len) {
		errno = ENOSPC;
		return NULL;
	}
	return "bash";
}

int method_argv(const char *shell, const char *cmd, char *buf, size_t buflen, char **argv, int max)
{
	int n;

	if (strcmp(shell, METHOD_NO_SHELL) != 0) {
		if (max < 4)
			return -1;
		argv[0] = (char *)shell;
		argv[1] = "-c";
		argv[2] = (char *)cmd;
		argv[3] = NULL;
		return 3;
	}
	n = shq_split(cmd, buf, buflen, argv, max - 1);
	if (n <= 0)
		return -1;
	argv[n] = NULL;
	return n;
}

char *method_shell_line(const char *shell, const char *cmd, char *out, size_t len)
{
	size_t n;

	if (strcmp(shell, METHOD_NO_SHELL) == 0) {
		snprintf(out, len, "%s", cmd);
		return out;
	}
	n = (size_t)snprintf(out, len, "%s -c ", shell);
	if (n < len)
		shq_quote(cmd, out + n, len - n);
	return out;
}

/* An executable regular file, as execvp would run (a directory is searchable, not runnable). */
static int runnable(const char *file)
{
	struct stat st;

	return access(file, X_OK) == 0 && stat(file, &st) == 0 && S_ISREG(st.st_mode);
}

static int on_path(const char *tool, const char *path)
{
	char full[4096];

	if (strchr(tool, '/') != NULL)
		return runnable(tool);
	for (const char *p = path; p != NULL && *p;) {
		const char *colon = strchr(p, ':');
		size_t dlen = colon ? (size_t)(colon - p) : strlen(p);

		snprintf(full, sizeof(full), "%.*s/%s", (int)(dlen ? dlen : 1), dlen ? p : ".", tool);
		if (runnable(full))
			return 1;
		p = colon ? colon + 1 : NULL;
	}
	return 0;
}

int method_missing_tool(const struct bench_method *m, enum bench_test test, const char *path,
			char *missing, size_t len)
{
	char tools[sizeof(m->tools) + 8], *save = NULL;

	/* Every files loop but a tool's own is a bash loop. */
	snprintf(tools, sizeof(tools), "%s %s", m->tools,
		 test == BENCH_FILES && m->files_command[0] == '\0' ? "bash" : "");
	if (m->shell != NULL && strcmp(m->shell, "bash") == 0 && strstr(tools, "bash") == NULL)
		snprintf(tools, sizeof(tools), "%s bash", m->tools);
	for (char *t = strtok_r(tools, " ", &save); t; t = strtok_r(NULL, " ", &save))
		if (!on_path(t, path)) {
			snprintf(missing, len, "%s", t);
			return 1;
		}
	return 0;
}
