/* Helpers for integration tests that drive the `emu` binary as a user would. */
#ifndef TESTS_RUN_FIXTURE_H
#define TESTS_RUN_FIXTURE_H
#include "fabric_fixture.h"
#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

/* The emu binary beside this test binary. */
static inline void rx_emu_path(char *buf, size_t len)
{
	fx_bin_path("emu", buf, len);
}

/* fork + exec argv (argv[0] a path), stdout and stderr to log (or /dev/null). */
static inline pid_t rx_spawn(const char *const *argv, const char *log)
{
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(log ? log : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

static inline int rx_wait_exit(pid_t pid)
{
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static inline void rx_write_file(char *tmpl, const char *text)
{
	int fd = mkstemp(tmpl);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static inline void rx_sleep(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	nanosleep(&ts, NULL);
}

/* A run's summary.json, or a failed assertion naming the file. */
static inline json_t *rx_summary(const char *path)
{
	json_error_t e;
	json_t *j = json_load_file(path, 0, &e);
	cr_assert_not_null(j, "%s: %s", path, e.text);
	return j;
}

/* A number in a summary by dotted path ("agent_bytes.shuffle_local"). */
static inline double rx_num(json_t *o, const char *path)
{
	char buf[128];
	snprintf(buf, sizeof buf, "%s", path);
	json_t *cur = o;
	for (char *tok = strtok(buf, "."); tok && cur; tok = strtok(NULL, "."))
		cur = json_object_get(cur, tok);
	cr_assert_not_null(cur, "no %s in summary", path);
	return json_number_value(cur);
}

/* The processes of prefix `prefix` (its control socket path, --prefix or,
 * for an agent on another host, --netns PREFIX-... on its command line) whose command line contains both needles: up to max
 * pids into out; returns how many. */
static inline int rx_find_processes(const char *prefix, const char *needle1, const char *needle2, pid_t *out, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int found = 0;
	char sock[64], opt[64], ns[64];
	snprintf(sock, sizeof sock, "/run/emu/%s/", prefix);
	snprintf(opt, sizeof opt, "--prefix %s ", prefix);
	snprintf(ns, sizeof ns, "--netns %s-", prefix);
	while (d && (e = readdir(d)) && found < max) {
		char path[300], cmd[4096];
		snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, cmd, sizeof cmd - 2);
		close(fd);
		if (n <= 0)
			continue;
		for (ssize_t i = 0; i < n; i++)
			if (!cmd[i])
				cmd[i] = ' ';
		cmd[n] = 0;
		if (strstr(cmd, needle1) && strstr(cmd, needle2) && (strstr(cmd, sock) || strstr(cmd, opt) || strstr(cmd, ns)))
			out[found++] = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

/* One such process; -1 if none. */
static inline pid_t rx_find_process(const char *prefix, const char *needle1, const char *needle2)
{
	pid_t pid;
	return rx_find_processes(prefix, needle1, needle2, &pid, 1) ? pid : -1;
}

/* Kill every `emu run` and agent of the prefix (a failed assertion may
 * leave them behind). */
static inline void rx_kill_strays(const char *prefix)
{
	pid_t p;
	for (int i = 0; i < 50 && ((p = rx_find_process(prefix, "emu", " run ")) > 0 ||
				   (p = rx_find_process(prefix, "emu-agent", "--server")) > 0); i++) {
		kill(p, SIGKILL);
		rx_sleep(0.05);
	}
}

/* A suite's teardown (as root): the prefix's processes and fabric, the
 * files (a NULL-terminated list) and the results directory. */
static inline void rx_teardown(const char *prefix, const char *const *files, const char *results)
{
	if (geteuid() != 0)
		return;
	rx_kill_strays(prefix);
	fabric_down(prefix, NULL);
	for (; *files; files++)
		unlink(*files);
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", results);
	if (system(cmd)) { /* best effort */ }
}
#endif
