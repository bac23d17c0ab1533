/* demand.c — reader of the OCS demand schedule (demand.h). */
#include "emu/demand.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEMAND_MAX_LINE 4096

int demand_schedule_read(const char *path, int racks, struct demand_step **out, int *n, char err[256])
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL;
	size_t cap_line = 0;
	ssize_t len;
	int cap = 0, line_no = 0;
	*out = NULL;
	*n = 0;
	if (!f) {
		snprintf(err, 256, "%s: %s", path, strerror(errno));
		return -1;
	}
	while ((len = getline(&line, &cap_line, f)) >= 0) {
		line_no++;
		const char *why = NULL;
		char *p = line, *end;
		if (len > DEMAND_MAX_LINE)
			why = "line too long";
		else if (strlen(line) != (size_t)len)
			why = "NUL byte in line";
		if (!why) {
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p == '#' || *p == '\n' || *p == '\r' || !*p)
				continue;
		}
		struct demand_step s = {0};
		long src = -1, dst = -1;
		long long bytes = -1;
		if (!why) {
			errno = 0;
			s.t = strtod(p, &end);
			if (end > p)
				src = strtol(p = end, &end, 10);
			if (end > p)
				dst = strtol(p = end, &end, 10);
			if (end > p)
				bytes = strtoll(p = end, &end, 10);
			while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
				end++;
			if (end == p || *end || errno)
				why = "expected 'T SRC DST BYTES'";
			else if (!(s.t >= 0) || !isfinite(s.t))
				why = "time must be >= 0";
			else if (src < 0 || src >= racks || dst < 0 || dst >= racks)
				why = "no such rack";
			else if (src == dst)
				why = "source and destination rack are the same";
			else if (bytes < 0)
				why = "bytes must be >= 0";
			else if (*n && s.t < (*out)[*n - 1].t)
				why = "times must not decrease";
		}
		if (why) {
			snprintf(err, 256, "%s:%d: %s", path, line_no, why);
			free(*out);
			*out = NULL;
			*n = 0;
			free(line);
			if (f != stdin)
				fclose(f);
			return -1;
		}
		s.src = (int)src;
		s.dst = (int)dst;
		s.bytes = bytes;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			struct demand_step *grown = realloc(*out, (size_t)cap * sizeof **out);
			if (!grown)
				abort();
			*out = grown;
		}
		(*out)[(*n)++] = s;
	}
	free(line);
	int bad = ferror(f);
	if (f != stdin)
		fclose(f);
	if (bad) {
		snprintf(err, 256, "%s: read error", path);
		free(*out);
		*out = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}
