/* sched_opt.c — a policy's options, from the table it declares (struct
 * sched_opt in emu/sched.h): defaults, `KEY=VALUE` settings with errors
 * that name the option and what it accepts, the JSON summary.json records,
 * and the help of `emu run --scheduler NAME --help`: one parser for every
 * policy, so that a policy only describes its options. */
#include "emu/sched.h"
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct sched_ops *policy_of(const struct sched_ops *ops)
{
	return ops->alias_of ? ops->alias_of : ops;
}

static void *field(void *opts, const struct sched_opt *o)
{
	return (char *)opts + o->offset;
}

static const void *cfield(const void *opts, const struct sched_opt *o)
{
	return (const char *)opts + o->offset;
}

static void set_default(void *opts, const struct sched_opt *o)
{
	switch (o->type) {
	case SCHED_OPT_BOOL: *(bool *)field(opts, o) = o->def != 0; break;
	case SCHED_OPT_INT:
	case SCHED_OPT_CHOICE: *(int *)field(opts, o) = (int)o->def; break;
	case SCHED_OPT_NUM: *(double *)field(opts, o) = o->def; break;
	case SCHED_OPT_STR: *(const char **)field(opts, o) = o->def_str ? o->def_str : ""; break;
	}
}

/* What the option accepts, for errors and the help. */
static void accepts(const struct sched_opt *o, char *buf, size_t len)
{
	size_t n = 0;
	switch (o->type) {
	case SCHED_OPT_BOOL: snprintf(buf, len, "on or off"); return;
	case SCHED_OPT_STR: snprintf(buf, len, "any text"); return;
	case SCHED_OPT_CHOICE:
		n = snprintf(buf, len, "one of");
		for (int i = 0; o->choices[i] && n < len; i++)
			n += snprintf(buf + n, len - n, "%s %s", i ? "," : "", o->choices[i]);
		return;
	case SCHED_OPT_INT:
	case SCHED_OPT_NUM: {
		const char *what = o->type == SCHED_OPT_INT ? "an integer" : "a number";
		bool above = o->flags & SCHED_OPT_ABOVE_MIN;
		if (isinf(o->max))
			n = snprintf(buf, len, "%s %s %g", what, above ? ">" : ">=", o->min);
		else
			n = snprintf(buf, len, "%s in %c%g, %g]", what, above ? '(' : '[', o->min, o->max);
		if ((o->flags & SCHED_OPT_AUTO) && n < len)
			snprintf(buf + n, len - n, ", or auto");
		return;
	}
	}
}

static bool parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = {"on", "true", "yes", "1"}, *const no[] = {"off", "false", "no", "0"};
	for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
		if (!strcasecmp(v, yes[i]) || !strcasecmp(v, no[i])) {
			*out = !strcasecmp(v, yes[i]);
			return true;
		}
	return false;
}

/* The value v into the option's field; false if it does not accept it. */
static bool parse_value(const struct sched_opt *o, void *opts, const char *v)
{
	char *end;
	switch (o->type) {
	case SCHED_OPT_BOOL: return parse_bool(v, field(opts, o));
	case SCHED_OPT_STR: *(const char **)field(opts, o) = v; return true;
	case SCHED_OPT_CHOICE:
		for (int i = 0; o->choices[i]; i++)
			if (!strcmp(v, o->choices[i])) {
				*(int *)field(opts, o) = i;
				return true;
			}
		return false;
	case SCHED_OPT_INT: {
		long x = strtol(v, &end, 10);
		double hi = isinf(o->max) ? INT_MAX : o->max;
		if (!*v || *end || x < o->min || x > hi)
			return false;
		*(int *)field(opts, o) = (int)x;
		return true;
	}
	case SCHED_OPT_NUM: {
		if ((o->flags & SCHED_OPT_AUTO) && !strcmp(v, "auto")) {
			*(double *)field(opts, o) = NAN;
			return true;
		}
		double x = strtod(v, &end);
		bool low = o->flags & SCHED_OPT_ABOVE_MIN ? x > o->min : x >= o->min;
		if (!*v || *end || !isfinite(x) || !low || x > o->max)
			return false;
		*(double *)field(opts, o) = x;
		return true;
	}
	}
	return false;
}

/* One "KEY=VALUE" of the policy p into opts. */
static int set_one(const struct sched_ops *p, void *opts, const char *kv, char *err, size_t len)
{
	const char *eq = strchr(kv, '=');
	if (!eq || eq == kv) {
		snprintf(err, len, "'%s': expected KEY=VALUE", kv);
		return -1;
	}
	size_t klen = (size_t)(eq - kv);
	for (const struct sched_opt *o = p->opts; o && o->name; o++) {
		if (strlen(o->name) != klen || strncmp(o->name, kv, klen))
			continue;
		if (parse_value(o, opts, eq + 1))
			return 0;
		char what[256];
		accepts(o, what, sizeof what);
		snprintf(err, len, "%s option %s: '%s' is not %s", p->name, o->name, eq + 1, what);
		return -1;
	}
	if (!p->opts || !p->opts[0].name) {
		snprintf(err, len, "%s has no options ('%s')", p->name, kv);
		return -1;
	}
	size_t n = snprintf(err, len, "%s has no option '%.*s'; its options:", p->name, (int)klen, kv);
	for (const struct sched_opt *o = p->opts; o->name && n < len; o++)
		n += snprintf(err + n, len - n, "%s %s", o == p->opts ? "" : ",", o->name);
	return -1;
}

int sched_opts_parse(const struct sched_ops *ops, void *opts, const char *const *set, int n, char *err, size_t len)
{
	const struct sched_ops *p = policy_of(ops);
	for (const struct sched_opt *o = p->opts; o && o->name; o++)
		set_default(opts, o);
	for (const char *const *q = ops->preset; q && *q; q++)
		if (set_one(p, opts, *q, err, len))
			return -1;
	for (int i = 0; i < n; i++)
		if (set_one(p, opts, set[i], err, len))
			return -1;
	return p->check ? p->check(opts, err, len) : 0;
}

int sched_opts_check(const struct sched_ops *ops, const char *const *set, int n, char *err, size_t len)
{
	const struct sched_ops *p = policy_of(ops);
	void *opts = calloc(1, p->opts_size ? p->opts_size : 1);
	if (!opts) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	int rc = sched_opts_parse(ops, opts, set, n, err, len);
	free(opts);
	return rc;
}

json_t *sched_opts_json(const struct sched_ops *ops, const void *opts)
{
	const struct sched_ops *p = policy_of(ops);
	json_t *j = json_object();
	for (const struct sched_opt *o = p->opts; j && o && o->name; o++) {
		const void *f = cfield(opts, o);
		json_t *v = NULL;
		switch (o->type) {
		case SCHED_OPT_BOOL: v = json_boolean(*(const bool *)f); break;
		case SCHED_OPT_INT: v = json_integer(*(const int *)f); break;
		case SCHED_OPT_NUM: v = isnan(*(const double *)f) ? json_string("auto") : json_real(*(const double *)f); break;
		case SCHED_OPT_CHOICE: v = json_string(o->choices[*(const int *)f]); break;
		case SCHED_OPT_STR: v = json_string(*(const char *const *)f); break;
		}
		if (json_object_set_new(j, o->name, v)) {
			json_decref(j);
			return NULL;
		}
	}
	return j;
}

static void value_text(const struct sched_opt *o, const void *opts, char *buf, size_t len)
{
	const void *f = cfield(opts, o);
	switch (o->type) {
	case SCHED_OPT_BOOL: snprintf(buf, len, "%s", *(const bool *)f ? "on" : "off"); break;
	case SCHED_OPT_INT: snprintf(buf, len, "%d", *(const int *)f); break;
	case SCHED_OPT_NUM:
		if (isnan(*(const double *)f))
			snprintf(buf, len, "auto");
		else
			snprintf(buf, len, "%g", *(const double *)f);
		break;
	case SCHED_OPT_CHOICE: snprintf(buf, len, "%s", o->choices[*(const int *)f]); break;
	case SCHED_OPT_STR: snprintf(buf, len, "%s", *(const char *const *)f); break;
	}
}

/* text, indented, in lines of at most 80 columns. */
static void wrapped(FILE *out, const char *text, int indent)
{
	int col = 0;
	while (*text) {
		size_t w = strcspn(text, " ");
		if (col && col + 1 + (int)w > 80) {
			fputc('\n', out);
			col = 0;
		}
		if (!col)
			col = fprintf(out, "%*s", indent, "");
		else
			col += fprintf(out, " ");
		col += fprintf(out, "%.*s", (int)w, text);
		text += w;
		text += strspn(text, " ");
	}
	if (col)
		fputc('\n', out);
}

void sched_opts_help(const struct sched_ops *ops, FILE *out)
{
	const struct sched_ops *p = policy_of(ops);
	fprintf(out, "%s: %s\n", ops->name, ops->help);
	if (ops->alias_of) {
		fprintf(out, "an alias of %s with", p->name);
		for (const char *const *q = ops->preset; q && *q; q++)
			fprintf(out, " %s", *q);
		fputc('\n', out);
	}
	if (!p->opts || !p->opts[0].name) {
		fprintf(out, "\nno options\n");
		return;
	}
	void *opts = calloc(1, p->opts_size ? p->opts_size : 1);
	char err[256];
	if (!opts || sched_opts_parse(ops, opts, NULL, 0, err, sizeof err)) {
		free(opts);
		return;
	}
	fprintf(out, "\noptions (--sched-opt KEY=VALUE, repeatable), shown with their defaults:\n");
	for (const struct sched_opt *o = p->opts; o->name; o++) {
		char val[256], what[256];
		value_text(o, opts, val, sizeof val);
		accepts(o, what, sizeof what);
		fprintf(out, "  %s=%s   (%s)\n", o->name, val, what);
		wrapped(out, o->help, 6);
	}
	free(opts);
}
