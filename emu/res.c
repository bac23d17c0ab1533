/* res.c — see res.h. */
#include "emu/res.h"
#include <math.h>

static int64_t amount(double x, double unit)
{
	return x > 0 ? (int64_t)llround(x * unit) : 0;
}

struct res res_of(double cores, double mem_gb, double disk_mbps)
{
	return (struct res){{amount(cores, 1e3), amount(mem_gb, 1e9), amount(disk_mbps, 1e6)}};
}

struct res res_reference(void)
{
	return res_of(1, 1, 0);
}

bool res_fits(const struct res *ask, const struct res *avail)
{
	for (int k = 0; k < RES_KINDS; k++)
		if (ask->v[k] > avail->v[k])
			return false;
	return true;
}

void res_take(struct res *avail, const struct res *ask)
{
	for (int k = 0; k < RES_KINDS; k++)
		if (avail->v[k] != RES_UNLIMITED)
			avail->v[k] -= ask->v[k];
}

void res_give(struct res *avail, const struct res *ask)
{
	for (int k = 0; k < RES_KINDS; k++)
		if (avail->v[k] != RES_UNLIMITED)
			avail->v[k] += ask->v[k];
}

int res_count(const struct res *avail, const struct res *ask)
{
	int64_t n = INT32_MAX;
	for (int k = 0; k < RES_KINDS; k++) {
		if (ask->v[k] <= 0 || avail->v[k] == RES_UNLIMITED)
			continue;
		int64_t fit = avail->v[k] > 0 ? avail->v[k] / ask->v[k] : 0;
		if (fit < n)
			n = fit;
	}
	return (int)n;
}
