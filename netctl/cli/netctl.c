/* netctl — build, inspect and remove emulated fabrics.
 *
 * One table of subcommands, like iproute2's `ip`: each entry parses its own
 * arguments.  Exit status: 0 success, 1 runtime failure, 2 bad input (usage,
 * topology, not root). */
#include "netctl/capfile.h"
#include "netctl/capspec.h"
#include "netctl/fabric.h"
#include "netctl/features.h"
#include "netctl/hostctl.h"
#include "netctl/hostfab.h"
#include "netctl/launch.h"
#include "netctl/ns.h"
#include "netctl/units.h"
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EXIT_BAD 2

static const char *prefix = "emu";

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("netctl: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return EXIT_BAD;
}

static int need_root(void)
{
	if (geteuid() != 0)
		return bad("this command changes or reads network namespaces and needs root (try: sudo netctl ...)");
	return 0;
}

static struct fabric *open_or_complain(void)
{
	char err[FABRIC_ERR_LEN];
	struct fabric *f = fabric_open(prefix, err);
	if (!f)
		fprintf(stderr, "netctl: %s\n", err);
	return f;
}

/* "100Mbit (sending 1Gbit)" */
static const char *link_rates(const struct topo_class *k, char *buf, size_t len)
{
	char a[32], b[32];
	if (k->tx.rate != k->rx.rate)
		snprintf(buf, len, "%s (sending %s)", units_fmt_rate(k->rx.rate, a, sizeof a),
			 units_fmt_rate(k->tx.rate, b, sizeof b));
	else
		snprintf(buf, len, "%s", units_fmt_rate(k->rx.rate, a, sizeof a));
	return buf;
}

/* One line per class: how many, link, what it holds, speed. */
static void describe_classes(const struct topo *t, FILE *out)
{
	for (int i = 0; i < t->nclasses; i++) {
		const struct topo_class *k = &t->cls[i];
		char rates[80], mem[32];
		fprintf(out, "  class %s: %d servers, %s, ", k->name, topo_class_servers(t, i),
			link_rates(k, rates, sizeof rates));
		if (k->containers)
			fprintf(out, "%d container%s", k->containers, k->containers == 1 ? "" : "s");
		else
			fprintf(out, "%g cores, %s memory", k->cores,
				k->memory ? units_fmt_size(k->memory, mem, sizeof mem) : "unlimited");
		if (!k->containers && k->disk_mbps > 0)
			fprintf(out, ", %g MB/s disk", k->disk_mbps);
		fprintf(out, ", speed %g\n", k->speed);
	}
}

static void describe(const struct topo *t, FILE *out)
{
	char b[32], c[32], rates[80];
	if (topo_uniform(t) && !strcmp(t->cls[0].name, "server"))
		fprintf(out, "%s: %d racks x %d servers (%d servers), server %s, uplink %s (%.3g:1 oversubscribed)",
			t->name[0] ? t->name : "fabric", t->racks, topo_rack_size(t, 0), topo_servers(t),
			link_rates(&t->cls[0], rates, sizeof rates), units_fmt_rate(t->uplink.rate, b, sizeof b),
			topo_oversubscription(t));
	else
		fprintf(out, "%s: %d racks, %d servers of %d class%s, uplink %s (at most %.3g:1 oversubscribed)",
			t->name[0] ? t->name : "fabric", t->racks, topo_servers(t), t->nclasses,
			t->nclasses == 1 ? "" : "es", units_fmt_rate(t->uplink.rate, b, sizeof b), topo_oversubscription(t));
	if (t->ocs)
		fprintf(out, ", OCS %d port%s x %s %s", t->ocs_ports, t->ocs_ports > 1 ? "s" : "",
			units_fmt_rate(t->optical.rate, c, sizeof c),
			t->ocs_mode == OCS_DIRECTED ? "directed" : "bidirectional");
	else
		fprintf(out, ", no OCS");
	fputc('\n', out);
	if (!topo_uniform(t) || strcmp(t->cls[0].name, "server"))
		describe_classes(t, out);
}

/* ---- up ----------------------------------------------------------------- */

static volatile sig_atomic_t interrupted;
static void on_signal(int sig) { interrupted = sig; }

static int cmd_up(int argc, char **argv)
{
	static const struct option opts[] = {
		{"rate-scale", required_argument, 0, 's'}, {"quiet", no_argument, 0, 'q'},
		{"hosts", required_argument, 0, 'H'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	double scale = 0;
	int quiet = 0, c;
	const char *hosts_file = NULL;
	char *end;
	while ((c = getopt_long(argc, argv, "s:qh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			scale = strtod(optarg, &end);
			if (*end || !(scale > 0))
				return bad("--rate-scale '%s': expected a positive number", optarg);
			break;
		case 'q': quiet = 1; break;
		case 'H': hosts_file = optarg; break;
		case 'h':
			printf("usage: netctl [--prefix P] up FILE [--rate-scale X] [--hosts HOSTS] [--quiet]\n"
			       "Build the fabric FILE describes as namespaces PREFIX-*.\n"
			       "  --rate-scale X  multiply every link rate by X (e.g. 0.01)\n"
			       "  --hosts HOSTS   spread it over the hosts HOSTS lists, whole racks each,\n"
			       "                  links between hosts over VXLAN (see netctl(8))\n");
			return 0;
		default: return EXIT_BAD;
		}
	}
	if (optind != argc - 1)
		return bad("up: expected one topology file (see netctl up --help)");
	struct topo t;
	char err[FABRIC_ERR_LEN];
	if (topo_load(&t, argv[optind], scale, err))
		return bad("%s", err);
	if (t.unshapeable[0])
		return bad("%s", t.unshapeable);
	struct hosts hs;
	struct layout lay;
	char herr[HOSTS_ERR_LEN], netctl_path[PATH_MAX];
	if (hosts_file && (hosts_load(&hs, hosts_file, herr) || hosts_partition(&hs, &t, &lay, herr)))
		return bad("%s", herr);
	if (need_root())
		return EXIT_BAD;
	if (hosts_file && launch_netctl_path(netctl_path, sizeof netctl_path))
		return fprintf(stderr, "netctl: cannot find netctl beside this program\n"), 1;

	struct features feat;
	const char *missing;
	if (features_probe(prefix, &feat))
		return fprintf(stderr, "netctl: %s\n", feat.detail), 1;
	if ((missing = features_missing(&feat, t.ocs)) ||
	    (hosts_file && hs.h[0].emulated && (missing = features_missing_hosts(&feat, true))))
		return bad("this kernel lacks %s: %s", missing, feat.detail);
	if (!quiet && !feat.netem)
		fprintf(stderr, "netctl: note: no netem in this kernel: link delay emulation is unavailable "
				"(links have only queueing delay)\n");
	double capacity = 0;
	for (int k = 0; k < t.nclasses; k++)
		capacity += (double)t.cls[k].rx.rate * topo_class_servers(&t, k);
	if (!quiet && capacity > 20e9)
		fprintf(stderr, "netctl: warning: the servers' line rates add up to %.0f Gbit/s, more than one "
				"machine forwards; results may be CPU-bound (consider --rate-scale)\n", capacity / 1e9);

	/* A Ctrl-C half-way must not leave half a fabric: finish, then undo. */
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	struct fabric_timing tm;
	int rc = hosts_file ? fabric_up_hosts(&t, &hs, prefix, netctl_path, &tm, err) : fabric_up(&t, prefix, &tm, err);
	if (!rc && interrupted) {
		if (hosts_file)
			fabric_down_hosts(&hs, prefix, netctl_path, NULL);
		else
			fabric_down(prefix, NULL);
		fprintf(stderr, "netctl: interrupted; removed the fabric\n");
		return 130;
	}
	if (rc)
		return fprintf(stderr, "netctl: up failed (nothing left behind): %s\n", err), 1;
	if (!quiet) {
		printf("%s: ", prefix);
		describe(&t, stdout);
		if (tm.cc_restricted)
			fprintf(stderr, "netctl: note: the host's net.ipv4.tcp_allowed_congestion_control does not list "
					"'%s', so it cannot be the servers' default; emu's agents and tests set it per "
					"socket (TCP_CONGESTION)\n", t.tcp_cc);
		if (hosts_file) {
			for (int i = 0; i < hs.n; i++) {
				printf("%s: host %s (%s, %s): racks", prefix, hs.h[i].name,
				       hs.h[i].emulated ? "emulated" : hs.h[i].mgmt, inet_ntoa(hs.h[i].addr));
				for (int r = 0; r < t.racks; r++)
					if (lay.host_of[r] == i)
						printf(" %d", r);
				printf("%s%s\n", lay.eps_host == i ? ", EPS core" : "", t.ocs ? ", a crossbar slice" : "");
			}
			printf("%s: up on %d hosts in %.3f s (fabric MTU %d, VXLAN on UDP %d)\n", prefix, hs.n, tm.total_s,
			       lay.mtu, VXLAN_PORT);
		} else {
			printf("%s: %d namespaces up in %.3f s (namespaces %.3f s, ToRs and links %.3f s, servers and core %.3f s)\n",
			       prefix, plan_ns_count(&t), tm.total_s, tm.ns_s, tm.links_s, tm.config_s);
		}
	}
	return 0;
}

/* ---- host-up, host-down: one host's part (started by up and down --hosts) -- */

static int cmd_host_up(int argc, char **argv)
{
	if (argc != 3 || strcmp(argv[1], "--host"))
		return bad("usage: netctl [--prefix P] host-up --host NAME < PART (netctl up --hosts runs it on each host)");
	if (need_root())
		return EXIT_BAD;
	char *in = NULL, err[FABRIC_ERR_LEN];
	size_t cap = 0;
	if (getdelim(&in, &cap, 0, stdin) < 0) {
		free(in);
		return bad("host-up: nothing on standard input");
	}
	static struct topo t;
	struct hosts hs;
	struct layout lay;
	char herr[HOSTS_ERR_LEN];
	int rc = hostfab_decode(in, &t, &hs, err);
	free(in);
	if (rc)
		return bad("host-up: %s", err);
	int self = hosts_find(&hs, argv[2]);
	if (self < 0)
		return bad("host-up: no host '%s' in the hosts file", argv[2]);
	if (hosts_partition(&hs, &t, &lay, herr))
		return bad("host-up: %s", herr);
	struct fabric_part part = {&hs, &lay, self};
	struct fabric_timing tm;
	if (fabric_up_part(&t, prefix, &part, &tm, err))
		return fprintf(stderr, "netctl: host %s: up failed (its part removed): %s\n", argv[2], err), 1;
	return 0;
}

/* ocsK names host K's slice: only a fabric over more than K hosts has it. */
static bool slice_exists(const struct fabric *f, const struct host_id *h)
{
	return h->kind != HOST_OCS || h->rack == 0 || (f->hosts && h->rack < f->hosts->n);
}

/* ", ocs" or ", ocs, ocs1..ocsN" (none without a crossbar). */
static const char *slice_span(const struct fabric *f, char *buf, size_t len)
{
	int n = f->hosts ? f->hosts->n : 1;
	if (!f->topo.ocs)
		snprintf(buf, len, "%s", "");
	else if (n > 2)
		snprintf(buf, len, ", ocs, ocs1..ocs%d", n - 1);
	else
		snprintf(buf, len, n > 1 ? ", ocs, ocs1" : ", ocs");
	return buf;
}

/* The controller's hands on this host's racks (netctl/hostctl.h). */
static int cmd_host_ctl(int argc, char **argv)
{
	if (argc != 3 || strcmp(argv[1], "--host"))
		return bad("usage: netctl [--prefix P] host-ctl --host NAME (emu run starts it on each host but the first)");
	if (need_root())
		return EXIT_BAD;
	return hostctl_serve(prefix, argv[2], stdin, stdout);
}

static int cmd_host_down(int argc, char **argv)
{
	if (argc != 3 || strcmp(argv[1], "--host"))
		return bad("usage: netctl [--prefix P] host-down --host NAME (netctl down --hosts runs it on each host)");
	if (need_root())
		return EXIT_BAD;
	fabric_down_part(prefix, NULL);
	return 0;
}

/* ---- down --------------------------------------------------------------- */

static int cmd_down(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: netctl [--prefix P] down [--hosts HOSTS]\nRemove every namespace PREFIX-*, the processes in them,\n"
		       "and the fabric's state, on every host of HOSTS (default: the hosts the fabric\n"
		       "went up on).  Safe after a crash; touches nothing else.\n");
		return 0;
	}
	const char *hosts_file = NULL;
	if (argc == 3 && !strcmp(argv[1], "--hosts"))
		hosts_file = argv[2];
	else if (argc > 1)
		return bad("down: unexpected argument '%s'", argv[1]);
	struct hosts hs;
	char herr[HOSTS_ERR_LEN], state[300], netctl_path[PATH_MAX];
	if (hosts_file && hosts_load(&hs, hosts_file, herr))
		return bad("%s", herr);
	if (need_root())
		return EXIT_BAD;
	snprintf(state, sizeof state, "%s/%s/hosts", FABRIC_STATE_DIR, prefix);
	if (!hosts_file && !access(state, R_OK) && !hosts_load(&hs, state, herr))
		hosts_file = state;
	int killed = 0, n;
	if (hosts_file) {
		if (launch_netctl_path(netctl_path, sizeof netctl_path))
			return fprintf(stderr, "netctl: cannot find netctl beside this program\n"), 1;
		n = fabric_down_hosts(&hs, prefix, netctl_path, &killed);
		if (n < 0) {
			fprintf(stderr, "netctl: down: a host's part could not be removed (see above)\n");
			return 1;
		}
	} else {
		n = fabric_down(prefix, &killed);
	}
	printf("%s: removed %d namespace%s", prefix, n, n == 1 ? "" : "s");
	if (killed)
		printf(", killed %d process%s", killed, killed == 1 ? "" : "es");
	printf("\n");
	return 0;
}

/* ---- show --------------------------------------------------------------- */

struct prefix_list { char names[64][PREFIX_MAX + 1]; int count[64]; int n; };

static void note_prefix(const char *name, void *arg)
{
	struct prefix_list *l = arg;
	const char *dash = strchr(name, '-');
	if (!dash || dash - name > PREFIX_MAX)
		return;
	for (int i = 0; i < l->n; i++)
		if ((size_t)(dash - name) == strlen(l->names[i]) && !strncmp(l->names[i], name, dash - name)) {
			l->count[i]++;
			return;
		}
	if (l->n < 64) {
		snprintf(l->names[l->n], sizeof l->names[0], "%.*s", (int)(dash - name), name);
		l->count[l->n++] = 1;
	}
}

static int cmd_show(int argc, char **argv)
{
	if (argc > 1) {
		if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
			printf("usage: netctl show\nList the fabrics on this machine: prefix, namespaces, topology, circuits.\n");
			return 0;
		}
		return bad("show: unexpected argument '%s'", argv[1]);
	}
	struct prefix_list l = {.n = 0};
	ns_list(NULL, note_prefix, &l);
	if (!l.n) {
		printf("no fabrics are up\n");
		return 0;
	}
	for (int i = 0; i < l.n; i++) {
		char err[FABRIC_ERR_LEN], spec[4096];
		struct fabric *f = fabric_open(l.names[i], err);
		printf("%s: %d namespace%s", l.names[i], l.count[i], l.count[i] == 1 ? "" : "s");
		if (!f) {
			printf(" (no state: a crashed run? remove with: netctl down --prefix %s)\n", l.names[i]);
			continue;
		}
		printf(", ");
		describe(&f->topo, stdout);
		if (f->topo.ocs) {
			circuits_format(&f->circuits, spec, sizeof spec);
			printf("  crossbar: %s\n", spec);
			circuits_format(&f->lit, spec, sizeof spec);
			printf("  lit:      %s\n", spec);
		}
		uint32_t net = ntohl(f->topo.server_net.s_addr);
		char servers[160];
		plan_server_span(&f->topo, servers, sizeof servers);
		printf("  hosts %s (rXhY = %u.%u.X.Y+1), tor0..tor%d, eps%s; tcp %s\n", servers, net >> 24,
		       (net >> 16) & 0xff, f->topo.racks - 1, f->topo.ocs ? ", ocs" : "", f->topo.tcp_cc);
		for (int k = 0; f->hosts && k < f->hosts->n; k++) {
			printf("  on host %s (%s): racks", f->hosts->h[k].name,
			       f->hosts->h[k].emulated ? "emulated" : f->hosts->h[k].mgmt);
			for (int r = 0; r < f->topo.racks; r++)
				if (fabric_host_of(f, r) == k)
					printf(" %d", r);
			printf("%s\n", f->layout->eps_host == k ? ", the EPS core" : "");
		}
		fabric_close(f);
	}
	return 0;
}

/* ---- exec --------------------------------------------------------------- */

static int cmd_exec(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		printf("usage: netctl [--prefix P] exec HOST [--] CMD [ARGS...]\n"
		       "Run CMD inside HOST's namespace: r3h7 (server 7 of rack 3), tor3, eps, ocs (over several\n"
		       "hosts: ocs1, ocs2... for the crossbar's slices on the other hosts).\n");
		return argc < 2 ? EXIT_BAD : 0;
	}
	int cmd = 2;
	if (cmd < argc && !strcmp(argv[cmd], "--"))
		cmd++;
	if (cmd >= argc)
		return bad("exec: no command given");
	if (need_root())
		return EXIT_BAD;
	struct fabric *f = open_or_complain();
	if (!f)
		return EXIT_BAD;
	struct host_id h;
	if (plan_host_parse(argv[1], &f->topo, &h) || !slice_exists(f, &h)) {
		char servers[160], slices[32];
		plan_server_span(&f->topo, servers, sizeof servers);
		int bad_rc = bad("exec: no host '%s' in %s (hosts: %s, tor0..tor%d, eps%s)", argv[1], prefix, servers,
				 f->topo.racks - 1, slice_span(f, slices, sizeof slices));
		fabric_close(f);
		return bad_rc;
	}
	int fd = fabric_ns_fd(f, &h);
	if (fd < 0 || ns_enter(fd)) {
		fprintf(stderr, "netctl: exec: cannot enter %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	/* Like `ip netns exec`: a private /sys so tools see this namespace's
	 * interfaces. */
	if (!unshare(CLONE_NEWNS)) {
		mount("", "/", "none", MS_SLAVE | MS_REC, NULL);
		umount2("/sys", MNT_DETACH);
		mount(argv[1], "/sys", "sysfs", 0, NULL);
	}
	execvp(argv[cmd], argv + cmd);
	fprintf(stderr, "netctl: exec: %s: %s\n", argv[cmd], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}

/* ---- capture ------------------------------------------------------------ */

static void capture_usage(FILE *out)
{
	fprintf(out,
		"usage: netctl [--prefix P] capture HOST[:IFACE] -w FILE [--count N] [--seconds S]\n"
		"                             [--snaplen N] [FILTER EXPRESSION...]\n"
		"Write the packets one interface of a fabric host sees to a pcap file (tcpdump -r,\n"
		"Wireshark), until N packets, S seconds, or Ctrl-C / SIGTERM.\n"
		"  HOST                r3h7 (server 7 of rack 3), tor3, eps, ocs (ocs1... the slices of\n"
		"                      the other hosts)\n"
		"  IFACE               default: eth0 on a server; any (every interface of the\n"
		"                      namespace: a forwarded packet appears twice, in and out) on\n"
		"                      tor, eps, ocs.  A ToR has up, hY (server Y), oP (optical\n"
		"                      port P); the EPS rX (ToR X); the OCS rXpP (ToR X's port P);\n"
		"                      every host lo\n"
		"  -w, --write FILE    the pcap file (- = standard output); required\n"
		"  -c, --count N       stop after N packets (default: no limit)\n"
		"  --seconds S         stop after S seconds (default: no limit)\n"
		"  -s, --snaplen N     bytes kept of each packet, 1..%d (default %d: whole packets)\n"
		"  FILTER EXPRESSION   as tcpdump takes it, e.g. tcp port 7000, or icmp (the words\n"
		"                      are joined with spaces; default: every packet)\n"
		"At the end it prints on stderr how many packets it wrote and how many the kernel\n"
		"dropped (its capture buffer was full).\n",
		CAPSPEC_SNAPLEN_MAX, CAPSPEC_SNAPLEN_MAX);
}

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The host's namespace is still the one we capture in: `netctl down` takes
 * it away, and our packet socket alone would keep it alive, empty. */
static int ns_still_there(const char *path, const struct stat *was)
{
	struct stat st;
	return !stat(path, &st) && st.st_ino == was->st_ino && st.st_dev == was->st_dev;
}

static int cmd_capture(int argc, char **argv)
{
	static const struct option opts[] = {
		{"write", required_argument, 0, 'w'}, {"count", required_argument, 0, 'c'},
		{"seconds", required_argument, 0, 'S'}, {"snaplen", required_argument, 0, 's'},
		{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	const char *path = NULL;
	unsigned long long count = 0;
	double seconds = 0;
	int snaplen = CAPSPEC_SNAPLEN_MAX, c;
	char *end;
	while ((c = getopt_long(argc, argv, "w:c:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'w': path = optarg; break;
		case 'c':
			count = strtoull(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || !count || count > (1ULL << 48))
				return bad("--count '%s': expected a whole number of packets, at least 1", optarg);
			break;
		case 'S':
			seconds = strtod(optarg, &end);
			if (*end || !(seconds > 0 && seconds <= 1e7))
				return bad("--seconds '%s': expected a positive number of seconds", optarg);
			break;
		case 's':
			if (capspec_snaplen(optarg, &snaplen))
				return bad("--snaplen '%s': expected bytes per packet in [1, %d]", optarg, CAPSPEC_SNAPLEN_MAX);
			break;
		case 'h': capture_usage(stdout); return 0;
		default: return EXIT_BAD;
		}
	}
	if (optind >= argc)
		return bad("capture: which host? (netctl capture HOST[:IFACE] -w FILE [FILTER...])");
	if (!path || !*path)
		return bad("capture: no output file (-w FILE, or -w - for standard output)");
	if (need_root())
		return EXIT_BAD;
	struct fabric *f = open_or_complain();
	if (!f)
		return EXIT_BAD;
	struct cap_target tg;
	char err[CAPFILE_ERR_LEN], nspath[PATH_MAX], nsname[NS_NAME_MAX];
	if (capspec_parse(argv[optind], &f->topo, &tg, err)) {
		fabric_close(f);
		return bad("capture: %s", err);
	}
	if (!slice_exists(f, &tg.host)) {
		char slices[32];
		int bad_rc = bad("capture: no slice '%s' in %s (its crossbar:%s)", tg.host_name, prefix,
				 slice_span(f, slices, sizeof slices) + 1);
		fabric_close(f);
		return bad_rc;
	}
	char *filter = capspec_join(argv + optind + 1, argc - optind - 1);
	int ns = fabric_ns_fd(f, &tg.host), bad_input = 0, rc = 0;
	struct stat ns_st;
	struct capfile *cf = NULL;
	plan_ns_name(prefix, &tg.host, nsname, sizeof nsname);
	snprintf(nspath, sizeof nspath, "%s/%s", NETNS_RUN_DIR, nsname);
	if (!filter || ns < 0 || fstat(ns, &ns_st))
		snprintf(err, sizeof err, "cannot open %s's namespace: %s", tg.host_name, strerror(errno));
	else
		cf = capfile_open(ns, f->root_fd, tg.ifname, snaplen, filter, count, &bad_input, err);
	fabric_close(f);   /* the packet socket keeps what it needs */
	if (!cf) {
		free(filter);
		if (bad_input)
			return bad("capture %s:%s: %s", tg.host_name, tg.ifname, err);
		fprintf(stderr, "netctl: capture %s:%s: %s\n", tg.host_name, tg.ifname, err);
		return 1;
	}
	/* From here a signal ends the capture and the file is closed properly. */
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (capfile_write_to(cf, path, err)) {
		struct capfile_result res;
		capfile_close(cf, &res);
		free(filter);
		return bad("capture: cannot write %s", err);
	}
	fprintf(stderr, "netctl: capturing on %s:%s (%s, snaplen %d%s%s) into %s\n", tg.host_name, tg.ifname,
		capfile_linktype(cf), snaplen, *filter ? ", filter " : "", filter, path);
	double deadline = seconds > 0 ? mono_now() + seconds : 0;
	int gone = 0;
	while (!interrupted && !capfile_done(cf)) {
		int wait_ms = 100;
		if (deadline) {
			double left = deadline - mono_now();
			if (left <= 0)
				break;
			if (left * 1e3 < wait_ms)
				wait_ms = (int)(left * 1e3) + 1;
		}
		if (capfile_poll(&cf, 1, wait_ms))
			break;
		if ((gone = !ns_still_there(nspath, &ns_st)))
			break;
	}
	struct capfile_result res;
	capfile_close(cf, &res);
	fprintf(stderr, "netctl: %llu packet%s captured on %s:%s, %llu dropped by the kernel, in %s\n",
		(unsigned long long)res.packets, res.packets == 1 ? "" : "s", tg.host_name, tg.ifname,
		(unsigned long long)res.dropped, path);
	if (res.failed) {
		fprintf(stderr, "netctl: capture %s:%s stopped: %s\n", tg.host_name, tg.ifname, res.err);
		rc = 1;
	} else if (gone) {
		fprintf(stderr, "netctl: capture %s:%s stopped: the namespace %s is gone (netctl down?)\n",
			tg.host_name, tg.ifname, nsname);
		rc = 1;
	}
	free(filter);
	return rc;
}

/* ---- circuits ----------------------------------------------------------- */

static int cmd_circuits(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		printf("usage: netctl [--prefix P] circuits set SPEC | show | clear\n"
		       "  SPEC: comma-separated circuits: A>B (rack A sends to rack B), A-B (both ways),\n"
		       "        with @P for optical port P (default 0).  Example: 0>3,3>0,1-2\n"
		       "  Traffic marked TOS 0x08 from rack A to rack B takes the circuit; all other\n"
		       "  traffic, and marked traffic without a circuit, takes the EPS.\n");
		return argc < 2 ? EXIT_BAD : 0;
	}
	const char *sub = argv[1];
	if (strcmp(sub, "set") && strcmp(sub, "show") && strcmp(sub, "clear"))
		return bad("circuits: unknown subcommand '%s' (set, show, clear)", sub);
	if ((!strcmp(sub, "set") && argc != 3) || (strcmp(sub, "set") && argc != 2))
		return bad("circuits %s: wrong number of arguments (see netctl circuits --help)", sub);
	if (need_root())
		return EXIT_BAD;
	struct fabric *f = open_or_complain();
	if (!f)
		return EXIT_BAD;
	int rc = 0;
	char err[FABRIC_ERR_LEN], spec[8192];
	if (!f->topo.ocs) {
		rc = bad("fabric '%s' has no OCS", prefix);
	} else if (!strcmp(sub, "show")) {
		circuits_format(&f->circuits, spec, sizeof spec);
		printf("crossbar: %s\n", spec);
		circuits_format(&f->lit, spec, sizeof spec);
		printf("lit:      %s\n", spec);
	} else {
		struct circuit_cfg next;
		char perr[256];
		if (circuits_parse(!strcmp(sub, "set") ? argv[2] : "none", &f->topo, &next, perr)) {
			rc = bad("circuits: %s", perr);
		} else {
			fabric_lock(f);
			if (fabric_circuits_apply(f, &next, err)) {
				fprintf(stderr, "netctl: circuits: %s\n", err);
				rc = 1;
			}
			fabric_unlock(f);
			if (!rc) {
				circuits_format(&f->circuits, spec, sizeof spec);
				printf("crossbar: %s\n", spec);
			}
		}
	}
	fabric_close(f);
	return rc;
}

/* ---- stats -------------------------------------------------------------- */

static const char *class_name(enum link_class c)
{
	return c == LINK_SERVER ? "server" : c == LINK_UPLINK ? "eps" : "ocs";
}

static void link_label(const struct link_stats *l, char *buf, size_t len)
{
	if (l->cls == LINK_SERVER)
		snprintf(buf, len, "r%dh%d<>tor%d", l->rack, l->server, l->rack);
	else if (l->cls == LINK_UPLINK)
		snprintf(buf, len, "tor%d<>eps", l->rack);
	else
		snprintf(buf, len, "tor%d:o%d<>ocs", l->rack, l->port);
}

static int cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = {
		{"interval", required_argument, 0, 'i'}, {"json", no_argument, 0, 'j'},
		{"all", no_argument, 0, 'a'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	double interval = 1;
	int json = 0, all = 0, c;
	char *end;
	while ((c = getopt_long(argc, argv, "i:jah", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			interval = strtod(optarg, &end);
			if (*end || interval < 0 || interval > 3600)
				return bad("--interval '%s': expected seconds in [0, 3600]", optarg);
			break;
		case 'j': json = 1; break;
		case 'a': all = 1; break;
		case 'h':
			printf("usage: netctl [--prefix P] stats [--interval S] [--json] [--all]\n"
			       "Bytes and rates per link, seen from the ToR (tx = leaving the ToR).\n"
			       "Rates are measured over S seconds (default 1; 0 = counters only).\n"
			       "Idle links are hidden unless --all.\n");
			return 0;
		default: return EXIT_BAD;
		}
	}
	if (optind != argc)
		return bad("stats: unexpected argument '%s'", argv[optind]);
	if (need_root())
		return EXIT_BAD;
	struct fabric *f = open_or_complain();
	if (!f)
		return EXIT_BAD;
	struct link_stats *a = NULL, *b = NULL;
	int n = 0, m = 0, rc = 0;
	if (fabric_stats(f, &a, &n)) {
		fprintf(stderr, "netctl: stats: %s\n", strerror(errno));
		fabric_close(f);
		return 1;
	}
	if (interval > 0) {
		struct timespec ts = {(time_t)interval, (long)((interval - (time_t)interval) * 1e9)};
		nanosleep(&ts, NULL);
		if (fabric_stats(f, &b, &m) || m != n) {
			fprintf(stderr, "netctl: stats: %s\n", strerror(errno));
			rc = 1;
			goto out;
		}
	}
	const struct link_stats *cur = b ? b : a;
	uint64_t eps = 0, ocs = 0, leak = 0;
	json_t *arr = json ? json_array() : NULL;
	if (!json)
		printf("%-18s %-6s %14s %14s %11s %11s %8s\n", "link", "class", "tx bytes", "rx bytes",
		       "tx Mbit/s", "rx Mbit/s", "drops");
	for (int i = 0; i < n; i++) {
		const struct link_stats *l = &cur[i];
		double txr = b ? (double)(b[i].tx_bytes - a[i].tx_bytes) * 8 / interval / 1e6 : 0;
		double rxr = b ? (double)(b[i].rx_bytes - a[i].rx_bytes) * 8 / interval / 1e6 : 0;
		char label[48];
		if (l->cls == LINK_UPLINK) {
			eps += l->tx_bytes;
			leak += l->marked_tx_bytes;
		}
		if (l->cls == LINK_OPTICAL)
			ocs += l->tx_bytes;
		link_label(l, label, sizeof label);
		if (json) {
			json_array_append_new(arr, json_pack("{s:s,s:s,s:i,s:I,s:I,s:I,s:I,s:f,s:f,s:I,s:i}",
				"link", label, "class", class_name(l->cls), "rack", l->rack,
				"tx_bytes", (json_int_t)l->tx_bytes, "rx_bytes", (json_int_t)l->rx_bytes,
				"tx_packets", (json_int_t)l->tx_packets, "rx_packets", (json_int_t)l->rx_packets,
				"tx_mbps", txr, "rx_mbps", rxr, "drops", (json_int_t)l->drops, "backlog", (int)l->backlog));
			if (l->cls == LINK_UPLINK)
				json_object_set_new(json_array_get(arr, json_array_size(arr) - 1), "marked_tx_bytes",
						    json_integer((json_int_t)l->marked_tx_bytes));
			continue;
		}
		if (!all && !l->tx_bytes && !l->rx_bytes)
			continue;
		printf("%-18s %-6s %14llu %14llu %11.2f %11.2f %8llu\n", label, class_name(l->cls),
		       (unsigned long long)l->tx_bytes, (unsigned long long)l->rx_bytes, txr, rxr,
		       (unsigned long long)l->drops);
	}
	if (json) {
		json_t *top = json_pack("{s:s,s:f,s:o,s:I,s:I,s:I}", "prefix", prefix, "interval_s", interval,
					"links", arr, "eps_uplink_tx_bytes", (json_int_t)eps,
					"ocs_tx_bytes", (json_int_t)ocs, "marked_eps_tx_bytes", (json_int_t)leak);
		json_dumpf(top, stdout, JSON_INDENT(1));
		putchar('\n');
		json_decref(top);
	} else {
		printf("cross-rack bytes sent: EPS %llu, OCS %llu (OCS share %.1f%%)\n", (unsigned long long)eps,
		       (unsigned long long)ocs, eps + ocs ? 100.0 * (double)ocs / (double)(eps + ocs) : 0.0);
		if (f->topo.ocs)
			printf("circuit-marked bytes sent over the EPS (leakage or fallback): %llu\n",
			       (unsigned long long)leak);
	}
out:
	free(a);
	free(b);
	fabric_close(f);
	return rc;
}

/* ---- features ----------------------------------------------------------- */

static int cmd_features(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: netctl features\nProbe in a scratch namespace what this kernel supports for a fabric;\n"
		       "exit 1 if something an OCS fabric needs is missing.\n");
		return 0;
	}
	if (argc > 1)
		return bad("features takes no arguments");
	if (need_root())
		return EXIT_BAD;
	struct features f;
	if (features_probe(prefix, &f))
		return fprintf(stderr, "netctl: %s\n", f.detail), 1;
	printf("veth          %s\nhtb + bfifo   %s\ningress       %s\nu32 + mirred  %s\n"
	       "netem         %s\nvxlan         %s\nbridge        %s\n",
	       f.veth ? "yes" : "NO", f.htb ? "yes" : "NO", f.ingress ? "yes" : "NO",
	       f.u32_mirred ? "yes" : "NO", f.netem ? "yes" : "no (link delay emulation unavailable)",
	       f.vxlan ? "yes" : "no (no fabric over several hosts)",
	       f.bridge ? "yes" : "no (no emulated hosts)");
	const char *m = features_missing(&f, true);
	if (m)
		printf("missing for an OCS fabric: %s\n  %s\n", m, f.detail);
	return m ? 1 : 0;
}

/* ---- main --------------------------------------------------------------- */

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct cmd cmds[] = {
	{"up", cmd_up, "up FILE [--rate-scale X] [--hosts HOSTS]\n"
		       "                             build the fabric FILE describes (over several hosts)"},
	{"down", cmd_down, "down [--hosts HOSTS]       remove everything of the prefix (also after a crash)"},
	{"show", cmd_show, "show                       list the fabrics that are up"},
	{"exec", cmd_exec, "exec HOST -- CMD...        run CMD in a host's namespace (r3h7, tor3, eps, ocs)"},
	{"capture", cmd_capture, "capture HOST[:IFACE] -w FILE [--count N] [--seconds S] [FILTER...]\n"
				 "                             write a host's packets to a pcap file (tcpdump's filters)"},
	{"circuits", cmd_circuits, "circuits set SPEC|show|clear  set OCS circuits by hand (0>3,1-2)"},
	{"stats", cmd_stats, "stats [--interval S]       bytes and rates per link, EPS vs OCS"},
	{"features", cmd_features, "features                   what this kernel supports"},
	{"host-up", cmd_host_up, "host-up --host NAME        one host's part of a fabric (run by up --hosts)"},
	{"host-down", cmd_host_down, "host-down --host NAME      remove this host's part (run by down --hosts)"},
	{"host-ctl", cmd_host_ctl, "host-ctl --host NAME       apply circuit steps, read counters here (run by emu run)"},
};

static void usage(FILE *out)
{
	fprintf(out, "usage: netctl [--prefix P] COMMAND [ARGS]\n\n"
		     "Build emulated datacenter fabrics from namespaces, veth links and tc.\n"
		     "Every object carries the prefix P (default \"emu\"; letters, digits, '_').\n\ncommands:\n");
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		fprintf(out, "  %s\n", cmds[i].help);
	fprintf(out, "\n`netctl COMMAND --help` says more.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"prefix", required_argument, 0, 'p'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	int c;
	const char *env = getenv("EMU_PREFIX");
	if (env && *env)
		prefix = env;
	while ((c = getopt_long(argc, argv, "+p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p': prefix = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_BAD;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_BAD;
	}
	/* Accept --prefix after the command too: netctl down --prefix x. */
	char **args = argv + optind;
	int nargs = argc - optind;
	for (int i = 1; i < nargs; i++) {
		if (!strcmp(args[i], "--"))
			break;
		if (!strcmp(args[i], "--prefix") && i + 1 < nargs) {
			prefix = args[i + 1];
			memmove(&args[i], &args[i + 2], (nargs - i - 2 + 1) * sizeof *args);
			nargs -= 2;
			i--;
		} else if (!strncmp(args[i], "--prefix=", 9)) {
			prefix = args[i] + 9;
			memmove(&args[i], &args[i + 1], (nargs - i - 1 + 1) * sizeof *args);
			nargs--;
			i--;
		}
	}
	if (plan_prefix_valid(prefix))
		return bad("bad prefix '%s': use 1-%d letters, digits or '_'", prefix, PREFIX_MAX);
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		if (!strcmp(cmds[i].name, args[0])) {
			optind = 0;   /* 0, not 1: glibc then resets getopt fully */
			return cmds[i].fn(nargs, args);
		}
	return bad("unknown command '%s' (see netctl --help)", args[0]);
}
