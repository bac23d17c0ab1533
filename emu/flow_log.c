/* flow_log.c — see flow_log.h.  Two chunks: the run's thread fills one
 * while the writer formats the other, and waits only when the writer is a
 * whole chunk behind. */
#include "emu/flow_log.h"
#include "emu/csv_num.h"
#include "emu/helper_thread.h"
#include <stdlib.h>

#define CHUNK 16384   /* lines: 1 MiB of records */

struct flow_log {
	FILE *f;
	struct flow_line *buf[2];
	int cur, n;             /* the run's chunk, and its lines */
	bool threaded;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	const struct flow_line *job;   /* the writer's chunk until written (NULL: none) */
	int njob;
	bool closing;
};

static void write_line(FILE *f, const struct flow_line *x)
{
	char line[256], *p = line;
	const int fields[] = {x->job, x->task, x->src, x->dst, x->src_rack, x->dst_rack};
	p = csv_int(p, x->id);
	p = csv_str(p, x->kind == 'i' ? ",input" : x->kind == 'l' ? ",local" : ",shuffle");
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		*p++ = ',';
		p = csv_int(p, fields[i]);
	}
	*p++ = ',';
	p = csv_int(p, (long long)x->bytes);
	*p++ = ',';
	p = csv_fixed3(p, x->t_start);
	*p++ = ',';
	p = csv_fixed3(p, x->t_moved);
	*p++ = ',';
	p = csv_fixed3(p, x->done ? x->t_end : -1.0);
	*p++ = ',';
	*p++ = x->circuit ? '1' : '0';
	*p++ = ',';
	*p++ = x->done ? '1' : '0';
	*p++ = '\n';
	fwrite_unlocked(line, 1, (size_t)(p - line), f);   /* f is the writer's alone */
}

static void *writer(void *arg)
{
	struct flow_log *l = arg;
	pthread_mutex_lock(&l->mu);
	for (;;) {
		while (!l->job && !l->closing)
			pthread_cond_wait(&l->cv, &l->mu);
		if (!l->job)
			break;
		const struct flow_line *x = l->job;
		int n = l->njob;
		pthread_mutex_unlock(&l->mu);
		for (int i = 0; i < n; i++)
			write_line(l->f, &x[i]);
		pthread_mutex_lock(&l->mu);
		l->job = NULL;
		pthread_cond_signal(&l->cv);
	}
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

struct flow_log *flow_log_open(FILE *f)
{
	struct flow_log *l = calloc(1, sizeof *l);
	if (!l)
		return NULL;
	l->f = f;
	l->buf[0] = malloc(CHUNK * sizeof *l->buf[0]);
	l->buf[1] = malloc(CHUNK * sizeof *l->buf[1]);
	if (!l->buf[0] || !l->buf[1]) {
		free(l->buf[0]);
		free(l->buf[1]);
		free(l);
		return NULL;
	}
	pthread_mutex_init(&l->mu, NULL);
	pthread_cond_init(&l->cv, NULL);
	l->threaded = !helper_thread_start(&l->th, writer, l);
	return l;
}

/* The run's chunk to the writer, once it has written the last. */
static void hand_over(struct flow_log *l)
{
	pthread_mutex_lock(&l->mu);
	while (l->job)
		pthread_cond_wait(&l->cv, &l->mu);
	l->job = l->buf[l->cur];
	l->njob = l->n;
	pthread_cond_signal(&l->cv);
	pthread_mutex_unlock(&l->mu);
	l->cur ^= 1;
	l->n = 0;
}

void flow_log_put(struct flow_log *l, const struct flow_line *x)
{
	if (!l->threaded) {
		write_line(l->f, x);
		return;
	}
	l->buf[l->cur][l->n++] = *x;
	if (l->n == CHUNK)
		hand_over(l);
}

void flow_log_close(struct flow_log *l)
{
	if (!l)
		return;
	if (l->threaded) {
		if (l->n)
			hand_over(l);
		pthread_mutex_lock(&l->mu);
		l->closing = true;
		pthread_cond_signal(&l->cv);
		pthread_mutex_unlock(&l->mu);
		pthread_join(l->th, NULL);
	}
	pthread_mutex_destroy(&l->mu);
	pthread_cond_destroy(&l->cv);
	free(l->buf[0]);
	free(l->buf[1]);
	free(l);
}
