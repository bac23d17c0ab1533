/* features.c — see features.h. */
#include "netctl/features.h"
#include "netctl/ns.h"
#include "netctl/plan.h"
#include "netctl/rtreq.h"
#include <linux/pkt_sched.h>
#include <arpa/inet.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static bool try(struct nlbatch *nb, struct features *f)
{
	if (!nlbatch_commit(nb))
		return true;
	if (!f->detail[0])
		snprintf(f->detail, sizeof f->detail, "%s", nb->err);
	return false;
}

static void netem(struct nlbatch *nb, int ifindex)
{
	struct nlmsghdr *nlh = nlbatch_msg(nb, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE,
					   "netem qdisc on ifindex %d", ifindex);
	struct tcmsg *tcm = mnl_nlmsg_put_extra_header(nlh, sizeof *tcm);
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_parent = TC_H_ROOT;
	mnl_attr_put_strz(nlh, TCA_KIND, "netem");
	struct tc_netem_qopt q = {.limit = 1000};
	mnl_attr_put(nlh, TCA_OPTIONS, sizeof q, &q);
}

int features_probe(const char *prefix, struct features *f)
{
	char name[NS_NAME_MAX];
	struct nlbatch nb;
	struct topo_link l = {.rate = 100000000, .queue_bytes = 100000, .gso_max = 12500};
	struct veth_end a = {2, "a", {2, 0, 0, 0, 0, 1}}, b = {3, "b", {2, 0, 0, 0, 0, 2}};
	int root = ns_self(), fd;

	memset(f, 0, sizeof *f);
	snprintf(name, sizeof name, "%s-probe", prefix);
	ns_delete(name);
	if (root < 0 || (fd = ns_create(name)) < 0) {
		snprintf(f->detail, sizeof f->detail, "cannot create a network namespace: %m");
		if (root >= 0)
			close(root);
		return -1;
	}
	int rc = nlbatch_init(&nb);
	if (!rc) {
		rq_veth(&nb, &a, &b, fd, l.gso_max);
		rq_link_up(&nb, b.ifindex);
		if ((f->veth = try(&nb, f))) {
			f->htb = !rq_shape(&nb, a.ifindex, &l) && try(&nb, f);
			f->bfifo = f->htb;   /* rq_shape installs both; tell them apart only on failure */
			rq_ingress(&nb, b.ifindex);
			f->ingress = try(&nb, f);
			f->u32_mirred = f->ingress && !rq_redirect(&nb, b.ifindex, a.ifindex) && try(&nb, f);
			netem(&nb, b.ifindex);
			/* netem is optional: do not let it become "the" failure. */
			char keep[sizeof f->detail];
			memcpy(keep, f->detail, sizeof keep);
			f->netem = try(&nb, f);
			/* A fabric over several hosts: VXLAN ends over an underlay,
			 * and a bridge for emulated hosts' LAN.  The probe's end is
			 * on a TEST-NET address in this scratch namespace, and sends
			 * nothing. */
			struct vxlan_end v = {.ifindex = 20, .name = "vx", .mac = {2, 0, 0, 0, 0, 3}, .vni = 1,
					      .local = {htonl(0xc0000201)}, .remote = {htonl(0xc0000202)},
					      .underlay = a.ifindex, .mtu = 1450, .gso_max = l.gso_max, .ns_fd = fd};
			f->vxlan = !rq_vxlan(&nb, &v) && try(&nb, f);
			rq_bridge(&nb, 21, "br", 1500);
			f->bridge = try(&nb, f);
			memcpy(f->detail, keep, sizeof keep);
		}
		nlbatch_free(&nb);
	}
	ns_enter(root);
	close(fd);
	close(root);
	ns_delete(name);
	return rc;
}

const char *features_missing(const struct features *f, bool ocs)
{
	if (!f->veth)
		return "veth links (CONFIG_VETH)";
	if (!f->htb)
		return "HTB shaping with a bfifo leaf (CONFIG_NET_SCH_HTB, CONFIG_NET_SCH_FIFO)";
	if (ocs && !f->ingress)
		return "the ingress qdisc (CONFIG_NET_SCH_INGRESS) for the OCS crossbar";
	if (ocs && !f->u32_mirred)
		return "u32 filters with mirred redirects (CONFIG_NET_CLS_U32, CONFIG_NET_ACT_MIRRED) for the OCS crossbar";
	return NULL;
}

const char *features_missing_hosts(const struct features *f, bool emulated)
{
	if (!f->vxlan)
		return "VXLAN (CONFIG_VXLAN) for the links between hosts";
	if (emulated && !f->bridge)
		return "bridges (CONFIG_BRIDGE) for the emulated hosts' LAN";
	return NULL;
}
