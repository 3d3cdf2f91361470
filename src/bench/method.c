/* SPDX-License-Identifier: ISC */
/* method.c - the download methods the bench compares: the built-in table,
 * user methods from --method, command templates and the tools they need. */
#include "method.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The seed's two pipelines exactly as the blog post wrote them, then the
 * other ways a sysadmin would download. Each is one download; the files
 * test loops it in bash, except where the tool loops itself. */
static const struct bench_method builtins[] = {
	{ "ncpv", "{ncpv} get -q {host} {port}", "{ncpv} get -q --count {count} {host} {port}", "", "sh", "" },
	{ "nc-pv", "nc {host} {port} | pv >/dev/null", "", "nc pv", "sh", "seed" },
	{ "pv-devtcp", "pv >/dev/null </dev/tcp/{host}/{port}", "", "bash pv", "bash", "seed" },
	{ "nc", "nc {host} {port} >/dev/null", "", "nc", "sh", "" },
	{ "cat-devtcp", "cat </dev/tcp/{host}/{port} >/dev/null", "", "bash cat", "bash", "" },
	{ "bash-read",
	  "exec 3</dev/tcp/{host}/{port}; while read -r -N 65536 -u 3 chunk; do :; done; exec 3<&-",
	  "", "bash", "bash", "" },
	{ "socat", "socat -u TCP:{host}:{port} - >/dev/null", "", "socat", "sh", "" },
	{ "ncat", "ncat --recv-only {host} {port} >/dev/null", "", "ncat", "sh", "" },
};

#define NBUILTINS (sizeof(builtins) / sizeof(builtins[0]))

size_t method_builtins(struct bench_method *out, size_t max)
{
	for (size_t i = 0; i < NBUILTINS && i < max; i++)
		out[i] = builtins[i];
	return NBUILTINS;
}

int method_parse_user(const char *spec, struct bench_method *out, char *err, size_t errlen)
{
	const char *eq = strchr(spec, '=');
	size_t namelen = eq ? (size_t)(eq - spec) : 0;
	struct method_vars probe = { "h", "p", "s", "c", "n" };
	char scratch[METHOD_CMD_MAX], bad[32];

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
	static const char *const names[] = { "host", "port", "size", "count", "ncpv" };
	const char *vals[] = { v->host, v->port, v->size, v->count, v->ncpv };
	size_t n = 0;

	for (const char *p = tmpl; *p;) {
		const char *val = NULL, *close = p[0] == '{' ? strchr(p, '}') : NULL;
		size_t vlen;

		if (close != NULL) {
			size_t wlen = (size_t)(close - p - 1);

			for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
				if (strlen(names[i]) == wlen && strncmp(p + 1, names[i], wlen) == 0)
					val = vals[i] ? vals[i] : "";
			if (val == NULL) {
				/* Shell braces such as ${x} or {a,b} are not ours. */
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
		}
		if (val == NULL) {
			if (n + 1 >= len)
				goto full;
			out[n++] = *p++;
			continue;
		}
		vlen = strlen(val);
		if (n + vlen >= len)
			goto full;
		memcpy(out + n, val, vlen);
		n += vlen;
		p = close + 1;
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

	if (test == BENCH_STREAM || m->files_command[0] != '\0') {
		const char *t = test == BENCH_FILES ? m->files_command : m->command;

		return method_expand(t, v, out, len, bad, sizeof(bad)) < 0 ? NULL : m->shell;
	}
	if (method_expand(m->command, v, one, sizeof(one), bad, sizeof(bad)) < 0)
		return NULL;
	/* A user's sh command runs in a sh child, so bash's syntax cannot change it. */
	if (strcmp(m->shell, "sh") == 0 && strcmp(m->note, "user") == 0) {
		char quoted[METHOD_CMD_MAX * 2 + 512];
		size_t q = 0;

		for (const char *p = one; *p && q + 5 < sizeof(quoted); p++) {
			if (*p == '\'') {
				memcpy(quoted + q, "'\\''", 4);
				q += 4;
			} else {
				quoted[q++] = *p;
			}
		}
		quoted[q] = '\0';
		snprintf(loop, sizeof(loop), "sh -c '%.*s'", (int)(sizeof(loop) - 16), quoted);
	} else {
		snprintf(loop, sizeof(loop), "%s", one);
	}
	if ((size_t)snprintf(out, len, "for ((i = 0; i < %s; i++)); do %s; done", v->count, loop) >= len) {
		errno = ENOSPC;
		return NULL;
	}
	return "bash";
}

static int on_path(const char *tool, const char *path)
{
	char full[4096];

	if (strchr(tool, '/') != NULL)
		return access(tool, X_OK) == 0;
	for (const char *p = path; p != NULL && *p;) {
		const char *colon = strchr(p, ':');
		size_t dlen = colon ? (size_t)(colon - p) : strlen(p);

		snprintf(full, sizeof(full), "%.*s/%s", (int)(dlen ? dlen : 1), dlen ? p : ".", tool);
		if (access(full, X_OK) == 0)
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
	if (strcmp(m->shell, "bash") == 0 && strstr(tools, "bash") == NULL)
		snprintf(tools, sizeof(tools), "%s bash", m->tools);
	for (char *t = strtok_r(tools, " ", &save); t; t = strtok_r(NULL, " ", &save))
		if (!on_path(t, path)) {
			snprintf(missing, len, "%s", t);
			return 1;
		}
	return 0;
}
