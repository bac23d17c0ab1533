/* units.h — parse and print rates, sizes and durations as users write them.
 *
 * Rates are bits per second ("100Mbit", "1Gbps", "10G", "2.5gbit"): networking
 * papers speak in bits, so "bps" means bits/s here (unlike tc, where it means
 * bytes/s).  Sizes are bytes ("100KB" = 100000, "64KiB" = 65536).  Durations
 * accept "10ms", "1.5s", "250us".  Each parser returns 0 on success and -1 on
 * bad input, leaving *out untouched. */
#ifndef NETCTL_UNITS_H
#define NETCTL_UNITS_H
#include <stdint.h>
#include <stddef.h>

int units_parse_rate(const char *s, uint64_t *bps);
int units_parse_size(const char *s, uint64_t *bytes);
int units_parse_time(const char *s, double *seconds);

/* Human-readable forms ("100Mbit", "1.5Gbit", "64KB"); return buf. */
char *units_fmt_rate(uint64_t bps, char *buf, size_t len);
char *units_fmt_size(uint64_t bytes, char *buf, size_t len);
#endif
