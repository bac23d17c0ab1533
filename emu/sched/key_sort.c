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
	enum { B = 11, R = 1 << B };
	if (n < 2)
		return 0;
	uint64_t *k = malloc(2 * (size_t)n * sizeof *k);
	int *id2 = malloc((size_t)n * sizeof *id2);
	size_t *cnt = malloc(R * sizeof *cnt);
	if (!k || !id2 || !cnt) {
		free(k);
		free(id2);
		free(cnt);
		return -1;
	}
	uint64_t *k2 = k + n;
	for (int i = 0; i < n; i++)
		k[i] = bits(key[ids[i]], desc);
	for (int shift = 0; shift < 64; shift += B) {
		memset(cnt, 0, R * sizeof *cnt);
		for (int i = 0; i < n; i++)
			cnt[(k[i] >> shift) & (R - 1)]++;
		if (cnt[(k[0] >> shift) & (R - 1)] == (size_t)n)
			continue;   /* one digit for all: the order stands */
		size_t sum = 0;
		for (int d = 0; d < R; d++) {
			size_t c = cnt[d];
			cnt[d] = sum;
			sum += c;
		}
		for (int i = 0; i < n; i++) {
			size_t at = cnt[(k[i] >> shift) & (R - 1)]++;
			k2[at] = k[i];
			id2[at] = ids[i];
		}
		memcpy(k, k2, (size_t)n * sizeof *k);
		memcpy(ids, id2, (size_t)n * sizeof *ids);
	}
	free(k);
	free(id2);
	free(cnt);
	return 0;
}
