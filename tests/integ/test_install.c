/* `make install` into a temporary DESTDIR, then the installed emu as a user
 * runs it: on the simulator and, as root, a short emulated run whose agents
 * are the installed emu-agent.  Also: every man page and topology of the
 * tree is installed. */
#include "run_fixture.h"
#include <libgen.h>
#include <sys/stat.h>

#define P "itin"

static char dest[64], repo[512], bin[600], share[600], res[600];

/* The build this test binary belongs to: build-san/ is `make SAN=1`. */
static void install_args(char *buf, size_t len)
{
	char self[512];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	self[n > 0 ? n : 0] = 0;
	char *dir = dirname(self);
	if (!strcmp(basename(strdupa(dir)), "build-san"))
		snprintf(buf, len, "SAN=1");
	else
		snprintf(buf, len, "BUILD='%s'", dir);
}

static void setup(void)
{
	strcpy(dest, "/tmp/emu-itin-XXXXXX");
	cr_assert_not_null(mkdtemp(dest));
	char self[512], args[600], cmd[2048];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	self[n > 0 ? n : 0] = 0;
	snprintf(repo, sizeof repo, "%s", dirname(dirname(self)));
	install_args(args, sizeof args);
	/* A nested make must not join the jobserver of the make running us. */
	snprintf(cmd, sizeof cmd,
		 "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C '%s' %s install PREFIX=/usr/local DESTDIR='%s' "
		 ">'%s/install.log' 2>&1",
		 repo, args, dest, dest);
	cr_assert_eq(system(cmd), 0, "make install failed: see %s/install.log", dest);
	snprintf(bin, sizeof bin, "%s/usr/local/bin", dest);
	snprintf(share, sizeof share, "%s/usr/local/share", dest);
	snprintf(res, sizeof res, "%s/results", dest);
}

static void teardown(void)
{
	if (geteuid() == 0) {
		rx_kill_strays(P);
		fabric_down(P, NULL);
	}
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dest);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(install, .init = setup, .fini = teardown, .timeout = 240);

/* The installed emu run with argv's options; its summary (asserted complete). */
static json_t *installed_run(const char *run, const char *const *extra)
{
	char emu[700], log[700], summary[900];
	snprintf(emu, sizeof emu, "%s/emu", bin);
	snprintf(log, sizeof log, "%s/%s.log", dest, run);
	const char *argv[32] = {emu, "run", "--results", res, "--experiment", "inst", "--run", run, "--quiet"};
	int n = 9;
	for (int i = 0; extra[i]; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	int rc = rx_wait_exit(rx_spawn(argv, log));
	cr_assert_eq(rc, 0, "installed emu run exited %d: see %s", rc, log);
	snprintf(summary, sizeof summary, "%s/inst/fair/%s/summary.json", res, run);
	json_t *s = rx_summary(summary);
	cr_assert_gt(rx_num(s, "jobs"), 0);
	cr_assert_eq(rx_num(s, "jobs_finished"), rx_num(s, "jobs"), "not every job finished");
	return s;
}

Test(install, installs_every_program_page_and_topology)
{
	static const char *progs[] = {"emu", "emu-agent", "netctl"};
	char path[900];
	for (size_t i = 0; i < sizeof progs / sizeof *progs; i++) {
		snprintf(path, sizeof path, "%s/%s", bin, progs[i]);
		cr_expect_eq(access(path, X_OK), 0, "%s not installed", path);
	}
	/* Each page and topology of the tree has its installed copy. */
	char cmd[2048];
	snprintf(cmd, sizeof cmd,
		 "cd '%s' && "
		 "for f in man/*.[58]; do cmp -s \"$f\" '%s/man/man'\"${f##*.}\"/\"${f#man/}\" || exit 1; done && "
		 "for f in topologies/*.conf; do cmp -s \"$f\" '%s/emu/'\"$f\" || exit 1; done",
		 repo, share, share);
	cr_expect_eq(system(cmd), 0, "a man page or topology of the tree is missing from %s", share);
}

Test(install, the_installed_emu_runs_on_the_simulator)
{
	json_t *s = installed_run("sim", (const char *[]){"--backend", "sim", NULL});
	cr_expect_str_eq(json_string_value(json_object_get(s, "backend")), "sim");
	json_decref(s);
}

Test(install, the_installed_emu_runs_its_installed_agents)
{
	fx_need_root();
	char topo[700];
	snprintf(topo, sizeof topo, "%s/emu/topologies/tiny.conf", share);
	json_t *s = installed_run("emu", (const char *[]){"--topology", topo, "--prefix", P, "--jobs", "2",
							  "--min-shuffle", "100MB", "--max-maps", "12",
							  "--timeout", "120", NULL});
	cr_expect_str_eq(json_string_value(json_object_get(s, "backend")), "emu");
	cr_expect_gt(rx_num(s, "agent_bytes.shuffle_network"), 0, "the agents moved no shuffle bytes");
	json_decref(s);
}
