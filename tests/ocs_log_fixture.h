/* Reading an ocs.csv (emu/ocs_ctl.c's log) in tests: how soon each
 * reconfiguration came after the one before. */
#ifndef TESTS_OCS_LOG_FIXTURE_H
#define TESTS_OCS_LOG_FIXTURE_H
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

struct ocs_log_gaps {
	int rows;
	double min_after_lit;   /* least time from a configuration's light to the next announce */
	int sooner_than;        /* announces less than `interval` after the previous announce */
};

static inline struct ocs_log_gaps ocs_log_gaps(const char *path, double interval)
{
	struct ocs_log_gaps g = {0, INFINITY, 0};
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	char line[4096];
	double prev_lit = -1, prev_announce = -1;
	cr_assert_not_null(fgets(line, sizeof line, f), "%s: no header", path);
	while (fgets(line, sizeof line, f)) {
		double ts, ta, td, tsw, tl;
		cr_assert_eq(sscanf(line, "%lf,%lf,%lf,%lf,%lf", &ts, &ta, &td, &tsw, &tl), 5, "%s", line);
		if (prev_lit >= 0) {
			g.min_after_lit = fmin(g.min_after_lit, ta - prev_lit);
			g.sooner_than += ta - prev_announce < interval;
		}
		prev_lit = tl;
		prev_announce = ta;
		g.rows++;
	}
	fclose(f);
	return g;
}
#endif
