/* demand.h — the OCS demand schedule `emu ocs --demand FILE` replays.
 *
 * One change per line, "T SRC DST BYTES": from T seconds on, BYTES are
 * pending from rack SRC to rack DST.  Blank lines and lines starting with
 * '#' are skipped; times must not decrease. */
#ifndef EMU_DEMAND_H
#define EMU_DEMAND_H
#include <stdint.h>

struct demand_step { double t; int src, dst; int64_t bytes; };

/* Read the schedule at PATH ("-" = stdin) for a fabric of `racks` racks.
 * Returns 0 with *out (malloc'd, NULL when empty) and *n, or -1 with
 * "PATH:LINE: problem" (or "PATH: errno text") in err and nothing allocated. */
int demand_schedule_read(const char *path, int racks, struct demand_step **out, int *n, char err[256]);
#endif
