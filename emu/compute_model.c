/* compute_model.c — see compute_model.h. */
#include "emu/compute_model.h"

double compute_crosspoint_bytes(double input, double shuffle)
{
	double share = input > 0 ? shuffle / input : (shuffle > 0 ? 1 : 0);
	return CROSSPOINT_BASE_BYTES * (1 + (share < 1 ? share : 1));
}

double compute_speed(enum topo_model model, double speed, const struct job *j, double data_scale)
{
	if (model != TOPO_MODEL_CROSSPOINT)
		return speed;
	double scale = data_scale > 0 ? data_scale : 1;
	double input = (double)j->input_bytes / scale, shuffle = (double)j->shuffle_bytes / scale;
	return input <= compute_crosspoint_bytes(input, shuffle) ? speed : 1;
}
