/* registry.c — every scheduler, by name: the policies and the aliases that
 * name a policy with options preset.  Adding a policy = one file in
 * emu/sched/ and one line here. */
#include "emu/sched.h"
#include <string.h>

extern const struct sched_ops sched_fifo, sched_fair, sched_delay;
extern const struct sched_ops sched_jobpacker, sched_corral;
extern const struct sched_ops sched_nas, sched_nas_mts, sched_nas_nott, sched_nas_noadapt, sched_swdelay;
extern const struct sched_ops sched_dawn;
extern const struct sched_ops sched_dsp, sched_dsp_nopp, sched_srpt, sched_aalo, sched_amoeba, sched_natjam;
extern const struct sched_ops sched_hfs, sched_hds, sched_h_wo_p, sched_h_wo_js, sched_h_wo_dps;
extern const struct sched_ops sched_tetris, sched_tetris_nodep, sched_tetris_simdep;
extern const struct sched_ops sched_cobra, sched_cobra_default, sched_srs, sched_drs;
extern const struct sched_ops sched_fawkes;

static const struct sched_ops *const all[] = {
	&sched_fifo,
	&sched_fair,
	&sched_delay,
	&sched_jobpacker, &sched_corral,
	&sched_nas, &sched_nas_mts, &sched_nas_nott, &sched_nas_noadapt, &sched_swdelay,
	&sched_dawn,
	&sched_dsp, &sched_dsp_nopp, &sched_srpt, &sched_aalo, &sched_amoeba, &sched_natjam,
	&sched_hfs, &sched_hds, &sched_h_wo_p, &sched_h_wo_js, &sched_h_wo_dps,
	&sched_tetris, &sched_tetris_nodep, &sched_tetris_simdep,
	&sched_cobra, &sched_cobra_default, &sched_srs, &sched_drs,
	&sched_fawkes,
};

const struct sched_ops *sched_find(const char *name)
{
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

void sched_list(FILE *out)
{
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		fprintf(out, "  %-11s %s\n", all[i]->name, all[i]->help);
		if (!all[i]->alias_of)
			continue;
		fprintf(out, "  %-11s = %s", "", all[i]->alias_of->name);
		for (const char *const *q = all[i]->preset; q && *q; q++)
			fprintf(out, " %s", *q);
		fputc('\n', out);
	}
}
