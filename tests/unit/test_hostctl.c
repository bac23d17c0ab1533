/* Unit tests: a host-ctl's answers (netctl/hostctl.h), on a fabric that is
 * not up here: the protocol, its refusals, and errors that name the step. */
#include "netctl/hostctl.h"
#include "netctl/hostfab.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *topo_text =
	"name = \"g\"; racks = 4; servers_per_rack = 2;\n"
	"server = { rate = \"100Mbit\"; };\n"
	"eps = { uplink_rate = \"20Mbit\"; };\n"
	"ocs = { rate = \"60Mbit\"; };\n";

static const char *hosts_text = "a emulated lan0 10.77.0.1/24 auto\nb emulated lan0 10.77.0.2/24 auto\n";

static char *serve(const char *requests, const char *host, int *status)
{
	struct topo t;
	struct hosts hs;
	char err[FABRIC_ERR_LEN], *out = NULL, *in = NULL;
	size_t outlen = 0;
	cr_assert_eq(topo_load_string(&t, topo_text, "t.conf", 0, err), 0, "%s", err);
	cr_assert_eq(hosts_load_string(&hs, hosts_text, "h", err), 0, "%s", err);
	char *part = hostfab_encode(&t, &hs);
	cr_assert_not_null(part);
	cr_assert_gt(asprintf(&in, "part %zu\n%s%s", strlen(part), part, requests), 0);
	FILE *fin = fmemopen(in, strlen(in), "r"), *fout = open_memstream(&out, &outlen);
	cr_assert(fin && fout);
	/* A prefix no fabric has: nothing of this machine is touched. */
	*status = hostctl_serve("ut_hostctl_none", host, fin, fout);
	fclose(fin);
	fclose(fout);
	free(in);
	free(part);
	return out;
}

Test(hostctl, requests_are_answered_one_line_each_and_bad_ones_named)
{
	int st;
	char *out = serve("circuits 0>1,1>0,2>3,3>2\n"
			  "circuits 0>9\n"
			  "bogus\n"
			  "unroute\n"
			  "stats extra\n"
			  "queued none\n",
			  "b", &st);
	cr_assert_eq(st, 0);
	const char *want[] = {"ok", "ok", "error circuits: ", "error unknown request 'bogus'", "error unknown request 'unroute'",
			      "error unknown request 'stats'", NULL};
	char *line = out;
	for (int i = 0; want[i]; i++) {
		char *nl = strchr(line, '\n');
		cr_assert_not_null(nl, "answer %d missing in:\n%s", i, out);
		*nl = 0;
		cr_assert(!strncmp(line, want[i], strlen(want[i])), "answer %d: '%s', not '%s'", i, line, want[i]);
		line = nl + 1;
	}
	/* Every circuit changes, and the queues of a fabric that is not here
	 * cannot be read: said, in one line. */
	cr_assert_str_eq(line, "error queued: cannot read its queues\n");
	free(out);
}

Test(hostctl, the_first_request_must_be_the_part)
{
	char *out = NULL;
	size_t n = 0;
	FILE *fin = fmemopen("stats\n", 6, "r"), *fout = open_memstream(&out, &n);
	cr_assert_eq(hostctl_serve("ut_hostctl_none", "a", fin, fout), 2);
	fclose(fin);
	fclose(fout);
	cr_assert_str_eq(out, "error expected 'part LEN' first (the controller sends it)\n");
	free(out);
	int st;
	out = serve("", "zz", &st);
	cr_assert_eq(st, 2);
	cr_assert_str_eq(out, "error no such host in the hosts file\n");
	free(out);
}
