/* SPDX-License-Identifier: ISC */
/* tput_run.h - one server and one client run of bench's throughput tests (tput.h). */
#ifndef NCPV_BENCH_TPUT_RUN_H
#define NCPV_BENCH_TPUT_RUN_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "tput.h"

struct tput_server {
	enum tput_method method;
	pid_t pid;		/* its process group's leader; 0 when not running */
	int port;		/* on host */
	char host[16];		/* its IPv4 address (INET_ADDRSTRLEN): 127.0.0.1, or --link's near end */
	int out_fd;		/* iperf2's UDP server: its CSV lines (a scratch file); else -1 */
	char out_path[4200];
};

/* Start method m's server for test on a free port of host (an IPv4 address
 * of this network namespace) and wait until it is bound. Returns 0, or -1
 * with a one-line reason in err. */
int tput_server_start(struct tput_server *s, enum tput_method m, enum tput_test test, const char *ncpv,
		      const char *host, const char *scratch, char *err, size_t errlen);

/* Stop it by its PID (its own process group). Safe to repeat. */
void tput_server_stop(struct tput_server *s);

/* One client run against s for seconds: its figures parsed, its CPU time and
 * the server's meanwhile. The command line (ncpv for this program's path)
 * goes to command. Returns 0 (run->ok, or run->error says why not), or -1
 * when *stop cut it short. */
int tput_client_run(const struct tput_server *s, enum tput_test test, int streams, double rate, int length,
		    int seconds, const char *ncpv, const char *scratch, volatile sig_atomic_t *stop,
		    struct tput_run *run, char *command, size_t cmdlen);

#endif
