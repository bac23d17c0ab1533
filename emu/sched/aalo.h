/* aalo.h — Aalo's D-CLAS queue of an attained service (emu/sched/aalo.c),
 * for its tests. */
#ifndef EMU_SCHED_AALO_H
#define EMU_SCHED_AALO_H
/* The queue (0: the first, the highest) of `bytes` served, among `queues`
 * whose thresholds are q1, q1 x mult, q1 x mult^2 ... */
int aalo_queue(double bytes, int queues, double q1, double mult);
#endif
