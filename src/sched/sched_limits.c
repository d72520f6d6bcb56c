/*
 * sched_limits.c: accounting limits in the pure scheduler core
 * (sched_limits.h).
 */
#include "sched_limits.h"

void lim_set_clear(lim_set_t *l)
{
	uint64_t *p = (uint64_t *)l;
	for (unsigned i = 0; i < sizeof(*l) / sizeof(uint64_t); i++)
		p[i] = LIM_UNSET;
}
