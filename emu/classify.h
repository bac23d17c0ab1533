/* classify.h — Chapter 5's job classifier (§5.2.2): an RBF SVM (libsvm) that
 * tells a scale-up job (small: it runs faster on the scale-up machines)
 * from a scale-out one by three features: the number of maps, the number of
 * reduces and the shuffle size (a non-recurring job's is unknown: 0).
 *
 * Features go to the SVM as log10(1 + x) over a fixed range (maps up to
 * 10^5, reduces 10^2, shuffle 10^7 MB), so that each lies in about [0, 1]
 * and a saved model needs nothing beside it.  C and gamma are chosen by
 * k-fold cross-validation over a grid (§5.3.1 "cross validation"). */
#ifndef EMU_CLASSIFY_H
#define EMU_CLASSIFY_H
#include <stdbool.h>
#include <stddef.h>

struct svm_model;

struct job_features {
	double maps, reduces;
	double shuffle_bytes;        /* unscaled; 0 for a job that is not recurring */
};

/* A job of the training or validation set: its features and its label,
 * the platform on which it ran alone faster. */
struct labelled_job {
	struct job_features x;
	bool up;                     /* a scale-up job */
};

struct classifier {
	struct svm_model *model;
	double c, gamma;             /* the hyper-parameters chosen (a model file keeps gamma only) */
	double cv_accuracy;          /* of the chosen pair, 0..1 (0 when loaded) */
	void *train;                 /* a trained model's support vectors live here */
};

/* Train on n labelled jobs (both labels present): every (C, gamma) of the
 * grid by `folds`-fold cross-validation (deterministic folds: job i in fold
 * i mod folds), then the best pair on all of them.  0, or -1 with err. */
int classify_train(struct classifier *k, const struct labelled_job *set, int n, int folds, char *err, size_t len);
/* The job's class: true for scale-up; *decision (may be NULL) is the SVM's
 * decision value, positive on the scale-up side, its magnitude the
 * distance to the hyperplane that job stealing reads (§5.2.3). */
bool classify_predict(const struct classifier *k, const struct job_features *x, double *decision);
/* libsvm's model file. */
int classify_save(const struct classifier *k, const char *path, char *err, size_t len);
int classify_load(struct classifier *k, const char *path, char *err, size_t len);
void classify_free(struct classifier *k);

/* A labels file: CSV with a header naming at least maps, reduces,
 * shuffle_bytes and label (up or out), other columns ignored.  *set is
 * malloc'd.  0, or -1 with err naming FILE:LINE. */
int classify_read_labels(const char *path, struct labelled_job **set, int *n, char *err, size_t len);
#endif
