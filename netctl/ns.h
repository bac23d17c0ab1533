/* ns.h — named network namespaces, compatible with `ip netns`.
 *
 * A namespace is kept alive by a bind mount of its nsfs inode on
 * /run/netns/NAME, exactly as iproute2 does, so `ip netns exec` works on
 * everything emu creates.  Creation switches the *calling thread* into the
 * new namespace (setns/unshare act per thread); the caller configures it and
 * returns with ns_enter(root_fd). */
#ifndef NETCTL_NS_H
#define NETCTL_NS_H
#include <stdbool.h>
#include <sys/types.h>

#define NETNS_RUN_DIR "/run/netns"

/* Create /run/netns/NAME, unshare into a fresh netns and bind it there.
 * On success the calling thread is inside it and the ns fd is returned;
 * -1 with errno (EEXIST if the name is taken) otherwise. */
int ns_create(const char *name);
int ns_open(const char *name);           /* O_RDONLY fd, -1 with errno */
int ns_enter(int fd);                    /* setns(fd, CLONE_NEWNET) */
int ns_self(void);                       /* fd of the calling thread's netns */
/* Unmount and remove /run/netns/NAME.  0 if gone (or never existed). */
int ns_delete(const char *name);

/* Call fn for each /run/netns entry starting with "PREFIX-" (all entries
 * when prefix is NULL).  Returns the number visited. */
int ns_list(const char *prefix, void (*fn)(const char *name, void *arg), void *arg);

/* SIGKILL every process whose network namespace is one of PREFIX-*; wait up
 * to timeout_ms until /proc no longer lists them (reaped, not just dead;
 * our own children excepted, which the caller reaps).  Returns the number
 * of processes signalled. */
int ns_kill_processes(const char *prefix, int timeout_ms);
/* The same, sparing the namespaces keep() says to keep. */
int ns_kill_processes_except(const char *prefix, bool (*keep)(const char *name, void *arg), void *arg,
			     int timeout_ms);

/* Write a sysctl of the calling thread's namespace, e.g.
 * sysctl_set("net/ipv4/ip_forward", "1").  0 or -1 with errno. */
int sysctl_set(const char *key, const char *value);
int sysctl_get(const char *key, char *buf, size_t len);
#endif
