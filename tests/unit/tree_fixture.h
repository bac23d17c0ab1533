/* Helpers for unit tests that drive the repository's programs and scripts and
 * read what they wrote: the paths (the repository, the emu built beside the
 * test binary, a scratch directory) and a CSV reader. */
#ifndef TESTS_TREE_FIXTURE_H
#define TESTS_TREE_FIXTURE_H
#include <criterion/criterion.h>
#include <libgen.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <unistd.h>

#define DASH "\xe2\x80\x93" /* –, what the reports write for a value the runs cannot give */

/* A scratch directory from `tmpl` (…XXXXXX) into root; the repository (the
 * test binary is build-san/test-unit) into repo; the emu beside the test into emu
 * (when emu is not NULL: it must have been built). */
static inline void tf_setup(char *root, size_t root_len, const char *tmpl, char *repo, size_t repo_len, char *emu,
			    size_t emu_len)
{
	snprintf(root, root_len, "%s", tmpl);
	cr_assert_not_null(mkdtemp(root));
	char self[512];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	cr_assert_gt(n, 0);
	self[n] = '\0';
	char *dir = dirname(self);
	if (emu) {
		snprintf(emu, emu_len, "%s/bin/emu", dir);
		cr_assert_eq(access(emu, X_OK), 0, "%s missing (make SAN=1 build-san/bin/emu)", emu);
	}
	snprintf(repo, repo_len, "%s", dirname(dir));
}

static inline void tf_teardown(const char *root)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}

/* A shell command (printf format); its exit status, -1 if it did not exit. */
static inline __attribute__((format(printf, 1, 2))) int tf_sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	cr_assert_lt(n, (int)sizeof cmd);
	int rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* ------------------------------------------------------------------ CSV */

/* A CSV file (gzipped when its name ends in .gz); quoted cells are allowed
 * (and noted), every cell is a string. */
struct csv {
	char *buf;
	int ncol, nrow;
	char **head;
	char **cell;  /* nrow x ncol */
	bool quoted;  /* some cell was quoted */
	bool cr;      /* some line ended in CR LF */
};

static inline struct csv *csv_read(const char *path)
{
	char cmd[700];
	bool gz = strlen(path) > 3 && !strcmp(path + strlen(path) - 3, ".gz");
	snprintf(cmd, sizeof cmd, "zcat '%s'", path);
	FILE *f = gz ? popen(cmd, "r") : fopen(path, "r");
	cr_assert_not_null(f, "%s missing", path);
	size_t cap = 1 << 16, len = 0, n;
	char *buf = malloc(cap);
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0)
		if ((len += n) + 1 >= cap)
			buf = realloc(buf, cap *= 2);
	buf[len] = '\0';
	if (gz)
		cr_assert_eq(pclose(f), 0, "zcat %s failed", path);
	else
		fclose(f);
	cr_assert(access(path, R_OK) == 0, "%s missing", path);
	struct csv *c = calloc(1, sizeof *c);
	c->buf = buf;
	c->cr = strchr(buf, '\r') != NULL;
	size_t ncell = 0, cellcap = 256;
	char **cells = malloc(cellcap * sizeof *cells);
	int k = 0;
	char *w = buf;
	for (char *p = buf; *p;) {
		char *start = w;
		if (*p == '"') {
			c->quoted = true;
			for (p++; *p && !(*p == '"' && p[1] != '"'); p++)
				*w++ = *p == '"' ? *++p : *p;
			cr_assert_eq(*p, '"', "%s: an unclosed quote", path);
			p++;
		} else
			while (*p && *p != ',' && *p != '\n' && *p != '\r')
				*w++ = *p++;
		if (*p == '\r')
			p++;
		char end = *p;
		*w++ = '\0';
		if (ncell == cellcap)
			cells = realloc(cells, (cellcap *= 2) * sizeof *cells);
		cells[ncell++] = start;
		k++;
		if (end)
			p++;
		if (end == '\n' || !end) {
			if (!c->ncol)
				c->ncol = k;
			cr_assert_eq(k, c->ncol, "%s: a row of %d cells, the header has %d", path, k, c->ncol);
			k = 0;
		}
	}
	cr_assert_gt(c->ncol, 0, "%s: empty", path);
	c->head = cells;
	c->cell = cells + c->ncol;
	c->nrow = (int)(ncell / c->ncol) - 1;
	return c;
}

static inline void csv_free(struct csv *c)
{
	free(c->head);
	free(c->buf);
	free(c);
}

static inline int csv_col(const struct csv *c, const char *name)
{
	for (int k = 0; k < c->ncol; k++)
		if (!strcmp(c->head[k], name))
			return k;
	return -1;
}

static inline const char *csv_get(const struct csv *c, int row, const char *col)
{
	int k = csv_col(c, col);
	cr_assert_geq(k, 0, "no column %s", col);
	cr_assert(row >= 0 && row < c->nrow, "no row %d (of %d) for %s", row, c->nrow, col);
	return c->cell[row * c->ncol + k];
}

/* A cell's number: NAN for "–" or NaN (the reports' missing values), a
 * failure for anything else that is not a number. */
static inline double csv_num(const struct csv *c, int row, const char *col)
{
	const char *v = csv_get(c, row, col);
	if (!strcmp(v, DASH))
		return NAN;
	char *end;
	double x = strtod(v, &end);
	cr_assert(*v && !*end, "column %s, row %d: '%s' is not a number", col, row, v);
	return x;
}

/* The first row whose column col is v (and col2 is v2, when col2); -1 if none. */
static inline int csv_find(const struct csv *c, const char *col, const char *v, const char *col2, const char *v2)
{
	for (int r = 0; r < c->nrow; r++)
		if (!strcmp(csv_get(c, r, col), v) && (!col2 || !strcmp(csv_get(c, r, col2), v2)))
			return r;
	return -1;
}
#endif
