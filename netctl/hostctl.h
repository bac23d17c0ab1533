/* hostctl.h — the controller's hands on another host's racks.
 *
 * Over several hosts the controller takes each reconfiguration through
 * every slice (fabric.h: unroute, drain, switch, route) and reads every
 * rack's counters.  The racks of a host other than the controller's are
 * reached through one `netctl host-ctl --host NAME` on that host, started
 * by the launcher (launch.h: inside PREFIX-m-NAME, or over ssh), which does
 * the step there on its own racks and slice and answers each request:
 *
 *   request (a line)                   answer (a line)
 *   part LEN, then LEN bytes           ok           the topology and hosts (hostfab.h)
 *   circuits SPEC                      ok           what the crossbar is set to (if any)
 *   unroute SPEC / switch SPEC / route SPEC   ok
 *   queued SPEC                        ok BYTES     queued towards ports that change
 *   stats                              ok N, then N lines:
 *       RACK CLASS SERVER PORT TX_BYTES RX_BYTES TX_PACKETS RX_PACKETS DROPS BACKLOG MARKED
 *
 * SPEC is a circuit configuration (circuits.h).  A request that fails, or
 * is malformed, is answered `error MESSAGE`; the end of its input ends it.
 * One channel serves one thread's fabric handle.
 *
 * A host whose host-ctl ends, or does not answer within HOSTCTL_WAIT_MS, is
 * lost (its machine, or its ssh session, is gone): said once on standard
 * error, it is left out of the steps from then on and its counters stay at
 * their last values, so a run goes on with the other hosts, as it does
 * when a host's agents are lost. */
#ifndef NETCTL_HOSTCTL_H
#define NETCTL_HOSTCTL_H
#include "netctl/fabric.h"
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#define HOSTCTL_WAIT_MS 10000   /* an answer's longest wait */

struct host_chan {
	pid_t pid;
	int in, out;
	char host[HOST_NAME_MAX_ + 1];
	char buf[8192];
	size_t have;
	bool lost;
	struct link_stats *last;   /* its last counters */
	int nlast;
};

/* Start a host-ctl on every host but the first (the controller's), for
 * f's use from now on.  0, or -1 with err (every one started is ended). */
int fabric_attach_hosts(struct fabric *f, const char *netctl, char err[FABRIC_ERR_LEN]);
/* End them: their input closes, they exit; waited for (fabric_close does this). */
void fabric_detach_hosts(struct fabric *f);
/* `op SPEC` on host `host`; the answer after "ok " in reply (64 bytes, may
 * be NULL).  0; 1 if the host is lost (the step is left out; reply says
 * "0"); -1 with err naming the host if the step failed there. */
int hostctl_call(struct fabric *f, int host, const char *op, const struct circuit_cfg *cfg, char *reply,
		 char err[FABRIC_ERR_LEN]);
/* The counters of host `host`'s racks, in rack order, into out (room for
 * every link of the fabric); *n of them (a lost host's last ones). */
int hostctl_stats(struct fabric *f, int host, struct link_stats *out, int *n, char err[FABRIC_ERR_LEN]);

/* The host's side: serve requests from `in` until it ends.  Its exit
 * status: 0, 2 if the first request is not a part, 1 if the handle
 * cannot be opened. */
int hostctl_serve(const char *prefix, const char *host, FILE *in, FILE *out);
#endif
