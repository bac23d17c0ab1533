/* captures.h — emu run --capture: pcap files of chosen fabric interfaces,
 * from the moment the fabric is up until the run ends.
 *
 * One thread of the controller writes them all: a thread cannot outlive the
 * run, and no process of ours sits inside the fabric's namespaces (the
 * packet sockets are opened there, then the thread leaves).  Each file is
 * written as capture-HOST-IFACE.pcap.tmp in the results directory and
 * renamed when the run ends; a killed run leaves only the .tmp, which
 * `emu cleanup` removes with the other temporary results. */
#ifndef EMU_CAPTURES_H
#define EMU_CAPTURES_H
#include "emu/run.h"
#include "netctl/fabric.h"
#include <jansson.h>
#include <stdbool.h>

struct run_captures;

/* The run's --capture targets against topology t, before anything is
 * built: known hosts, interfaces the plan gives them, none twice, a filter
 * that compiles (needs root: it is compiled in a scratch namespace).  0, or
 * -1 with err naming the problem. */
int captures_check(const struct topo *t, const struct run_params *p, char err[512]);

/* Start capturing on fabric f (up) into directory dir.  NULL with err if
 * a capture cannot start (nothing is left behind then). */
struct run_captures *captures_start(struct fabric *f, const struct run_params *p, const char *dir, char err[512]);

/* Stop the thread and close the files: keep renames each to its name,
 * otherwise (setup failed) they are removed.  Only the first call acts. */
void captures_stop(struct run_captures *c, bool keep);

/* For summary.json: [{"host", "iface", "file", "packets", "dropped",
 * "snaplen", "filter"[, "error"]}]; "file" is "" when none was kept. */
json_t *captures_json(const struct run_captures *c);
void captures_free(struct run_captures *c);
#endif
