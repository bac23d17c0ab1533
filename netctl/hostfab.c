/* hostfab.c — see hostfab.h. */
#include "netctl/hostfab.h"
#include "netctl/lan.h"
#include "netctl/launch.h"
#include "netctl/ns.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAGIC "emu-fabric-part 1\n"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t cap = 0;
	if (!f)
		return NULL;
	if (getdelim(&text, &cap, 0, f) < 0) {
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

/* MAGIC, "topology LEN\n" TEXT, "hosts LEN\n" TEXT. */
char *hostfab_encode(const struct topo *t, const struct hosts *hs)
{
	char path[] = "/tmp/emu-part-XXXXXX", hosts[8192];
	int fd = mkstemp(path);   /* 0600: only we read it, and only for a moment */
	if (fd < 0)
		return NULL;
	close(fd);
	char *topo = NULL;
	if (!topo_save(t, path) && !hosts_format(hs, hosts, sizeof hosts))
		topo = slurp(path);
	unlink(path);
	if (!topo)
		return NULL;
	char *out = NULL;
	if (topo && asprintf(&out, MAGIC "topology %zu\n%shosts %zu\n%s", strlen(topo), topo, strlen(hosts), hosts) < 0)
		out = NULL;
	free(topo);
	return out;
}

static const char *section(const char *p, const char *name, char **text)
{
	size_t n = strlen(name), len;
	char *end;
	if (!p || strncmp(p, name, n) || p[n] != ' ')
		return NULL;
	len = strtoul(p + n + 1, &end, 10);
	if (*end != '\n' || strnlen(end + 1, len) < len || !(*text = strndup(end + 1, len)))
		return NULL;
	return end + 1 + len;
}

int hostfab_decode(const char *in, struct topo *t, struct hosts *hs, char err[FABRIC_ERR_LEN])
{
	char *topo = NULL, *hosts = NULL, terr[TOPO_ERR_LEN], herr[HOSTS_ERR_LEN];
	const char *p = !strncmp(in, MAGIC, strlen(MAGIC)) ? in + strlen(MAGIC) : NULL;
	int rc = -1;
	p = section(p, "topology", &topo);
	p = section(p, "hosts", &hosts);
	if (!p || *p)
		fabric_errf(err, "standard input: not a fabric part (netctl up --hosts sends one)");
	else if (topo_load_string(t, topo, "topology", 0, terr))
		fabric_errf(err, "%s", terr);
	else if (hosts_load_string(hs, hosts, "hosts", herr))
		fabric_errf(err, "%s", herr);
	else
		rc = 0;
	free(topo);
	free(hosts);
	return rc;
}

static int write_file(const char *prefix, const char *file, const char *text)
{
	char path[256], tmp[272];
	snprintf(path, sizeof path, "%s/%s/%s", FABRIC_STATE_DIR, prefix, file);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return -1;
	int bad = fputs(text, f) < 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

static void count_one(const char *name, void *arg)
{
	(void)name;
	++*(int *)arg;
}

/* Start `netctl CMD --host NAME` on every host at once; 0 if all succeed,
 * else the first failure's host index + 1. */
static int on_every_host(const struct hosts *hs, const char *prefix, const char *netctl, const char *cmd,
			 const char *input, char err[FABRIC_ERR_LEN])
{
	pid_t pid[HOSTS_MAX];
	char lerr[LAUNCH_ERR_LEN];
	int failed = 0;
	for (int i = 0; i < hs->n; i++) {
		const char *args[] = {cmd, "--host", hs->h[i].name, NULL};
		pid[i] = launch_part(netctl, prefix, &hs->h[i], args, input, lerr);
		if (pid[i] < 0 && !failed) {
			failed = i + 1;
			fabric_errf(err, "%s", lerr);
		}
	}
	for (int i = 0; i < hs->n; i++) {
		if (pid[i] < 0)
			continue;
		int st = launch_wait(pid[i]);
		if (st && !failed) {
			failed = i + 1;
			fabric_errf(err, "host %s: netctl %s exited with status %d (its messages are above)", hs->h[i].name, cmd, st);
		}
	}
	return failed;
}

int fabric_up_hosts(const struct topo *t, const struct hosts *hs, const char *prefix, const char *netctl,
		    struct fabric_timing *tm, char err[FABRIC_ERR_LEN])
{
	char dir[256], herr[HOSTS_ERR_LEN], text[8192];
	struct layout l;
	double t0 = now_s();
	if (plan_prefix_valid(prefix))
		return fabric_errf(err, "bad prefix '%s': use 1-%d letters, digits or '_'", prefix, PREFIX_MAX);
	if (hosts_partition(hs, t, &l, herr))
		return fabric_errf(err, "%s", herr);
	if (t->unshapeable[0])
		return fabric_errf(err, "%s", t->unshapeable);
	snprintf(dir, sizeof dir, "%s/%s", FABRIC_STATE_DIR, prefix);
	int existing = 0;
	ns_list(prefix, count_one, &existing);
	if ((mkdir(FABRIC_STATE_DIR, 0700) && errno != EEXIST))
		return fabric_errf(err, "%s: %s", FABRIC_STATE_DIR, strerror(errno));
	if (existing || mkdir(dir, 0700)) {
		if (existing || errno == EEXIST)
			return fabric_errf(err, "a fabric with prefix '%s' is already up (remove it with: netctl down --prefix %s)",
				    prefix, prefix);
		return fabric_errf(err, "%s: %s", dir, strerror(errno));
	}
	char *input = NULL;
	int rc = 0;
	if (hs->h[0].emulated && lan_up(prefix, hs, err))
		rc = -1;
	double t1 = now_s();
	if (!rc && !(input = hostfab_encode(t, hs)))
		rc = fabric_errf(err, "cannot write the topology for the hosts: %s", strerror(errno));
	if (!rc && on_every_host(hs, prefix, netctl, "host-up", input, err))
		rc = -1;
	char path[300];
	snprintf(path, sizeof path, "%s/topology.conf", dir);
	if (!rc && (hosts_format(hs, text, sizeof text) || write_file(prefix, "hosts", text) ||
		    write_file(prefix, "circuits", "none\n") || topo_save(t, path)))
		rc = fabric_errf(err, "%s: cannot write state: %s", dir, strerror(errno));
	free(input);
	if (rc) {
		char saved[FABRIC_ERR_LEN];
		memcpy(saved, err, sizeof saved);
		fabric_down_hosts(hs, prefix, netctl, NULL);
		memcpy(err, saved, FABRIC_ERR_LEN);
	}
	if (tm) {
		memset(tm, 0, sizeof *tm);
		tm->ns_s = t1 - t0;
		tm->total_s = now_s() - t0;
	}
	return rc;
}

static void delete_part(const char *name, void *arg)
{
	struct { const char *prefix; int count; } *d = arg;
	if (!lan_owns(name, (void *)d->prefix) && !ns_delete(name))
		d->count++;
}

int fabric_down_part(const char *prefix, int *killed)
{
	struct { const char *prefix; int count; } d = {prefix, 0};
	if (plan_prefix_valid(prefix))
		return 0;
	int k = ns_kill_processes_except(prefix, lan_owns, (void *)prefix, 2000);
	if (killed)
		*killed = k;
	ns_list(prefix, delete_part, &d);
	/* On emulated hosts this is also the controller's state: down is
	 * removing all of it anyway. */
	fabric_state_remove(prefix);
	return d.count;
}

int fabric_down_hosts(const struct hosts *hs, const char *prefix, const char *netctl, int *killed)
{
	char err[FABRIC_ERR_LEN];
	int failed = 0, before = 0;
	if (plan_prefix_valid(prefix))
		return 0;
	ns_list(prefix, count_one, &before);
	/* One host at a time: emulated hosts share this machine's namespaces,
	 * and a part being removed must not race another's removal. */
	for (int i = 0; i < hs->n; i++) {
		struct hosts one = *hs;
		one.n = 1;
		one.h[0] = hs->h[i];
		if (hs->h[i].emulated) {
			char name[NS_NAME_MAX];
			lan_machine_ns(prefix, hs->h[i].name, name, sizeof name);
			int fd = ns_open(name);
			if (fd < 0)
				continue;   /* never made, or already gone: nothing of it left */
			close(fd);
		}
		if (on_every_host(&one, prefix, netctl, "host-down", "", err)) {
			fprintf(stderr, "netctl: %s\n", err);
			failed = 1;
		}
	}
	/* Then whatever is left here: the machines, the LAN, the state. */
	fabric_down(prefix, killed);
	int after = 0;
	ns_list(prefix, count_one, &after);
	return failed ? -1 : before - after;
}
