/* emu run — one experiment: build the fabric, start the agents, replay the
 * workload under a scheduler with the OCS following demand, write results
 * (or the same on the flow-level simulator: --backend sim).
 *
 * With no arguments it runs the built-in default: the GENI-like 10-rack
 * topology, a small seeded SWIM-like workload, Fair.  --compare then runs
 * the same jobs on the simulator under other schedulers (compare.c). */
#include "emu/cli/cmds.h"
#include "emu/cli/compare.h"
#include "emu/run.h"
#include "emu/captures.h"
#include "emu/gen.h"
#include "emu/sched.h"
#include "emu/web/publish.h"
#include "emu/web/server.h"
#include "netctl/capspec.h"
#include "netctl/hosts.h"
#include "netctl/units.h"
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* topologies/geni-10rack.conf, built in so `emu run` needs no files (the
 * Makefile turns the file into this string). */
static const char default_topology[] =
#include "default_topology.inc"
	;

static void on_signal(int sig)
{
	(void)sig;
	run_stop_requested = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: emu run [options]\n"
		"Run a workload on an emulated cluster and write results/<experiment>/<scheduler>/<run>/.\n"
		"Without options: the emulator, the built-in GENI-like 10-rack topology, 20 synthetic jobs\n"
		"(seed 4, all at once), Fair at slowstart 0.05, the OCS reconfigured every 1 s, no comparison.\n"
		"(`make run` runs a JobPacker batch with --compare instead: see the Makefile.)\n\n"
		"  --backend emu|sim     emu: namespaces, agents, real packets (root); sim: flow-level\n"
		"                        model of the same topology, virtual clock, no root (default emu)\n"
		"  --topology FILE       topology file (default: built-in geni-10rack)\n"
		"  --workload FILE       SWIM trace (.tsv) or native JSON workload (default: a generator)\n"
		"  --generator NAME[:KEY=VALUE,...]\n"
		"                        without --workload: the generator (default synthetic) and its\n"
		"                        keys, listed below; --seed draws, --jobs counts what it says\n"
		"  --save-workload FILE  write the workload as it will run (native JSON, scaled) to FILE,\n"
		"                        then run it (with --dry-run: stop there)\n"
		"  --jobs N              the generator's jobs (see below), or the first N jobs of a file\n"
		"  --arrivals MODE       batch | uniform:WINDOW_S | poisson:MEAN_GAP_S | trace (default batch;\n"
		"                        a workload file's own times; the other generators time their own)\n"
		"  --scheduler NAME      one of the list below (default fair); with --help: its options\n"
		"  --sched-opt KEY=VALUE an option of the scheduler (repeatable; unknown options and bad\n"
		"                        values are errors); emu run --scheduler NAME --help lists them\n"
		"  --recurring F         mark round(F x jobs) of the jobs recurring, a seeded random set, the\n"
		"                        rest ad hoc (synthetic: default 1; a workload file keeps its own\n"
		"                        flags unless given: a SWIM trace has none)\n"
		"  --min-shuffle BYTES   synthetic or SWIM: only jobs with at least this shuffle (unscaled;\n"
		"                        the generator draws again, a trace's other jobs are skipped)\n"
		"  --max-maps N          synthetic or SWIM: a job of more maps is scaled down to N maps, as\n"
		"                        SWIM fits a trace to a smaller cluster (all its bytes x the same\n"
		"                        factor; e.g. the cluster's containers: no job exceeds one wave)\n"
		"  --seed N              workload and placement seed (default 4)\n"
		"  --data-scale X        multiply every byte count (default 0.01, as GENI did)\n"
		"  --time-scale X        multiply task durations and arrival times (default 0.1)\n"
		"  --rate-scale X        multiply every link rate (default: the topology's)\n"
		"  --slowdown K          emu: slow motion; every link at 1/K of its rate (packets and\n"
		"                        queues as they were), every task, interval and delay, and TCP's\n"
		"                        minimum RTO, K times as long, so the machine does 1/K of the\n"
		"                        work per second; results stay in the run's own seconds\n"
		"                        (default 1; for a machine the fidelity check finds CPU-bound)\n"
		"  --slowstart F         fraction of maps done before reduces start (default 0.05)\n"
		"  --elephant BYTES      circuit-eligible above this (default 1.125GB x data scale)\n"
		"  --ocs-mode hold|fallback   circuit-eligible bytes wait for a circuit, or use the EPS meanwhile\n"
		"  --ocs-interval S      OCS reconfiguration interval (default 1)\n"
		"  --ocs-reconfig periodic|early   every interval only (default), or also as soon as a\n"
		"                        waiting rack pair could use dark or served ports (after 9 x delta)\n"
		"  --delta S             OCS reconfiguration delay (default 0.010)\n"
		"  --experiment NAME     results/<NAME>/... (default \"default\")\n"
		"  --run NAME            results/.../<NAME> (default: a timestamp)\n"
		"  --results DIR         root of the results (default results)\n"
		"  --prefix P            namespace prefix (default emu)\n"
		"  --timeout S           stop (partial results) after S seconds of run time (default 3600)\n"
		"  --heartbeat S         offers of free containers and scheduler ticks (default 0.2)\n"
		"  --copiers N           parallel fetches per reduce, Hadoop's parallelcopies (default 5; at\n"
		"                        most 1024: a reduce then fetches from every holder at once, as in\n"
		"                        the dissertation's simulator, 6.1.6); in hold mode a circuit\n"
		"                        transfer starts only while its circuit is lit, and one caught\n"
		"                        by the dark gives its copier back until the circuit returns\n"
		"  --output-replicas 1|3 where a job's output is kept, which a job with \"lineage\" reads:\n"
		"                        on the server that wrote it (1, default), or also on two servers\n"
		"                        of another rack, as HDFS (3; the copies' traffic is not modelled)\n"
		"  --recovery-delay S    a preempted (suspended) task's delay when it resumes (default 1)\n"
		"  --visibility clairvoyant|semi-clairvoyant\n"
		"                        what a scheduler may know of task sizes (work, bytes): everything\n"
		"                        (default), or a stage's once its parent stages are done (COBRA's)\n"
		"  --stall-timeout S     agents: a data connection with no progress for S s is resumed on a\n"
		"                        new one (default 120; 0 = never)\n"
		"  --stall-retries N     agents: resumptions before the fetch fails and its task re-runs (default 3)\n"
		"  --monitor S           network monitor period: links.csv, rack utilisation (default 1)\n"
		"  --no-flows            do not write flows.csv, a line per transfer (gigabytes at the\n"
		"                        paper's scale; summary.json keeps its totals)\n"
		"  --capture HOST[:IFACE]   emu: write what a fabric interface sees, from the fabric's start\n"
		"                        to the run's end, to capture-HOST-IFACE.pcap in the results\n"
		"                        directory (tcpdump -r, Wireshark); repeatable.  HOST: rXhY, torX,\n"
		"                        eps, ocs; IFACE: eth0 on a server, any (every interface) otherwise\n"
		"  --capture-filter EXPR   for every --capture: a tcpdump filter, e.g. 'tcp port 7000'\n"
		"  --capture-snaplen N   bytes kept of each captured packet (default 128: headers only)\n"
		"  --sim-quantum S       sim: least time between bandwidth reallocations (default 0.01; 0 = exact)\n"
		"  --shuffle-error F     predicted shuffle sizes off by up to F (0.5 = 50%%), seeded\n"
		"  --arrival-error F:S   a fraction F of jobs predicted to arrive up to S s (unscaled) off\n"
		"  --web [ADDR:]PORT     serve a live, read-only page of the run (circuits, demand, links,\n"
		"                        jobs) on 127.0.0.1:PORT, or ADDR:PORT when given; it stays up\n"
		"                        for 3 s after the run (emu view shows the results later)\n"
		"  --hosts FILE          spread the fabric over the hosts FILE lists (netctl(8)); real\n"
		"                        ones over ssh, the controller on the first\n"
		"  --keep                leave the fabric up afterwards\n"
		"  --quiet               no progress and no summary on the terminal (errors only)\n"
		"  --dry-run             print the workload's jobs (after scaling) and exit\n"
		"  --compare SCHED[@TOPOLOGY][,...]\n"
		"                        afterwards, the same jobs on the simulator (no root, about a second):\n"
		"                        this run's scheduler (on the emulator: its twin) and each SCHED, on\n"
		"                        this run's topology or on TOPOLOGY (a file), every other option as\n"
		"                        given (the twin with this run's --sched-opt, the others with their\n"
		"                        defaults); prints them side by side (ratios to this run's scheduler,\n"
		"                        simulated), writes compare.csv beside the results and the runs to\n"
		"                        results/<experiment>/<SCHED>/<run>-sim[-<topology name>]/ (default: none)\n"
		"\ngenerators (--generator NAME[:KEY=VALUE,...], keys with their defaults):\n");
	gen_list(f);
	fprintf(f, "\nschedulers:\n");
	sched_list(f);
}

static void print_workload(const struct workload *w, const struct topo *t)
{
	uint64_t in = 0, sh = 0, out = 0;
	printf("%-8s %10s %6s %7s %12s %12s %12s %9s %9s\n", "job", "submit(s)", "maps", "reduces", "input", "shuffle",
	       "output", "map(s)", "recurring");
	for (int i = 0; i < w->njobs; i++) {
		const struct job *j = &w->jobs[i];
		char a[32], b[32], c[32];
		printf("%-8s %10.2f %6d %7d %12s %12s %12s %9.2f %9s\n", j->name, j->submit_s, j->nmaps, j->nreduces,
		       units_fmt_size(j->input_bytes, a, sizeof a), units_fmt_size(j->shuffle_bytes, b, sizeof b),
		       units_fmt_size(j->output_bytes, c, sizeof c),
		       j->nmaps ? w->tasks[j->first_task].work_s : 0.0, j->recurring ? "yes" : "no");
		for (int s = 0; !stages_is_mapreduce(j) && s < j->nstages; s++) {
			const struct stage *st = &j->stages[s];
			printf("  stage %-12s %6d tasks, work %.2f s", st->name, st->ntasks,
			       stage_task(w->tasks, j, s, 0)->work_s);
			for (int p = 0; p < st->nparents; p++)
				printf("%s%s (%s)", p ? ", " : ", reads ", j->stages[st->parent[p].stage].name,
				       edge_kind_name(st->parent[p].kind));
			printf("\n");
		}
		in += j->input_bytes;
		sh += j->shuffle_bytes;
		out += j->output_bytes;
	}
	char a[32], b[32], c[32];
	printf("%d jobs, %d tasks, input %s, shuffle %s, output %s on %s (%d servers in %d racks)\n", w->njobs,
	       w->ntasks, units_fmt_size(in, a, sizeof a), units_fmt_size(sh, b, sizeof b),
	       units_fmt_size(out, c, sizeof c), t->name, topo_servers(t), t->racks);
}

static int num(const char *opt, const char *v, double lo, double hi, double *out)
{
	char *end;
	double x = strtod(v, &end);
	if (*end || !(x >= lo && x <= hi)) {
		fprintf(stderr, "emu run: %s '%s': expected a number in [%g, %g]\n", opt, v, lo, hi);
		return -1;
	}
	*out = x;
	return 0;
}

/* Options without a short form. */
enum { OPT_CAPTURE = 0x100, OPT_CAPTURE_FILTER, OPT_CAPTURE_SNAPLEN, OPT_SCHED_OPT, OPT_OUTPUT_REPLICAS,
       OPT_VISIBILITY, OPT_GENERATOR, OPT_SAVE_WORKLOAD, OPT_RECOVERY, OPT_WEB, OPT_HOSTS,
       OPT_NO_FLOWS };
/* After the run, the page stays this long: a browser watching sees the end. */
#define WEB_LINGER_S 3
#define CAPTURES_MAX 64
#define SCHED_OPTS_MAX 64

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"topology", required_argument, 0, 't'}, {"workload", required_argument, 0, 'w'},
		{"jobs", required_argument, 0, 'n'}, {"arrivals", required_argument, 0, 'a'},
		{"scheduler", required_argument, 0, 's'}, {"seed", required_argument, 0, 'S'},
		{"data-scale", required_argument, 0, 'D'}, {"time-scale", required_argument, 0, 'T'},
		{"rate-scale", required_argument, 0, 'R'}, {"slowstart", required_argument, 0, 'l'},
		{"elephant", required_argument, 0, 'e'}, {"ocs-mode", required_argument, 0, 'm'},
		{"ocs-interval", required_argument, 0, 'i'}, {"delta", required_argument, 0, 'd'},
		{"experiment", required_argument, 0, 'x'}, {"run", required_argument, 0, 'r'},
		{"results", required_argument, 0, 'o'}, {"prefix", required_argument, 0, 'p'},
		{"timeout", required_argument, 0, 'O'}, {"keep", no_argument, 0, 'k'},
		{"quiet", no_argument, 0, 'q'}, {"dry-run", no_argument, 0, 'N'},
		{"recurring", required_argument, 0, 'F'}, {"backend", required_argument, 0, 'b'},
		{"heartbeat", required_argument, 0, 'H'}, {"monitor", required_argument, 0, 'M'},
		{"sim-quantum", required_argument, 0, 'Q'}, {"shuffle-error", required_argument, 0, 'E'},
		{"arrival-error", required_argument, 0, 'A'}, {"stall-timeout", required_argument, 0, 'U'},
		{"stall-retries", required_argument, 0, 'V'}, {"min-shuffle", required_argument, 0, 'Z'},
		{"max-maps", required_argument, 0, 'X'}, {"ocs-reconfig", required_argument, 0, 'G'},
		{"capture", required_argument, 0, OPT_CAPTURE}, {"capture-filter", required_argument, 0, OPT_CAPTURE_FILTER},
		{"capture-snaplen", required_argument, 0, OPT_CAPTURE_SNAPLEN},
		{"copiers", required_argument, 0, 'C'}, {"slowdown", required_argument, 0, 'W'},
		{"compare", required_argument, 0, 'Y'}, {"sched-opt", required_argument, 0, OPT_SCHED_OPT},
		{"output-replicas", required_argument, 0, OPT_OUTPUT_REPLICAS}, {"no-flows", no_argument, 0, OPT_NO_FLOWS},
		{"generator", required_argument, 0, OPT_GENERATOR},
		{"save-workload", required_argument, 0, OPT_SAVE_WORKLOAD},
		{"visibility", required_argument, 0, OPT_VISIBILITY},
		{"recovery-delay", required_argument, 0, OPT_RECOVERY}, {"web", required_argument, 0, OPT_WEB},
		{"hosts", required_argument, 0, OPT_HOSTS}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	struct run_params rp;
	struct workload_params wp;
	struct synth_params sp;
	struct prediction_errors perr = {0, 0, 0};
	run_params_default(&rp);
	workload_params_default(&wp);
	synth_params_default(&sp);
	wp.data_scale = 0.01;
	wp.time_scale = 0.1;
	/* Seed 4 draws a small mix (5371 tasks, 1.9 GB of shuffle after
	 * scaling) that runs in about a minute on geni-10rack; seed 1 draws a
	 * job of 10,000 maps.  Any seed is reproducible. */
	rp.seed = sp.seed = 4;
	const char *topo_file = NULL, *wl_file = NULL, *generator = NULL, *save_file = NULL, *web_spec = NULL,
		   *hosts_file = NULL;
	char *compare_spec = NULL;
	double rate_scale = 0, x, elephant = -1;
	int njobs = 20, c;
	bool dry = false, arrivals_given = false, recurring_given = false, snaplen_given = false, help = false,
	     sched_named = false, njobs_given = false;
	const char *captures[CAPTURES_MAX], *sched_opts[SCHED_OPTS_MAX];
	rp.prefix = cli_default_prefix();
	while ((c = getopt_long(argc, argv, "t:w:n:a:s:S:D:T:R:l:e:m:i:d:x:r:o:p:O:kqhF:b:H:M:Q:E:A:", opts, NULL)) != -1) {
		switch (c) {
		case 't': topo_file = optarg; break;
		case 'w': wl_file = optarg; break;
		case 'n': if (num("--jobs", optarg, 1, 1e6, &x)) return 2; njobs = (int)x; njobs_given = true; break;
		case 'a':
			arrivals_given = true;
			if (!strcmp(optarg, "batch"))
				sp.arrivals = ARRIVE_BATCH;
			else if (!strcmp(optarg, "trace"))
				sp.arrivals = ARRIVE_TRACE;
			else if (!strncmp(optarg, "uniform:", 8)) {
				sp.arrivals = ARRIVE_UNIFORM;
				if (num("--arrivals uniform", optarg + 8, 0, 1e7, &sp.window_s)) return 2;
			} else if (!strncmp(optarg, "poisson:", 8)) {
				sp.arrivals = ARRIVE_POISSON;
				if (num("--arrivals poisson", optarg + 8, 1e-6, 1e7, &sp.mean_gap_s)) return 2;
			} else {
				fprintf(stderr, "emu run: --arrivals '%s': expected batch, uniform:W, poisson:G or trace\n", optarg);
				return 2;
			}
			break;
		case 's':
			if (!sched_find(optarg)) {
				fprintf(stderr, "emu run: unknown scheduler '%s'; known:\n", optarg);
				sched_list(stderr);
				return 2;
			}
			rp.scheduler = optarg;
			sched_named = true;
			break;
		case 'S': if (num("--seed", optarg, 0, 1e18, &x)) return 2; rp.seed = sp.seed = (unsigned long)x; break;
		case 'D': if (num("--data-scale", optarg, 1e-9, 1e3, &wp.data_scale)) return 2; break;
		case 'T': if (num("--time-scale", optarg, 1e-6, 1e3, &wp.time_scale)) return 2; break;
		case 'R': if (num("--rate-scale", optarg, 1e-9, 1e3, &rate_scale)) return 2; break;
		case 'l': if (num("--slowstart", optarg, 0, 1, &rp.slowstart)) return 2; break;
		case 'Z':
			if (units_parse_size(optarg, &wp.min_shuffle)) {
				fprintf(stderr, "emu run: --min-shuffle '%s': expected a size such as 100MB\n", optarg);
				return 2;
			}
			break;
		case 'X': if (num("--max-maps", optarg, 1, 1e7, &x)) return 2; wp.max_maps = (int)x; break;
		case 'G':
			if (strcmp(optarg, "periodic") && strcmp(optarg, "early")) {
				fprintf(stderr, "emu run: --ocs-reconfig '%s': expected periodic or early\n", optarg);
				return 2;
			}
			rp.ocs.early = !strcmp(optarg, "early");
			break;
		case 'e': {
			uint64_t b;
			if (units_parse_size(optarg, &b)) {
				fprintf(stderr, "emu run: --elephant '%s': expected a size such as 11MB\n", optarg);
				return 2;
			}
			elephant = (double)b;
			break;
		}
		case 'm':
			if (strcmp(optarg, "hold") && strcmp(optarg, "fallback")) {
				fprintf(stderr, "emu run: --ocs-mode '%s': expected hold or fallback\n", optarg);
				return 2;
			}
			rp.hold = !strcmp(optarg, "hold");
			break;
		case 'i': if (num("--ocs-interval", optarg, 0.01, 3600, &rp.ocs.interval_s)) return 2; break;
		case 'd': if (num("--delta", optarg, 0, 10, &rp.ocs.delta_s)) return 2; break;
		case 'x': rp.experiment = optarg; break;
		case 'r': rp.run_name = optarg; break;
		case 'o': rp.results_root = optarg; break;
		case 'p': rp.prefix = optarg; break;
		case 'O': if (num("--timeout", optarg, 1, 1e7, &rp.timeout_s)) return 2; break;
		case 'k': rp.keep_fabric = true; break;
		case 'q': rp.quiet = true; break;
		case 'N': dry = true; break;
		case 'Y': compare_spec = optarg; break;
		case 'F': if (num("--recurring", optarg, 0, 1, &sp.recurring_fraction)) return 2; recurring_given = true; break;
		case 'b':
			if (strcmp(optarg, "emu") && strcmp(optarg, "sim")) {
				fprintf(stderr, "emu run: --backend must be emu or sim, not '%s'\n", optarg);
				return 2;
			}
			rp.backend = optarg;
			break;
		case 'H': if (num("--heartbeat", optarg, 0.001, 60, &rp.heartbeat_s)) return 2; break;
		case 'U': if (num("--stall-timeout", optarg, 0, 86400, &rp.stall_timeout_s)) return 2; break;
		case 'V': if (num("--stall-retries", optarg, 0, 1000, &x)) return 2; rp.stall_retries = (int)x; break;
		case 'C': if (num("--copiers", optarg, 1, 1024, &x)) return 2; rp.copiers = (int)x; break;
		case 'W': if (num("--slowdown", optarg, 1, 100, &rp.slowdown)) return 2; break;
		case 'M': if (num("--monitor", optarg, 0.01, 3600, &rp.monitor_s)) return 2; break;
		case 'Q': if (num("--sim-quantum", optarg, 0, 10, &rp.sim_quantum_s)) return 2; break;
		case 'E': if (num("--shuffle-error", optarg, 0, 10, &perr.shuffle)) return 2; break;
		case 'A': {
			char *colon = strchr(optarg, ':');
			if (!colon) {
				fprintf(stderr, "emu run: --arrival-error wants FRACTION:SECONDS, e.g. 0.3:200\n");
				return 2;
			}
			*colon = 0;
			if (num("--arrival-error fraction", optarg, 0, 1, &perr.arrival_fraction) ||
			    num("--arrival-error seconds", colon + 1, 0, 1e7, &perr.arrival_s))
				return 2;
			break;
		}
		case OPT_CAPTURE:
			if (rp.ncaptures == CAPTURES_MAX) {
				fprintf(stderr, "emu run: --capture: at most %d of them\n", CAPTURES_MAX);
				return 2;
			}
			captures[rp.ncaptures++] = optarg;
			rp.captures = captures;
			break;
		case OPT_CAPTURE_FILTER: rp.capture_filter = optarg; break;
		case OPT_CAPTURE_SNAPLEN:
			if (capspec_snaplen(optarg, &rp.capture_snaplen)) {
				fprintf(stderr, "emu run: --capture-snaplen '%s': expected bytes per packet in [1, %d]\n",
					optarg, CAPSPEC_SNAPLEN_MAX);
				return 2;
			}
			snaplen_given = true;
			break;
		case OPT_RECOVERY:
			if (num("--recovery-delay", optarg, 0, 3600, &rp.recovery_s))
				return 2;
			break;
		case OPT_VISIBILITY:
			if (strcmp(optarg, "clairvoyant") && strcmp(optarg, "semi-clairvoyant")) {
				fprintf(stderr, "emu run: --visibility must be clairvoyant or semi-clairvoyant, not '%s'\n",
					optarg);
				return 2;
			}
			rp.semi_clairvoyant = !strcmp(optarg, "semi-clairvoyant");
			break;
		case OPT_NO_FLOWS: rp.no_flows = true; break;
		case OPT_OUTPUT_REPLICAS:
			if (strcmp(optarg, "1") && strcmp(optarg, "3")) {
				fprintf(stderr, "emu run: --output-replicas must be 1 or 3, not '%s'\n", optarg);
				return 2;
			}
			rp.output_replicas = atoi(optarg);
			break;
		case OPT_GENERATOR: generator = optarg; break;
		case OPT_HOSTS: hosts_file = optarg; break;
		case OPT_SAVE_WORKLOAD: save_file = optarg; break;
		case OPT_WEB: {
			char a[64], e[256];
			int port;
			if (web_parse_listen(optarg, a, &port, e)) {
				fprintf(stderr, "emu run: --web %s\n", e);
				return 2;
			}
			web_spec = optarg;
			break;
		}
		case OPT_SCHED_OPT:
			if (rp.nsched_opts == SCHED_OPTS_MAX) {
				fprintf(stderr, "emu run: --sched-opt: at most %d of them\n", SCHED_OPTS_MAX);
				return 2;
			}
			sched_opts[rp.nsched_opts++] = optarg;
			rp.sched_opts = sched_opts;
			break;
		case 'h': help = true; break;
		default: return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "emu run: unexpected argument '%s' (see emu run --help)\n", argv[optind]);
		return 2;
	}
	if (help) {   /* with --scheduler, wherever it is: that scheduler's options */
		if (sched_named)
			sched_opts_help(sched_find(rp.scheduler), stdout);
		else
			usage(stdout);
		return 0;
	}
	char opt_err[512];
	if (sched_opts_check(sched_find(rp.scheduler), rp.sched_opts, rp.nsched_opts, opt_err, sizeof opt_err)) {
		fprintf(stderr, "emu run: --sched-opt: %s\n", opt_err);
		return 2;
	}
	/* Both become directory names under --results. */
	const char *names[][2] = {{"--experiment", rp.experiment}, {"--run", rp.run_name}};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		for (const char *n = names[i][1]; n && *n; n++)
			if (*n == '/' || (n == names[i][1] && *n == '.')) {
				fprintf(stderr, "emu run: %s must be a plain name\n", names[i][0]);
				return 2;
			}
	if (generator && wl_file) {
		fprintf(stderr, "emu run: --generator and --workload: one source of jobs, not both\n");
		return 2;
	}
	struct topo t;
	char err[512];
	if (topo_file ? topo_load(&t, topo_file, rate_scale, err)
		      : topo_load_string(&t, default_topology, "geni-10rack (built in)", rate_scale, err)) {
		fprintf(stderr, "emu run: %s\n", err);
		return 2;
	}
	struct compare cmp;
	if (compare_spec && compare_parse(&cmp, compare_spec, rate_scale))
		return 2;
	bool sim = !strcmp(rp.backend, "sim");
	if (sim && rp.slowdown != 1) {
		fprintf(stderr, "emu run: --slowdown is for the emulator (--backend emu): the simulator's clock is virtual\n");
		return 2;
	}
	if (sim && (rp.ncaptures || rp.capture_filter || snaplen_given)) {
		fprintf(stderr, "emu run: --capture is for the emulator (--backend emu): the simulator has no packets\n");
		return 2;
	}
	if (!rp.ncaptures && (rp.capture_filter || snaplen_given)) {
		fprintf(stderr, "emu run: --capture-filter and --capture-snaplen apply to --capture, and none was given\n");
		return 2;
	}
	static struct hosts hs;
	if (hosts_file) {
		struct layout lay;
		char herr[HOSTS_ERR_LEN];
		if (hosts_load(&hs, hosts_file, herr) || hosts_partition(&hs, &t, &lay, herr)) {
			fprintf(stderr, "emu run: %s\n", herr);
			return 2;
		}
		if (sim) {
			fprintf(stderr, "emu run: --hosts is for the emulator (--backend emu): the simulator has no fabric\n");
			return 2;
		}
		rp.hosts = &hs;
	}
	if (!sim && !dry && t.unshapeable[0]) {
		fprintf(stderr, "emu run: %s\n", t.unshapeable);
		return 2;
	}
	struct workload w;
	if (wl_file) {
		if (workload_read(&w, wl_file, &wp, njobs, err)) {
			fprintf(stderr, "emu run: %s\n", err);
			return 2;
		}
		/* The file's own times and recurring flags, unless told otherwise
		 * (`--arrivals batch` once kept a trace's times); the last
		 * --arrivals wins (trace: the file's times). */
		if (arrivals_given)
			workload_set_arrivals(&w, &sp);
		if (recurring_given)
			workload_set_recurring(&w, &sp);
	} else {
		sp.njobs = njobs;
		struct gen_opts go = {&sp, njobs_given, arrivals_given, recurring_given};
		if (gen_workload(&w, generator ? generator : "synthetic", &go, &wp, err)) {
			fprintf(stderr, "emu run: --generator: %s\n", err);
			return 2;
		}
	}
	if (cluster_check_asks(&t, &w, err)) {
		fprintf(stderr, "emu run: %s\n", err);
		workload_free(&w);
		return 2;
	}
	workload_prediction_errors(&w, &perr, sp.seed);
	rp.elephant_bytes = (uint64_t)(elephant >= 0 ? elephant : 1.125e9 * wp.data_scale);
	if (save_file && workload_write_native(&w, save_file)) {
		fprintf(stderr, "emu run: --save-workload %s: %s\n", save_file, strerror(errno));
		workload_free(&w);
		return 2;
	}
	if (dry) {
		print_workload(&w, &t);
		workload_free(&w);
		return 0;
	}
	if (!sim && geteuid() != 0) {
		fprintf(stderr, "emu run: needs root (it builds network namespaces); try sudo, or --backend sim\n");
		workload_free(&w);
		return 2;
	}
	if (rp.ncaptures && captures_check(&t, &rp, err)) {
		fprintf(stderr, "emu run: %s\n", err);
		workload_free(&w);
		return 2;
	}
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	struct workload jobs_before;   /* the compared runs' jobs: this run writes its progress into w */
	char dir[512] = "";
	if (compare_spec && workload_copy(&jobs_before, &w)) {
		fprintf(stderr, "emu run: out of memory\n");
		workload_free(&w);
		return 1;
	}
	rp.dir_out = dir;
	struct web_server *web = NULL;
	if (web_spec) {
		if (!(rp.web = web_pub_new()) || !(web = cli_web_start("run", web_spec, rp.web, NULL, NULL))) {
			web_pub_free(rp.web);
			workload_free(&w);
			return 2;
		}
		rp.ocs.observer = web_pub_observer(rp.web);
	}
	int rc = run_experiment(&t, &w, &rp, err);
	if (web) {
		sleep(WEB_LINGER_S);
		web_server_stop(web);
		web_pub_free(rp.web);
		rp.web = NULL;   /* the compared runs are not shown */
		rp.ocs.observer = (struct ocs_observer){0};
	}
	if (rc < 0)
		fprintf(stderr, "emu run: %s\n", err);
	if (compare_spec && rc == 0)
		rc = compare_run(&cmp, &t, &jobs_before, &rp, dir);
	else if (compare_spec && rc == 1)
		fprintf(stderr, "emu run: the run stopped early: no comparison\n");
	if (compare_spec)
		workload_free(&jobs_before);
	workload_free(&w);
	return rc < 0 ? 1 : rc;
}
