/* Unit tests: servers with resources, tasks asking for vectors, and the
 * core's rule that a server is never packed beyond its capacity. */
#include "emu/cluster.h"
#include "workload_fixture.h"
#include <criterion/criterion.h>
#include <string.h>

/* Two racks: slots (4 containers), and two classes with resources, one
 * without a disk limit. */
static const char mixed[] =
	"classes = {\n"
	"  slot = { rate = \"1Gbit\"; containers = 4; };\n"
	"  big = { rate = \"1Gbit\"; cores = 8; mem_gb = 16; disk_mbps = 200; speed = 2; };\n"
	"  lean = { rate = \"1Gbit\"; cores = 2.5; mem_gb = 3; };\n"
	"};\n"
	"racks = ( { servers = { slot = 2; big = 1; }; }, { servers = { lean = 2; big = 1; }; } );\n"
	"eps = { uplink_rate = \"1Gbit\"; };\n";

static struct topo topo_of(const char *text)
{
	struct topo t;
	char err[TOPO_ERR_LEN];
	cr_assert_eq(topo_load_string(&t, text, "m.conf", 0, err), 0, "%s", err);
	return t;
}

Test(packing, servers_get_their_class_capacity)
{
	struct topo t = topo_of(mixed);
	struct workload *w = fx_workload_new(1);
	fx_workload_layout(w);
	struct cluster c;
	cr_assert_eq(cluster_init_topo(&c, &t, w, 0.05), 0);
	cr_assert_eq(c.nservers, 6);
	cr_assert(c.servers[0].slots && c.servers[1].slots && !c.servers[2].slots);
	cr_assert_eq(c.servers[0].containers, 4);
	cr_assert_eq(c.servers[0].cap.v[RES_MEM], RES_UNLIMITED);
	/* Resources count reference tasks (1 core, 1 GB) as containers. */
	cr_assert_eq(c.servers[2].containers, 8);
	cr_assert_eq(c.servers[2].cap.v[RES_CORES], 8000);
	cr_assert_eq(c.servers[2].cap.v[RES_MEM], 16000000000LL);
	cr_assert_eq(c.servers[2].cap.v[RES_DISK], 200000000LL);
	cr_assert_float_eq(c.servers[2].speed, 2.0, 1e-12);
	cr_assert_eq(c.servers[3].containers, 2, "2.5 cores hold 2 reference tasks");
	cr_assert_eq(c.servers[3].cap.v[RES_DISK], RES_UNLIMITED, "no disk_mbps: not limited");
	cr_assert_eq(c.containers, 4 + 4 + 8 + 2 + 2 + 8);
	int first, n;
	cluster_rack_servers(&c, 1, &first, &n);
	cr_assert(first == 3 && n == 3);
	cr_assert_eq(c.servers[5].cls, 1);
	cluster_free(&c);
	fx_workload_free(w);
}

/* Random offers of random tasks on random servers, tasks finishing at
 * random: whatever the core lets start, no server ever holds more than its
 * capacity in any resource, and it refuses nothing that would fit. */
Test(packing, no_server_is_ever_packed_beyond_its_capacity)
{
	struct topo t = topo_of(mixed);
	struct workload *w = fx_workload_new(6);
	/* Asks from tiny to bigger than some servers, disk in some. */
	static const double asks[6][3] = {{1, 1, 0}, {0.5, 6, 0}, {3, 2, 150}, {2.5, 0.25, 0}, {9, 1, 0}, {0.125, 0.5, 40}};
	for (int j = 0; j < 6; j++) {
		w->jobs[j].nmaps = 40;
		w->jobs[j].nreduces = 10;
	}
	fx_workload_layout(w);
	for (int j = 0; j < 6; j++) {
		w->jobs[j].stages[0].ask = res_of(asks[j][0], asks[j][1], asks[j][2]);
		w->jobs[j].stages[1].ask = res_of(asks[(j + 1) % 6][0], asks[(j + 1) % 6][1], asks[(j + 1) % 6][2]);
	}
	struct cluster c;
	cr_assert_eq(cluster_init_topo(&c, &t, w, 0), 0);
	struct rng r = {42};
	int started = 0, refused = 0;
	for (int step = 0; step < 20000; step++) {
		struct task *x = &w->tasks[rng_below(&r, w->ntasks)];
		int sv = rng_below(&r, c.nservers);
		if (x->state == TASK_RUNNING) {
			if (rng_below(&r, 2)) {
				cluster_requeue_task(&c, x);
			} else {
				cluster_finish_task(&c, x);
				x->state = TASK_PENDING;   /* again later */
			}
		} else if (x->state == TASK_PENDING) {
			/* What the server holds, counted here independently of the cluster. */
			struct res used = {{0}};
			for (int i = 0; i < w->ntasks; i++)
				if (w->tasks[i].state == TASK_RUNNING && w->tasks[i].server == sv)
					for (int k = 0; k < RES_KINDS; k++)
						used.v[k] += cluster_task_ask(&c, &w->tasks[i], sv).v[k];
			struct res ask = cluster_task_ask(&c, x, sv);
			bool room = true;
			for (int k = 0; k < RES_KINDS; k++)
				room &= c.servers[sv].cap.v[k] == RES_UNLIMITED || used.v[k] + ask.v[k] <= c.servers[sv].cap.v[k];
			cr_assert_eq(cluster_task_fits(&c, x, sv), room, "step %d: server %d", step, sv);
			if (room) {
				cluster_start_task(&c, x, sv);
				started++;
			} else {
				refused++;
			}
		}
		for (int s = 0; s < c.nservers; s++)
			for (int k = 0; k < RES_KINDS; k++) {
				cr_assert_geq(c.servers[s].avail.v[k], 0, "server %d over capacity in resource %d", s, k);
				cr_assert_leq(c.servers[s].avail.v[k], c.servers[s].cap.v[k]);
			}
	}
	cr_assert_gt(started, 1000, "%d started, %d refused", started, refused);
	cr_assert_gt(refused, 1000, "the asks must press against the capacities");
	/* Everything back: every server whole again. */
	for (int i = 0; i < w->ntasks; i++)
		if (w->tasks[i].state == TASK_RUNNING)
			cluster_finish_task(&c, &w->tasks[i]);
	for (int s = 0; s < c.nservers; s++) {
		cr_assert(!memcmp(&c.servers[s].avail, &c.servers[s].cap, sizeof(struct res)), "server %d", s);
		cr_assert_eq(c.servers[s].free, c.servers[s].containers);
	}
	cluster_free(&c);
	fx_workload_free(w);
}

/* A slot is a slot: whatever a task asks for, it takes one, as before. */
Test(packing, a_slot_server_gives_every_task_one_slot)
{
	struct workload *w = fx_workload_new(1);
	w->jobs[0].nmaps = 5;
	fx_workload_layout(w);
	w->jobs[0].stages[0].ask = res_of(3, 50, 10);
	struct cluster c;
	cr_assert_eq(cluster_init(&c, 1, 1, 3, w, 0), 0);
	for (int i = 0; i < 3; i++) {
		cr_assert(cluster_task_fits(&c, &w->tasks[i], 0));
		cluster_start_task(&c, &w->tasks[i], 0);
		cr_assert_eq(c.servers[0].free, 2 - i);
	}
	cr_assert_not(cluster_task_fits(&c, &w->tasks[3], 0));
	cr_assert_not(cluster_server_has_room(&c, 0));
	cluster_requeue_task(&c, &w->tasks[1]);
	cr_assert_eq(c.servers[0].free, 1);
	cr_assert(cluster_server_has_room(&c, 0));
	cluster_free(&c);
	fx_workload_free(w);
}

Test(packing, resource_vectors_in_integers)
{
	struct res a = res_of(0.5, 1.5, 0.02), avail = res_of(2, 4, 1);
	cr_assert(a.v[RES_CORES] == 500 && a.v[RES_MEM] == 1500000000LL && a.v[RES_DISK] == 20000);
	cr_assert_eq(res_count(&avail, &a), 2, "memory binds: 4 GB / 1.5 GB");
	avail.v[RES_MEM] = RES_UNLIMITED;
	cr_assert_eq(res_count(&avail, &a), 4, "then cores: 2 / 0.5");
	res_take(&avail, &a);
	cr_assert_eq(avail.v[RES_MEM], RES_UNLIMITED, "unlimited stays unlimited");
	cr_assert_eq(avail.v[RES_CORES], 1500);
	res_give(&avail, &a);
	cr_assert_eq(avail.v[RES_CORES], 2000);
	struct res none = res_of(-1, 0, 0);
	cr_assert(none.v[RES_CORES] == 0 && res_fits(&none, &avail));
}

/* Duration is decided where the task starts: work over the server's speed. */
Test(packing, duration_scales_with_the_speed_of_the_class)
{
	struct topo t = topo_of(mixed);
	struct workload *w = fx_workload_new(1);
	w->jobs[0].nmaps = 2;
	fx_workload_layout(w);
	w->tasks[0].work_s = w->tasks[1].work_s = 3;
	struct cluster c;
	cr_assert_eq(cluster_init_topo(&c, &t, w, 0), 0);
	cluster_start_task(&c, &w->tasks[0], 0);   /* slot class, speed 1 */
	cluster_start_task(&c, &w->tasks[1], 2);   /* big, speed 2 */
	cr_assert_float_eq(w->tasks[0].duration_s, 3, 1e-12);
	cr_assert_float_eq(w->tasks[1].duration_s, 1.5, 1e-12);
	cluster_requeue_task(&c, &w->tasks[1]);
	cluster_start_task(&c, &w->tasks[1], 3);   /* lean, speed 1: decided again */
	cr_assert_float_eq(w->tasks[1].duration_s, 3, 1e-12);
	cluster_free(&c);
	fx_workload_free(w);
}

/* Semi-clairvoyant: a stage's sizes are hidden until its parent stages are
 * done; clairvoyant: always known. */
Test(packing, semi_clairvoyant_hides_a_stage_until_its_parents_are_done)
{
	struct workload *w = fx_workload_new(1);
	w->jobs[0].nmaps = 4;
	w->jobs[0].nreduces = 2;
	fx_workload_layout(w);
	struct cluster c;
	cr_assert_eq(cluster_init(&c, 1, 2, 4, w, 0.5), 0);
	cluster_job_arrive(&c, &w->jobs[0]);
	struct task *red = job_reduce(w->tasks, &w->jobs[0], 0);
	cr_assert(cluster_sizes_known(&c, red), "clairvoyant by default");
	c.semi_clairvoyant = true;
	cr_assert(cluster_sizes_known(&c, job_map(w->tasks, &w->jobs[0], 0)), "the first stage may run");
	cr_assert_not(cluster_sizes_known(&c, red));
	for (int i = 0; i < 2; i++) {
		cluster_start_task(&c, job_map(w->tasks, &w->jobs[0], i), 0);
		cluster_finish_task(&c, job_map(w->tasks, &w->jobs[0], i));
	}
	cr_assert_not(cluster_sizes_known(&c, red), "half the maps are done: the reduce stage is not runnable yet");
	for (int i = 2; i < 4; i++) {
		cluster_start_task(&c, job_map(w->tasks, &w->jobs[0], i), 0);
		cluster_finish_task(&c, job_map(w->tasks, &w->jobs[0], i));
	}
	cr_assert(cluster_sizes_known(&c, red), "every map is done");
	cluster_free(&c);
	fx_workload_free(w);
}
