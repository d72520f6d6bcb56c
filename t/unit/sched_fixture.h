/*
 * sched_fixture.h: the part every scheduler-core unit test builds the same
 * way: one partition "all" holding nodes 0..n-1, up, without limits.
 */
#ifndef SLUICE_SCHED_FIXTURE_H
#define SLUICE_SCHED_FIXTURE_H

#include <stdint.h>

#include "sched/sched.h"
#include "timefmt.h"
#include "xalloc.h"

/* nalloc partitions are allocated (zeroed); the first is set up. */
static inline void fixture_one_part(sched_t *s, uint32_t n, uint32_t nalloc)
{
	s->nparts = 1;
	s->parts = xcalloc(nalloc, sizeof(sched_part_t));
	s->parts[0].name = "all";
	s->parts[0].nodes = xmalloc(n * sizeof(uint32_t));
	for (uint32_t i = 0; i < n; i++)
		s->parts[0].nodes[i] = i;
	s->parts[0].nnodes = n;
	s->parts[0].up = 1;
	s->parts[0].max_time = TIME_INFINITE;
	s->parts[0].max_nodes = UINT32_MAX;
}

#endif
