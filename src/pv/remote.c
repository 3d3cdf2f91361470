/* SPDX-License-Identifier: ISC */
/* remote.c - pv -R and -Q: one ncpv pv changes or asks another, through a file and SIGUSR2. */
#include "remote.h"

#include "../display.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../clock.h"
#include "../proc.h"

void pv_remote_path(char *buf, size_t len, pid_t sender, int reply)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(buf, len, "%s/ncpv-pv-remote-%s%ld-%ld", tmp && *tmp ? tmp : "/tmp", reply ? "reply-" : "",
		 (long)sender, (long)geteuid());
}

int pv_remote_put(const char *path, const char *text)
{
	size_t len = strlen(text);
	int fd, rc = 0;

	/* A leftover of ours from a run that died is replaced; anything else is refused. */
	(void)unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (write(fd, text, len) != (ssize_t)len)
		rc = -1;
	if (close(fd) < 0)
		rc = -1;
	return rc;
}

ssize_t pv_remote_take(const char *path, char *buf, size_t len)
{
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	n = read(fd, buf, len - 1);
	close(fd);
	(void)unlink(path);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

int pv_remote_format(const struct pv_remote_msg *m, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "%s\n", m->query ? "query" : "set");

	if (m->has_rate && n < len)
		n += (size_t)snprintf(buf + n, len - n, "rate %llu\n", (unsigned long long)m->rate);
	if (m->has_size && n < len)
		n += (size_t)snprintf(buf + n, len - n, "size %llu\n", (unsigned long long)m->size);
	if (m->has_interval && n < len)
		n += (size_t)snprintf(buf + n, len - n, "interval %.6f\n", m->interval);
	if (m->has_width && n < len)
		n += (size_t)snprintf(buf + n, len - n, "width %d\n", m->width);
	if (m->has_items && n < len)
		n += (size_t)snprintf(buf + n, len - n, "items %d %d %d %d %d %d %d %d %d\n", m->bytes, m->timer,
				      m->rate_item, m->average, m->progress, m->eta, m->fineta, m->bufpercent,
				      m->last_written);
	/* Names and formats end at the line's end: a newline in them is not sent. */
	if (m->has_name && n < len)
		n += (size_t)snprintf(buf + n, len - n, "name %.*s\n", (int)strcspn(m->name, "\n"), m->name);
	if (m->has_format && n < len)
		n += (size_t)snprintf(buf + n, len - n, "format %.*s\n", (int)strcspn(m->format, "\n"),
				      m->format);
	if (m->has_extra && n < len)
		n += (size_t)snprintf(buf + n, len - n, "extra %.*s\n", (int)strcspn(m->extra, "\n"), m->extra);
	return n < len ? 0 : -1;
}

void pv_remote_parse(const char *text, struct pv_remote_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->query = strncmp(text, "query\n", 6) == 0;
	for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		size_t n = strcspn(line, "\n");

		if (strncmp(line, "rate ", 5) == 0) {
			m->rate = strtoull(line + 5, NULL, 10);
			m->has_rate = 1;
		} else if (strncmp(line, "size ", 5) == 0) {
			m->size = strtoull(line + 5, NULL, 10);
			m->has_size = 1;
		} else if (strncmp(line, "interval ", 9) == 0) {
			m->interval = strtod(line + 9, NULL);
			m->has_interval = m->interval > 0;
		} else if (strncmp(line, "width ", 6) == 0) {
			m->width = (int)strtol(line + 6, NULL, 10);
			m->has_width = m->width > 0;
		} else if (strncmp(line, "items ", 6) == 0) {
			int *item[] = { &m->bytes, &m->timer, &m->rate_item, &m->average, &m->progress,
					&m->eta, &m->fineta, &m->bufpercent, &m->last_written };
			const char *p = line + 6;
			size_t k = 0;

			for (; k < sizeof(item) / sizeof(item[0]); k++) {
				char *end;
				long v = strtol(p, &end, 10);

				if (end == p || v < INT_MIN || v > INT_MAX)
					break;
				*item[k] = (int)v;
				p = end;
			}
			m->has_items = k == sizeof(item) / sizeof(item[0]);
			if (m->last_written < 0 || m->last_written > DISPLAY_LAST_MAX)
				m->last_written = DISPLAY_LAST_MAX;
		} else if (strncmp(line, "extra ", 6) == 0) {
			snprintf(m->extra, sizeof(m->extra), "%.*s", (int)(n - 6), line + 6);
			m->has_extra = 1;
		} else if (strncmp(line, "name ", 5) == 0) {
			snprintf(m->name, sizeof(m->name), "%.*s", (int)(n - 5), line + 5);
			m->has_name = 1;
		} else if (strncmp(line, "format ", 7) == 0) {
			snprintf(m->format, sizeof(m->format), "%.*s", (int)(n - 7), line + 7);
			m->has_format = 1;
		}
	}
}

int pv_remote_state_format(const struct pv_remote_state *s, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%llu %llu %.6f\n", (unsigned long long)s->count,
			 (unsigned long long)s->size, s->elapsed);

	return n > 0 && (size_t)n < len ? 0 : -1;
}

int pv_remote_state_parse(const char *text, struct pv_remote_state *s)
{
	char *a, *b, *c;

	s->count = strtoull(text, &a, 10);
	s->size = strtoull(a, &b, 10);
	s->elapsed = strtod(b, &c);
	return a == text || b == a || c == b ? -1 : 0;
}

/* The program behind /proc/PID/exe (PID 0: ourselves), without " (deleted)" after an upgrade. */
static int program_of(pid_t pid, char *buf, size_t len)
{
	char link[64];
	ssize_t n;
	size_t cut = strlen(" (deleted)");

	if (pid > 0)
		snprintf(link, sizeof(link), "/proc/%ld/exe", (long)pid);
	else
		snprintf(link, sizeof(link), "/proc/self/exe");
	if ((n = readlink(link, buf, len - 1)) < 0)
		return -1;
	buf[n] = '\0';
	if ((size_t)n > cut && strcmp(buf + n - cut, " (deleted)") == 0)
		buf[n - cut] = '\0';
	return 0;
}

int pv_remote_is_pv(pid_t target)
{
	char ours[4096], theirs[4096];

	if (program_of(0, ours, sizeof(ours)) < 0 || program_of(target, theirs, sizeof(theirs)) < 0)
		return -1;
	return strcmp(ours, theirs) == 0;
}

int pv_remote_signal_and_wait(pid_t target)
{
	double deadline = clock_now() + PV_REMOTE_WAIT;
	sigset_t usr2, old;
	int rc = -1;

	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	if (pv_remote_is_pv(target) != 1) { /* SIGUSR2 would end any other program */
		errno = EPERM;
		return -1;
	}
	if (sigprocmask(SIG_BLOCK, &usr2, &old) < 0)
		return -1;
	if (proc_signal(target, SIGUSR2) == 0) {
		errno = ETIMEDOUT;
		for (double left; (left = deadline - clock_now()) > 0;) {
			struct timespec ts = clock_timespec(left);
			siginfo_t info;

			if (sigtimedwait(&usr2, &info, &ts) == SIGUSR2 && info.si_pid == target) {
				rc = 0;
				break;
			}
			errno = ETIMEDOUT;
		}
	}
	{
		int saved = errno;

		sigprocmask(SIG_SETMASK, &old, NULL);
		errno = saved;
	}
	return rc;
}
