/* key_sort.c — a stable LSD radix sort of ids by their keys' bits (key_sort.h). */
#include "emu/sched/key_sort.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The key's bits in an order that unsigned comparison keeps. */
static uint64_t bits(double x, bool desc)
{
	uint64_t u;
	if (x == 0)
		x = 0;   /* -0 as 0 */
	memcpy(&u, &x, sizeof u);
	u = u >> 63 ? ~u : u | (uint64_t)1 << 63;
	return desc ? ~u : u;
}

int key_sort(int *ids, int n, const double *key, bool desc)
{
	enum { B = 11, R = 1 << B, PASSES = (64 + B - 1) / B };
	if (n < 2)
		return 0;
	uint64_t *k = malloc(2 * (size_t)n * sizeof *k);
	int *id2 = malloc((size_t)n * sizeof *id2);
	size_t *cnt = calloc((size_t)PASSES * R, sizeof *cnt);
	if (!k || !id2 || !cnt) {
		free(k);
		free(id2);
		free(cnt);
		return -1;
	}
	/* Every pass's counts in one read of the keys; the passes move keys and
	 * ids between two buffers (no copy back but at the end). */
	uint64_t *k2 = k + n;
	for (int i = 0; i < n; i++) {
		k[i] = bits(key[ids[i]], desc);
		for (int p = 0; p < PASSES; p++)
			cnt[p * R + ((k[i] >> (p * B)) & (R - 1))]++;
	}
	int *from = ids, *to = id2;
	for (int p = 0; p < PASSES; p++) {
		int shift = p * B;
		size_t *c = cnt + p * R;
		if (c[(k[0] >> shift) & (R - 1)] == (size_t)n)
			continue;   /* one digit for all: the order stands */
		size_t sum = 0;
		for (int d = 0; d < R; d++) {
			size_t x = c[d];
			c[d] = sum;
			sum += x;
		}
		for (int i = 0; i < n; i++) {
			size_t at = c[(k[i] >> shift) & (R - 1)]++;
			k2[at] = k[i];
			to[at] = from[i];
		}
		uint64_t *kt = k;
		k = k2;
		k2 = kt;
		int *it = from;
		from = to;
		to = it;
	}
	if (from != ids)
		memcpy(ids, from, (size_t)n * sizeof *ids);
	free(k < k2 ? k : k2);
	free(id2);
	free(cnt);
	return 0;
}
