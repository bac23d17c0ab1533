/* workload_swim.c — jobs from a SWIM trace.
 *
 * SWIM format (https://github.com/SWIMProjectUCB/SWIM): one job per line, six
 * tab-separated columns
 *     job id   submit time (s)   gap from previous job (s)   map input bytes   shuffle bytes   reduce output bytes
 * e.g. "job0\t9\t9\t1762\t0\t14347".  Blank lines are skipped; anything else
 * that is not six well-formed columns is an error naming file and line.
 * Submit times must not decrease (SWIM writes them in order).  Arrivals are
 * submit times relative to the first job read, times time_scale.  The gap
 * column is checked to be a number and otherwise ignored. */
#include "emu/workload.h"
#include "emu/workload_spec.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A whole field as a non-negative number: 0, or -1 not a number, -2 negative. */
static int parse_number(const char *f, double *v)
{
	char *end;
	if (!*f || isspace((unsigned char)*f))
		return -1;
	errno = 0;
	double x = strtod(f, &end);
	if (*end || errno || !isfinite(x))
		return -1;
	if (x < 0)
		return -2;
	*v = x;
	return 0;
}

/* Byte counts: digits are read exactly (beyond 2^53 too); other numeric
 * forms ("1.5e9") are rounded.  -3 = larger than WORKLOAD_MAX_BYTES. */
static int parse_bytes(const char *f, uint64_t *v)
{
	if (*f && strspn(f, "0123456789") == strlen(f)) {
		errno = 0;
		unsigned long long x = strtoull(f, NULL, 10);
		if (errno || x > WORKLOAD_MAX_BYTES)
			return -3;
		*v = x;
		return 0;
	}
	double x;
	int rc = parse_number(f, &x);
	if (rc)
		return rc;
	if (x > (double)WORKLOAD_MAX_BYTES)
		return -3;
	*v = (uint64_t)llround(x);
	return 0;
}

static const char *const swim_columns[6] = {
	"job id", "submit time", "gap", "input bytes", "shuffle bytes", "output bytes"};

static int swim_field_error(char *err, const char *path, int line, int col, const char *f, int rc)
{
	const char *why = rc == -2 ? "is negative" : rc == -3 ? "is too large (over 1e18)" : "is not a number";
	return workload_fail(err, "%s:%d: column %d (%s): '%.40s' %s", path, line, col + 1, swim_columns[col], f, why);
}

/* Split a line into exactly 6 tab-separated fields (in place). */
static int swim_split(char *line, char *f[6])
{
	int n = 0;
	for (char *p = line;; n++) {
		char *tab = strchr(p, '\t');
		if (n < 6)
			f[n] = p;
		if (!tab)
			return n + 1;
		*tab = 0;
		p = tab + 1;
	}
}

static int swim_line(char *line, const char *path, int lineno, struct job_spec *s, char *err)
{
	char *f[6];
	int n = swim_split(line, f);
	if (n != 6)
		return workload_fail(err, "%s:%d: expected 6 tab-separated columns (job id, submit time, gap, "
			    "input, shuffle, output bytes), found %d", path, lineno, n);
	size_t len = strlen(f[0]);
	if (!len || len >= sizeof(s->name))
		return workload_fail(err, "%s:%d: column 1 (job id): must be 1..%zu characters", path, lineno,
			    sizeof(s->name) - 1);
	if (!job_name_ok(f[0]))
		return workload_fail(err, "%s:%d: column 1 (job id): not valid UTF-8 or has control characters", path, lineno);
	memcpy(s->name, f[0], len + 1);
	s->line = lineno;
	double gap;
	int rc;
	if ((rc = parse_number(f[1], &s->submit)))
		return swim_field_error(err, path, lineno, 1, f[1], rc);
	if ((rc = parse_number(f[2], &gap)))
		return swim_field_error(err, path, lineno, 2, f[2], rc);
	uint64_t *bytes[3] = {&s->input, &s->shuffle, &s->output};
	for (int c = 3; c < 6; c++)
		if ((rc = parse_bytes(f[c], bytes[c - 3])))
			return swim_field_error(err, path, lineno, c, f[c], rc);
	return 0;
}

static bool blank(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return !*s;
}

static int spec_cmp_name(const void *a, const void *b)
{
	const struct job_spec *x = *(const struct job_spec *const *)a, *y = *(const struct job_spec *const *)b;
	int c = strcmp(x->name, y->name);
	return c ? c : x->line - y->line;
}

/* Job ids are unique (a native file requires it, and the workload must be
 * writable as one): sorted, in O(n log n) for traces of 10^5 jobs. */
static int swim_unique(const struct specs *a, const char *path, char *err)
{
	const struct job_spec **v = malloc((size_t)a->n * sizeof(*v));
	if (!v)
		return workload_fail(err, "%s: out of memory", path);
	for (int i = 0; i < a->n; i++)
		v[i] = &a->v[i];
	qsort(v, (size_t)a->n, sizeof(*v), spec_cmp_name);
	int rc = 0;
	for (int i = 1; i < a->n && !rc; i++)
		if (!strcmp(v[i]->name, v[i - 1]->name))
			rc = workload_fail(err, "%s:%d: column 1 (job id): '%s' is already the id of the job on line %d", path,
				  v[i]->line, v[i]->name, v[i - 1]->line);
	free(v);
	return rc;
}

static int swim_parse(FILE *in, const char *path, const struct workload_params *p, int max_jobs, struct specs *a,
		      char *err)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, rc = 0;
	while ((max_jobs <= 0 || a->n < max_jobs) && (len = getline(&line, &cap, in)) >= 0) {
		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (strlen(line) != (size_t)len) {
			rc = workload_fail(err, "%s:%d: NUL byte in line", path, lineno);
			break;
		}
		if (blank(line))
			continue;
		struct job_spec *s = specs_add(a);
		if (!s) {
			rc = workload_fail(err, "%s: out of memory", path);
			break;
		}
		if ((rc = swim_line(line, path, lineno, s, err)))
			break;
		if (a->n > 1 && s->submit < a->v[a->n - 2].submit) {
			rc = workload_fail(err, "%s:%d: submit time %g is before the previous job's %g "
				  "(SWIM jobs are in submit order)", path, lineno, s->submit, a->v[a->n - 2].submit);
			break;
		}
		if (!job_spec_chosen(s, p)) {
			a->n--;   /* not chosen: the next job of the trace counts instead */
			continue;
		}
		job_spec_fit(s, p);
	}
	if (!rc && ferror(in))
		rc = workload_fail(err, "%s: %s", path, strerror(errno));
	if (!rc && a->n == 0)
		rc = p->min_shuffle ? workload_fail(err, "%s: no job with a shuffle of at least %llu bytes", path,
					   (unsigned long long)p->min_shuffle)
				    : workload_fail(err, "%s: no jobs", path);
	if (!rc)
		rc = swim_unique(a, path, err);
	free(line);
	return rc;
}

int workload_read_swim(struct workload *w, const char *path, const struct workload_params *p, int max_jobs,
		       char err[512])
{
	memset(w, 0, sizeof(*w));
	FILE *in = fopen(path, "r");
	if (!in)
		return workload_fail(err, "%s: %s", path, strerror(errno));
	struct specs a = {0};
	int rc = swim_parse(in, path, p, max_jobs, &a, err);
	fclose(in);
	if (!rc) {
		double t0 = a.v[0].submit;      /* arrivals relative to the first job read */
		for (int i = 0; i < a.n; i++)
			a.v[i].submit -= t0;
		rc = workload_build(w, a.v, a.n, p, false, path, err);
	}
	job_specs_free(a.v, a.n);
	return rc;
}
