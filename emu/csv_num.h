/* csv_num.h — numbers for the CSVs written a line per transfer or per link
 * and sample (flows.csv, links.csv: millions of lines at paper scale),
 * formatted by hand: printf's %f was most of a run's time.  Each returns
 * the end of what it wrote. */
#ifndef EMU_CSV_NUM_H
#define EMU_CSV_NUM_H
#include <math.h>
#include <string.h>

static inline char *csv_int(char *p, long long v)
{
	char d[24];
	int n = 0;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	if (v < 0)
		*p++ = '-';
	do
		d[n++] = (char)('0' + u % 10);
	while ((u /= 10));
	while (n)
		*p++ = d[--n];
	return p;
}

/* x with 3 decimals, as %.3f (rounded in thousandths). */
static inline char *csv_fixed3(char *p, double x)
{
	long long m = llround(x * 1000);
	if (m < 0) {
		*p++ = '-';
		m = -m;
	}
	p = csv_int(p, m / 1000);
	*p++ = '.';
	*p++ = (char)('0' + m / 100 % 10);
	*p++ = (char)('0' + m / 10 % 10);
	*p++ = (char)('0' + m % 10);
	return p;
}

static inline char *csv_str(char *p, const char *s)
{
	size_t k = strlen(s);
	memcpy(p, s, k);
	return p + k;
}
#endif
