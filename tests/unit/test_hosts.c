/* Unit tests: hosts files and the partition of racks across hosts. */
#include "netctl/hosts.h"
#include "netctl/topo.h"
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static const char *two =
	"# name mgmt underlay addr racks\n"
	"a emulated lan0 10.77.0.1/24 auto\n"
	"\n"
	"b emulated lan0 10.77.0.2 auto mtu=1550   # trailing comment\n";

Test(hosts, parses_fields)
{
	struct hosts hs;
	char err[HOSTS_ERR_LEN];
	cr_assert_eq(hosts_load_string(&hs, two, "h.txt", err), 0, "%s", err);
	cr_assert_eq(hs.n, 2);
	cr_assert_str_eq(hs.h[1].name, "b");
	cr_assert(hs.h[1].emulated);
	cr_assert_str_eq(hs.h[1].ifname, "lan0");
	cr_assert_eq(ntohl(hs.h[1].addr.s_addr), 0x0a4d0002u);
	cr_assert_eq(hs.h[1].plen, 24);
	cr_assert_eq(hs.h[1].racks, HOSTS_AUTO);
	cr_assert_eq(hs.h[0].mtu, 1500);
	cr_assert_eq(hs.h[1].mtu, 1550);
	cr_assert_eq(hs.h[1].line, 4);
	cr_assert_eq(hosts_find(&hs, "b"), 1);
	cr_assert_eq(hosts_find(&hs, "c"), -1);

	/* Written back, it reads the same. */
	char buf[1024];
	struct hosts again;
	cr_assert_eq(hosts_format(&hs, buf, sizeof buf), 0);
	cr_assert_eq(hosts_load_string(&again, buf, "back", err), 0, "%s", err);
	cr_assert_eq(again.n, 2);
	cr_assert_eq(again.h[1].mtu, 1550);
	cr_assert_eq(again.h[0].addr.s_addr, hs.h[0].addr.s_addr);

	cr_assert_eq(hosts_load_string(&hs, "x alice@node-1.example.org eth1 192.0.2.7 3\n", "r", err), 0, "%s", err);
	cr_assert_not(hs.h[0].emulated);
	cr_assert_str_eq(hs.h[0].mgmt, "alice@node-1.example.org");
	cr_assert_eq(hs.h[0].racks, 3);
}

/* Every bad line is refused with FILE:LINE and what is wrong. */
Test(hosts, bad_input_names_file_and_line)
{
	static const struct { const char *text, *want; } cases[] = {
		{"a emulated lan0 10.0.0.1\n", "h.txt:1: expected NAME MANAGEMENT UNDERLAY_IF UNDERLAY_ADDR RACKS"},
		{"a emulated lan0 10.0.0.1 auto mtu=1500 x\n", "h.txt:1: too many fields"},
		{"# c\nA emulated lan0 10.0.0.1 auto\n", "h.txt:2: host name 'A'"},
		{"a emulated lan0 10.0.0.1 auto\na emulated lan0 10.0.0.2 auto\n", "h.txt:2: host 'a' is listed twice (first on line 1)"},
		{"a emulated lan0 10.0.0.1 auto\nb bob@x lan0 10.0.0.2 auto\n", "h.txt:2: host 'b' is real but 'a' (line 1) is emulated"},
		{"a -oProxyCommand=x lan0 10.0.0.1 auto\n", "h.txt:1: management address '-oProxyCommand=x'"},
		{"a host;rm lan0 10.0.0.1 auto\n", "h.txt:1: management address"},
		{"a emulated lan/0 10.0.0.1 auto\n", "h.txt:1: underlay interface 'lan/0'"},
		{"a emulated averyveryverylongname 10.0.0.1 auto\n", "h.txt:1: underlay interface"},
		{"a emulated lan0 10.0.0.300 auto\n", "h.txt:1: underlay address '10.0.0.300'"},
		{"a emulated lan0 10.0.0.1/31 auto\n", "h.txt:1: underlay address '10.0.0.1/31'"},
		{"a emulated lan0 127.0.0.1 auto\n", "h.txt:1: underlay address '127.0.0.1': not a unicast"},
		{"a emulated lan0 224.0.0.1 auto\n", "h.txt:1: underlay address '224.0.0.1': not a unicast"},
		{"a emulated lan0 10.0.0.1 auto\nb emulated lan0 10.0.0.1 auto\n", "h.txt:2: underlay address 10.0.0.1 is also host 'a's (line 1)"},
		{"a emulated lan0 10.0.0.1 0\n", "h.txt:1: racks '0'"},
		{"a emulated lan0 10.0.0.1 two\n", "h.txt:1: racks 'two'"},
		{"a emulated lan0 10.0.0.1 auto mtu=1000\n", "h.txt:1: 'mtu=1000': expected mtu=N"},
		{"a emulated lan0 10.0.0.1 auto jumbo\n", "h.txt:1: 'jumbo': expected mtu=N"},
		{"# nothing\n\n", "h.txt: no hosts"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct hosts hs;
		char err[HOSTS_ERR_LEN] = "";
		cr_assert_eq(hosts_load_string(&hs, cases[i].text, "h.txt", err), -1, "accepted: %s", cases[i].text);
		cr_assert(strstr(err, cases[i].want), "case %zu: got '%s', want '%s'", i, err, cases[i].want);
	}
	struct hosts hs;
	char err[HOSTS_ERR_LEN];
	cr_assert_eq(hosts_load(&hs, "/nonexistent/hosts", err), -1);
	cr_assert(strstr(err, "/nonexistent/hosts: No such file"), "%s", err);
}

static const char *geni =
	"name = \"g\";\n"
	"racks = 10;\n"
	"servers_per_rack = 10;\n"
	"server = { rate = \"100Mbit\"; };\n"
	"eps = { uplink_rate = \"100Mbit\"; };\n"
	"ocs = { rate = \"1Gbit\"; };\n";

/* Racks of different sizes and rates: 0-3 heavy (8 servers at 1 Gbit),
 * 4-7 light (2 servers at 100 Mbit). */
static const char *mixed =
	"name = \"m\";\n"
	"classes = { big = { rate = \"1Gbit\"; containers = 2; }; small = { rate = \"100Mbit\"; containers = 2; }; };\n"
	"racks = ( { repeat = 4; servers = { big = 8; }; }, { repeat = 4; servers = { small = 2; }; } );\n"
	"eps = { uplink_rate = \"1Gbit\"; };\n";

static void load(struct topo *t, const char *text)
{
	char err[TOPO_ERR_LEN];
	cr_assert_eq(topo_load_string(t, text, "t.conf", 0, err), 0, "%s", err);
}

static void hosts(struct hosts *hs, const char *text)
{
	char err[HOSTS_ERR_LEN];
	cr_assert_eq(hosts_load_string(hs, text, "h.txt", err), 0, "%s", err);
}

Test(partition, balanced_whole_racks)
{
	struct topo t;
	struct hosts hs;
	struct layout l;
	char err[HOSTS_ERR_LEN];
	load(&t, geni);
	hosts(&hs, "a emulated lan0 10.0.0.1 auto\nb emulated lan0 10.0.0.2 auto\nc emulated lan0 10.0.0.3 auto\n");
	cr_assert_eq(hosts_partition(&hs, &t, &l, err), 0, "%s", err);
	cr_assert_eq(l.nhosts, 3);
	cr_assert_eq(l.racks[0] + l.racks[1] + l.racks[2], 10);
	for (int i = 0; i < 3; i++)
		cr_assert(l.racks[i] == 3 || l.racks[i] == 4, "host %d has %d racks", i, l.racks[i]);
	cr_assert_eq(l.racks[l.eps_host], 4);
	for (int r = 0; r < 10; r++)
		cr_assert(l.host_of[r] >= 0 && l.host_of[r] < 3);
	/* Equal racks go round in order: 0 a, 1 b, 2 c, 3 a ... */
	cr_assert_eq(l.host_of[0], 0);
	cr_assert_eq(l.host_of[1], 1);
	cr_assert_eq(l.host_of[2], 2);
	cr_assert_eq(l.host_of[3], 0);
	cr_assert_eq(l.mtu, 1450);
}

Test(partition, by_link_rates_not_rack_count)
{
	struct topo t;
	struct hosts hs;
	struct layout l;
	char err[HOSTS_ERR_LEN];
	load(&t, mixed);
	hosts(&hs, "a emulated lan0 10.0.0.1 auto mtu=9000\nb emulated lan0 10.0.0.2 auto mtu=1550\n");
	cr_assert_eq(hosts_partition(&hs, &t, &l, err), 0, "%s", err);
	/* Each host gets two heavy racks and two light ones. */
	int heavy[2] = {0, 0};
	for (int r = 0; r < 4; r++)
		heavy[l.host_of[r]]++;
	cr_assert_eq(heavy[0], 2);
	cr_assert_eq(heavy[1], 2);
	cr_assert_float_eq(l.load[0], l.load[1], 1);
	cr_assert_float_eq(hosts_rack_weight(&t, 0), 8e9 + 1e9, 1);
	cr_assert_float_eq(hosts_rack_weight(&t, 4), 2e8 + 1e9, 1);
	cr_assert_eq(l.mtu, 1500);   /* never above 1500, even on jumbo underlays */
}

Test(partition, fixed_counts_are_kept)
{
	struct topo t;
	struct hosts hs;
	struct layout l;
	char err[HOSTS_ERR_LEN];
	load(&t, geni);
	hosts(&hs, "a emulated lan0 10.0.0.1 7\nb emulated lan0 10.0.0.2 auto\nc emulated lan0 10.0.0.3 auto\n");
	cr_assert_eq(hosts_partition(&hs, &t, &l, err), 0, "%s", err);
	cr_assert_eq(l.racks[0], 7);
	cr_assert_eq(l.racks[1] + l.racks[2], 3);
	cr_assert(l.racks[1] >= 1 && l.racks[2] >= 1);
	cr_assert_eq(l.eps_host, 0);

	hosts(&hs, "a emulated lan0 10.0.0.1 1\nb emulated lan0 10.0.0.2 9\n");
	cr_assert_eq(hosts_partition(&hs, &t, &l, err), 0, "%s", err);
	cr_assert_eq(l.racks[0], 1);
	cr_assert_eq(l.racks[1], 9);
	cr_assert_eq(l.eps_host, 1);
}

Test(partition, impossible_counts)
{
	struct topo t;
	struct hosts hs;
	struct layout l;
	char err[HOSTS_ERR_LEN];
	load(&t, geni);
	hosts(&hs, "a emulated lan0 10.0.0.1 4\nb emulated lan0 10.0.0.2 5\n");
	cr_assert_eq(hosts_partition(&hs, &t, &l, err), -1);
	cr_assert(strstr(err, "h.txt:2: the hosts' rack counts add up to 9 but t.conf has 10 racks"), "%s", err);
	hosts(&hs, "a emulated lan0 10.0.0.1 11\nb emulated lan0 10.0.0.2 auto\n");
	cr_assert_eq(hosts_partition(&hs, &t, &l, err), -1);
	cr_assert(strstr(err, "h.txt:1: the hosts' rack counts add up to 11"), "%s", err);
	hosts(&hs, "a emulated lan0 10.0.0.1 9\nb emulated lan0 10.0.0.2 auto\nc emulated lan0 10.0.0.3 auto\n");
	cr_assert_eq(hosts_partition(&hs, &t, &l, err), -1);
	cr_assert(strstr(err, "h.txt:3: 2 auto hosts but only 1 rack left"), "%s", err);
}
