/* Benchmark: time to bring fabrics up and down (root).
 *
 *   build/bench/fabric_updown [REPS]
 *
 * Builds bench/topologies/fabric-10x10 and fabric-25x25 (625 servers, every
 * link shaped) REPS times each and prints the median up and down times with
 * the phases of up.  Target: the 25x25 fabric up and down in < 1.5 s. */
#include "netctl/fabric.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof *v, cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	static const char *const files[] = {"bench/topologies/fabric-10x10.conf", "bench/topologies/fabric-25x25.conf"};
	int reps = argc > 1 ? atoi(argv[1]) : 5;
	if (geteuid() != 0) {
		fprintf(stderr, "fabric_updown: needs root (it builds namespaces)\n");
		return 2;
	}
	if (reps < 1 || reps > 100)
		reps = 5;
	printf("%-14s %8s %9s %9s %9s %9s %9s %9s\n", "fabric", "servers", "up(s)", "ns(s)", "tor(s)",
	       "rest(s)", "down(s)", "total(s)");
	for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
		struct topo t;
		char err[FABRIC_ERR_LEN];
		double up[100], down[100], ns[100], tor[100], rest[100], tot[100];
		if (topo_load(&t, files[f], 0, err)) {
			fprintf(stderr, "%s\n", err);
			return 2;
		}
		fabric_down("bench", NULL);
		for (int i = 0; i < reps; i++) {
			struct fabric_timing tm;
			if (fabric_up(&t, "bench", &tm, err)) {
				fprintf(stderr, "up: %s\n", err);
				return 1;
			}
			double t0 = now_s();
			fabric_down("bench", NULL);
			down[i] = now_s() - t0;
			up[i] = tm.total_s;
			ns[i] = tm.ns_s;
			tor[i] = tm.links_s;
			rest[i] = tm.config_s;
			tot[i] = up[i] + down[i];
			/* Let the kernel finish tearing the namespaces down (it does
			 * so asynchronously) so runs do not slow each other. */
			sleep(1);
		}
		printf("%-14s %8d %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f\n", t.name, topo_servers(&t),
		       median(up, reps), median(ns, reps), median(tor, reps), median(rest, reps),
		       median(down, reps), median(tot, reps));
	}
	printf("(median of %d runs each; target: 625 servers up+down < 1.5 s)\n", reps);
	return 0;
}
