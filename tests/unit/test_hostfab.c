/* Unit tests: what a host's part is given, and how it is started on a real
 * host (a stand-in ssh records what it was asked to run). */
#include "netctl/hostfab.h"
#include "netctl/launch.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *topo_text =
	"name = \"g\"; racks = 4; servers_per_rack = 3;\n"
	"server = { rate = \"100Mbit\"; };\n"
	"eps = { uplink_rate = \"20Mbit\"; };\n"
	"ocs = { rate = \"60Mbit\"; };\n";

static const char *hosts_text = "a emulated lan0 10.77.0.1/24 1\nb emulated lan0 10.77.0.2/24 auto mtu=9000\n";

Test(hostfab, the_part_input_round_trips)
{
	struct topo t, t2;
	struct hosts hs, hs2;
	char err[FABRIC_ERR_LEN];
	cr_assert_eq(topo_load_string(&t, topo_text, "t.conf", 0.5, err), 0, "%s", err);
	cr_assert_eq(hosts_load_string(&hs, hosts_text, "h", err), 0, "%s", err);
	char *in = hostfab_encode(&t, &hs);
	cr_assert_not_null(in);
	cr_assert_eq(hostfab_decode(in, &t2, &hs2, err), 0, "%s", err);
	/* The effective topology: scaled rates, not the file's. */
	cr_assert_eq(t2.racks, 4);
	cr_assert_eq(topo_servers(&t2), 12);
	cr_assert_eq(t2.uplink.rate, 10000000ULL);
	cr_assert_eq(t2.optical.rate, 30000000ULL);
	cr_assert_eq(hs2.n, 2);
	cr_assert_eq(hs2.h[0].racks, 1);
	cr_assert_eq(hs2.h[1].mtu, 9000);
	/* The same partition on both sides. */
	struct layout l1, l2;
	cr_assert_eq(hosts_partition(&hs, &t, &l1, err), 0, "%s", err);
	cr_assert_eq(hosts_partition(&hs2, &t2, &l2, err), 0, "%s", err);
	cr_assert_eq(memcmp(l1.host_of, l2.host_of, sizeof l1.host_of), 0);
	cr_assert_eq(l1.racks[0], 1);

	/* Anything else on the part's standard input is refused. */
	size_t n = strlen(in);
	char *cut = strndup(in, n - 5);
	cr_assert_eq(hostfab_decode(cut, &t2, &hs2, err), -1);
	cr_assert(strstr(err, "not a fabric part"), "%s", err);
	char *more = NULL;
	cr_assert_gt(asprintf(&more, "%sx", in), 0);
	cr_assert_eq(hostfab_decode(more, &t2, &hs2, err), -1);
	cr_assert_eq(hostfab_decode("racks = 4;\n", &t2, &hs2, err), -1);
	free(cut);
	free(more);
	free(in);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	char *text = NULL;
	size_t cap = 0;
	cr_assert_geq(getdelim(&text, &cap, 0, f), 0);
	fclose(f);
	return text;
}

/* A real host's part goes over `ssh -o BatchMode=yes`: only our own words
 * on its command line, the part's input on its standard input. */
Test(hostfab, a_real_host_is_started_over_ssh_with_the_input_on_stdin)
{
	char dir[] = "/tmp/emu-ssh-XXXXXX", path[600], script[1400];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/ssh", dir);
	snprintf(script, sizeof script, "#!/bin/sh\nprintf '%%s\\n' \"$@\" > %s/argv\ncat > %s/stdin\nexit 3\n", dir, dir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(script, f);
	fclose(f);
	chmod(path, 0700);
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : strdup("/usr/bin:/bin"), newpath[4096];
	snprintf(newpath, sizeof newpath, "%s:%s", dir, old);
	setenv("PATH", newpath, 1);

	struct hosts hs;
	char err[LAUNCH_ERR_LEN];
	cr_assert_eq(hosts_load_string(&hs, "node1 alice@node1.example.org eth1 192.0.2.7 auto\n", "h", err), 0, "%s", err);
	const char *args[] = {"host-up", "--host", "node1", NULL};
	pid_t pid = launch_part("/nonexistent/netctl", "exp1", &hs.h[0], args, "the part's input\n", err);
	cr_assert_gt(pid, 0, "%s", err);
	cr_assert_eq(launch_wait(pid), 3, "ssh's exit status comes back");
	setenv("PATH", old, 1);
	free(old);

	snprintf(path, sizeof path, "%s/argv", dir);
	char *argv = slurp(path);
	cr_assert_str_eq(argv, "-o\nBatchMode=yes\n-T\n--\nalice@node1.example.org\nnetctl\n--prefix\nexp1\nhost-up\n"
			       "--host\nnode1\n");
	snprintf(path, sizeof path, "%s/stdin", dir);
	char *in = slurp(path);
	cr_assert_str_eq(in, "the part's input\n");
	free(argv);
	free(in);
	char cmd[700];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

/* What emu run starts on a real host (its agents' starter, host-ctl): the
 * program by its remote name, its standard input kept open for more, its
 * standard output ours to read; closing the input ends it. */
Test(hostfab, a_kept_launch_talks_both_ways_and_ends_with_its_input)
{
	char dir[] = "/tmp/emu-ssh-XXXXXX", path[600], script[1400];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/ssh", dir);
	/* Echo the remote command's name, then every input line, upper-cased. */
	snprintf(script, sizeof script, "#!/bin/sh\nshift 5\necho \"$1\"\ntr a-z A-Z\necho end\n");
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(script, f);
	fclose(f);
	chmod(path, 0700);
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : strdup("/usr/bin:/bin"), newpath[4096];
	snprintf(newpath, sizeof newpath, "%s:%s", dir, old);
	setenv("PATH", newpath, 1);

	struct hosts hs;
	char err[LAUNCH_ERR_LEN], got[256] = "";
	int in = -1, out = -1;
	cr_assert_eq(hosts_load_string(&hs, "node1 node1.example.org eth1 192.0.2.7 auto\n", "h", err), 0, "%s", err);
	const char *args[] = {"--spawn", NULL};
	pid_t pid = launch_start("/nonexistent/emu-agent", "emu-agent", "exp1", &hs.h[0], args, "first\n", &in, &out, err);
	cr_assert_gt(pid, 0, "%s", err);
	cr_assert_eq(write(in, "second\n", 7), 7);
	close(in);
	size_t n = 0;
	for (ssize_t r; (r = read(out, got + n, sizeof got - 1 - n)) > 0;)
		n += (size_t)r;
	got[n] = 0;
	close(out);
	cr_assert_eq(launch_wait(pid), 0);
	setenv("PATH", old, 1);
	free(old);
	cr_assert_str_eq(got, "emu-agent\nFIRST\nSECOND\nend\n");
	char cmd[700];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}
