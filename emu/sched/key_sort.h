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
#endif
