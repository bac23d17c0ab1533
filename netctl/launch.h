/* launch.h — start a program on a host of a hosts file: netctl's per-host
 * part, and the agents' starter of `emu run` (emu-agent --spawn).
 *
 * On an emulated host it runs here, inside the host's namespace
 * (PREFIX-m-NAME), from its local path; on a real host over OpenSSH with
 * the user's own keys and agent (BatchMode: never a password prompt), by
 * its name on the remote PATH.  Either way it is the same command, fed
 * `input` on its standard input, its messages on our standard error. */
#ifndef NETCTL_LAUNCH_H
#define NETCTL_LAUNCH_H
#include "netctl/hosts.h"
#include <sys/types.h>

#define LAUNCH_ERR_LEN 512

/* The netctl beside the running program (bin/netctl for a test binary). */
int launch_netctl_path(char *buf, size_t len);
/* `local` (emulated) or `remote` (real) with args[] after it.  pid, or -1
 * with err.  keep NULL: its standard input ends after `input`; else the
 * pipe's write end (close-on-exec) is left in *keep, and closing it is
 * how the program learns the end (ssh passes the EOF on).  out NULL: its
 * standard output is ours; else a pipe's read end (close-on-exec). */
pid_t launch_start(const char *local, const char *remote, const char *prefix, const struct fabric_host *h,
		   const char *const args[], const char *input, int *keep, int *out, char err[LAUNCH_ERR_LEN]);
/* `netctl --prefix P ARGS...`: launch_start of the netctl given. */
pid_t launch_part(const char *netctl, const char *prefix, const struct fabric_host *h, const char *const args[],
		  const char *input, char err[LAUNCH_ERR_LEN]);
/* Its exit status (128 + signal if killed), -1 if it cannot be waited for. */
int launch_wait(pid_t pid);
#endif
