/* SPDX-License-Identifier: ISC */
/* udp_cmd.h - serve -u and get -u: the UDP test's command layer (src/cmd/udp.c), entered from serve.c and get.c. */
#ifndef NCPV_UDP_CMD_H
#define NCPV_UDP_CMD_H

#include "cmd.h"

/* Whether argv (before any "--") asks for UDP: a word "-u" or "--udp". */
int cmd_udp_wanted(int argc, char **argv);

/* The whole command, and its parse alone (as cmd_serve_parse / cmd_get_parse). */
int cmd_udp_serve(int argc, char **argv);
int cmd_udp_get(int argc, char **argv);
enum cmd_parse cmd_udp_serve_parse(int argc, char **argv);
enum cmd_parse cmd_udp_get_parse(int argc, char **argv);

#endif
