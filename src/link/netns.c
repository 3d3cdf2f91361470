/* SPDX-License-Identifier: ISC */
/* netns.c - namespaces and TUN devices for the two ends of an emulated link (see netns.h). */
#include "netns.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* Write text to a /proc file; 0 or -1 with errno. */
static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int saved;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int make_userns(char *err, size_t errlen)
{
	char map[64];
	const unsigned uid = (unsigned)geteuid(), gid = (unsigned)getegid();

	if (unshare(CLONE_NEWUSER) < 0) {
		snprintf(err, errlen, "cannot make a user namespace: %s (is kernel.unprivileged_userns_clone "
			 "or user.max_user_namespaces 0?)", strerror(errno));
		return -1;
	}
	snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
	if (write_file("/proc/self/setgroups", "deny") < 0 || write_file("/proc/self/uid_map", map) < 0) {
		snprintf(err, errlen, "cannot map our uid in the user namespace: %s", strerror(errno));
		return -1;
	}
	snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
	if (write_file("/proc/self/gid_map", map) < 0) {
		snprintf(err, errlen, "cannot map our gid in the user namespace: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int set_flags_up(int sock, const char *name)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(sock, SIOCGIFFLAGS, &ifr) < 0)
		return -1;
	ifr.ifr_flags |= IFF_UP;
	return ioctl(sock, SIOCSIFFLAGS, &ifr);
}

static int set_addr(int sock, const char *name, unsigned long req, const char *addr)
{
	struct ifreq ifr;
	struct sockaddr_in sin = { .sin_family = AF_INET };

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	inet_pton(AF_INET, addr, &sin.sin_addr);
	memcpy(&ifr.ifr_addr, &sin, sizeof(sin));
	return ioctl(sock, req, &ifr);
}

/* The TUN device's ring holds what its end sent until the delay line reads
 * it; the default 500 overflows, losing packets the schedule never saw,
 * when a sender bursts while the line waits for the CPU. */
static int set_txqlen(int sock, const char *name)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_qlen = LINK_TUN_QUEUE;
	return ioctl(sock, SIOCSIFTXQLEN, &ifr);
}

/* In the current network namespace: loopback up, IPv6 off (no router
 * solicitations on the link), ping for our gid, and a TUN device named
 * name from local to peer. Returns its fd, or -1 with err. */
static int make_end(const char *name, const char *local, const char *peer, char *err, size_t errlen)
{
	struct ifreq ifr;
	char range[48];
	int sock, fd;

	/* Best effort: without IPv6 or these files the link still works. */
	(void)write_file("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1");
	(void)write_file("/proc/sys/net/ipv6/conf/all/disable_ipv6", "1");
	snprintf(range, sizeof(range), "%u %u", (unsigned)getegid(), (unsigned)getegid());
	(void)write_file("/proc/sys/net/ipv4/ping_group_range", range);

	if ((fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "/dev/net/tun: %s", strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		snprintf(err, errlen, "cannot make TUN device %s: %s", name, strerror(errno));
		close(fd);
		return -1;
	}
	if ((sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		close(fd);
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_mtu = LINK_MTU;
	if (set_flags_up(sock, "lo") < 0 || set_addr(sock, name, SIOCSIFADDR, local) < 0 ||
	    set_addr(sock, name, SIOCSIFDSTADDR, peer) < 0 || ioctl(sock, SIOCSIFMTU, &ifr) < 0 ||
	    set_txqlen(sock, name) < 0 || set_flags_up(sock, name) < 0) {
		snprintf(err, errlen, "cannot configure %s: %s", name, strerror(errno));
		close(sock);
		close(fd);
		return -1;
	}
	close(sock);
	return fd;
}

static int new_netns(int *ns_fd, char *err, size_t errlen)
{
	if (unshare(CLONE_NEWNET) < 0) {
		snprintf(err, errlen, "cannot make a network namespace: %s", strerror(errno));
		return -1;
	}
	if ((*ns_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "/proc/self/ns/net: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int link_net_setup(struct link_net *n, char *err, size_t errlen)
{
	memset(n, 0, sizeof(*n));
	n->ns_fd[0] = n->ns_fd[1] = n->pkt_fd[0] = n->pkt_fd[1] = -1;
	if (geteuid() != 0) {
		if (make_userns(err, errlen) < 0)
			return -1;
		n->userns = 1;
	}
	if (new_netns(&n->ns_fd[0], err, errlen) < 0 ||
	    (n->pkt_fd[0] = make_end("ncpv-near", LINK_NEAR_ADDR, LINK_FAR_ADDR, err, errlen)) < 0 ||
	    new_netns(&n->ns_fd[1], err, errlen) < 0 ||
	    (n->pkt_fd[1] = make_end("ncpv-far", LINK_FAR_ADDR, LINK_NEAR_ADDR, err, errlen)) < 0) {
		link_net_close(n);
		return -1;
	}
	return 0;
}

int link_net_enter(const struct link_net *n, int side)
{
	return setns(n->ns_fd[side], CLONE_NEWNET);
}

void link_net_close(struct link_net *n)
{
	for (int i = 0; i < 2; i++) {
		if (n->ns_fd[i] >= 0)
			close(n->ns_fd[i]);
		if (n->pkt_fd[i] >= 0)
			close(n->pkt_fd[i]);
		n->ns_fd[i] = n->pkt_fd[i] = -1;
	}
}
