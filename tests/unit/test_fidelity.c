/* The fidelity check (emu/fidelity.h): which link-seconds count as the
 * machine holding packets back, and the verdict. */
#include "emu/fidelity.h"
#include "emu/tcpstat.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct link_stats at(uint32_t backlog, uint64_t drops)
{
	return (struct link_stats){.cls = LINK_UPLINK, .backlog = backlog, .drops = drops};
}

static struct link_stats sent(uint32_t backlog, uint64_t drops, uint64_t tx_bytes)
{
	struct link_stats l = at(backlog, drops);
	l.tx_bytes = tx_bytes;
	return l;
}

Test(fidelity, a_standing_queue_below_its_rate_is_slow)
{
	struct fidelity f = {0};
	struct link_stats a = at(30000, 5), b = sent(40000, 5, 1000000), late = sent(20000, 5, 1020000);
	cr_assert_eq(fidelity_link(&f, &a, &b, 95e6, 100e6, false), 0);
	cr_assert_eq(f.standing, 1);
	/* Slow: looked at again once its 40 kB could have left at 100 Mb/s (3.2 ms). */
	double again = fidelity_link(&f, &a, &b, 60e6, 100e6, false);
	cr_assert(again >= 0.0032 && again < 0.01, "%g", again);
	cr_assert_eq(f.standing, 1);
	fidelity_recheck(&f, &b, &late, again, 100e6);   /* sent half of what it held */
	cr_assert_eq(f.standing, 2);
	cr_assert_eq(f.slow, 1);
	cr_assert_eq(f.dropping + f.bursts, 0);
}

Test(fidelity, a_slow_link_that_sent_what_it_held_when_looked_at_again_kept_up)
{
	struct fidelity f = {0};
	struct link_stats a = at(30000, 5), b = sent(90000, 5, 1000000);
	cr_assert(fidelity_link(&f, &a, &b, 10e6, 100e6, false) > 0);
	struct link_stats refilled = sent(60000, 5, 1090000), dropped = sent(60000, 6, 1000000);
	fidelity_recheck(&f, &b, &refilled, 0.01, 100e6);   /* sent its 90 kB; a new burst came */
	cr_assert_eq(f.bursts, 1);
	cr_assert_eq(f.standing + f.slow, 0);
	/* Looked at too soon to owe all of it: 2 ms at 100 Mb/s is 25 kB. */
	struct link_stats soon = sent(70000, 5, 1021000);
	fidelity_recheck(&f, &b, &soon, 0.002, 100e6);
	cr_assert_eq(f.bursts, 2);
	fidelity_recheck(&f, &b, &dropped, 0.01, 100e6);   /* dropped meanwhile: TCP backs off */
	cr_assert_eq(f.dropping, 1);
	cr_assert_eq(f.standing + f.slow, 0);
}

Test(fidelity, a_queue_that_dropped_is_the_network_backing_off)
{
	struct fidelity f = {0};
	struct link_stats a = at(30000, 5), b = at(40000, 9);
	fidelity_link(&f, &a, &b, 60e6, 100e6, false);
	cr_assert_eq(f.standing, 0);
	cr_assert_eq(f.slow, 0);
	cr_assert_eq(f.dropping, 1);
}

Test(fidelity, a_queue_whose_senders_the_network_paused_is_left_out)
{
	struct fidelity f = {0};
	struct link_stats a = at(30000, 5), b = at(40000, 5);
	fidelity_link(&f, &a, &b, 55e6, 100e6, true);
	cr_assert_eq(f.paused, 1);
	cr_assert_eq(f.standing + f.slow + f.dropping, 0);
}

Test(fidelity, a_queue_empty_at_either_end_did_not_stand)
{
	struct fidelity f = {0};
	struct link_stats empty = at(0, 0), full = at(40000, 0);
	fidelity_link(&f, &empty, &full, 10e6, 100e6, false);
	fidelity_link(&f, &full, &empty, 10e6, 100e6, false);
	cr_assert_eq(f.standing + f.dropping + f.slow, 0);
}

Test(fidelity, verdicts)
{
	char why[256];
	struct fidelity f = {.samples = 40, .standing = 20, .slow = 2, .cpu_hot = 20, .dropping = 500};
	cr_assert_str_eq(fidelity_verdict(&f, why, sizeof why), "ok");
	cr_assert_str_eq(why, "");
	f.slow = 3;   /* over 10% of the standing link-seconds */
	cr_assert_str_eq(fidelity_verdict(&f, why, sizeof why), "machine-limited");
	cr_assert(strstr(why, "3 of 20 link-seconds"), "%s", why);
	f.slow = 0;
	f.cpu_hot = 21;   /* saturated more than half the time */
	cr_assert_str_eq(fidelity_verdict(&f, why, sizeof why), "machine-limited");
	cr_assert(strstr(why, "21 of 40 monitor samples"), "%s", why);
	f.cpu_hot = 0;
	f.softnet_dropped = 1;   /* any packet the kernel lost for lack of CPU */
	cr_assert_str_eq(fidelity_verdict(&f, why, sizeof why), "machine-limited");
	cr_assert(strstr(why, "dropped 1 packets"), "%s", why);
}

Test(fidelity, reconfigurations_dark_well_beyond_delta_are_the_machine)
{
	char why[256];
	struct fidelity f = {.samples = 40};
	for (int i = 0; i < 19; i++)
		fidelity_reconfig(&f, 0.0113, 0.010);   /* δ + 1.3 ms: netlink work, fine */
	fidelity_reconfig(&f, 0.0199, 0.010);
	fidelity_reconfig(&f, 0.0201, 0.010);
	cr_assert_eq(f.reconfigs, 21);
	cr_assert_eq(f.late, 1);
	cr_assert_str_eq(fidelity_verdict(&f, why, sizeof why), "ok");
	for (int i = 0; i < 2; i++)
		fidelity_reconfig(&f, 0.2, 0.010);   /* a controller that lost the CPU */
	cr_assert_eq(f.late, 3);
	cr_assert_str_eq(fidelity_verdict(&f, why, sizeof why), "machine-limited");
	cr_assert(strstr(why, "3 of 23 OCS reconfigurations"), "%s", why);
}

/* A new file from the template `path` (its XXXXXX replaced) holding `text`. */
static void write_temp(char *path, const char *text)
{
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	FILE *fp = fdopen(fd, "w");
	cr_assert_not_null(fp);
	fputs(text, fp);
	fclose(fp);
}

Test(fidelity, softnet_drops_sum_the_second_column_of_every_cpu)
{
	char path[] = "/tmp/emu-softnet-XXXXXX";
	/* processed, dropped, time_squeeze, ... in hex, as the kernel writes them */
	write_temp(path, "1295c4bb 0000000a 00000080 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
			 "00000000 00000000 00000000 00000000 00000000\n"
			 "126c34af 00000005 0000005c 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
			 "00000000 00000000 00000001 00000000 00000001\n");
	cr_assert_eq(fidelity_softnet_drops(path), 15);
	unlink(path);
	cr_assert_eq(fidelity_softnet_drops(path), 0);
	/* Counted from the run's start, never below zero. */
	struct fidelity f = {.softnet_base = 15};
	fidelity_softnet(&f, 18);
	cr_assert_eq(f.softnet_dropped, 3);
	fidelity_softnet(&f, 10);
	cr_assert_eq(f.softnet_dropped, 0);
}

/* The TCP counters are taken by name from the TcpExt pair of lines, whatever
 * their order and whatever other pairs the file has; reading adds. */
Test(fidelity, tcpstat_takes_tcpext_counters_by_name_and_adds)
{
	char path[] = "/tmp/emu-netstat-XXXXXX";
	write_temp(path, "TcpExt: SyncookiesSent TCPTimeouts DelayedACKs DelayedACKLost TCPSynRetrans TCPSynRetransX\n"
			 "TcpExt: 9 5 7 11 3 13\n"
			 "IpExt: InNoRoutes TCPTimeouts\n"
			 "IpExt: 1 100\n");
	struct tcpstat st = {0};
	cr_assert_eq(tcpstat_add(path, &st), 0);
	cr_assert_eq(st.timeouts, 5);
	cr_assert_eq(st.delayed_acks, 7);
	cr_assert_eq(st.syn_retrans, 3);
	cr_assert_eq(tcpstat_add(path, &st), 0);
	cr_assert_eq(st.timeouts, 10);
	/* Since a start: a counter that went back (another namespace) adds nothing. */
	struct tcpstat sum = {0}, then = {.syn_retrans = 1, .timeouts = 20, .delayed_acks = 4};
	tcpstat_add_since(&sum, &st, &then);
	cr_assert_eq(sum.syn_retrans, 5);
	cr_assert_eq(sum.timeouts, 0);
	cr_assert_eq(sum.delayed_acks, 10);
	FILE *fp = fopen(path, "w");
	cr_assert_not_null(fp);
	fputs("IpExt: InNoRoutes\nIpExt: 1\n", fp);
	fclose(fp);
	cr_assert_eq(tcpstat_add(path, &st), -1, "no TcpExt lines");
	unlink(path);
	cr_assert_eq(tcpstat_add(path, &st), -1, "no file");
}
