/* flows.csv's writer thread (emu/flow_log.c): every line put comes out, in
 * order, formatted as printf would, across chunks and at close. */
#include "emu/flow_log.h"
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* No time falls on a thousandth and a half exactly: there csv_fixed3
 * rounds away from 0, printf to even. */
static struct flow_line line_of(int i)
{
	return (struct flow_line){.id = i, .kind = "ils"[i % 3], .job = i % 7, .task = i / 3, .src = i % 600,
				  .dst = (i * 7) % 600, .src_rack = i % 20, .dst_rack = (i * 7) % 20,
				  .bytes = (uint64_t)i * 1000003u, .t_start = i / 1000.7, .t_moved = i / 700.3,
				  .t_end = i / 300.0, .circuit = i % 5 == 0, .done = i % 4 != 0};
}

Test(flow_log, every_line_comes_out_in_order_as_printf_writes_it)
{
	FILE *f = tmpfile();
	cr_assert_not_null(f);
	fputs("header\n", f);
	struct flow_log *l = flow_log_open(f);
	cr_assert_not_null(l);
	const int n = 40000;   /* two whole chunks and part of a third */
	for (int i = 0; i < n; i++) {
		struct flow_line x = line_of(i);
		flow_log_put(l, &x);
	}
	flow_log_close(l);
	cr_assert_not(ferror(f));
	rewind(f);
	char got[512], want[512];
	cr_assert_not_null(fgets(got, sizeof got, f));
	cr_assert_str_eq(got, "header\n");
	for (int i = 0; i < n; i++) {
		struct flow_line x = line_of(i);
		snprintf(want, sizeof want, "%d,%s,%d,%d,%d,%d,%d,%d,%llu,%.3f,%.3f,%.3f,%d,%d\n", x.id,
			 x.kind == 'i' ? "input" : x.kind == 'l' ? "local" : "shuffle", x.job, x.task, x.src, x.dst,
			 x.src_rack, x.dst_rack, (unsigned long long)x.bytes, x.t_start, x.t_moved, x.done ? x.t_end : -1.0,
			 x.circuit, x.done);
		cr_assert_not_null(fgets(got, sizeof got, f), "line %d missing", i);
		cr_assert_str_eq(got, want, "line %d", i);
	}
	cr_assert_null(fgets(got, sizeof got, f), "a line too many");
	fclose(f);
}
