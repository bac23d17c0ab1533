/* leak.h — count circuit-marked bytes that a ToR sends over the EPS.
 *
 * Marked (TOS 0x08) traffic should wait for or take a circuit; what crosses
 * the EPS instead is leakage (during reconfigurations, or by design in
 * "fallback" mode).  Each ToR gets an nftables counter on its forward path
 * out of the uplink; tc has no byte counter for a match without an action,
 * and this kernel has no gact/police actions to attach one to. */
#ifndef NETCTL_LEAK_H
#define NETCTL_LEAK_H
#include <stdint.h>

/* Both act on the calling thread's network namespace (a ToR's). */
int leak_install(char *err, int errlen);
int leak_read(uint64_t *bytes, uint64_t *packets);
#endif
