/* units.c — see units.h. */
#include "netctl/units.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct unit { const char *name; double mult; };

/* Split "12.5Mbit" into a finite non-negative number and a unit suffix. */
static int split_number(const char *s, double *num, const char **suffix)
{
	char *end;
	if (!s || !*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v < 0)
		return -1;
	*num = v;
	*suffix = end;
	return 0;
}

static int lookup(const struct unit *tab, const char *suffix, double *mult)
{
	for (; tab->name; tab++)
		if (!strcasecmp(tab->name, suffix)) {
			*mult = tab->mult;
			return 0;
		}
	return -1;
}

static int parse_scaled(const char *s, const struct unit *tab, double max, double *out)
{
	double v, mult;
	const char *suffix;
	if (split_number(s, &v, &suffix) || lookup(tab, suffix, &mult))
		return -1;
	v *= mult;
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

int units_parse_rate(const char *s, uint64_t *bps)
{
	static const struct unit tab[] = {
		{"", 1}, {"bit", 1}, {"bps", 1},
		{"k", 1e3}, {"kbit", 1e3}, {"kbps", 1e3},
		{"m", 1e6}, {"mbit", 1e6}, {"mbps", 1e6},
		{"g", 1e9}, {"gbit", 1e9}, {"gbps", 1e9},
		{"t", 1e12}, {"tbit", 1e12}, {"tbps", 1e12},
		{NULL, 0}};
	double v;
	if (parse_scaled(s, tab, 1e15, &v) || v < 1)
		return -1;
	*bps = (uint64_t)llround(v);
	return 0;
}

int units_parse_size(const char *s, uint64_t *bytes)
{
	static const struct unit tab[] = {
		{"", 1}, {"b", 1},
		{"k", 1e3}, {"kb", 1e3}, {"kib", 1024.0},
		{"m", 1e6}, {"mb", 1e6}, {"mib", 1048576.0},
		{"g", 1e9}, {"gb", 1e9}, {"gib", 1073741824.0},
		{"t", 1e12}, {"tb", 1e12}, {"tib", 1099511627776.0},
		{NULL, 0}};
	double v;
	if (parse_scaled(s, tab, 1e18, &v))
		return -1;
	*bytes = (uint64_t)llround(v);
	return 0;
}

int units_parse_time(const char *s, double *seconds)
{
	static const struct unit tab[] = {
		{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9},
		{"min", 60}, {"h", 3600}, {NULL, 0}};
	return parse_scaled(s, tab, 1e9, seconds);
}

static char *fmt_scaled(double v, const char *const *names, double step, char *buf, size_t len)
{
	int i = 0;
	while (v >= step && names[i + 1]) {
		v /= step;
		i++;
	}
	snprintf(buf, len, "%.4g%s", v, names[i]);
	return buf;
}

char *units_fmt_rate(uint64_t bps, char *buf, size_t len)
{
	static const char *const names[] = {"bit", "Kbit", "Mbit", "Gbit", "Tbit", NULL};
	return fmt_scaled((double)bps, names, 1000, buf, len);
}

char *units_fmt_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const names[] = {"B", "KB", "MB", "GB", "TB", NULL};
	return fmt_scaled((double)bytes, names, 1000, buf, len);
}
