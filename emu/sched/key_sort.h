/* key_sort.h — ids by a double key, in linear time (a radix sort of the
 * keys' bits): for the policies that order every waiting task by a key at
 * each heartbeat (srpt.c), where a comparison sort was most of the run. */
#ifndef EMU_SCHED_KEY_SORT_H
#define EMU_SCHED_KEY_SORT_H
#include <stdbool.h>

/* ids[0..n) by key[id], ascending (desc: descending); equal keys keep their
 * order in ids (stable).  Keys are numbers (no NaN); -0 equals 0.  -1 out
 * of memory (ids unchanged). */
int key_sort(int *ids, int n, const double *key, bool desc);

/* The order the last key_resort left, to start the next from. */
struct key_order {
	int *prev, nprev;     /* the last result */
	int *fresh;           /* scratch: ids not in it */
	unsigned *mark;       /* per id: gen when in this call's ids, gen + 1 once found in prev */
	unsigned gen;
	int cap, maxid;
};

/* key_sort(ids, n, key, desc) for ids in ascending order (so equal keys come
 * in id order), all below maxid, from the last call's result: the ids also
 * in it whose keys are still in its order keep it, and the rest, sorted,
 * are merged in.  About linear time when the keys moved together (srpt.c:
 * between heartbeats every waiting task's key grows by the same amount).
 * -1 out of memory (ids unchanged). */
int key_resort(struct key_order *o, int *ids, int n, const double *key, bool desc, int maxid);
void key_order_free(struct key_order *o);
#endif
