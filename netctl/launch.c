/* launch.c — see launch.h. */
#include "netctl/launch.h"
#include "netctl/lan.h"
#include "netctl/ns.h"
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int launch_netctl_path(char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return -1;
	self[n] = 0;
	char *dir = dirname(self);
	snprintf(buf, len, "%s/netctl", dir);
	if (!access(buf, X_OK))
		return 0;
	snprintf(buf, len, "%s/bin/netctl", dir);
	return access(buf, X_OK);
}

pid_t launch_start(const char *local, const char *remote, const char *prefix, const struct fabric_host *h,
		   const char *const args[], const char *input, int *keep, int *out, char err[LAUNCH_ERR_LEN])
{
	const char *argv[40];
	int n = 0, pipefd[2], outfd[2] = {-1, -1}, nsfd = -1;
	if (h->emulated) {
		char name[NS_NAME_MAX];
		lan_machine_ns(prefix, h->name, name, sizeof name);
		if ((nsfd = ns_open(name)) < 0) {
			snprintf(err, LAUNCH_ERR_LEN, "host %s: namespace %s: %s", h->name, name, strerror(errno));
			return -1;
		}
		argv[n++] = local;
	} else {
		/* Every word is ours and checked (prefix, host name, subcommand):
		 * nothing the remote shell could take apart. */
		argv[n++] = "ssh";
		argv[n++] = "-o";
		argv[n++] = "BatchMode=yes";
		argv[n++] = "-T";
		argv[n++] = "--";
		argv[n++] = h->mgmt;
		argv[n++] = remote;
	}
	for (int i = 0; args[i] && n < 39; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	bool piped = !pipe2(pipefd, O_CLOEXEC);
	if (!piped || (out && pipe2(outfd, O_CLOEXEC))) {
		snprintf(err, LAUNCH_ERR_LEN, "pipe: %s", strerror(errno));
		if (piped) {
			close(pipefd[0]);
			close(pipefd[1]);
		}
		if (nsfd >= 0)
			close(nsfd);
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pipefd[0], 0);
		if (out)
			dup2(outfd[1], 1);
		if (nsfd >= 0 && ns_enter(nsfd)) {
			fprintf(stderr, "%s: host %s: setns: %s\n", remote, h->name, strerror(errno));
			_exit(1);
		}
		if (h->emulated)
			execv(local, (char *const *)argv);
		else
			execvp("ssh", (char *const *)argv);
		fprintf(stderr, "%s: host %s: %s: %s\n", remote, h->name, argv[0], strerror(errno));
		_exit(127);
	}
	int saved = errno;
	close(pipefd[0]);
	if (out)
		close(outfd[1]);
	if (nsfd >= 0)
		close(nsfd);
	if (pid < 0) {
		close(pipefd[1]);
		if (out)
			close(outfd[0]);
		snprintf(err, LAUNCH_ERR_LEN, "fork: %s", strerror(saved));
		return -1;
	}
	/* The child reads all of it before it does anything. */
	struct sigaction ign = {.sa_handler = SIG_IGN}, old;
	sigaction(SIGPIPE, &ign, &old);
	for (size_t off = 0, len = strlen(input); off < len;) {
		ssize_t w = write(pipefd[1], input + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;   /* it died: its status says why */
		off += (size_t)w;
	}
	sigaction(SIGPIPE, &old, NULL);
	if (keep)
		*keep = pipefd[1];
	else
		close(pipefd[1]);
	if (out)
		*out = outfd[0];
	return pid;
}

pid_t launch_part(const char *netctl, const char *prefix, const struct fabric_host *h, const char *const args[],
		  const char *input, char err[LAUNCH_ERR_LEN])
{
	const char *argv[32] = {"--prefix", prefix};
	int n = 2;
	for (int i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return launch_start(netctl, "netctl", prefix, h, argv, input, NULL, NULL, err);
}

int launch_wait(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
