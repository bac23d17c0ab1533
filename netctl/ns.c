/* ns.c — see ns.h. */
#include "netctl/ns.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* /run/netns must be a shared mount point, or a bind mount made in one mount
 * namespace would not be seen in others (ip netns does the same dance). */
static int prepare_run_dir(void)
{
	if (mkdir(NETNS_RUN_DIR, 0755) && errno != EEXIST)
		return -1;
	if (!mount("", NETNS_RUN_DIR, "none", MS_SHARED | MS_REC, NULL))
		return 0;
	if (errno != EINVAL)
		return -1;
	if (mount(NETNS_RUN_DIR, NETNS_RUN_DIR, "none", MS_BIND | MS_REC, NULL))
		return -1;
	return mount("", NETNS_RUN_DIR, "none", MS_SHARED | MS_REC, NULL);
}

static void ns_path(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", NETNS_RUN_DIR, name);
}

int ns_self(void)
{
	return open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
}

int ns_enter(int fd)
{
	return setns(fd, CLONE_NEWNET);
}

int ns_open(const char *name)
{
	char path[PATH_MAX];
	ns_path(name, path, sizeof path);
	return open(path, O_RDONLY | O_CLOEXEC);
}

int ns_create(const char *name)
{
	static int run_dir_ready;   /* one mount check per process is enough */
	char path[PATH_MAX];
	int fd, saved;

	if (!run_dir_ready) {
		if (prepare_run_dir())
			return -1;
		run_dir_ready = 1;
	}
	ns_path(name, path, sizeof path);
	fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	close(fd);
	if (unshare(CLONE_NEWNET))
		goto fail;
	if (mount("/proc/thread-self/ns/net", path, "none", MS_BIND, NULL))
		goto fail;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
fail:
	saved = errno;
	umount2(path, MNT_DETACH);
	unlink(path);
	errno = saved;
	return -1;
}

int ns_delete(const char *name)
{
	char path[PATH_MAX];
	ns_path(name, path, sizeof path);
	umount2(path, MNT_DETACH);
	if (unlink(path) && errno != ENOENT)
		return -1;
	return 0;
}

static int prefix_match(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	return !strncmp(name, prefix, n) && name[n] == '-' && name[n + 1];
}

int ns_list(const char *prefix, void (*fn)(const char *name, void *arg), void *arg)
{
	DIR *d = opendir(NETNS_RUN_DIR);
	struct dirent *e;
	int n = 0;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || (prefix && !prefix_match(e->d_name, prefix)))
			continue;
		fn(e->d_name, arg);
		n++;
	}
	closedir(d);
	return n;
}

struct inode_set {
	ino_t *ino;
	dev_t *dev;
	int n, cap;
};

static void collect_inode(const char *name, void *arg)
{
	struct inode_set *s = arg;
	char path[PATH_MAX];
	struct stat st, nsfs;
	ns_path(name, path, sizeof path);
	/* An unmounted placeholder (a crash between create and mount) is on the
	 * /run filesystem, not nsfs: it names no namespace. */
	if (stat(path, &st) || stat("/proc/self/ns/net", &nsfs) || st.st_dev != nsfs.st_dev)
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->ino = realloc(s->ino, s->cap * sizeof *s->ino);
		s->dev = realloc(s->dev, s->cap * sizeof *s->dev);
		if (!s->ino || !s->dev)
			abort();
	}
	s->ino[s->n] = st.st_ino;
	s->dev[s->n++] = st.st_dev;
}

static int in_set(const struct inode_set *s, const struct stat *st)
{
	for (int i = 0; i < s->n; i++)
		if (s->ino[i] == st->st_ino && s->dev[i] == st->st_dev)
			return 1;
	return 0;
}

/* A process killed is gone once /proc no longer has it: a zombie still
 * shows in ps and pgrep (without its namespace), so it counts until reaped,
 * unless we are its parent (our caller reaps its own children).  The start
 * time tells a reused pid from ours. */
struct victim {
	pid_t pid;
	unsigned long long start;
};

static int proc_stat(pid_t pid, char *state, pid_t *ppid, unsigned long long *start)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	/* comm may hold spaces and parentheses: the fields start after the last ')'. */
	char *p = strrchr(buf, ')');
	int pp;
	if (!p || sscanf(p + 1, " %c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
			 state, &pp, start) != 3)
		return -1;
	*ppid = pp;
	return 0;
}

static bool victim_gone(const struct victim *v)
{
	char state;
	pid_t ppid;
	unsigned long long start;
	if (proc_stat(v->pid, &state, &ppid, &start) || start != v->start)
		return true;
	return state == 'Z' && ppid == getpid();
}

/* SIGKILL every process in the set's namespaces; the victims, if wanted,
 * go to *out (*n_out of them). */
static int kill_members(const struct inode_set *s, struct victim **out, int *n_out)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0, cap = 0;
	pid_t self = getpid();
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[64], state;
		struct stat st;
		char *end;
		pid_t ppid;
		unsigned long long start;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || pid == self)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/ns/net", pid);
		if (stat(path, &st) || !in_set(s, &st) || proc_stat((pid_t)pid, &state, &ppid, &start))
			continue;
		if (kill((pid_t)pid, SIGKILL))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			*out = realloc(*out, cap * sizeof **out);
			if (!*out)
				abort();
		}
		(*out)[n++] = (struct victim){(pid_t)pid, start};
	}
	closedir(d);
	*n_out = n;
	return n;
}

struct keep_filter {
	struct inode_set *s;
	bool (*keep)(const char *name, void *arg);
	void *arg;
};

static void collect_unless_kept(const char *name, void *arg)
{
	struct keep_filter *k = arg;
	if (!k->keep || !k->keep(name, k->arg))
		collect_inode(name, k->s);
}

int ns_kill_processes(const char *prefix, int timeout_ms)
{
	return ns_kill_processes_except(prefix, NULL, NULL, timeout_ms);
}

int ns_kill_processes_except(const char *prefix, bool (*keep)(const char *name, void *arg), void *arg,
			     int timeout_ms)
{
	struct inode_set s = {0};
	struct victim *v = NULL;
	int n = 0, left;
	struct keep_filter k = {&s, keep, arg};
	ns_list(prefix, collect_unless_kept, &k);
	if (s.n)
		kill_members(&s, &v, &n);
	left = n;
	for (int waited = 0; left && waited < timeout_ms; waited += 5) {
		struct timespec ts = {0, 5 * 1000 * 1000};
		left = 0;
		for (int i = 0; i < n; i++)
			left += !victim_gone(&v[i]);
		if (left)
			nanosleep(&ts, NULL);
	}
	free(v);
	free(s.ino);
	free(s.dev);
	return n;
}

int sysctl_set(const char *key, const char *value)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "/proc/sys/%s", key);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t n = strlen(value);
	ssize_t w = write(fd, value, n);
	int saved = errno;
	close(fd);
	errno = saved;
	return w == (ssize_t)n ? 0 : -1;
}

int sysctl_get(const char *key, char *buf, size_t len)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "/proc/sys/%s", key);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t r = read(fd, buf, len - 1);
	close(fd);
	if (r < 0)
		return -1;
	while (r > 0 && (buf[r - 1] == '\n' || buf[r - 1] == ' '))
		r--;
	buf[r] = 0;
	return 0;
}
