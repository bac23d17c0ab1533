/* spawn.c — emu-agent --spawn --prefix P --host NAME: the agents of one
 * host other than the controller's.
 *
 * `emu run --hosts` starts one per such host through netctl's launcher
 * (inside PREFIX-m-NAME on an emulated host, over ssh on a real one).  It
 * reads the run's secret and the agents' argument lists on its standard
 * input (emu/agent_batch.h), starts each agent with the secret on the
 * agent's own standard input (a pipe), and waits.  It ends when every agent
 * has, or when its standard input does (the controller closed it, or died,
 * or its ssh session ended): then it kills the agents left.  So nothing of
 * the run outlives it, and nothing is left running on the host. */
#include "agents/agent.h"
#include "emu/agent_batch.h"
#include "emu/agent_spawn.h"
#include "emu/ctl_auth.h"
#include "netctl/plan.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *host = "?";

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "emu-agent --spawn: host %s: %s\n", host, line);
}

static const char *server_of(char **argv)
{
	for (int k = 1; argv[k] && argv[k + 1]; k++)
		if (!strcmp(argv[k], "--server"))
			return argv[k + 1];
	return "?";
}

static bool host_name_ok(const char *s)
{
	size_t n = strlen(s);
	return n >= 1 && n <= 15 && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

static pid_t start_one(const char *self, const char *secret, char **argv)
{
	int p[2];
	char line[CTL_SECRET_HEX + 2];
	if (pipe2(p, O_CLOEXEC))
		return -1;
	snprintf(line, sizeof line, "%s\n", secret);
	argv[0] = (char *)self;
	pid_t pid = agent_spawn_stdin(self, -1, p[0], argv);
	int saved = errno;
	ssize_t w = pid > 0 ? write(p[1], line, strlen(line)) : 0;
	(void)w;   /* a line fits the pipe; short or failed: the agent says so and exits */
	explicit_bzero(line, sizeof line);
	close(p[0]);
	close(p[1]);
	errno = saved;
	return pid;
}

int spawn_main(int argc, char **argv)
{
	static struct agent_list l;
	const char *prefix = NULL;
	for (int i = 2; i < argc; i += 2) {
		if (i + 1 >= argc || (strcmp(argv[i], "--prefix") && strcmp(argv[i], "--host"))) {
			fprintf(stderr, "usage: emu-agent --spawn --prefix PREFIX --host NAME (the list on standard input)\n");
			return 2;
		}
		*(!strcmp(argv[i], "--prefix") ? &prefix : &host) = argv[i + 1];
	}
	if (!prefix || plan_prefix_valid(prefix) || !host_name_ok(host)) {
		fprintf(stderr, "emu-agent --spawn: --prefix (a fabric's prefix) and --host (a hosts file's name) are required\n");
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);   /* an emulated host's: the controller is the parent */
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stderr, NULL, _IOLBF, 0);
	char err[AGENT_BATCH_ERR_LEN], self[PATH_MAX];
	if (agent_list_read(&l, 0, err)) {
		say("standard input: %s", err);
		agent_list_free(&l);
		return 2;
	}
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0) {
		say("/proc/self/exe: %s", strerror(errno));
		return 1;
	}
	self[n] = 0;
	pid_t *pid = calloc((size_t)l.n, sizeof *pid);
	if (!pid) {
		say("out of memory");
		return 1;
	}
	int left = 0, bad = 0;
	for (int i = 0; i < l.n; i++) {
		if ((pid[i] = start_one(self, l.secret, l.argv[i])) < 0) {
			say("cannot start the agent of %s: %s", server_of(l.argv[i]), strerror(errno));
			bad = 1;
			break;
		}
		left++;
	}
	explicit_bzero(l.secret, sizeof l.secret);
	bool ending = bad;
	while (left) {
		struct pollfd pf = {.fd = 0, .events = POLLIN};
		if (!ending && poll(&pf, 1, 100) > 0) {
			char c;
			ssize_t r = read(0, &c, 1);
			if (r > 0) {
				say("standard input: input after 'start'");
				bad = 1;
			}
			if (r >= 0 || errno != EINTR)
				ending = true;   /* the controller is done, or gone */
		}
		if (ending)
			for (int i = 0; i < l.n; i++)
				if (pid[i] > 0)
					kill(pid[i], SIGKILL);
		int st;
		pid_t p;
		while ((p = waitpid(-1, &st, ending ? 0 : WNOHANG)) > 0) {
			for (int i = 0; i < l.n; i++)
				if (pid[i] == p) {
					pid[i] = -1;
					left--;
					if (ending)
						break;
					if (WIFSIGNALED(st))
						say("the agent of %s was killed (signal %d)", server_of(l.argv[i]), WTERMSIG(st));
					else if (WEXITSTATUS(st))
						say("the agent of %s exited with status %d", server_of(l.argv[i]), WEXITSTATUS(st));
					bad |= !WIFEXITED(st) || WEXITSTATUS(st);
				}
			if (!left)
				break;
		}
	}
	free(pid);
	agent_list_free(&l);
	return bad;
}
