/* topo.h — the topology model: what a fabric is made of.
 *
 * A topology is a list of racks, each with its servers behind a ToR.  A
 * server belongs to a class: its link's rates and queue, what it holds (task
 * slots, or resources: cores, memory, disk bandwidth) and its speed relative
 * to the reference server.  Racks may differ in size and mix classes; the
 * file's `racks` + `servers_per_rack` + `server` form is the uniform case
 * (one class, named "server").  Every ToR has an uplink to one EPS core (the
 * oversubscribed electrical packet switch) and, when the OCS is present,
 * `ports_per_rack` optical ports into the OCS crossbar.  Rates are bits/s
 * after `rate_scale` has been applied; the nominal figures stay in the file.
 *
 * Topology files are libconfig documents (see topologies/ and emu-topology(5));
 * every error names FILE:LINE. */
#ifndef NETCTL_TOPO_H
#define NETCTL_TOPO_H
#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>

#define TOPO_MAX_RACKS     250   /* one /24 per rack, one octet per rack id */
#define TOPO_MAX_SERVERS   250   /* per rack: .1 .. .250; .254 is the ToR */
#define TOPO_MAX_PORTS     8     /* optical ports per rack */
#define TOPO_MAX_RATE      34000000000ULL /* HTB's 32-bit bytes/s ceiling */
#define TOPO_ERR_LEN       512

enum ocs_mode { OCS_DIRECTED, OCS_BIDIRECTIONAL };

/* One shaped link class: its rate and byte queue limit per direction. */
struct topo_link {
	uint64_t rate;         /* bits/s, scaled */
	uint64_t queue_bytes;  /* bfifo limit on each shaped egress */
	uint32_t gso_max;      /* gso_max_size on both ends: ~1 ms at the slowest link's rate */
};

#define TOPO_MAX_CLASSES   8
#define TOPO_CLASS_NAME    32

/* A class's compute model: `speed` for every job, or Chapter 5's crosspoint
 * (emu/compute_model.h: `speed` for a job below its crosspoint size, the
 * reference's above it). */
enum topo_model { TOPO_MODEL_SPEED, TOPO_MODEL_CROSSPOINT };
#define TOPO_MODEL_NAMES {"speed", "crosspoint", NULL}

/* A kind of server. */
struct topo_class {
	char name[TOPO_CLASS_NAME];
	struct topo_link rx;       /* ToR -> server: what it receives at (`rate`) */
	struct topo_link tx;       /* server -> ToR: `tx_rate`, else `rate` */
	int containers;            /* task slots (each task takes one); 0 = it offers resources */
	double cores;              /* resources: cores (with slots: recorded only) */
	uint64_t memory;           /* bytes; 0 = not limited */
	double disk_mbps;          /* disk bandwidth, MB/s; 0 = not limited */
	/* The disk as a shared service (read and write rates, MB/s after
	 * rate_scale; 0 = not limited): what a server's reads and writes share
	 * (emu/disk.h), apart from disk_mbps, a packing ask. */
	double disk_read_mbps, disk_write_mbps;
	double speed;              /* work per second; the reference server's is 1 */
	enum topo_model model;     /* how a task's speed follows from its job (cluster_task_duration) */
};

/* A rack: its servers in order, as runs of one class each. */
struct topo_rack {
	int first;                 /* global index of its server 0 */
	int servers;
	int nruns;
	struct topo_run { int cls, count; } run[TOPO_MAX_CLASSES];
};

struct topo {
	char name[64];
	char source[256];          /* file it was read from */
	int racks;
	int nservers;              /* in all racks */
	int nclasses;
	struct topo_class cls[TOPO_MAX_CLASSES];
	struct topo_rack rack[TOPO_MAX_RACKS];
	double rate_scale;         /* already applied to every rate below */
	struct topo_link uplink;   /* ToR <-> EPS core (the oversubscribed hop) */
	bool ocs;
	int ocs_ports;             /* optical ports per rack */
	enum ocs_mode ocs_mode;
	struct topo_link optical;  /* ToR <-> OCS port */
	char tcp_cc[16];           /* pinned congestion control in servers */
	uint32_t rto_min_ms;       /* servers' TCP minimum RTO; 0 = the kernel's (TOPO_KERNEL_RTO_MIN_MS) */
	struct in_addr server_net; /* /16 holding one /24 per rack */
	struct in_addr fabric_net; /* /16 for ToR uplink and optical addresses */
	/* Non-empty ("FILE:LINE: problem") when a rate is beyond what HTB can
	 * shape: the flow-level simulator takes it, fabric_up refuses it. */
	char unshapeable[TOPO_ERR_LEN];
};

/* Read and validate FILE.  rate_scale > 0 overrides the file's own scale
 * (pass 0 to keep it).  On error returns -1 with "FILE:LINE: problem" in err. */
int topo_load(struct topo *t, const char *path, double rate_scale, char err[TOPO_ERR_LEN]);

/* Same, from a string (tests, fuzzing); `name` stands in for the file name. */
int topo_load_string(struct topo *t, const char *text, const char *name,
		     double rate_scale, char err[TOPO_ERR_LEN]);

/* Slow motion (emu run --slowdown): every link at 1/k of its rate, queue
 * limits and packet sizes (gso_max) as they were, so every queue holds the
 * same bytes for k times as long and the fabric carries the same packets k
 * times slower.  TCP's minimum RTO, a constant, is stretched k times too:
 * the RTTs it is compared with already are.  k >= 1. */
#define TOPO_KERNEL_RTO_MIN_MS 200   /* TCP_RTO_MIN: HZ / 5 */
void topo_slow_down(struct topo *t, double k);

/* Write the effective topology (scale already applied, rate_scale = 1) so a
 * running fabric can be re-opened without the original file. */
int topo_save(const struct topo *t, const char *path);

static inline int topo_servers(const struct topo *t) { return t->nservers; }
static inline int topo_rack_size(const struct topo *t, int rack) { return t->rack[rack].servers; }

/* The class of server `index` of `rack` (its position in the class list). */
int topo_class_at(const struct topo *t, int rack, int index);
static inline const struct topo_class *topo_server_class(const struct topo *t, int rack, int index)
{
	return &t->cls[topo_class_at(t, rack, index)];
}
/* The rack of global server `server` (its index in the rack: server - rack's first). */
int topo_rack_of(const struct topo *t, int server);
/* One class and every rack the same size: the file's uniform form. */
bool topo_uniform(const struct topo *t);
/* Servers of class `cls` in all racks. */
int topo_class_servers(const struct topo *t, int cls);

/* Oversubscription: a rack's server capacity over its uplink's, the most of any rack. */
double topo_oversubscription(const struct topo *t);
#endif
