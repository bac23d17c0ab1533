/* Shared helpers for integration tests that build real fabrics. */
#ifndef TESTS_FABRIC_FIXTURE_H
#define TESTS_FABRIC_FIXTURE_H
#include "netctl/fabric.h"
#include "netctl/ns.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Skip (with the reason) unless we can build namespaces. */
static inline void fx_need_root(void)
{
	if (geteuid() != 0)
		cr_skip_test("needs root: integration tests build network namespaces (run make check as root)");
}

/* The kernel frees deleted namespaces (and their veths and qdiscs) in the
 * background; on 2 cores that work steals ~10% from the next test's flows.
 * Wait (at most 3 s) until the count of allocated network namespaces
 * stops changing. */
static inline void fx_settle(void)
{
	long prev = -1;
	int same = 0;
	for (int i = 0; i < 30 && same < 3; i++) {
		FILE *f = fopen("/proc/slabinfo", "r");
		char line[512];
		long active = -2;
		while (f && fgets(line, sizeof line, f))
			if (!strncmp(line, "net_namespace ", 14))
				sscanf(line + 14, "%ld", &active);
		if (f)
			fclose(f);
		same = active == prev ? same + 1 : 0;
		prev = active;
		usleep(100000);
	}
}

/* Bring up a topology given as text under `prefix`; fails the test on error. */
static inline void fx_up(const char *prefix, const char *text, struct topo *t)
{
	char err[FABRIC_ERR_LEN];
	fabric_down(prefix, NULL);
	fx_settle();
	cr_assert_eq(topo_load_string(t, text, "test.conf", 0, err), 0, "%s", err);
	cr_assert_eq(fabric_up(t, prefix, NULL, err), 0, "up: %s", err);
}

static inline void fx_count_one(const char *name, void *arg) { (void)name; ++*(int *)arg; }

static inline int fx_ns_count(const char *prefix)
{
	int n = 0;
	ns_list(prefix, fx_count_one, &n);
	return n;
}

/* Count namespaces named PREFIX-* as `ip netns list` sees them: an
 * independent check of what the library reports. */
static inline int fx_ip_netns_count(const char *prefix)
{
	char cmd[128], line[256];
	int n = 0;
	snprintf(cmd, sizeof cmd, "ip netns list 2>/dev/null");
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	size_t len = strlen(prefix);
	while (fgets(line, sizeof line, p))
		if (!strncmp(line, prefix, len) && line[len] == '-')
			n++;
	pclose(p);
	return n;
}

/* Path of the program `name` built beside this test binary (in its bin/). */
static inline void fx_bin_path(const char *name, char *buf, size_t len)
{
	char self[512];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	self[n > 0 ? n : 0] = 0;
	char *slash = strrchr(self, '/');
	if (slash)
		*slash = 0;
	snprintf(buf, len, "%s/bin/%s", self, name);
}

static inline void fx_netctl_path(char *buf, size_t len)
{
	fx_bin_path("netctl", buf, len);
}
#endif
