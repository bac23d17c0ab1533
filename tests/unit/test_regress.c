/* The schedulers' results do not move unless meant to: every case of
 * tests/data/regress/cases.txt runs on the simulator (a fixed seed, no root,
 * about a second in all) and must give what tests/data/regress/NAME/ holds
 * (made by its make.sh): jobs.csv, tasks.csv, flows.csv and ocs.csv byte for
 * byte, and every number of the checked-in summary.json (the run's own
 * wall-clock and CPU figures and its inputs, `parameters`, aside; new keys
 * are allowed). */
#include "tree_fixture.h"
#include <jansson.h>
#include <sys/wait.h>

static char root[64], repo[512], emu[600];

static void setup(void)
{
	tf_setup(root, sizeof root, "/tmp/emu-regress-XXXXXX", repo, sizeof repo, emu, sizeof emu);
}

static void teardown(void)
{
	tf_teardown(root);
}

TestSuite(regress, .init = setup, .fini = teardown, .timeout = 120);

/* What differs between two makings of the same run, or is not a result. */
static bool volatile_key(const char *path)
{
	static const char *const keys[] = {"results", "wall_s", "cpu", "sim.events_per_wall_s", "parameters",
					   "scheduler"};
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		if (!strcmp(path, keys[i]))
			return true;
	return false;
}

/* Every value of `want` is in `got`, equal; describes the first difference in why. */
static bool covers(json_t *want, json_t *got, const char *path, char *why, size_t len)
{
	if (volatile_key(path))
		return true;
	if (json_is_object(want)) {
		const char *k;
		json_t *v;
		json_object_foreach(want, k, v)
		{
			char sub[256];
			snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", k);
			json_t *g = json_object_get(got, k);
			if (!g) {
				snprintf(why, len, "%s: missing", sub);
				return false;
			}
			if (!covers(v, g, sub, why, len))
				return false;
		}
		return true;
	}
	if (json_equal(want, got))
		return true;
	char *w = json_dumps(want, JSON_ENCODE_ANY), *g = json_dumps(got, JSON_ENCODE_ANY);
	snprintf(why, len, "%s: %s, expected %s", path, g ? g : "?", w ? w : "?");
	free(w);
	free(g);
	return false;
}

/* One case: run it, then compare with the checked-in results. */
static void check_case(const char *name, const char *args)
{
	char cmd[2048];
	snprintf(cmd, sizeof cmd,
		 "cd '%s' && '%s' run --backend sim --topology tests/data/regress/topo.conf --results '%s' "
		 "--experiment regress --run '%s' --quiet %s > '%s/%s.log' 2>&1",
		 repo, emu, root, name, args, root, name);
	int rc = system(cmd);
	cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "%s: emu run failed (%s/%s.log)", name, root, name);
	char want[700], got[700];
	snprintf(want, sizeof want, "%s/tests/data/regress/%s", repo, name);
	snprintf(got, sizeof got, "%s/regress/*/%s", root, name);
	static const char *const files[] = {"jobs.csv", "ocs.csv", "tasks.csv", "flows.csv"};
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		bool gz = i >= 2;   /* the long ones are checked in gzipped */
		snprintf(cmd, sizeof cmd, "%s '%s/%s%s' | cmp -s - %s/%s", gz ? "zcat" : "cat", want, files[i],
			 gz ? ".gz" : "", got, files[i]);
		cr_expect_eq(system(cmd), 0, "%s: %s is not what it was (%s)", name, files[i], cmd);
	}
	snprintf(cmd, sizeof cmd, "%s/summary.json", want);
	json_error_t e;
	json_t *w = json_load_file(cmd, 0, &e);
	cr_assert_not_null(w, "%s: %s", cmd, e.text);
	snprintf(cmd, sizeof cmd, "ls %s/summary.json", got);
	FILE *p = popen(cmd, "r");
	char path[800] = "";
	cr_assert(p && fgets(path, sizeof path, p), "%s: no summary.json", name);
	pclose(p);
	path[strcspn(path, "\n")] = 0;
	json_t *g = json_load_file(path, 0, &e);
	cr_assert_not_null(g, "%s: %s", path, e.text);
	char why[600] = "";
	cr_expect(covers(w, g, "", why, sizeof why), "%s: summary.json %s", name, why);
	json_decref(w);
	json_decref(g);
}

Test(regress, every_scheduler_gives_the_checked_in_results)
{
	char path[700], line[1024];
	snprintf(path, sizeof path, "%s/tests/data/regress/cases.txt", repo);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s missing", path);
	int cases = 0;
	while (fgets(line, sizeof line, f)) {
		char name[64];
		int at;
		if (line[0] == '#' || sscanf(line, "%63s %n", name, &at) != 1)
			continue;
		line[strcspn(line, "\n")] = 0;
		check_case(name, line + at);
		cases++;
	}
	fclose(f);
	cr_assert_geq(cases, 17, "cases.txt has %d cases", cases);
}
