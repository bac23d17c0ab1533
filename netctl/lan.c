/* lan.c — see lan.h. */
#include "netctl/lan.h"
#include "netctl/ns.h"
#include "netctl/rtreq.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define IFX_BRIDGE 2
#define IFX_PORT0  16

void lan_machine_ns(const char *prefix, const char *host, char *buf, size_t len)
{
	snprintf(buf, len, "%s-%s%s", prefix, LAN_MACHINE, host);
}

bool lan_owns(const char *ns_name, void *prefix)
{
	size_t n = strlen(prefix);
	if (strncmp(ns_name, prefix, n) || ns_name[n] != '-')
		return false;
	ns_name += n + 1;
	return !strcmp(ns_name, LAN_NS) || !strncmp(ns_name, LAN_MACHINE, strlen(LAN_MACHINE));
}

static int quiet_ns(void)
{
	/* No IPv6 chatter on the LAN (a kernel without IPv6 has none). */
	if ((sysctl_set("net/ipv6/conf/all/disable_ipv6", "1") || sysctl_set("net/ipv6/conf/default/disable_ipv6", "1")) &&
	    errno != ENOENT)
		return -1;
	return 0;
}

static int lan_build(const char *prefix, const struct hosts *hs, int root, int *fds, char err[FABRIC_ERR_LEN])
{
	char name[NS_NAME_MAX];
	struct nlbatch nb;
	int mtu = 0;
	for (int i = 0; i < hs->n; i++) {
		lan_machine_ns(prefix, hs->h[i].name, name, sizeof name);
		fds[i] = ns_create(name);
		int rc = fds[i] < 0 ? -1 : quiet_ns();
		ns_enter(root);
		if (rc)
			return snprintf(err, FABRIC_ERR_LEN, "create namespace %s: %s", name, strerror(errno)), -1;
		if (hs->h[i].mtu > mtu)
			mtu = hs->h[i].mtu;
	}
	snprintf(name, sizeof name, "%s-%s", prefix, LAN_NS);
	fds[hs->n] = ns_create(name);
	if (fds[hs->n] < 0 || quiet_ns() || nlbatch_init(&nb)) {
		snprintf(err, FABRIC_ERR_LEN, "create namespace %s: %s", name, strerror(errno));
		ns_enter(root);
		return -1;
	}
	ns_enter(root);
	rq_link_up(&nb, 1);
	rq_bridge(&nb, IFX_BRIDGE, "lan", mtu);
	for (int i = 0; i < hs->n; i++) {
		char port[16];
		snprintf(port, sizeof port, "p%d", i);
		struct veth_end a = {IFX_PORT0 + i, port, {0x02, 0x4c, 0, (uint8_t)i, 0, 0}};
		struct veth_end z = {2, hs->h[i].ifname, {0x02, 0x4c, 1, (uint8_t)i, 0, 0}};
		rq_veth(&nb, &a, &z, fds[i], 65536);
		rq_link_mtu(&nb, a.ifindex, hs->h[i].mtu);
		rq_link_master(&nb, a.ifindex, IFX_BRIDGE);
	}
	int rc = nlbatch_commit(&nb);
	if (rc)
		snprintf(err, FABRIC_ERR_LEN, "%s: %s", name, nb.err);
	nlbatch_free(&nb);
	for (int i = 0; i < hs->n && !rc; i++) {
		if (ns_enter(fds[i]) || nlbatch_init(&nb)) {
			ns_enter(root);
			return snprintf(err, FABRIC_ERR_LEN, "host %s: netlink: %s", hs->h[i].name, strerror(errno)), -1;
		}
		ns_enter(root);
		rq_link_up(&nb, 1);
		rq_link_up(&nb, 2);
		rq_link_mtu(&nb, 2, hs->h[i].mtu);
		rq_addr_plen(&nb, 2, hs->h[i].addr, hs->h[i].plen);
		if ((rc = nlbatch_commit(&nb)))
			snprintf(err, FABRIC_ERR_LEN, "host %s: %s", hs->h[i].name, nb.err);
		nlbatch_free(&nb);
	}
	return rc;
}

int lan_up(const char *prefix, const struct hosts *hs, char err[FABRIC_ERR_LEN])
{
	int fds[HOSTS_MAX + 1], root = ns_self();
	for (int i = 0; i <= hs->n; i++)
		fds[i] = -1;
	if (root < 0)
		return snprintf(err, FABRIC_ERR_LEN, "no /proc: %s", strerror(errno)), -1;
	int rc = lan_build(prefix, hs, root, fds, err);
	for (int i = 0; i <= hs->n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (rc) {
		char name[NS_NAME_MAX];
		for (int i = 0; i < hs->n; i++) {
			lan_machine_ns(prefix, hs->h[i].name, name, sizeof name);
			ns_delete(name);
		}
		snprintf(name, sizeof name, "%s-%s", prefix, LAN_NS);
		ns_delete(name);
	}
	close(root);
	return rc;
}
