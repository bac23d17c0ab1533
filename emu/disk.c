/* disk.c — see disk.h. */
#include "emu/disk.h"
#include <stdbool.h>

void disk_split(double budget, const double *want, int n, double *out)
{
	int left = 0;
	for (int i = 0; i < n; i++) {
		out[i] = -1;   /* not settled */
		left += want[i] > 0;
		if (want[i] <= 0)
			out[i] = 0;
	}
	/* Settle the streams that want less than an equal share; each round
	 * only raises the share of the others. */
	for (bool again = true; again && left;) {
		again = false;
		double share = budget / left;
		for (int i = 0; i < n; i++)
			if (out[i] < 0 && want[i] <= share) {
				out[i] = want[i];
				budget -= want[i];
				left--;
				again = true;
			}
	}
	for (int i = 0; i < n; i++)
		if (out[i] < 0)
			out[i] = budget / left;
}
