/* agent_spawn.c — fork an agent into a server's network namespace. */
#include "emu/agent_spawn.h"
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static void close_from_3(void)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0)
		return;
#endif
	struct rlimit rl;
	long max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (long)rl.rlim_cur : 65536;
	for (long fd = 3; fd < max; fd++)
		close((int)fd);
}

pid_t agent_spawn(const char *agent_path, int ns_fd, char *const argv[])
{
	return agent_spawn_stdin(agent_path, ns_fd, -1, argv);
}

pid_t agent_spawn_stdin(const char *agent_path, int ns_fd, int stdin_fd, char *const argv[])
{
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid != 0)
		return pid;   /* parent, or -1 with errno */

	/* child: only async-signal-safe calls from here on (the parent may
	 * have threads) */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(127);   /* the parent is already gone */
	if (ns_fd >= 0 && setns(ns_fd, CLONE_NEWNET)) {
		static const char msg[] = "agent_spawn: setns failed\n";
		ssize_t w = write(2, msg, sizeof msg - 1);
		(void)w;
		_exit(127);
	}
	if (stdin_fd >= 0 && dup2(stdin_fd, 0) != 0)
		_exit(127);
	/* a clean signal state for the agent */
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	close_from_3();
	execv(agent_path, argv);
	static const char msg[] = "agent_spawn: exec of the agent failed\n";
	ssize_t w = write(2, msg, sizeof msg - 1);
	(void)w;
	_exit(127);
}

int agent_default_path(char *buf, size_t len)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return -1;
	self[n] = 0;
	char *slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = 0;
	int w = snprintf(buf, len, "%s/emu-agent", self);
	return w < 0 || (size_t)w >= len ? -1 : 0;
}
