/* A simulated JobPacker batch whose circuits change within seconds (the
 * showcase's kind of jobs, fewer), for the live view's tests. */
#ifndef TESTS_WEB_FIXTURE_H
#define TESTS_WEB_FIXTURE_H
#include "emu/run.h"
#include "emu/web/publish.h"
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>

/* Run it into root/default/jobpacker/name (dir, when not NULL), watched
 * through pub when not NULL; returns its summary.json. */
static inline json_t *web_fx_sim(const char *root, const char *name, int njobs, struct web_pub *pub, char *dir,
				 size_t len)
{
	struct topo t;
	struct workload w;
	struct synth_params sp;
	struct workload_params wp;
	struct run_params p;
	char err[512], path[600];
	cr_assert_eq(topo_load(&t, "topologies/geni-10rack.conf", 0, err), 0, "%s", err);
	synth_params_default(&sp);
	workload_params_default(&wp);
	sp.njobs = njobs;
	sp.seed = 12;
	wp.data_scale = 0.01;
	wp.time_scale = 0.1;
	wp.min_shuffle = 100000000;
	wp.max_maps = 100;
	cr_assert_eq(workload_synthetic(&w, &sp, &wp, err), 0, "%s", err);
	run_params_default(&p);
	p.backend = "sim";
	p.scheduler = "jobpacker";
	p.slowstart = 0.7;
	p.ocs.early = true;
	p.elephant_bytes = (uint64_t)(1.125e9 * 0.01);
	p.results_root = root;
	p.run_name = name;
	p.quiet = true;
	p.seed = 12;
	p.web = pub;
	if (pub)
		p.ocs.observer = web_pub_observer(pub);
	cr_assert_eq(run_experiment(&t, &w, &p, err), 0, "%s", err);
	workload_free(&w);
	snprintf(path, sizeof path, "%s/default/jobpacker/%s/summary.json", root, name);
	if (dir)
		snprintf(dir, len, "%s/default/jobpacker/%s", root, name);
	json_t *s = json_load_file(path, 0, NULL);
	cr_assert_not_null(s, "%s", path);
	return s;
}
#endif
