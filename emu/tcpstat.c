/* tcpstat.c — TCP's timer events from /proc/PID/net/netstat.
 *
 * The file pairs a header line ("TcpExt: Name Name ...") with a line of
 * values in the same order; the names, not their positions, are stable
 * across kernels. */
#include "emu/tcpstat.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long *field(struct tcpstat *st, const char *name)
{
	if (!strcmp(name, "TCPSynRetrans"))
		return &st->syn_retrans;
	if (!strcmp(name, "TCPTimeouts"))
		return &st->timeouts;
	if (!strcmp(name, "DelayedACKs"))
		return &st->delayed_acks;
	return NULL;
}

int tcpstat_add(const char *path, struct tcpstat *st)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char *names = NULL, *values = NULL;
	size_t nlen = 0, vlen = 0;
	int found = -1;
	while (getline(&names, &nlen, f) > 0 && getline(&values, &vlen, f) > 0) {
		if (strncmp(names, "TcpExt:", 7) || strncmp(values, "TcpExt:", 7))
			continue;
		char *ns, *vs;
		char *n = strtok_r(names + 7, " \n", &ns), *v = strtok_r(values + 7, " \n", &vs);
		for (; n && v; n = strtok_r(NULL, " \n", &ns), v = strtok_r(NULL, " \n", &vs)) {
			unsigned long long *to = field(st, n);
			if (to)
				*to += strtoull(v, NULL, 10);
		}
		found = 0;
	}
	free(names);
	free(values);
	fclose(f);
	return found;
}

static unsigned long long minus(unsigned long long a, unsigned long long b)
{
	return a > b ? a - b : 0;
}

void tcpstat_add_since(struct tcpstat *sum, const struct tcpstat *now, const struct tcpstat *then)
{
	sum->syn_retrans += minus(now->syn_retrans, then->syn_retrans);
	sum->timeouts += minus(now->timeouts, then->timeouts);
	sum->delayed_acks += minus(now->delayed_acks, then->delayed_acks);
}
