/* round_memo.h — what a preemption round found out per job and stage (its
 * tasks ask alike): an unclaimed server the stage fits, and whether it has
 * no victim.  An answer holds for the rest of its round (claims and victims
 * only grow within one, so "no victim" stays so and a found server is
 * checked again) and is forgotten at the next.  Natjam's and SRPT's rounds. */
#ifndef EMU_SCHED_ROUND_MEMO_H
#define EMU_SCHED_ROUND_MEMO_H
#include "emu/job.h"
#include <stdbool.h>

struct round_memo {
	int *round, cur;   /* per job and stage: the round its answers are from */
	int *room;         /* a server the stage fits, -1 none, -2 not known */
	bool *novictim;
};

/* For njobs jobs.  -1: out of memory. */
int round_memo_init(struct round_memo *m, int njobs);
void round_memo_free(struct round_memo *m);
/* A new round: every answer is forgotten. */
static inline void round_memo_next(struct round_memo *m) { m->cur++; }
/* The index of job's stage's answers, reset if they are from an older round. */
int round_memo_slot(struct round_memo *m, int job, int stage);
/* That index, without the reset. */
static inline int round_memo_key(int job, int stage) { return job * JOB_MAX_STAGES + stage; }
/* The stage at key is known to have no victim this round. */
static inline bool round_memo_no_victim(const struct round_memo *m, int key)
{
	return m->round[key] == m->cur && m->novictim[key];
}
#endif
