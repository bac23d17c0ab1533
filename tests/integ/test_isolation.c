/* Isolation, proven (root): a fabric cannot reach or touch the machine's
 * real network, and its control socket admits root only.
 *
 * With a fabric up (circuits lit, so the ToRs' circuit table is populated),
 * from inside EVERY namespace of it — servers, ToRs, the EPS core, the OCS:
 *   - no default route in any routing table, IPv4 or IPv6;
 *   - a route lookup for addresses outside the plan (192.0.2.1 and others,
 *     with and without the circuit TOS) fails with "unreachable";
 *   - a TCP connect to 192.0.2.1 fails at once with ENETUNREACH and sends
 *     nothing (the interfaces' tx counters do not move).  It is only tried
 *     after the route lookup has failed, so a broken fabric would fail the
 *     test without a packet leaving;
 *   - every interface is the loopback or a veth whose peer lies in a
 *     namespace of the same prefix (no link into the host's namespace, no
 *     physical device);
 *   - no address outside 198.18.0.0/15 and 127.0.0.1, and no IPv6 address.
 * The controller's Unix socket (`emu run` in the background): mode 0600 in a
 * 0700 directory owned by root, and an unprivileged process (uid 65534)
 * cannot connect (EACCES).  That agents refuse a controller that is not root
 * is tested in test_agent.c (agent/refuses_a_controller_that_is_not_root).
 *
 * Traffic: none leaves the namespaces this file creates (prefixes itiso and
 * itisr); the only packets are the ones a connect would send, and the test
 * proves there are none. */
#include "run_fixture.h"
#include "traffic.h"
#include <arpa/inet.h>
#include <criterion/logging.h>
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>

#define P  "itiso"
#define PR "itisr"   /* the `emu run` of the socket test */
#define RESULTS "/tmp/emu-itisr-results"

static const char *topo_text =
	"name = \"itiso\"; racks = 3; servers_per_rack = 2;\n"
	"server = { rate = \"100Mbit\"; };\n"
	"eps = { uplink_rate = \"50Mbit\"; };\n"
	"ocs = { rate = \"200Mbit\"; ports_per_rack = 2; };\n";

static void setup(void)
{
	fx_need_root();
	fabric_down(P, NULL);
}
static void teardown(void)
{
	if (geteuid() == 0)
		fabric_down(P, NULL);
}

TestSuite(isolation, .init = setup, .fini = teardown, .timeout = 60);

/* ------------------------------------------------------------ helpers */

struct ns_set { char names[64][64]; int n; };

static void collect(const char *name, void *arg)
{
	struct ns_set *s = arg;
	if (s->n < 64)
		snprintf(s->names[s->n++], sizeof s->names[0], "%s", name);
}

/* The fabric up (3 racks x 2, 2 optical ports, circuits lit on both ports)
 * and the names of all its namespaces. */
static void up_with_circuits(struct ns_set *s)
{
	struct topo t;
	char err[FABRIC_ERR_LEN];
	fx_up(P, topo_text, &t);
	struct fabric *f = fabric_open(P, err);
	cr_assert_not_null(f, "%s", err);
	struct circuit_cfg c;
	cr_assert_eq(circuits_parse("0>1,1>2,2>0,0>2@1,2>1@1", &f->topo, &c, err), 0, "%s", err);
	cr_assert_eq(fabric_circuits_apply(f, &c, err), 0, "%s", err);
	fabric_close(f);
	memset(s, 0, sizeof *s);
	ns_list(P, collect, s);
	cr_assert_eq(s->n, 3 * 2 + 3 + 2, "expected 11 namespaces, found %d", s->n);
}

/* Run a shell command (names are plain: PREFIX-host), output into buf;
 * returns the exit status, -1 if it could not run. */
static int sh(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int sh(char *buf, size_t len, const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	strncat(cmd, " 2>&1", sizeof cmd - strlen(cmd) - 1);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	size_t n = fread(buf, 1, len - 1, p);
	buf[n] = 0;
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A route lookup in ns for dst (optionally with a TOS): 0 if it failed as
 * unreachable, -1 (and a test failure) otherwise. */
static int route_unreachable(const char *ns, const char *dst, const char *tos)
{
	char out[2048];
	int rc = sh(out, sizeof out, "ip -n %s route get %s%s%s", ns, dst, tos ? " tos " : "", tos ? tos : "");
	bool unreachable = rc != 0 && (strstr(out, "unreachable") || strstr(out, "No route"));
	cr_expect(unreachable, "%s: route get %s%s%s: rc %d: %s", ns, dst, tos ? " tos " : "", tos ? tos : "",
		  rc, out);
	return unreachable ? 0 : -1;
}

/* Sum of tx packets over the namespace's interfaces except lo. */
static uint64_t tx_packets_all(const char *ns, const char *ifnames)
{
	uint64_t sum = 0;
	char list[512], *save = NULL;
	snprintf(list, sizeof list, "%s", ifnames);
	for (char *name = strtok_r(list, " ", &save); name; name = strtok_r(NULL, " ", &save)) {
		uint64_t tx = 0;
		cr_assert_eq(tr_link_counters(ns, name, NULL, NULL, &tx, NULL), 0, "%s %s: %s", ns, name, tr_errmsg());
		sum += tx;
	}
	return sum;
}

/* Names of the namespace's interfaces other than lo, space-separated. */
static void ifnames(const char *ns, char *buf, size_t len)
{
	char out[8192], *save = NULL;
	cr_assert_eq(sh(out, sizeof out, "ip -n %s -o link show", ns), 0, "%s", out);
	buf[0] = 0;
	for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64];
		if (sscanf(line, "%*d: %63[^:@]", name) != 1 || !strcmp(name, "lo"))
			continue;
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? " " : "", name);
	}
}

/* ------------------------------------------------------------- routes */

Test(isolation, no_default_route_in_any_table_of_any_namespace)
{
	struct ns_set s;
	up_with_circuits(&s);
	for (int i = 0; i < s.n; i++) {
		char out[8192];
		cr_assert_eq(sh(out, sizeof out, "ip -n %s -4 route show table all", s.names[i]), 0, "%s", out);
		cr_expect_null(strstr(out, "default"), "%s has a default route:\n%s", s.names[i], out);
		cr_expect_null(strstr(out, "0.0.0.0/0"), "%s routes everything:\n%s", s.names[i], out);
		/* IPv6 is off: no routes at all, in particular no default */
		sh(out, sizeof out, "ip -n %s -6 route show table all", s.names[i]);
		cr_expect_null(strstr(out, "default"), "%s has an IPv6 default route:\n%s", s.names[i], out);
		cr_expect_null(strstr(out, "::/0"), "%s routes all of IPv6:\n%s", s.names[i], out);
		/* policy rules: only the standard ones and, on ToRs, tos 0x08 -> 100 */
		cr_assert_eq(sh(out, sizeof out, "ip -n %s -4 rule show", s.names[i]), 0, "%s", out);
		char *save = NULL;
		for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			cr_expect(strstr(line, "lookup local") || strstr(line, "lookup main") ||
				  strstr(line, "lookup default") || (strstr(line, "tos 0x08") && strstr(line, "lookup 100")),
				  "%s: unexpected policy rule '%s'", s.names[i], line);
	}
}

Test(isolation, addresses_outside_the_plan_are_unreachable_from_every_namespace)
{
	struct ns_set s;
	up_with_circuits(&s);
	/* Route lookups only: nothing is sent.  The circuit TOS too, since the
	 * ToRs look it up in their circuit table first. */
	static const char *outside[] = {"192.0.2.1", "8.8.8.8", "10.0.0.1", "169.254.1.1", "255.255.255.255",
					"198.20.0.1", "100.64.0.1"};
	for (int i = 0; i < s.n; i++)
		for (size_t k = 0; k < sizeof outside / sizeof outside[0]; k++) {
			route_unreachable(s.names[i], outside[k], NULL);
			route_unreachable(s.names[i], outside[k], "0x08");
		}
}

struct connect_arg { const char *ns; int err; };

Test(isolation, connect_outside_fails_at_once_and_sends_nothing)
{
	struct ns_set s;
	up_with_circuits(&s);
	for (int i = 0; i < s.n; i++) {
		const char *ns = s.names[i];
		/* The guard: never try to connect if the route lookup did not fail. */
		if (route_unreachable(ns, "192.0.2.1", NULL) || route_unreachable(ns, "192.0.2.1", "0x08"))
			continue;
		char names[512];
		ifnames(ns, names, sizeof names);
		uint64_t tx0 = tx_packets_all(ns, names);
		for (int tos = 0; tos <= 0x08; tos += 0x08) {
			int fd = tr_socket_in(ns, AF_INET, SOCK_STREAM, 0);
			cr_assert(fd >= 0, "%s: socket: %s", ns, tr_errmsg());
			struct timeval tv = {1, 0};   /* a bound, should a SYN ever be sent */
			setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
			setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof tos);
			struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(9)};
			inet_pton(AF_INET, "192.0.2.1", &a.sin_addr);
			struct timespec t0, t1;
			clock_gettime(CLOCK_MONOTONIC, &t0);
			int rc = connect(fd, (struct sockaddr *)&a, sizeof a);
			int e = errno;
			clock_gettime(CLOCK_MONOTONIC, &t1);
			close(fd);
			double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
			cr_expect(rc == -1 && e == ENETUNREACH, "%s: connect 192.0.2.1 (tos 0x%02x): %s", ns, tos,
				  rc ? strerror(e) : "connected");
			cr_expect_lt(ms, 100.0, "%s: connect took %.1f ms: not refused at once", ns, ms);
			/* UDP: a datagram would be just as bad */
			fd = tr_socket_in(ns, AF_INET, SOCK_DGRAM, 0);
			cr_assert(fd >= 0);
			setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof tos);
			ssize_t n = sendto(fd, "x", 1, MSG_DONTWAIT, (struct sockaddr *)&a, sizeof a);
			e = errno;
			close(fd);
			cr_expect(n == -1 && e == ENETUNREACH, "%s: UDP to 192.0.2.1 (tos 0x%02x): %s", ns, tos,
				  n < 0 ? strerror(e) : "sent");
		}
		uint64_t tx1 = tx_packets_all(ns, names);
		cr_expect_eq(tx1, tx0, "%s: %llu packets left the namespace during the attempts", ns,
			     (unsigned long long)(tx1 - tx0));
	}
}

/* --------------------------------------------------------- interfaces */

Test(isolation, every_interface_is_lo_or_a_veth_into_the_same_fabric)
{
	struct ns_set s;
	up_with_circuits(&s);
	int veths = 0;
	for (int i = 0; i < s.n; i++) {
		char out[16384], *save = NULL;
		cr_assert_eq(sh(out, sizeof out, "ip -n %s -d -o link show", s.names[i]), 0, "%s", out);
		for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char name[64];
			cr_assert_eq(sscanf(line, "%*d: %63[^:@]", name), 1, "%s: cannot parse '%s'", s.names[i], line);
			if (!strcmp(name, "lo")) {
				cr_expect(strstr(line, "link/loopback"), "%s: 'lo' is not the loopback", s.names[i]);
				continue;
			}
			cr_expect(strstr(line, " veth "), "%s: %s is not a veth (physical or other device?): %s",
				  s.names[i], name, line);
			/* ip names the peer's namespace when it is a named one;
			 * "link-netnsid N" would be an unnamed one (the host's) */
			const char *peer = strstr(line, "link-netns ");
			cr_expect(peer && !strncmp(peer + 11, P "-", strlen(P) + 1),
				  "%s: %s's peer is not in a namespace " P "-*: %s", s.names[i], name, line);
			if (peer) {
				char pns[64];
				sscanf(peer + 11, "%63s", pns);
				bool known = false;
				for (int k = 0; k < s.n; k++)
					known |= !strcmp(pns, s.names[k]);
				cr_expect(known, "%s: %s's peer namespace %s is not one of the fabric's", s.names[i], name, pns);
			}
			veths++;
		}
	}
	/* each server 1 end, each ToR servers + uplink + 2 optical, eps 3, ocs 6 */
	cr_expect_eq(veths, 6 + 3 * (2 + 1 + 2) + 3 + 6, "veth ends: %d", veths);
	/* and nothing of ours in the host's namespace */
	char out[16384];
	cr_assert_eq(sh(out, sizeof out, "ip -o link show"), 0);
	cr_expect_null(strstr(out, "link-netns " P "-"), "a host interface is linked into the fabric:\n%s", out);
}

static bool in_plan(const char *addr)
{
	struct in_addr a;
	if (inet_pton(AF_INET, addr, &a) != 1)
		return false;
	uint32_t h = ntohl(a.s_addr);
	return (h & 0xfffe0000u) == 0xc6120000u /* 198.18.0.0/15 */ || h == 0x7f000001u;
}

Test(isolation, no_address_outside_the_plan)
{
	struct ns_set s;
	up_with_circuits(&s);
	int n = 0;
	for (int i = 0; i < s.n; i++) {
		char out[8192], *save = NULL;
		cr_assert_eq(sh(out, sizeof out, "ip -n %s -o -4 addr show", s.names[i]), 0, "%s", out);
		for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char addr[64];
			const char *inet = strstr(line, " inet ");
			cr_assert_not_null(inet, "%s: '%s'", s.names[i], line);
			cr_assert_eq(sscanf(inet + 6, "%63[^/ ]", addr), 1);
			cr_expect(in_plan(addr), "%s: address %s outside 198.18.0.0/15 and 127.0.0.1", s.names[i], addr);
			n++;
		}
		cr_assert_eq(sh(out, sizeof out, "ip -n %s -o -6 addr show", s.names[i]), 0, "%s", out);
		cr_expect_eq(strlen(out), 0, "%s has IPv6 addresses:\n%s", s.names[i], out);
	}
	/* lo everywhere; servers 1; ToRs 2 ports + uplink + 2 optical; eps 3 */
	cr_expect_eq(n, 11 + 6 + 3 * 5 + 3, "addresses: %d", n);
}

/* ------------------------------------------------------- control socket */

static const char *run_topo =
	"name = \"itisr\"; racks = 2; servers_per_rack = 1;\n"
	"server = { rate = \"100Mbit\"; };\n"
	"eps = { uplink_rate = \"100Mbit\"; };\n";
/* One job whose maps take long enough to inspect the running controller. */
static const char *run_workload =
	"{\"scaled\": true, \"jobs\": [{\"name\": \"slow\", \"input\": 1000, \"maps\": 2, \"reduces\": 0,"
	" \"map_duration\": 20}]}\n";

/* connect() to path as uid/gid 65534 in a child; returns its errno (0 = connected). */
static int connect_as_nobody(const char *path)
{
	int pfd[2];
	cr_assert_eq(pipe(pfd), 0);
	pid_t child = fork();
	if (child == 0) {
		close(pfd[0]);
		int e = 0;
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			e = 1000;
		else {
			int fd = socket(AF_UNIX, SOCK_STREAM, 0);
			struct sockaddr_un sa = {.sun_family = AF_UNIX};
			snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
			e = fd < 0 ? 1001 : connect(fd, (struct sockaddr *)&sa, sizeof sa) ? errno : 0;
		}
		(void)!write(pfd[1], &e, sizeof e);
		_exit(0);
	}
	close(pfd[1]);
	int e = -1;
	cr_assert_eq(read(pfd[0], &e, sizeof e), (ssize_t)sizeof e);
	close(pfd[0]);
	waitpid(child, NULL, 0);
	return e;
}

static void run_cleanup(void)
{
	rx_kill_strays(PR);
	fabric_down(PR, NULL);
	if (system("rm -rf " RESULTS)) { /* best effort */ }
}

Test(isolation, control_socket_admits_root_only, .fini = run_cleanup)
{
	char emu[600], topo[] = "/tmp/emu-itisr-topo-XXXXXX", wl[] = "/tmp/emu-itisr-wl-XXXXXX";
	rx_emu_path(emu, sizeof emu);
	run_cleanup();
	rx_write_file(topo, run_topo);
	rx_write_file(wl, run_workload);
	const char *argv[] = {emu, "run", "--topology", topo, "--workload", wl, "--prefix", PR, "--results", RESULTS,
			      "--experiment", "it", "--run", "iso", "--timeout", "60", "--quiet", NULL};
	pid_t pid = rx_spawn(argv, NULL);
	const char *sock = FABRIC_STATE_DIR "/" PR "/ctl.sock";
	struct stat st;
	int tries = 0;
	while (stat(sock, &st) && tries++ < 200) {   /* up to 20 s */
		int status;
		cr_assert_eq(waitpid(pid, &status, WNOHANG), 0, "emu run exited before its socket appeared");
		rx_sleep(0.1);
	}
	unlink(topo);
	unlink(wl);
	cr_assert_eq(stat(sock, &st), 0, "no control socket %s: %s", sock, strerror(errno));
	cr_expect(S_ISSOCK(st.st_mode));
	cr_expect_eq(st.st_mode & 07777, 0600, "socket mode %o", st.st_mode & 07777);
	cr_expect_eq(st.st_uid, 0);
	struct stat dir;
	cr_assert_eq(stat(FABRIC_STATE_DIR "/" PR, &dir), 0);
	cr_expect_eq(dir.st_mode & 07777, 0700, "state directory mode %o", dir.st_mode & 07777);
	cr_expect_eq(dir.st_uid, 0);
	cr_assert_eq(stat(FABRIC_STATE_DIR, &dir), 0);
	cr_expect_eq(dir.st_mode & 0077, 0, FABRIC_STATE_DIR " is open to others: %o", dir.st_mode & 07777);
	int e = connect_as_nobody(sock);
	cr_expect_eq(e, EACCES, "uid 65534 connecting to the controller: %s", e ? strerror(e) : "connected");
	/* the controller is still running and its socket still there */
	cr_expect_eq(waitpid(pid, NULL, WNOHANG), 0);
	cr_expect_eq(stat(sock, &st), 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}
