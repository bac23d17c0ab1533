/* res.h — resource vectors: what a server offers and what a task asks for.
 *
 * Integers, so that packing adds and takes away exactly and a server is
 * never found over its capacity by a rounding: thousandths of a core, bytes
 * of memory, bytes/s of disk bandwidth.  A capacity the topology does not
 * give is RES_UNLIMITED and never runs out. */
#ifndef EMU_RES_H
#define EMU_RES_H
#include <stdbool.h>
#include <stdint.h>

enum res_kind { RES_CORES, RES_MEM, RES_DISK, RES_KINDS };

struct res { int64_t v[RES_KINDS]; };

#define RES_UNLIMITED INT64_MAX

/* From the units people write: cores, GB (10^9 bytes), MB/s (10^6 bytes/s);
 * a negative or zero amount asks for none of it. */
struct res res_of(double cores, double mem_gb, double disk_mbps);
/* The reference task, what one slot holds and what `containers` and `free`
 * count on a server with resources: 1 core, 1 GB. */
struct res res_reference(void);
bool res_fits(const struct res *ask, const struct res *avail);
/* avail -= ask / += ask; an unlimited amount stays unlimited. */
void res_take(struct res *avail, const struct res *ask);
void res_give(struct res *avail, const struct res *ask);
/* How many of `ask` fit in `avail` at once (at most INT32_MAX). */
int res_count(const struct res *avail, const struct res *ask);
#endif
