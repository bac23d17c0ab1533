/*
 * emu — the controller's command-line front end.
 *
 * `emu CMD [ARGS]` dispatches through the table below; every command is a
 * `int fn(int argc, char **argv)` whose argv[0] is the command name and
 * whose return value is the exit status (0 ok, 1 runtime failure, 2 bad
 * usage or input).  To add a command, declare it in emu/cli/cmds.h, put it
 * in its own file under emu/cli/ and add a row to cmds[].
 *
 *   emu match [--directed] [FILE|-]
 *       Read an edge list ("u v w" per line, '#' comments, blank lines)
 *       and print a maximum-weight matching, one "u v" pair per line, then
 *       "total W".  With --directed, "u v w" is a demand of w bytes from
 *       rack u to rack v, the result is the best set of one-way circuits
 *       (each rack transmits to and receives from at most one rack), and
 *       pairs print as "u>v".
 */
#include "emu/cli/cmds.h"
#include "emu/match.h"
#include "emu/ocs_match.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cmd {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
};

static int cmd_match(int argc, char **argv);
static int cmd_help(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "run", cmd_run, "run a workload on an emulated cluster (no options: the built-in default)" },
	{ "cleanup", cmd_cleanup, "remove everything a run made under a prefix (also after a crash)" },
	{ "match", cmd_match, "maximum-weight matching of an edge list (OCS configuration)" },
	{ "view", cmd_view, "show a finished run's results in the browser, with a time slider" },
	{ "ocs", cmd_ocs, "run the OCS controller on a fabric that is up, replaying a demand schedule" },
	{ "help", cmd_help, "show this help" },
};

#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: emu COMMAND [ARGS]   (emu COMMAND --help for details)\n\ncommands:\n");
	for (size_t i = 0; i < NCMDS; i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].help);
}

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stdout);
	return 0;
}

/* ---- emu match ------------------------------------------------------ */

/* Largest node id + 1 accepted: the solvers are dense (O(n^2) memory). */
#define MATCH_MAX_NODES 4096

struct in_edge {
	int u, v;
	int64_t w;
	long line;
};

static void match_usage(FILE *f)
{
	fprintf(f,
		"usage: emu match [--directed] [FILE|-]\n"
		"\n"
		"Read an edge list from FILE (default: standard input), one edge per\n"
		"line as \"u v w\": node ids 0..%d, integer weight w >= 0.  '#' starts a\n"
		"comment; blank lines are ignored.  Print a maximum-weight matching as\n"
		"\"u v\" lines (u < v) and \"total W\".  Zero-weight edges are never matched.\n"
		"\n"
		"  --directed   \"u v w\" is a demand of w bytes from rack u to rack v; print\n"
		"               the best one-way circuits as \"u>v\" (each rack sends to and\n"
		"               receives from at most one rack).\n"
		"  -h, --help   show this help\n",
		MATCH_MAX_NODES - 1);
}

/* Parse one integer token; returns the end pointer or NULL.  *big is set
 * when the value does not fit a long long. */
static char *parse_int(char *p, long long *out, int *big)
{
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p)
		return NULL;
	char *end;
	errno = 0;
	*out = strtoll(p, &end, 10);
	if (end == p || (*end && *end != ' ' && *end != '\t'))
		return NULL;
	*big = errno == ERANGE;
	return end;
}

/* Parse one line into e; on error print FILE:LINE: problem, return -1;
 * return 0 for an edge, 1 for a blank/comment line. */
static int parse_line(const char *file, long ln, char *line, struct in_edge *e)
{
	char *hash = strchr(line, '#');
	if (hash)
		*hash = 0;
	line[strcspn(line, "\r\n")] = 0;
	char *p = line;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p)
		return 1;
	long long v[3];
	int big[3];
	for (int k = 0; k < 3; k++)
		if (!(p = parse_int(p, &v[k], &big[k]))) {
			fprintf(stderr, "%s:%ld: expected \"u v w\" (three integers)\n", file, ln);
			return -1;
		}
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p) {
		fprintf(stderr, "%s:%ld: trailing text after \"u v w\"\n", file, ln);
		return -1;
	}
	for (int k = 0; k < 2; k++)
		if (big[k] || v[k] < 0 || v[k] >= MATCH_MAX_NODES) {
			fprintf(stderr, "%s:%ld: node id out of range 0..%d\n", file, ln,
				MATCH_MAX_NODES - 1);
			return -1;
		}
	if (big[2] || v[2] < 0) {
		fprintf(stderr, "%s:%ld: weight must be an integer in 0..%lld\n", file, ln,
			(long long)INT64_MAX);
		return -1;
	}
	if (v[0] == v[1]) {
		fprintf(stderr, "%s:%ld: self-loop %lld %lld\n", file, ln, v[0], v[1]);
		return -1;
	}
	*e = (struct in_edge){ (int)v[0], (int)v[1], v[2], ln };
	return 0;
}

/* Sort key of an edge: (u, v) when directed, ({min, max}) otherwise. */
struct key {
	int a, b;
};

static struct key edge_key(const struct in_edge *e, int directed)
{
	if (directed || e->u < e->v)
		return (struct key){ e->u, e->v };
	return (struct key){ e->v, e->u };
}

static int cmp_directed;

static int edge_cmp(const void *pa, const void *pb)
{
	const struct in_edge *x = pa, *y = pb;
	struct key a = edge_key(x, cmp_directed), b = edge_key(y, cmp_directed);
	if (a.a != b.a)
		return a.a < b.a ? -1 : 1;
	if (a.b != b.b)
		return a.b < b.b ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

/* Report the earliest line that repeats an edge; return -1 if any. */
static int check_duplicates(const char *file, struct in_edge *e, size_t m, int directed)
{
	if (m < 2)
		return 0;
	cmp_directed = directed;   /* qsort has no context argument */
	qsort(e, m, sizeof(*e), edge_cmp);
	size_t at = 0;
	for (size_t i = 1; i < m; i++) {
		struct key a = edge_key(&e[i], directed), b = edge_key(&e[i - 1], directed);
		if (a.a == b.a && a.b == b.b && (!at || e[i].line < e[at].line))
			at = i;
	}
	if (!at)
		return 0;
	/* The earliest repeat of a group is its second line (groups are sorted
	 * by line), so e[at - 1] is the first occurrence. */
	fprintf(stderr, "%s:%ld: duplicate %s %d %d (first on line %ld)\n", file,
		e[at].line, directed ? "demand" : "edge", e[at].u, e[at].v, e[at - 1].line);
	return -1;
}

static int cmd_match(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "directed", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int directed = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "dh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			directed = 1;
			break;
		case 'h':
			match_usage(stdout);
			return 0;
		default:
			match_usage(stderr);
			return 2;
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, "emu match: too many arguments\n");
		match_usage(stderr);
		return 2;
	}
	const char *path = optind < argc ? argv[optind] : "-";
	int use_stdin = !strcmp(path, "-");
	const char *name = use_stdin ? "<stdin>" : path;
	FILE *f = use_stdin ? stdin : fopen(path, "r");
	if (!f) {
		fprintf(stderr, "emu match: %s: %s\n", path, strerror(errno));
		return 2;
	}

	struct in_edge *edges = NULL;
	size_t m = 0, cap = 0;
	char *line = NULL;
	size_t lcap = 0;
	long ln = 0;
	int rc = 2, n = 0;
	int *mate = NULL;
	int64_t *dm = NULL;
	while (getline(&line, &lcap, f) >= 0) {
		struct in_edge e;
		int r = parse_line(name, ++ln, line, &e);
		if (r < 0)
			goto out;
		if (r > 0)
			continue;
		if (m == cap) {
			cap = cap ? 2 * cap : 256;
			struct in_edge *ne = realloc(edges, cap * sizeof(*edges));
			if (!ne) {
				rc = 1;
				fprintf(stderr, "emu match: out of memory\n");
				goto out;
			}
			edges = ne;
		}
		edges[m++] = e;
		if (e.u >= n)
			n = e.u + 1;
		if (e.v >= n)
			n = e.v + 1;
	}
	if (ferror(f)) {
		fprintf(stderr, "emu match: %s: read error\n", name);
		goto out;
	}
	if (check_duplicates(name, edges, m, directed))
		goto out;

	int64_t total = 0;
	int err;
	mate = malloc(sizeof(*mate) * (size_t)(n ? n : 1));
	if (!mate) {
		err = -ENOMEM;
	} else if (directed) {
		dm = calloc((size_t)n * n + 1, sizeof(*dm));
		if (!dm) {
			err = -ENOMEM;
		} else {
			for (size_t i = 0; i < m; i++)
				dm[(size_t)edges[i].u * n + edges[i].v] = edges[i].w;
			err = ocs_match_directed(n, dm, NULL, mate, &total);
		}
	} else {
		struct match_edge *me = malloc(sizeof(*me) * (m ? m : 1));
		if (!me) {
			err = -ENOMEM;
		} else {
			for (size_t i = 0; i < m; i++)
				me[i] = (struct match_edge){ edges[i].u, edges[i].v, edges[i].w };
			err = match_max_weight(n, me, m, NULL, mate, &total);
			free(me);
		}
	}
	if (err == -ERANGE) {
		fprintf(stderr, "%s: weights too large for %d nodes (overflow bound: "
			"see emu/match.h)\n", name, n);
		goto out;
	}
	if (err) {
		fprintf(stderr, "emu match: %s\n", strerror(-err));
		rc = 1;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		if (mate[i] < 0 || (!directed && mate[i] < i))
			continue;
		printf(directed ? "%d>%d\n" : "%d %d\n", i, mate[i]);
	}
	printf("total %lld\n", (long long)total);
	rc = fflush(stdout) ? 1 : 0;
out:
	free(line);
	free(edges);
	free(mate);
	free(dm);
	if (!use_stdin)
		fclose(f);
	return rc;
}

const char *cli_default_prefix(void)
{
	const char *env = getenv("EMU_PREFIX");
	return env && *env ? env : "emu";
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < NCMDS; i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "emu: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
