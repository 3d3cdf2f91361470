/* SPDX-License-Identifier: ISC */
/* netns.h - the two ends of an emulated link: network namespaces (in a user namespace for non-root) joined through TUN devices. */
#ifndef NCPV_LINK_NETNS_H
#define NCPV_LINK_NETNS_H

#include <stddef.h>

/* The near end (a server's side) and the far end (where the command runs). */
#define LINK_NEAR_ADDR "10.231.0.1"
#define LINK_FAR_ADDR "10.231.0.2"
#define LINK_MTU 1500
#define LINK_TUN_QUEUE 10000 /* packets a TUN device holds for the line to read */

struct link_net {
	int ns_fd[2];	/* [0] near, [1] far network namespace; -1 when closed */
	int pkt_fd[2];	/* the TUN device of each end: read what that end sends, write what it receives */
	unsigned header; /* bytes before the IP header in each packet: 0 for TUN, 14 for veth */
	const char *mode; /* "tun", or "veth" (veth pairs and packet sockets) */
	int userns;	/* 1 when a user namespace was made (not root) */
};

/*
 * Make the two ends: as an ordinary user, first a user namespace mapping
 * only our own uid and gid (so commands keep running as us); then two
 * network namespaces, each with loopback up, IPv6 off and a point-to-point
 * TUN device (LINK_NEAR_ADDR <-> LINK_FAR_ADDR, MTU LINK_MTU) whose packets
 * reach nothing until the caller moves them, and ICMP echo sockets allowed
 * for our gid (ping without privileges). Where /dev/net/tun cannot be
 * opened (mode 0600 for an ordinary user, no tun module), each end is a
 * veth pair instead: the address on one side (offloads off, so frames are
 * finished and at most the MTU), and a packet socket on the other, which
 * gives and takes whole Ethernet frames (ARP included) just as a TUN fd
 * gives packets. mode LINK_MODE_TUN or LINK_MODE_VETH asks for one of the
 * two (no fallback); LINK_MODE_AUTO tries TUN first. The calling process (one thread) is left in the user
 * namespace and the far network namespace. Returns 0, or -1 with err (and
 * whatever was made is closed).
 */
enum link_mode { LINK_MODE_AUTO, LINK_MODE_TUN, LINK_MODE_VETH };
int link_net_setup(struct link_net *n, enum link_mode mode, char *err, size_t errlen);

/* Enter end side's (0 near, 1 far) network namespace: 0 or -1 with errno. */
int link_net_enter(const struct link_net *n, int side);

/* Close every descriptor; the namespaces and devices go with the last user. */
void link_net_close(struct link_net *n);

#endif
