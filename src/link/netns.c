/* SPDX-License-Identifier: ISC */
/* netns.c - namespaces and TUN devices for the two ends of an emulated link (see netns.h). */
#include "netns.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <linux/veth.h>
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

/* In the current network namespace: IPv6 off (no router solicitations on
 * the link) and ping for our gid. Best effort: the link works without. */
static void prepare_ns(void)
{
	char range[48];

	(void)write_file("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1");
	(void)write_file("/proc/sys/net/ipv6/conf/all/disable_ipv6", "1");
	snprintf(range, sizeof(range), "%u %u", (unsigned)getegid(), (unsigned)getegid());
	(void)write_file("/proc/sys/net/ipv4/ping_group_range", range);
}

/* In the current network namespace: loopback up and a TUN device named
 * name from local to peer. Returns its fd, or -1 with err (errno kept). */
static int make_tun_end(const char *name, const char *local, const char *peer, char *err, size_t errlen)
{
	struct ifreq ifr;
	int sock, fd;

	prepare_ns();
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

/* Append attribute type with len bytes of data to the message msg (a netlink header
 * followed by room, cap bytes in all); returns it. msg is the whole buffer, not its header
 * member, so that the compiler sees how far the attributes may reach. */
static struct rtattr *add_attr(void *msg, size_t cap, unsigned short type, const void *data, size_t len)
{
	struct nlmsghdr *nh = msg;
	struct rtattr *rta = (struct rtattr *)((char *)msg + NLMSG_ALIGN(nh->nlmsg_len));

	if (NLMSG_ALIGN(nh->nlmsg_len) + RTA_SPACE(len) > cap)
		return NULL;
	rta->rta_type = type;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	nh->nlmsg_len = (uint32_t)(NLMSG_ALIGN(nh->nlmsg_len) + RTA_SPACE(len));
	return rta;
}

/* Close a nested attribute opened by add_attr(..., NULL, 0). */
static void end_nest(struct nlmsghdr *nh, struct rtattr *nest)
{
	nest->rta_len = (unsigned short)((char *)nh + nh->nlmsg_len - (char *)nest);
}

/* A veth pair name <-> peer in the current namespace, over rtnetlink (no
 * iproute2). 0, or -1 with errno. */
static int make_veth(const char *name, const char *peer)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		char attrs[512];
	} req;
	struct {
		struct nlmsghdr nh;
		struct nlmsgerr e;
		char more[256];
	} ack;
	struct ifinfomsg peer_ifi;
	struct rtattr *info, *data, *peer_attr;
	int sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	ssize_t got;

	if (sock < 0)
		return -1;
	memset(&req, 0, sizeof(req));
	memset(&peer_ifi, 0, sizeof(peer_ifi));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
	req.nh.nlmsg_type = RTM_NEWLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK;
	req.ifi.ifi_family = AF_UNSPEC;
	add_attr(&req, sizeof(req), IFLA_IFNAME, name, strlen(name) + 1);
	info = add_attr(&req, sizeof(req), IFLA_LINKINFO, NULL, 0);
	add_attr(&req, sizeof(req), IFLA_INFO_KIND, "veth", 4);
	data = add_attr(&req, sizeof(req), IFLA_INFO_DATA, NULL, 0);
	peer_attr = add_attr(&req, sizeof(req), VETH_INFO_PEER, &peer_ifi, sizeof(peer_ifi));
	add_attr(&req, sizeof(req), IFLA_IFNAME, peer, strlen(peer) + 1);
	end_nest(&req.nh, peer_attr);
	end_nest(&req.nh, data);
	end_nest(&req.nh, info);
	if (send(sock, &req, req.nh.nlmsg_len, 0) < 0 || (got = recv(sock, &ack, sizeof(ack), 0)) < 0) {
		int saved = errno;

		close(sock);
		errno = saved;
		return -1;
	}
	close(sock);
	if ((size_t)got < sizeof(ack.nh) + sizeof(ack.e) || ack.nh.nlmsg_type != NLMSG_ERROR) {
		errno = EPROTO;
		return -1;
	}
	if (ack.e.error != 0) {
		errno = -ack.e.error;
		return -1;
	}
	return 0;
}

/* Checksums and segmentation done by the sender's kernel, so that what the
 * packet socket reads is a finished frame of at most the MTU. */
static int no_offloads(int sock, const char *name)
{
	static const uint32_t cmds[] = { ETHTOOL_STSO, ETHTOOL_SGSO, ETHTOOL_SSG, ETHTOOL_STXCSUM };
	struct ifreq ifr;

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		struct ethtool_value ev = { .cmd = cmds[i], .data = 0 };

		memset(&ifr, 0, sizeof(ifr));
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
		ifr.ifr_data = (char *)&ev;
		if (ioctl(sock, SIOCETHTOOL, &ifr) < 0)
			return -1;
	}
	return 0;
}

/* Without a usable /dev/net/tun: a veth pair in the current namespace, name
 * (the address local, a /30 with the peer) and name + "x", whose frames a
 * packet socket reads and writes. A veth has no ring to overflow (it hands
 * each frame straight to its peer), so its queue length is left alone.
 * Returns the socket, or -1 with err. */
static int make_packet_end(const char *name, const char *local, char *err, size_t errlen)
{
	char line_end[IFNAMSIZ];
	struct ifreq ifr;
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	int sock, fd = -1, one = 1;

	prepare_ns();
	snprintf(line_end, sizeof(line_end), "%sx", name);
	if (make_veth(name, line_end) < 0) {
		snprintf(err, errlen, "cannot make veth pair %s: %s", name, strerror(errno));
		return -1;
	}
	if ((sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", line_end);
	if (set_flags_up(sock, "lo") < 0 || set_addr(sock, name, SIOCSIFADDR, local) < 0 ||
	    set_addr(sock, name, SIOCSIFNETMASK, "255.255.255.252") < 0 || no_offloads(sock, name) < 0 ||
	    set_flags_up(sock, name) < 0 || set_flags_up(sock, line_end) < 0 ||
	    ioctl(sock, SIOCGIFINDEX, &ifr) < 0) {
		snprintf(err, errlen, "cannot configure %s: %s", name, strerror(errno));
		close(sock);
		return -1;
	}
	close(sock);
	sll.sll_ifindex = ifr.ifr_ifindex;
	/* Our own writes would come back as outgoing frames: not wanted. */
	if ((fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL))) < 0 ||
	    setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		snprintf(err, errlen, "packet socket on %s: %s", line_end, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Whether a failure to open /dev/net/tun means "not for us" (fall back to
 * veth and packet sockets) rather than something to report. */
static int tun_unusable(int e)
{
	return e == EACCES || e == EPERM || e == ENOENT || e == ENODEV || e == ENXIO;
}

int link_net_setup(struct link_net *n, enum link_mode mode, char *err, size_t errlen)
{
	memset(n, 0, sizeof(*n));
	n->ns_fd[0] = n->ns_fd[1] = n->pkt_fd[0] = n->pkt_fd[1] = -1;
	n->mode = "tun";
	if (geteuid() != 0) {
		if (make_userns(err, errlen) < 0)
			return -1;
		n->userns = 1;
	}
	if (new_netns(&n->ns_fd[0], err, errlen) < 0)
		goto fail;
	if (mode != LINK_MODE_VETH)
		n->pkt_fd[0] = make_tun_end("ncpv-near", LINK_NEAR_ADDR, LINK_FAR_ADDR, err, errlen);
	if (mode == LINK_MODE_VETH || (mode == LINK_MODE_AUTO && n->pkt_fd[0] < 0 && tun_unusable(errno))) {
		n->mode = "veth";
		n->header = ETH_HLEN;
		n->pkt_fd[0] = make_packet_end("ncpv-near", LINK_NEAR_ADDR, err, errlen);
	}
	if (n->pkt_fd[0] < 0 || new_netns(&n->ns_fd[1], err, errlen) < 0)
		goto fail;
	n->pkt_fd[1] = n->header ? make_packet_end("ncpv-far", LINK_FAR_ADDR, err, errlen)
				 : make_tun_end("ncpv-far", LINK_FAR_ADDR, LINK_NEAR_ADDR, err, errlen);
	if (n->pkt_fd[1] < 0)
		goto fail;
	return 0;
fail:
	link_net_close(n);
	return -1;
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
