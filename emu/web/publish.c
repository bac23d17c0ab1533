/* publish.c — the snapshot store and the OCS mirror (publish.h). */
#include "emu/web/publish.h"
#include <stdlib.h>
#include <string.h>

struct web_pub *web_pub_new(void)
{
	struct web_pub *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	pthread_mutex_init(&p->mu, NULL);
	pthread_mutex_init(&p->ocs_mu, NULL);
	return p;
}

void web_pub_free(struct web_pub *p)
{
	if (!p)
		return;
	web_snap_unref(p->cur);
	web_ocs_free(&p->ocs);
	pthread_mutex_destroy(&p->mu);
	pthread_mutex_destroy(&p->ocs_mu);
	free(p);
}

void web_snap_unref(struct web_snap *s)
{
	if (s && __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(s);
}

int web_pub_put(struct web_pub *p, const char *json, size_t len)
{
	struct web_snap *s = malloc(sizeof *s + len + 1);
	if (!s)
		return -1;
	s->refs = 1;
	s->len = len;
	memcpy(s->json, json, len);
	s->json[len] = 0;
	pthread_mutex_lock(&p->mu);
	struct web_snap *old = p->cur;
	s->seq = p->seq + 1;
	p->cur = s;
	__atomic_store_n(&p->seq, s->seq, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&p->mu);
	web_snap_unref(old);   /* freed here only if no reader holds it */
	return 0;
}

struct web_snap *web_pub_get(struct web_pub *p)
{
	pthread_mutex_lock(&p->mu);
	struct web_snap *s = p->cur;
	if (s)
		__atomic_add_fetch(&s->refs, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_unlock(&p->mu);
	return s;
}

/* Without the lock: waiting clients poll this, the publisher never waits for them. */
unsigned long web_pub_seq(struct web_pub *p)
{
	return __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE);
}

/* On the OCS controller's thread (the simulator's: the loop's). */
static bool mirror_ready(struct web_pub *p, const struct ocs_ctl *c)
{
	if (p->ocs_on)
		return true;
	if (web_ocs_init(&p->ocs, c->racks, c->ports))
		return false;
	p->ocs_on = true;
	return true;
}

static void decided(void *arg, const struct ocs_ctl *c, const struct circuit_cfg *next, int64_t served)
{
	struct web_pub *p = arg;
	int64_t total = 0;
	for (int i = 0; i < c->racks * c->racks; i++)
		total += c->demand[i];
	pthread_mutex_lock(&p->ocs_mu);
	if (mirror_ready(p, c)) {
		memcpy(p->ocs.demand, c->demand, (size_t)c->racks * c->racks * sizeof *c->demand);
		p->ocs.chosen = *next;
		p->ocs.served = served;
		p->ocs.total = total;
		p->ocs.decisions++;
	}
	pthread_mutex_unlock(&p->ocs_mu);
}

static void reconfigured(void *arg, const struct ocs_ctl *c, const struct ocs_event *ev)
{
	struct web_pub *p = arg;
	double k = c->p.log_slowdown > 0 ? c->p.log_slowdown : 1;   /* run seconds, as ocs.csv */
	pthread_mutex_lock(&p->ocs_mu);
	if (mirror_ready(p, c)) {
		p->ocs.lit = ev->cfg;
		p->ocs.reconfigs++;
		web_ocs_dark(&p->ocs, (ev->t_dark - c->t0) / k, ev->drain_s < 0 ? ev->drain_s : ev->drain_s / k,
			     ev->dark_s / k, ev->changed);
	}
	pthread_mutex_unlock(&p->ocs_mu);
}

struct ocs_observer web_pub_observer(struct web_pub *p)
{
	return (struct ocs_observer){decided, reconfigured, p};
}

bool web_pub_ocs(struct web_pub *p, struct web_ocs *o)
{
	pthread_mutex_lock(&p->ocs_mu);
	bool on = p->ocs_on && p->ocs.racks == o->racks;
	if (on)
		web_ocs_copy(o, &p->ocs);
	pthread_mutex_unlock(&p->ocs_mu);
	return on;
}
