/* fit_index.h — a policy's ordered list of waiting tasks, each with what it
 * asks, as a tree of the smallest ask under each node: the first entry
 * that fits a server's free resources (and passes the policy's own test)
 * without reading the entries whose ask cannot fit (srpt.c's offers). */
#ifndef EMU_SCHED_FIT_INDEX_H
#define EMU_SCHED_FIT_INDEX_H
#include "emu/res.h"
#include <stdbool.h>

struct fit_index {
	int n, size;       /* entries; leaves (a power of two) */
	struct res *min;   /* per node (1-based heap order): the least of each kind over its live entries */
	int *live;         /* per node: its live entries */
};

/* The policy's test of entry i, which may fit_index_remove it. */
typedef bool fit_check_fn(void *ctx, int i);

/* Entries 0..n-1 asking ask[i]; -1 out of memory. */
int fit_index_build(struct fit_index *f, int n, const struct res *ask);
/* The same with only the entries i where on[i] live. */
int fit_index_build_some(struct fit_index *f, int n, const struct res *ask, const bool *on);
void fit_index_free(struct fit_index *f);
/* Entry i is no candidate any more (until the next build or a put). */
void fit_index_remove(struct fit_index *f, int i);
/* Entry i is a candidate again, asking ask. */
void fit_index_put(struct fit_index *f, int i, const struct res *ask);
/* The first live entry from `from` on whose ask fits avail and that check
 * accepts; -1 none.  An entry whose ask does not fit is not checked. */
int fit_index_first(struct fit_index *f, int from, const struct res *avail, fit_check_fn *check, void *ctx);
/* The first live entry from `from` on, whatever it asks; -1 none. */
int fit_index_next(const struct fit_index *f, int from);
/* Entry i is live. */
static inline bool fit_index_live(const struct fit_index *f, int i) { return f->live[f->size + i]; }
/* Live entries in [lo, hi). */
int fit_index_count(const struct fit_index *f, int lo, int hi);
#endif
