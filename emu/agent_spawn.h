/* agent_spawn.h — start a task agent inside a server's network namespace.
 *
 * The child joins the namespace (setns CLONE_NEWNET), asks for SIGKILL when
 * its parent dies (PR_SET_PDEATHSIG; note: the parent *thread* — spawn from
 * a thread that lives as long as the agents), closes every inherited fd but
 * 0-2, and execs the agent.  Only the child changes namespace. */
#ifndef EMU_AGENT_SPAWN_H
#define EMU_AGENT_SPAWN_H
#include <stddef.h>
#include <sys/types.h>

/* fork + setns(ns_fd) + execv(agent_path, argv).  Returns the child's pid,
 * or -1 with errno if fork failed.  A child that cannot join the namespace
 * or exec exits with status 127 (after a line on stderr). */
pid_t agent_spawn(const char *agent_path, int ns_fd, char *const argv[]);
/* The same with stdin_fd as the agent's standard input (-1: inherited);
 * ns_fd -1: the caller's namespace. */
pid_t agent_spawn_stdin(const char *agent_path, int ns_fd, int stdin_fd, char *const argv[]);

/* The agent binary beside the calling executable: dirname(/proc/self/exe)
 * + "/emu-agent".  0, or -1 if it does not fit or /proc is unreadable (the
 * file's existence is not checked). */
int agent_default_path(char *buf, size_t len);
#endif
