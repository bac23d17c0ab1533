/* launch.h — start netctl's per-host part on a host of a hosts file.
 *
 * An emulated host's part runs here, inside the host's namespace
 * (PREFIX-m-NAME); a real host's over OpenSSH with the user's own keys and
 * agent (BatchMode: never a password prompt), as `netctl` on the remote
 * PATH.  Either way it is the same command, `netctl --prefix P ARGS...`,
 * fed `input` on its standard input, its messages on our standard error. */
#ifndef NETCTL_LAUNCH_H
#define NETCTL_LAUNCH_H
#include "netctl/hosts.h"
#include <sys/types.h>

#define LAUNCH_ERR_LEN 512

/* The netctl beside the running program (bin/netctl for a test binary). */
int launch_netctl_path(char *buf, size_t len);
/* pid of the launched part, or -1 with err. */
pid_t launch_part(const char *netctl, const char *prefix, const struct fabric_host *h, const char *const args[],
		  const char *input, char err[LAUNCH_ERR_LEN]);
/* Its exit status (128 + signal if killed), -1 if it cannot be waited for. */
int launch_wait(pid_t pid);
#endif
