/* compute_model.h — how fast a server computes a job's tasks: its class's
 * model (the topology's `model` key, netctl/topo.h).
 *
 *   speed       every task at the class's speed (the default);
 *   crosspoint  Chapter 5's scale-up machine (§5.1.1, Fig. 5.1): a job whose
 *               input is below its crosspoint computes at the class's speed
 *               (faster cores, shuffle in a RAM disk, a large heap), a job
 *               above it at the reference server's (its data no longer fits
 *               in memory: spills take the cores' advantage away).  The
 *               crosspoint grows with the job's shuffle share: 32 GB of
 *               input for a job without shuffle, 64 GB for a job whose
 *               shuffle is at least its input.
 *
 * Sizes are the real cluster's (bytes over the workload's data scale). */
#ifndef EMU_COMPUTE_MODEL_H
#define EMU_COMPUTE_MODEL_H
#include "emu/job.h"
#include "netctl/topo.h"
#include <stdint.h>

#define CROSSPOINT_BASE_BYTES 32e9   /* Fig. 5.1's smaller crosspoint */

/* The crosspoint of a job of these unscaled bytes. */
double compute_crosspoint_bytes(double input, double shuffle);
/* Work per second of a task of job j on a server of this model and speed;
 * data_scale: the workload's, to compare real sizes. */
double compute_speed(enum topo_model model, double speed, const struct job *j, double data_scale);
#endif
