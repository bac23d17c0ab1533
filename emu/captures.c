/* captures.c — see captures.h. */
#include "emu/captures.h"
#include "emu/helper_thread.h"
#include "netctl/capfile.h"
#include "netctl/capspec.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How late the thread notices the end of the run, at most. */
#define POLL_MS    100
#define FILTER_MAX 1024

struct capture {
	struct cap_target tg;
	char file[64];               /* capture-HOST-IFACE.pcap */
	char tmp[600], path[600];
	struct capfile_result res;
	bool kept;
};

struct run_captures {
	struct capture *c;
	struct capfile **cf;         /* open captures, parallel to c */
	int n;
	int snaplen;
	char filter[FILTER_MAX];
	pthread_t thread;
	bool thread_on, stopped;
	atomic_int stop;
};

int captures_check(const struct topo *t, const struct run_params *p, char err[512])
{
	struct cap_target *tg = calloc(p->ncaptures ? p->ncaptures : 1, sizeof *tg);
	char e[CAPFILE_ERR_LEN];
	int rc = -1;
	if (!tg) {
		snprintf(err, 512, "out of memory");
		return -1;
	}
	if (p->capture_filter && strlen(p->capture_filter) >= FILTER_MAX) {
		snprintf(err, 512, "--capture-filter: longer than %d characters", FILTER_MAX - 1);
		goto out;
	}
	bool any = false, other = false;   /* the link types the filter must compile for */
	for (int i = 0; i < p->ncaptures; i++) {
		if (capspec_parse(p->captures[i], t, &tg[i], e) || capspec_iface_planned(t, &tg[i], e)) {
			snprintf(err, 512, "--capture %s: %s", p->captures[i], e);
			goto out;
		}
		for (int k = 0; k < i; k++)
			if (capspec_same(&tg[k], &tg[i])) {
				snprintf(err, 512, "--capture %s: %s:%s is captured already", p->captures[i],
					 tg[i].host_name, tg[i].ifname);
				goto out;
			}
		any |= !strcmp(tg[i].ifname, "any");
		other |= !!strcmp(tg[i].ifname, "any");
	}
	if ((any && capfile_filter_check(p->capture_filter, "any", p->capture_snaplen, e)) ||
	    (other && capfile_filter_check(p->capture_filter, "eth0", p->capture_snaplen, e))) {
		snprintf(err, 512, "--capture-filter: %s", e);
		goto out;
	}
	rc = 0;
out:
	free(tg);
	return rc;
}

static void *capture_main(void *arg)
{
	struct run_captures *rc = arg;
	/* A capture that fails (a full disk) stops alone; its error is in the
	 * summary, and the run goes on. */
	while (!atomic_load(&rc->stop))
		capfile_poll(rc->cf, rc->n, POLL_MS);
	return NULL;
}

struct run_captures *captures_start(struct fabric *f, const struct run_params *p, const char *dir, char err[512])
{
	struct run_captures *rc = calloc(1, sizeof *rc);
	char e[CAPFILE_ERR_LEN];
	if (!rc || !(rc->c = calloc(p->ncaptures, sizeof *rc->c)) || !(rc->cf = calloc(p->ncaptures, sizeof *rc->cf))) {
		snprintf(err, 512, "out of memory");
		captures_free(rc);
		return NULL;
	}
	rc->snaplen = p->capture_snaplen;
	snprintf(rc->filter, sizeof rc->filter, "%s", p->capture_filter ? p->capture_filter : "");
	for (; rc->n < p->ncaptures; rc->n++) {
		struct capture *c = &rc->c[rc->n];
		int bad;
		if (capspec_parse(p->captures[rc->n], &f->topo, &c->tg, e)) {
			snprintf(err, 512, "--capture %s: %s", p->captures[rc->n], e);
			break;
		}
		capspec_file_name(&c->tg, c->file, sizeof c->file);
		snprintf(c->path, sizeof c->path, "%s/%s", dir, c->file);
		snprintf(c->tmp, sizeof c->tmp, "%s.tmp", c->path);
		int ns = fabric_ns_fd(f, &c->tg.host);
		rc->cf[rc->n] = ns < 0 ? NULL
				       : capfile_open(ns, f->root_fd, c->tg.ifname, rc->snaplen, rc->filter, 0, &bad, e);
		if (!rc->cf[rc->n]) {
			/* Over real hosts, captures are taken on the controller's machine only. */
			bool elsewhere = ns < 0 && f->hosts && !f->hosts->h[0].emulated;
			snprintf(err, 512, "capture %s:%s: %s", c->tg.host_name, c->tg.ifname,
				 elsewhere ? "not on this machine (a capture on another real host is not built)"
				 : ns < 0 ? "no namespace" : e);
			break;
		}
		if (capfile_write_to(rc->cf[rc->n], c->tmp, e)) {
			struct capfile_result res;
			capfile_close(rc->cf[rc->n], &res);
			rc->cf[rc->n] = NULL;
			snprintf(err, 512, "capture %s:%s: %s", c->tg.host_name, c->tg.ifname, e);
			break;
		}
	}
	if (rc->n < p->ncaptures) {
		captures_stop(rc, false);
		captures_free(rc);
		return NULL;
	}
	rc->thread_on = !helper_thread_start(&rc->thread, capture_main, rc);
	if (!rc->thread_on) {
		snprintf(err, 512, "capture thread: cannot start it");
		captures_stop(rc, false);
		captures_free(rc);
		return NULL;
	}
	return rc;
}

void captures_stop(struct run_captures *rc, bool keep)
{
	if (!rc || rc->stopped)
		return;
	rc->stopped = true;
	if (rc->thread_on) {
		atomic_store(&rc->stop, 1);
		pthread_join(rc->thread, NULL);
		rc->thread_on = false;
	}
	for (int i = 0; i < rc->n; i++) {
		struct capture *c = &rc->c[i];
		if (rc->cf[i]) {
			capfile_close(rc->cf[i], &c->res);
			rc->cf[i] = NULL;
		}
		/* A capture that failed may have stopped mid-record: no file
		 * rather than a damaged one. */
		if (keep && !c->res.failed && rename(c->tmp, c->path)) {
			c->res.failed = 1;
			snprintf(c->res.err, sizeof c->res.err, "%s: %s", c->path, strerror(errno));
		}
		c->kept = keep && !c->res.failed;
		if (!c->kept)
			unlink(c->tmp);
	}
}

json_t *captures_json(const struct run_captures *rc)
{
	json_t *a = json_array();
	for (int i = 0; rc && i < rc->n; i++) {
		const struct capture *c = &rc->c[i];
		json_t *o = json_pack("{s:s,s:s,s:s,s:I,s:I,s:i,s:s}", "host", c->tg.host_name, "iface", c->tg.ifname,
				      "file", c->kept ? c->file : "", "packets", (json_int_t)c->res.packets, "dropped",
				      (json_int_t)c->res.dropped, "snaplen", rc->snaplen, "filter", rc->filter);
		if (o && c->res.failed)
			json_object_set_new(o, "error", json_string(c->res.err));
		json_array_append_new(a, o);
	}
	return a;
}

void captures_free(struct run_captures *rc)
{
	if (!rc)
		return;
	captures_stop(rc, false);
	free(rc->c);
	free(rc->cf);
	free(rc);
}
