/* flow_log.h — flows.csv, a line per transfer, formatted and written by a
 * thread of its own: at the paper's batch that is 17 million lines (1.2 GB),
 * a third of a simulated run's time when its own thread wrote them.  The
 * run's thread only copies each record into a chunk; the lines come out in
 * the order they were put, the same bytes as before. */
#ifndef EMU_FLOW_LOG_H
#define EMU_FLOW_LOG_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct flow_line {
	int id, job, task, src, dst, src_rack, dst_rack;
	char kind;              /* 'i'nput, 'l'ocal, 's'huffle */
	bool circuit, done;
	uint64_t bytes;
	double t_start, t_moved, t_end;   /* t_end: when done */
};

struct flow_log;

/* Lines to f from now on (what f has buffered stays first).  NULL: out
 * of memory.  Without a thread of its own, it writes each line at once. */
struct flow_log *flow_log_open(FILE *f);
void flow_log_put(struct flow_log *l, const struct flow_line *x);
/* Every line put is in f (or f's error flag is set); l is freed. */
void flow_log_close(struct flow_log *l);
#endif
