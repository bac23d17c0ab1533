/* handle.c — attach to a running fabric: its topology, namespaces, sockets. */
#include "netctl/fabric.h"
#include "netctl/hostctl.h"
#include "netctl/ns.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* The handle's namespaces, sockets and lock, once topo, circuits and hosts
 * are in; NULL (f closed) on failure. */
static struct fabric *handle_finish(struct fabric *f, char err[FABRIC_ERR_LEN])
{
	char path[256];
	int n = plan_ns_count(&f->topo);
	f->ns_fd = malloc(n * sizeof(int));
	f->nl = calloc(n, sizeof *f->nl);
	for (int i = 0; f->ns_fd && i < n; i++)
		f->ns_fd[i] = -1;
	f->root_fd = ns_self();
	snprintf(path, sizeof path, "%s/%s/lock", FABRIC_STATE_DIR, f->prefix);
	f->lock_fd = f->part >= 0 ? -1 : open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (!f->ns_fd || !f->nl || f->root_fd < 0) {
		snprintf(err, FABRIC_ERR_LEN, "out of memory or no /proc");
		fabric_close(f);
		return NULL;
	}
	if (f->topo.ocs)
		fabric_circuits_lit(f, &f->lit);
	return f;
}

static struct fabric *handle_new(const char *prefix)
{
	struct fabric *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	snprintf(f->prefix, sizeof f->prefix, "%s", prefix);
	for (int k = 0; k < HOSTS_MAX; k++)
		f->slice_fd[k] = -1;
	f->lock_fd = f->root_fd = -1;
	f->part = -1;
	return f;
}

struct fabric *fabric_open(const char *prefix, char err[FABRIC_ERR_LEN])
{
	char path[256], terr[TOPO_ERR_LEN], cerr[256], spec[8192] = "";
	struct fabric *f;

	if (plan_prefix_valid(prefix)) {
		snprintf(err, FABRIC_ERR_LEN, "bad prefix '%s'", prefix);
		return NULL;
	}
	if (!(f = handle_new(prefix)))
		return NULL;
	snprintf(path, sizeof path, "%s/%s/topology.conf", FABRIC_STATE_DIR, prefix);
	if (access(path, R_OK)) {
		snprintf(err, FABRIC_ERR_LEN, "no fabric with prefix '%s' is up (netctl up FILE --prefix %s)",
			 prefix, prefix);
		free(f);
		return NULL;
	}
	if (topo_load(&f->topo, path, 0, terr)) {
		snprintf(err, FABRIC_ERR_LEN, "fabric state is damaged: %s", terr);
		free(f);
		return NULL;
	}
	snprintf(path, sizeof path, "%s/%s/circuits", FABRIC_STATE_DIR, prefix);
	FILE *c = fopen(path, "r");
	if (c) {
		if (!fgets(spec, sizeof spec, c))
			spec[0] = 0;
		fclose(c);
	}
	spec[strcspn(spec, "\n")] = 0;
	circuits_clear(&f->circuits, &f->topo);
	if (f->topo.ocs && circuits_parse(spec, &f->topo, &f->circuits, cerr))
		circuits_clear(&f->circuits, &f->topo);
	f->lit = f->circuits;
	/* Spread over several hosts: the same partition as when it went up. */
	snprintf(path, sizeof path, "%s/%s/hosts", FABRIC_STATE_DIR, prefix);
	if (!access(path, R_OK)) {
		char herr[HOSTS_ERR_LEN];
		f->hosts = malloc(sizeof *f->hosts);
		f->layout = malloc(sizeof *f->layout);
		if (!f->hosts || !f->layout || hosts_load(f->hosts, path, herr) ||
		    hosts_partition(f->hosts, &f->topo, f->layout, herr)) {
			snprintf(err, FABRIC_ERR_LEN, "fabric state is damaged: %s", f->hosts && f->layout ? herr : "out of memory");
			fabric_close(f);
			return NULL;
		}
	}
	return handle_finish(f, err);
}

struct fabric *fabric_open_part(const char *prefix, const struct topo *t, const struct hosts *hs, int self,
				char err[FABRIC_ERR_LEN])
{
	char herr[HOSTS_ERR_LEN];
	struct fabric *f = plan_prefix_valid(prefix) ? NULL : handle_new(prefix);
	if (!f) {
		snprintf(err, FABRIC_ERR_LEN, "bad prefix '%s', or out of memory", prefix);
		return NULL;
	}
	f->topo = *t;
	f->part = self;
	circuits_clear(&f->circuits, &f->topo);
	f->lit = f->circuits;
	f->hosts = malloc(sizeof *f->hosts);
	f->layout = malloc(sizeof *f->layout);
	if (!f->hosts || !f->layout) {
		snprintf(err, FABRIC_ERR_LEN, "out of memory");
		fabric_close(f);
		return NULL;
	}
	*f->hosts = *hs;
	if (hosts_partition(f->hosts, &f->topo, f->layout, herr)) {
		snprintf(err, FABRIC_ERR_LEN, "%s", herr);
		fabric_close(f);
		return NULL;
	}
	return handle_finish(f, err);
}

void fabric_close(struct fabric *f)
{
	if (!f)
		return;
	fabric_detach_hosts(f);
	int n = plan_ns_count(&f->topo);
	for (int i = 0; f->ns_fd && i < n; i++)
		if (f->ns_fd[i] >= 0)
			close(f->ns_fd[i]);
	for (int i = 0; f->nl && i < n; i++)
		if (f->nl[i].sock)
			nlbatch_free(&f->nl[i]);
	for (int k = 0; k < HOSTS_MAX; k++) {
		if (f->slice_fd[k] >= 0)
			close(f->slice_fd[k]);
		if (f->slice_nl[k].sock)
			nlbatch_free(&f->slice_nl[k]);
	}
	free(f->hosts);
	free(f->layout);
	free(f->ns_fd);
	free(f->nl);
	if (f->root_fd >= 0)
		close(f->root_fd);
	if (f->lock_fd >= 0)
		close(f->lock_fd);
	free(f);
}

int fabric_ns_fd(struct fabric *f, const struct host_id *h)
{
	if (h->kind == HOST_OCS && h->rack > 0) {
		/* Slice ocsK of a fabric over several hosts: kept apart from ocs's slot. */
		int k = h->rack;
		if (k >= HOSTS_MAX) {
			errno = EINVAL;
			return -1;
		}
		if (f->slice_fd[k] < 0) {
			char name[NS_NAME_MAX];
			plan_ns_name(f->prefix, h, name, sizeof name);
			f->slice_fd[k] = ns_open(name);
		}
		return f->slice_fd[k];
	}
	int i = plan_ns_index(&f->topo, h);
	if (f->ns_fd[i] < 0) {
		char name[NS_NAME_MAX];
		plan_ns_name(f->prefix, h, name, sizeof name);
		f->ns_fd[i] = ns_open(name);
	}
	return f->ns_fd[i];
}

struct nlbatch *fabric_nl(struct fabric *f, const struct host_id *h)
{
	struct nlbatch *nb = &f->nl[plan_ns_index(&f->topo, h)];
	if (nb->sock)
		return nb;
	int fd = fabric_ns_fd(f, h);
	if (fd < 0 || ns_enter(fd))
		return NULL;
	int rc = nlbatch_init(nb);
	int saved = errno;
	ns_enter(f->root_fd);
	errno = saved;
	return rc ? NULL : nb;
}

struct nlbatch *fabric_slice_nl(struct fabric *f, int rack)
{
	int k = f->layout ? f->layout->host_of[rack] : 0;
	struct host_id h = {HOST_OCS, k, 0};
	if (k == 0)
		return fabric_nl(f, &h);
	struct nlbatch *nb = &f->slice_nl[k];
	if (nb->sock)
		return nb;
	int fd = fabric_ns_fd(f, &h);
	if (fd < 0 || ns_enter(fd))
		return NULL;
	int rc = nlbatch_init(nb);
	int saved = errno;
	ns_enter(f->root_fd);
	errno = saved;
	return rc ? NULL : nb;
}

int fabric_lock(struct fabric *f)
{
	return f->lock_fd >= 0 ? flock(f->lock_fd, LOCK_EX) : 0;
}

void fabric_unlock(struct fabric *f)
{
	if (f->lock_fd >= 0)
		flock(f->lock_fd, LOCK_UN);
}
