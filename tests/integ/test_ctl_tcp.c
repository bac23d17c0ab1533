/* Integration tests (root): agents on another emulated host reach the
 * controller over TCP with the run's secret (emu/ctl_auth.h); connections
 * without it are refused and logged; the secret shows nowhere readable. */
#include "run_fixture.h"
#include <criterion/logging.h>
#include <ctype.h>
#include <arpa/inet.h>
#include <ftw.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#define P "itct"
#define RESULTS "/tmp/emu-itct-results"

static const char *topo_text =
	"name = \"itct\"; racks = 3; servers_per_rack = 2;\n"
	"server = { rate = \"100Mbit\"; containers = 2; };\n"
	"eps = { uplink_rate = \"50Mbit\"; };\n";

/* Long enough (8 s) to probe the listener while it runs, 5 s of silence included. */
static const char *workload_text =
	"{\"scaled\": true, \"jobs\": [\n"
	" {\"name\": \"long\", \"submit\": 0, \"input\": 12000000, \"shuffle\": 12000000, \"output\": 1000,"
	"  \"maps\": 12, \"reduces\": 6, \"map_duration\": 7, \"reduce_duration\": 0.5}]}\n";

/* Racks 0 and 2 on a (the controller's side), rack 1 on b. */
static const char *two = "a emulated lan0 10.81.0.1 auto mtu=1550\nb emulated lan0 10.81.0.2 auto mtu=1550\n";

static char topo_path[] = "/tmp/emu-itct-topo-XXXXXX";
static char wl_path[] = "/tmp/emu-itct-wl-XXXXXX";
static char two_path[] = "/tmp/emu-itct-two-XXXXXX";

static void setup(void)
{
	fx_need_root();
	fabric_down(P, NULL);
	rx_write_file(topo_path, topo_text);
	rx_write_file(wl_path, workload_text);
	rx_write_file(two_path, two);
}

static void teardown(void)
{
	rx_teardown(P, (const char *[]){topo_path, wl_path, two_path, NULL}, RESULTS);
}

TestSuite(ctltcp, .init = setup, .fini = teardown, .timeout = 120);

static pid_t start_run(const char *run_name, const char *hosts, const char *log)
{
	char emu[600];
	rx_emu_path(emu, sizeof emu);
	const char *argv[24] = {emu, "run", "--topology", topo_path, "--workload", wl_path, "--prefix", P,
				"--results", RESULTS, "--experiment", "it", "--run", run_name, "--timeout", "60"};
	int n = 16;
	if (hosts) {
		argv[n++] = "--hosts";
		argv[n++] = hosts;
	}
	argv[n] = NULL;
	return rx_spawn(argv, log);
}

/* Whether s holds a run of 64 lowercase hex digits: the secret's form. */
static bool has_secret_form(const char *s, size_t n)
{
	size_t run = 0;
	for (size_t i = 0; i < n; i++) {
		run = (isdigit((unsigned char)s[i]) || (s[i] >= 'a' && s[i] <= 'f')) ? run + 1 : 0;
		if (run >= 64)
			return true;
	}
	return false;
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t cap = 1 << 16;
	char *buf = malloc(cap);
	*n = 0;
	for (size_t r; buf && (r = fread(buf + *n, 1, cap - *n, f)) > 0;) {
		*n += r;
		if (*n == cap) {
			char *p = realloc(buf, cap *= 2);
			if (!p)
				free(buf);
			buf = p;
		}
	}
	fclose(f);
	return buf;
}

static int open_files_with_secret_form;
static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_F || (st->st_mode & 07777) == 0600)
		return 0;
	size_t n;
	char *text = slurp(path, &n);
	if (text && has_secret_form(text, n)) {
		cr_log_error("%s (mode %o) holds 64 hex digits", path, (unsigned)(st->st_mode & 07777));
		open_files_with_secret_form++;
	}
	free(text);
	return 0;
}

/* Every process of the run: no secret on a command line or in the environment. */
static int procs_with_secret_form(void)
{
	pid_t pids[64];
	int n = rx_find_processes(P, "emu", "", pids, 64), bad = 0;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < 2; k++) {
			char path[64];
			size_t len;
			snprintf(path, sizeof path, "/proc/%d/%s", (int)pids[i], k ? "environ" : "cmdline");
			char *text = slurp(path, &len);
			if (text && has_secret_form(text, len)) {
				cr_log_error("%s holds 64 hex digits", path);
				bad++;
			}
			free(text);
		}
	return n > 0 ? bad : -1;
}

/* From host b's namespace, as a stranger on the LAN would: connect to the
 * controller, send `line` (if any), and exit 0 if the controller closed the
 * connection between min_ms and max_ms later, 1 if it kept it, 3 if it
 * closed it sooner, 2 if it could not be reached. */
static pid_t probe_start(const char *addr, int port, const char *line, int min_ms, int max_ms)
{
	pid_t pid = fork();
	if (pid == 0) {
		int ns = open("/run/netns/" P "-m-b", O_RDONLY);
		if (ns < 0 || setns(ns, CLONE_NEWNET))
			_exit(2);
		struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
		inet_pton(AF_INET, addr, &sa.sin_addr);
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa))
			_exit(2);
		if (*line && send(fd, line, strlen(line), MSG_NOSIGNAL) != (ssize_t)strlen(line))
			_exit(2);
		struct pollfd pf = {fd, POLLIN, 0};
		char c;
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (poll(&pf, 1, max_ms) != 1 || recv(fd, &c, 1, 0) > 0)
			_exit(1);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		_exit((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 >= min_ms ? 0 : 3);
	}
	return pid;
}

static int probe(const char *addr, int port, const char *line)
{
	return rx_wait_exit(probe_start(addr, port, line, 0, 1000));
}

static int lines_of(const char *path)
{
	size_t n;
	char *text = slurp(path, &n);
	cr_assert_not_null(text, "%s", path);
	int k = 0;
	for (size_t i = 0; i < n; i++)
		k += text[i] == '\n';
	free(text);
	return k;
}

static bool log_has(const char *log, const char *needle)
{
	size_t n;
	char *text = slurp(log, &n);
	bool yes = text && memmem(text, n, needle, strlen(needle));
	free(text);
	return yes;
}

static pid_t parent_of(pid_t pid)
{
	char path[64], line[256];
	pid_t ppid = -1;
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "PPid: %d", &ppid) == 1)
			break;
	if (f)
		fclose(f);
	return ppid;
}

Test(ctltcp, remote_agents_over_tcp_refusals_logged_and_the_secret_hidden)
{
	/* The same workload over the Unix socket on one host first. */
	char log1[] = "/tmp/emu-itct-log-unix", log2[] = "/tmp/emu-itct-log-tcp";
	cr_assert_eq(rx_wait_exit(start_run("unix", NULL, log1)), 0, "the one-host run");

	pid_t run = start_run("tcp", two_path, log2);
	pid_t agent = -1;
	for (int i = 0; i < 200 && agent < 0; i++, rx_sleep(0.05))
		agent = rx_find_process(P, "emu-agent", "--server r1h0 ");
	cr_assert_gt(agent, 0, "host b's agent of r1h0 not found");
	/* Host b's agents connect over TCP to host a's LAN address and join
	 * their server's namespace; host a's keep the Unix socket. */
	cr_assert_gt(rx_find_process(P, "--control tcp:10.81.0.1:", "--netns " P "-r1h0 "), 0);
	cr_assert_gt(rx_find_process(P, "--server r0h0 ", "--control /run/emu/" P "/ctl.sock"), 0);
	/* ... started by host b's one starter, from the launcher (not the controller). */
	pid_t starter = rx_find_process(P, "emu-agent --spawn ", "--host b ");
	cr_assert_gt(starter, 0, "no emu-agent --spawn of host b");
	cr_assert_eq(parent_of(agent), starter, "r1h0's agent is not the starter's child");
	cr_assert_eq(parent_of(starter), run, "the starter is not the controller's child");
	cr_assert_eq(rx_find_process(P, "emu-agent --spawn ", "--host a "), -1, "host a's agents need no starter");

	char ns[64], addr[32];
	int port = 0;
	FILE *f = NULL;
	for (int i = 0; i < 100 && !f; i++, rx_sleep(0.05))
		f = fopen("/run/emu/" P "/ctl.tcp", "r");
	cr_assert_not_null(f, "no /run/emu/" P "/ctl.tcp");
	cr_assert_eq(fscanf(f, "%63s %31[0-9.]:%d", ns, addr, &port), 3);
	fclose(f);
	cr_assert_str_eq(ns, P "-m-a");
	cr_assert_str_eq(addr, "10.81.0.1");

	/* Silent: closed after the controller's 5 s wait for a secret, not sooner. */
	pid_t silent = probe_start(addr, port, "", 4500, 7000);
	/* No secret (an agent's hello straight away), then a wrong one: both closed. */
	cr_assert_eq(probe(addr, port, "{\"op\":\"hello\",\"server\":\"r0h0\",\"pid\":1,\"data_port\":7000}\n"), 0);
	cr_assert_eq(probe(addr, port, "emu-auth 0000000000000000000000000000000000000000000000000000000000000000\n"),
		     0);
	cr_assert_eq(rx_wait_exit(silent), 0, "a silent connection was not closed 4.5-7 s after it was made");
	/* Closed by the refusal, not by the run's end. */
	cr_assert_eq(waitpid(run, NULL, WNOHANG), 0, "the run ended before the probes did");
	cr_assert_eq(procs_with_secret_form(), 0, "the secret on a command line or in an environment");
	open_files_with_secret_form = 0;
	nftw("/run/emu/" P, visit, 16, FTW_PHYS);
	cr_assert_eq(open_files_with_secret_form, 0, "the secret in the state directory");

	cr_assert_eq(rx_wait_exit(run), 0, "the two-host run");
	cr_assert(log_has(log2, "refused a control connection from 10.81.0.2:"), "no refusal logged");
	cr_assert(log_has(log2, ": no secret\n"));
	cr_assert(log_has(log2, ": a wrong secret\n"));
	cr_assert(log_has(log2, ": no secret within the wait\n"));
	cr_assert(!log_has(log1, "refused a control connection"));

	/* The same jobs, tasks and bytes as over the Unix socket. */
	json_t *s[2];
	const char *name[2] = {"unix", "tcp"};
	int tasks[2];
	for (int i = 0; i < 2; i++) {
		char path[256];
		snprintf(path, sizeof path, RESULTS "/it/fair/%s/summary.json", name[i]);
		s[i] = rx_summary(path);
		snprintf(path, sizeof path, RESULTS "/it/fair/%s/tasks.csv", name[i]);
		tasks[i] = lines_of(path) - 1;
		cr_log_info("%s: %.0f jobs, %d tasks, shuffle %.0f B, %.0f re-runs", name[i],
			    rx_num(s[i], "jobs_finished"), tasks[i],
			    rx_num(s[i], "agent_bytes.shuffle_network") + rx_num(s[i], "agent_bytes.shuffle_local"),
			    rx_num(s[i], "task_reruns"));
	}
	cr_assert_eq(rx_num(s[1], "jobs_finished"), 1);
	cr_assert_eq(tasks[1], 18);
	cr_assert_eq(tasks[1], tasks[0]);
	cr_assert_eq(rx_num(s[1], "task_reruns"), 0);
	cr_assert_eq(rx_num(s[1], "agent_bytes.shuffle_network") + rx_num(s[1], "agent_bytes.shuffle_local"),
		     rx_num(s[0], "agent_bytes.shuffle_network") + rx_num(s[0], "agent_bytes.shuffle_local"));
	cr_assert_eq(rx_num(s[1], "agent_bytes.shuffle_network") + rx_num(s[1], "agent_bytes.shuffle_local"),
		     12000000);
	json_decref(s[0]);
	json_decref(s[1]);

	/* No file of the run's results, nor its logs, holds it unless 0600. */
	open_files_with_secret_form = 0;
	nftw(RESULTS, visit, 16, FTW_PHYS);
	visit(log2, &(struct stat){.st_mode = 0644}, FTW_F, NULL);
	cr_assert_eq(open_files_with_secret_form, 0);
	cr_assert_eq(fx_ip_netns_count(P), 0, "the fabric must be gone after the run");
	unlink(log1);
	unlink(log2);
}
