/* emu view — a finished run's results directory in the browser, with a
 * time slider: the page of emu run --web, fed from the result files
 * (emu/web/replay.c).  Also the one place the commands start the page. */
#include "emu/cli/cmds.h"
#include "emu/web/replay.h"
#include "emu/web/server.h"
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct web_server *cli_web_start(const char *cmd, const char *spec, struct web_pub *pub,
				 char *(*replay)(void *, double), void *arg)
{
	char addr[64], err[256];
	int port;
	if (web_parse_listen(spec, addr, &port, err)) {
		fprintf(stderr, "emu %s: --web %s\n", cmd, err);
		return NULL;
	}
	struct web_server_cfg cfg = {.addr = addr, .port = port, .pub = pub, .replay = replay, .replay_arg = arg};
	struct web_server *s = web_server_start(&cfg, err);
	if (!s)
		fprintf(stderr, "emu %s: --web: %s\n", cmd, err);
	else
		fprintf(stderr, "emu %s: the page is at http://%s:%d/%s\n", cmd, addr, port,
			strcmp(addr, "127.0.0.1") ? " (reachable from other machines: read-only, no password)" : "");
	return s;
}

static volatile sig_atomic_t view_stop;

static void on_signal(int sig)
{
	(void)sig;
	view_stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: emu view RESULTS_DIR [--web [ADDR:]PORT]\n"
		   "Show a finished run (emulated or simulated) in the browser, with a time slider: the page of\n"
		   "emu run --web, fed from the result files.  Runs until interrupted (Ctrl-C).\n\n"
		   "  --web [ADDR:]PORT   where to serve the page (default 8080 on 127.0.0.1; another address\n"
		   "                      only when given: the page is read-only and has no password)\n"
		   "  -h, --help          show this help\n");
}

int cmd_view(int argc, char **argv)
{
	static const struct option opts[] = {{"web", required_argument, 0, 'w'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	const char *spec = "8080";
	int c;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'w')
			spec = optarg;
		else if (c == 'h') {
			usage(stdout);
			return 0;
		} else
			return 2;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "emu view: expected one results directory (see emu view --help)\n");
		return 2;
	}
	struct web_replay r;
	char err[512];
	if (web_replay_load(&r, argv[optind], err)) {
		fprintf(stderr, "emu view: %s\n", err);
		return 2;
	}
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	struct web_server *s = cli_web_start("view", spec, NULL, web_replay_json, &r);
	if (!s) {
		web_replay_free(&r);
		return 2;
	}
	fprintf(stderr, "emu view: %s, %.1f s of run time, %d jobs; Ctrl-C to stop\n", argv[optind], r.t_end, r.njobs);
	while (!view_stop)
		sleep(1);   /* a signal cuts it short */
	web_server_stop(s);
	web_replay_free(&r);
	return 0;
}
