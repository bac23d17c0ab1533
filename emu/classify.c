/* classify.c — see classify.h. */
#include "emu/classify.h"
#include <libsvm/svm.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NFEAT 3
#define LABEL_UP 1
#define LABEL_OUT -1

/* The features' ranges after log10(1 + x): see classify.h. */
static const double feat_range[NFEAT] = {5, 2, 7};

static void features(const struct job_features *x, struct svm_node node[NFEAT + 1])
{
	double raw[NFEAT] = {x->maps, x->reduces, x->shuffle_bytes / 1e6};
	for (int i = 0; i < NFEAT; i++)
		node[i] = (struct svm_node){.index = i + 1, .value = log10(1 + fmax(raw[i], 0)) / feat_range[i]};
	node[NFEAT].index = -1;
}

static void quiet(const char *s) { (void)s; }

/* Training data in libsvm's form; the model keeps pointers into it. */
struct train_set {
	int n;
	double *y;
	struct svm_node **x, *nodes;
};

static void set_free(struct train_set *t)
{
	if (!t)
		return;
	free(t->y);
	free(t->x);
	free(t->nodes);
	free(t);
}

static struct train_set *set_make(const struct labelled_job *set, int n)
{
	struct train_set *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->n = n;
	t->y = malloc(n * sizeof *t->y);
	t->x = malloc(n * sizeof *t->x);
	t->nodes = malloc((size_t)n * (NFEAT + 1) * sizeof *t->nodes);
	if (!t->y || !t->x || !t->nodes) {
		set_free(t);
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		t->x[i] = &t->nodes[(size_t)i * (NFEAT + 1)];
		features(&set[i].x, t->x[i]);
		t->y[i] = set[i].up ? LABEL_UP : LABEL_OUT;
	}
	return t;
}

static struct svm_parameter params(double c, double gamma)
{
	return (struct svm_parameter){.svm_type = C_SVC, .kernel_type = RBF, .gamma = gamma, .C = c,
				      .cache_size = 64, .eps = 1e-3, .shrinking = 1};
}

/* Accuracy of (c, gamma) by k-fold cross-validation; -1 when a fold
 * cannot be trained (one label only). */
static double cross_validate(const struct train_set *t, int folds, double c, double gamma)
{
	struct svm_problem p = {.y = malloc(t->n * sizeof(double)), .x = malloc(t->n * sizeof(struct svm_node *))};
	int right = 0;
	if (!p.y || !p.x)
		goto fail;
	struct svm_parameter par = params(c, gamma);
	for (int f = 0; f < folds; f++) {
		p.l = 0;
		for (int i = 0; i < t->n; i++)
			if (i % folds != f) {
				p.y[p.l] = t->y[i];
				p.x[p.l++] = t->x[i];
			}
		struct svm_model *m = svm_train(&p, &par);
		if (!m)
			goto fail;
		for (int i = f; i < t->n; i += folds)
			right += svm_predict(m, t->x[i]) == t->y[i];
		svm_free_and_destroy_model(&m);
	}
	free(p.y);
	free(p.x);
	return (double)right / t->n;
fail:
	free(p.y);
	free(p.x);
	return -1;
}

int classify_train(struct classifier *k, const struct labelled_job *set, int n, int folds, char *err, size_t len)
{
	memset(k, 0, sizeof *k);
	int ups = 0;
	for (int i = 0; i < n; i++)
		ups += set[i].up;
	if (ups == 0 || ups == n || folds < 2 || n < folds) {
		snprintf(err, len, "the classifier needs both labels and at least %d jobs (%d jobs, %d scale-up)",
			 folds < 2 ? 2 : folds, n, ups);
		return -1;
	}
	struct train_set *t = set_make(set, n);
	if (!t) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	svm_set_print_string_function(quiet);
	/* The grid: C in 2^-1 .. 2^13, gamma in 2^-3 .. 2^7 (features in [0, 1]). */
	double best = -1;
	for (int lc = -1; lc <= 13; lc += 2)
		for (int lg = -3; lg <= 7; lg += 2) {
			double acc = cross_validate(t, folds, ldexp(1, lc), ldexp(1, lg));
			if (acc > best) {
				best = acc;
				k->c = ldexp(1, lc);
				k->gamma = ldexp(1, lg);
			}
		}
	struct svm_problem p = {.l = n, .y = t->y, .x = t->x};
	struct svm_parameter par = params(k->c, k->gamma);
	k->model = best >= 0 ? svm_train(&p, &par) : NULL;
	if (!k->model) {
		set_free(t);
		snprintf(err, len, "libsvm could not train on %d jobs", n);
		return -1;
	}
	k->cv_accuracy = best;
	k->train = t;
	return 0;
}

bool classify_predict(const struct classifier *k, const struct job_features *x, double *decision)
{
	struct svm_node node[NFEAT + 1];
	int labels[2] = {LABEL_UP, LABEL_OUT};
	double dec = 0;
	features(x, node);
	svm_predict_values(k->model, node, &dec);
	svm_get_labels(k->model, labels);
	if (labels[0] != LABEL_UP)   /* libsvm's decision is positive for its first label */
		dec = -dec;
	if (decision)
		*decision = dec;
	return dec > 0;
}

int classify_save(const struct classifier *k, const char *path, char *err, size_t len)
{
	if (svm_save_model(path, k->model)) {
		snprintf(err, len, "%s: cannot write the model: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int classify_load(struct classifier *k, const char *path, char *err, size_t len)
{
	memset(k, 0, sizeof *k);
	k->model = svm_load_model(path);
	int labels[2] = {0, 0};
	if (k->model && svm_get_nr_class(k->model) == 2)
		svm_get_labels(k->model, labels);
	bool ours = (labels[0] == LABEL_UP && labels[1] == LABEL_OUT) || (labels[0] == LABEL_OUT && labels[1] == LABEL_UP);
	if (!k->model || svm_get_svm_type(k->model) != C_SVC || !ours) {
		snprintf(err, len, "%s: not a libsvm C-SVC model of labels 1 (up) and -1 (out)", path);
		classify_free(k);
		return -1;
	}
	k->gamma = k->model->param.gamma;
	return 0;
}

void classify_free(struct classifier *k)
{
	if (k->model)
		svm_free_and_destroy_model(&k->model);
	set_free(k->train);
	memset(k, 0, sizeof *k);
}

/* ---- the labels file ---------------------------------------------------- */

static int column(char *header, const char *name)
{
	int i = 0;
	for (char *f = header, *next; f; f = next, i++) {
		next = strchr(f, ',');
		size_t n = next ? (size_t)(next++ - f) : strcspn(f, "\r\n");
		if (strlen(name) == n && !strncmp(f, name, n))
			return i;
	}
	return -1;
}

/* Field i of a CSV line, without its end. */
static const char *field(char *line, int i, size_t *n)
{
	char *f = line;
	for (; i > 0 && f; i--)
		if ((f = strchr(f, ',')))
			f++;
	if (!f)
		return NULL;
	*n = strcspn(f, ",\r\n");
	return f;
}

static int number(const char *f, size_t n, double *v)
{
	char b[64], *end;
	if (n == 0 || n >= sizeof b)
		return -1;
	memcpy(b, f, n);
	b[n] = 0;
	*v = strtod(b, &end);
	return *end || !isfinite(*v) || *v < 0 ? -1 : 0;
}

int classify_read_labels(const char *path, struct labelled_job **set, int *n, char *err, size_t len)
{
	static const char *const names[] = {"maps", "reduces", "shuffle_bytes", "label"};
	FILE *f = fopen(path, "r");
	char line[4096];
	int col[4], cap = 0, lineno = 1;
	*set = NULL;
	*n = 0;
	if (!f) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!fgets(line, sizeof line, f)) {
		snprintf(err, len, "%s:1: empty, expected a header", path);
		goto fail;
	}
	for (int i = 0; i < 4; i++)
		if ((col[i] = column(line, names[i])) < 0) {
			snprintf(err, len, "%s:1: the header has no column '%s'", path, names[i]);
			goto fail;
		}
	while (fgets(line, sizeof line, f)) {
		lineno++;
		if (line[strspn(line, " \r\n")] == 0)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			struct labelled_job *more = realloc(*set, cap * sizeof **set);
			if (!more) {
				snprintf(err, len, "out of memory");
				goto fail;
			}
			*set = more;
		}
		struct labelled_job *j = &(*set)[*n];
		double *v[3] = {&j->x.maps, &j->x.reduces, &j->x.shuffle_bytes};
		size_t fl;
		const char *fv;
		for (int i = 0; i < 3; i++)
			if (!(fv = field(line, col[i], &fl)) || number(fv, fl, v[i])) {
				snprintf(err, len, "%s:%d: '%s' must be a non-negative number", path, lineno, names[i]);
				goto fail;
			}
		fv = field(line, col[3], &fl);
		if (!fv || !((fl == 2 && !strncmp(fv, "up", 2)) || (fl == 3 && !strncmp(fv, "out", 3)))) {
			snprintf(err, len, "%s:%d: 'label' must be up or out", path, lineno);
			goto fail;
		}
		j->up = fl == 2;
		(*n)++;
	}
	fclose(f);
	return 0;
fail:
	fclose(f);
	free(*set);
	*set = NULL;
	*n = 0;
	return -1;
}
