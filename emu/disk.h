/* disk.h — what a server's disk serves, and how its streams share it: one
 * rule for the simulator (emu/backend_sim.c: a disk is two more capacities
 * of sim_net.c's max-min filling) and the agents (agents/disk.c: each
 * side's bytes of every 10 ms tick split max-min by disk_split over what
 * its streams still want).
 *
 * A disk has a read side and a write side, each at its rate (the
 * topology's disk_read_mbps and disk_write_mbps; not given: not limited).
 * What crosses it (the seed's Hadoop, the notes' §11.2):
 *   a map's input     read off the holder's disk (its own: a local read)
 *   a map's output    spilled to its own disk (it is served from there)
 *   a shuffle fetch   read off the holder's disk
 *   a last output     written to the output server's disk (the policy's:
 *                     a TR server's goes to a core server)
 *   a copy            read off one disk, written to another (re-replication)
 * A reduce's fetch from its own server is no transfer in emu (shuffle.c)
 * and reads nothing; what a reduce merges stays in memory. */
#ifndef EMU_DISK_H
#define EMU_DISK_H

enum { DISK_READ = 1, DISK_WRITE = 2 };   /* the sides an I/O crosses: read at its source, write at its destination */

enum disk_use { DISK_INPUT, DISK_SPILL, DISK_SHUFFLE, DISK_OUTPUT, DISK_COPY };

/* Max-min shares of `budget` bytes among n streams that want want[i]
 * (water-filling: who wants less than an equal share gets it, the rest
 * split what is left); out[i] <= want[i], their sum min(budget, sum). */
void disk_split(double budget, const double *want, int n, double *out);

static inline unsigned disk_sides(enum disk_use k)
{
	switch (k) {
	case DISK_INPUT:
	case DISK_SHUFFLE: return DISK_READ;
	case DISK_SPILL:
	case DISK_OUTPUT: return DISK_WRITE;
	case DISK_COPY: return DISK_READ | DISK_WRITE;
	}
	return 0;
}
#endif
