/* features.h — what the running kernel can do for a fabric, found by trying
 * it in a scratch namespace (config files are not always readable, and
 * modules may be missing even when configured). */
#ifndef NETCTL_FEATURES_H
#define NETCTL_FEATURES_H
#include <stdbool.h>

struct features {
	bool veth, htb, bfifo, ingress, u32_mirred, netem;
	bool vxlan, bridge;   /* over several hosts (netctl up --hosts) */
	char detail[512];   /* the first failure's kernel message */
};

/* Probe in namespace PREFIX-probe, removed afterwards.  -1 if the probe
 * itself could not run (not root, no netns support). */
int features_probe(const char *prefix, struct features *f);
/* NULL if a fabric can be built (with an OCS if `ocs`), else what is missing. */
const char *features_missing(const struct features *f, bool ocs);
/* The same for a fabric over several hosts (emulated: on this machine). */
const char *features_missing_hosts(const struct features *f, bool emulated);
#endif
