/* main.c — emu-agent: arguments, setup, and dispatch of control messages.
 *
 *   emu-agent --server r0h1 [--id 1] --rack 0 --addr 198.18.0.2 --data-port 7000
 *             --control PATH|tcp:A.B.C.D:PORT [--netns NAME]
 *             [--hold | --fallback] [--cc cubic] [--copiers 5]
 *             [--send sendfile|send] [--stall-timeout S] [--stall-retries N]
 *             [--disk-read-mbps X] [--disk-write-mbps X]
 *
 * Started by the controller inside the server's network namespace (the
 * control socket is a filesystem path, so it is reachable from there), or,
 * on another host, inside that host's namespace with --control tcp:... and
 * the run's secret on standard input: it connects from there and then joins
 * the server's namespace --netns (a socket keeps the namespace it was made
 * in, so the server's namespace needs no route to the controller).  It
 * dies with its parent (PR_SET_PDEATHSIG) and exits when the control
 * connection closes, so it never outlives the controller.
 *
 *   emu-agent --spawn --prefix P --host NAME
 *
 * starts a host's agents (spawn.c) from the list on standard input. */
#include "agents/agent.h"
#include "agents/stall.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

struct agent_cfg agent = {.id = -1, .hold = true, .cc = "cubic", .copiers = 5, .use_sendfile = true,
			  .stall_timeout = STALL_TIMEOUT_DEFAULT, .stall_retries = STALL_RETRIES_DEFAULT};

void agent_dispatch(struct msg *m)
{
	switch (m->op) {
	case OP_MAP: tasks_map(m); break;
	case OP_REDUCE: tasks_reduce(m); break;
	case OP_FETCH: tasks_fetch(m); break;
	case OP_KILL: tasks_kill(m->task); break;
	case OP_SUSPEND: tasks_suspend(m->task); break;
	case OP_RESUME: tasks_resume(m->task, m->duration); break;
	case OP_COPY: copy_start(m); break;
	case OP_CIRCUITS:
		serve_circuits(m->pairs, m->npairs);
		tasks_circuits_changed();
		break;
	case OP_ANNOUNCE:
		serve_announce(m->pairs, m->npairs);
		tasks_circuits_changed();
		break;
	case OP_SHUTDOWN:
		/* normal end of a run: exit quietly */
		exit(0);
	default:
		alog("ignoring a control message the agent does not take (op %d)", (int)m->op);
	}
}

static _Noreturn void usage(const char *why)
{
	bool help = why == NULL;
	fprintf(help ? stdout : stderr,
		"%s%s%s"
		"usage: emu-agent --server rXhY --rack R --addr A.B.C.D --data-port P --control PATH|tcp:A.B.C.D:PORT\n"
		"                 [--netns NAME] (tcp: the run's secret on standard input)\n"
		"                 [--id N] [--hold | --fallback] [--cc ALGO] [--copiers N] [--send sendfile|send]\n"
		"                 [--stall-timeout S (%g; 0 = never)] [--stall-retries N (%d)]\n"
		"                 [--disk-read-mbps X] [--disk-write-mbps X] (0 = not limited)\n"
		"       emu-agent --spawn --prefix PREFIX --host NAME (a host's agents: the list on standard input)\n",
		help ? "" : "emu-agent: ", help ? "" : why, help ? "" : "\n", STALL_TIMEOUT_DEFAULT,
		STALL_RETRIES_DEFAULT);
	if (help)
		printf("The task agent of one emulated server: `emu run` starts one in each server's namespace.\n");
	exit(help ? 0 : 2);
}

#define NETNS_DIR "/run/netns"

static int join_netns(const char *name)
{
	if (!name)
		return 0;
	char path[300];
	snprintf(path, sizeof path, NETNS_DIR "/%s", name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET)) {
		alog("cannot join the namespace %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static long num(const char *s, long lo, long hi, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < lo || v > hi) {
		char why[96];
		snprintf(why, sizeof why, "bad %s '%s' (%ld..%ld)", what, s, lo, hi);
		usage(why);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"server", 1, 0, 's'}, {"id", 1, 0, 'i'}, {"rack", 1, 0, 'r'}, {"addr", 1, 0, 'a'},
		{"data-port", 1, 0, 'p'}, {"control", 1, 0, 'c'}, {"hold", 0, 0, 'H'}, {"fallback", 0, 0, 'F'},
		{"cc", 1, 0, 'C'}, {"copiers", 1, 0, 'n'}, {"send", 1, 0, 'S'}, {"stall-timeout", 1, 0, 'T'},
		{"stall-retries", 1, 0, 'R'}, {"disk-read-mbps", 1, 0, 'D'}, {"disk-write-mbps", 1, 0, 'W'},
		{"netns", 1, 0, 'N'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0},
	};
	if (argc > 1 && !strcmp(argv[1], "--spawn"))
		return spawn_main(argc, argv);
	bool have_addr = false;
	agent.rack = -1;
	for (int o; (o = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
		switch (o) {
		case 's':
			if (!*optarg || strlen(optarg) >= sizeof agent.server)
				usage("bad --server");
			strcpy(agent.server, optarg);
			break;
		case 'i': agent.id = (int)num(optarg, 0, INT32_MAX, "--id"); break;
		case 'r': agent.rack = (int)num(optarg, 0, AGENT_MAX_RACKS - 1, "--rack"); break;
		case 'a':
			if (inet_pton(AF_INET, optarg, &agent.addr) != 1)
				usage("bad --addr");
			have_addr = true;
			break;
		case 'p': agent.data_port = (int)num(optarg, 1, 65535, "--data-port"); break;
		case 'c': agent.control = optarg; break;
		case 'N':
			if (!*optarg || strchr(optarg, '/'))
				usage("bad --netns (a name under " NETNS_DIR ")");
			agent.netns = optarg;
			break;
		case 'H': agent.hold = true; break;
		case 'F': agent.hold = false; break;
		case 'C':
			if (strlen(optarg) >= sizeof agent.cc)
				usage("bad --cc");
			strcpy(agent.cc, optarg);
			break;
		case 'n': agent.copiers = (int)num(optarg, 1, 1024, "--copiers"); break;
		case 'S':
			if (!strcmp(optarg, "sendfile"))
				agent.use_sendfile = true;
			else if (!strcmp(optarg, "send"))
				agent.use_sendfile = false;
			else
				usage("bad --send (sendfile or send)");
			break;
		case 'T': {
			char *end;
			double v = strtod(optarg, &end);
			if (!*optarg || *end || !(v >= 0 && v <= 86400))
				usage("bad --stall-timeout (0..86400 s)");
			agent.stall_timeout = v;
			break;
		}
		case 'R': agent.stall_retries = (int)num(optarg, 0, 1000, "--stall-retries"); break;
		case 'D':
		case 'W': {
			char *end;
			double v = strtod(optarg, &end);
			if (!*optarg || *end || !(v >= 0 && v <= 1e7))
				usage(o == 'D' ? "bad --disk-read-mbps (0..1e7 MB/s)" : "bad --disk-write-mbps (0..1e7 MB/s)");
			*(o == 'D' ? &agent.disk_read_Bps : &agent.disk_write_Bps) = v * 1e6;
			break;
		}
		case 'h': usage(NULL);
		default: usage("bad option");
		}
	}
	if (optind < argc)
		usage("unexpected argument");
	if (!agent.server[0] || agent.rack < 0 || !have_addr || !agent.data_port || !agent.control)
		usage("--server, --rack, --addr, --data-port and --control are required");

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stderr, NULL, _IOLBF, 0);

	if (loop_init() || control_connect(agent.control) || join_netns(agent.netns) || serve_init())
		return 1;
	struct msg hello = {.op = OP_HELLO, .pid = (int)getpid(), .data_port = agent.data_port};
	strcpy(hello.server, agent.server);
	control_send(&hello);
	loop_run();
}
