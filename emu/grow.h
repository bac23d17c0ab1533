/* grow.h — an array that doubles as it fills. */
#ifndef EMU_GROW_H
#define EMU_GROW_H
#include <stdlib.h>

/* Room for `need` elements of `size` bytes in *pp (any pointer), whose
 * capacity *cap doubles as needed (from `first`).  -1: out of memory, *pp
 * unchanged. */
static inline int grow(void *pp, int *cap, int need, size_t size, int first)
{
	if (need <= *cap)
		return 0;
	int c = *cap ? *cap : first;
	while (c < need)
		c *= 2;
	void *q = realloc(*(void **)pp, (size_t)c * size);
	if (!q)
		return -1;
	*(void **)pp = q;
	*cap = c;
	return 0;
}
#endif
