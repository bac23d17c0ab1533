/* round_memo.c — see round_memo.h. */
#include "emu/sched/round_memo.h"
#include "emu/job.h"
#include <stdlib.h>

int round_memo_init(struct round_memo *m, int njobs)
{
	size_t n = (size_t)(njobs ? njobs : 1) * JOB_MAX_STAGES;
	*m = (struct round_memo){.round = calloc(n, sizeof *m->round), .room = malloc(n * sizeof *m->room),
				 .novictim = malloc(n * sizeof *m->novictim)};
	return m->round && m->room && m->novictim ? 0 : -1;
}

void round_memo_free(struct round_memo *m)
{
	free(m->round);
	free(m->room);
	free(m->novictim);
}

int round_memo_slot(struct round_memo *m, int job, int stage)
{
	int k = round_memo_key(job, stage);
	if (m->round[k] != m->cur) {
		m->round[k] = m->cur;
		m->room[k] = -2;
		m->novictim[k] = false;
	}
	return k;
}
