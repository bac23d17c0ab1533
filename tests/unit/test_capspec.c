/* Unit tests: capture targets (HOST[:IFACE]), interfaces of the plan,
 * snapshot lengths, filter words (netctl/capspec.h). */
#include "netctl/capspec.h"
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static struct topo t;   /* 3 racks x 2 servers, one optical port */
static struct topo no_ocs;

static void load(void)
{
	char err[TOPO_ERR_LEN];
	cr_assert_eq(topo_load_string(&t, "name = \"t\"; racks = 3; servers_per_rack = 2;\n"
					  "server = { rate = \"100Mbit\"; }; eps = { uplink_rate = \"50Mbit\"; };\n"
					  "ocs = { ports_per_rack = 1; rate = \"200Mbit\"; };\n", "t.conf", 0, err), 0, "%s", err);
	cr_assert_eq(topo_load_string(&no_ocs, "name = \"e\"; racks = 2; servers_per_rack = 2;\n"
					       "server = { rate = \"100Mbit\"; }; eps = { uplink_rate = \"50Mbit\"; };\n",
				      "e.conf", 0, err), 0, "%s", err);
}

TestSuite(capspec, .init = load);

static struct cap_target parse_ok(const char *spec, const struct topo *topo)
{
	struct cap_target c;
	char err[CAPSPEC_ERR_LEN];
	cr_assert_eq(capspec_parse(spec, topo, &c, err), 0, "%s: %s", spec, err);
	return c;
}

Test(capspec, host_and_interface)
{
	struct cap_target c = parse_ok("r2h1", &t);
	cr_assert_eq(c.host.kind, HOST_SERVER);
	cr_assert_eq(c.host.rack, 2);
	cr_assert_eq(c.host.server, 1);
	cr_assert_str_eq(c.host_name, "r2h1");
	cr_assert_str_eq(c.ifname, "eth0", "a server's default is its NIC");

	c = parse_ok("tor1:up", &t);
	cr_assert_eq(c.host.kind, HOST_TOR);
	cr_assert_eq(c.host.rack, 1);
	cr_assert_str_eq(c.ifname, "up");

	c = parse_ok("tor0", &t);
	cr_assert_str_eq(c.ifname, "any", "switches default to every interface");
	c = parse_ok("eps", &t);
	cr_assert_eq(c.host.kind, HOST_EPS);
	cr_assert_str_eq(c.ifname, "any");
	c = parse_ok("ocs:r2p0", &t);
	cr_assert_eq(c.host.kind, HOST_OCS);
	cr_assert_str_eq(c.ifname, "r2p0");
	c = parse_ok("r0h0:lo", &t);
	cr_assert_str_eq(c.ifname, "lo");
}

Test(capspec, bad_targets)
{
	static const char *const bad[] = {
		"", ":eth0", "r3h0", "r0h2", "tor3", "tor01", "r0", "host", "r0h0:", "r0h0:eth0:1", "r0h0:a/b",
		"r0h0:a b", "r0h0:..", "r0h0:0123456789abcdef", "r0h0x:eth0", NULL};
	struct cap_target c;
	char err[CAPSPEC_ERR_LEN];
	for (int i = 0; bad[i]; i++) {
		err[0] = 0;
		cr_assert_eq(capspec_parse(bad[i], &t, &c, err), -1, "'%s' accepted", bad[i]);
		cr_assert(err[0], "'%s': no message", bad[i]);
	}
	cr_assert_eq(capspec_parse("ocs", &no_ocs, &c, err), -1, "a fabric without an OCS has no host ocs");
	/* 15 characters is the kernel's limit, and still accepted */
	cr_assert_eq(capspec_parse("r0h0:0123456789abcde", &t, &c, err), 0, "%s", err);
}

Test(capspec, interfaces_of_the_plan)
{
	static const char *const ok[] = {"r0h0:eth0", "r0h0:any", "r1h1:lo", "tor0:up", "tor0:h1", "tor2:o0",
					 "eps:r0", "eps:r2", "ocs:r0p0", "ocs:r2p0", "tor1:any", NULL};
	static const char *const missing[] = {"r0h0:up", "r0h0:eth1", "tor0:h2", "tor0:o1", "tor0:eth0", "tor0:h01",
					      "eps:r3", "eps:r01", "eps:up", "ocs:r3p0", "ocs:r0p1", "ocs:r0p",
					      "ocs:r0", NULL};
	char err[CAPSPEC_ERR_LEN];
	for (int i = 0; ok[i]; i++) {
		struct cap_target c = parse_ok(ok[i], &t);
		cr_assert_eq(capspec_iface_planned(&t, &c, err), 0, "%s: %s", ok[i], err);
	}
	for (int i = 0; missing[i]; i++) {
		struct cap_target c = parse_ok(missing[i], &t);
		err[0] = 0;
		cr_assert_eq(capspec_iface_planned(&t, &c, err), -1, "%s accepted", missing[i]);
		cr_assert(strstr(err, c.ifname), "%s: the message names the interface: %s", missing[i], err);
	}
	/* without an OCS a ToR has no optical port */
	struct cap_target c = parse_ok("tor0:o0", &no_ocs);
	cr_assert_eq(capspec_iface_planned(&no_ocs, &c, err), -1);
}

Test(capspec, same_target_and_file_name)
{
	struct cap_target a = parse_ok("r0h1", &t), b = parse_ok("r0h1:eth0", &t), c = parse_ok("r0h1:any", &t);
	cr_assert(capspec_same(&a, &b), "the default interface is the interface");
	cr_assert(!capspec_same(&a, &c));
	char name[64];
	capspec_file_name(&a, name, sizeof name);
	cr_assert_str_eq(name, "capture-r0h1-eth0.pcap");
	struct cap_target d = parse_ok("tor2:up", &t);
	capspec_file_name(&d, name, sizeof name);
	cr_assert_str_eq(name, "capture-tor2-up.pcap");
}

Test(capspec, snaplen)
{
	int v = -1;
	cr_assert_eq(capspec_snaplen("128", &v), 0);
	cr_assert_eq(v, 128);
	cr_assert_eq(capspec_snaplen("1", &v), 0);
	cr_assert_eq(v, 1);
	cr_assert_eq(capspec_snaplen("262144", &v), 0);
	cr_assert_eq(v, CAPSPEC_SNAPLEN_MAX);
	static const char *const bad[] = {"0", "262145", "-5", "+5", " 5", "5 ", "12x", "", "1e3", "0x80",
					  "99999999999999999999999", NULL};
	for (int i = 0; bad[i]; i++) {
		v = 7;
		cr_assert_eq(capspec_snaplen(bad[i], &v), -1, "'%s' accepted", bad[i]);
		cr_assert_eq(v, 7, "'%s' changed the value", bad[i]);
	}
}

Test(capspec, filter_words_joined_like_tcpdump)
{
	char *words[] = {"tcp", "port", "7000", "and", "not host 198.18.0.1"};
	char *s = capspec_join(words, 5);
	cr_assert_str_eq(s, "tcp port 7000 and not host 198.18.0.1");
	free(s);
	s = capspec_join(words, 0);
	cr_assert_str_eq(s, "");
	free(s);
}
