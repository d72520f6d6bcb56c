/*
 * sched_why.h: what a pending job lacks on each node, for `sluice why`
 * (the pure core; src/ctld/why.c adds names, times and holders).
 *
 * For one job and one node, sched_why_node says whether the node could
 * ever run the job (as an empty, up node) and, if so, whether it could
 * now, and when not, which dimension falls short and by how much. The
 * same request rules as the scheduler's own placement (sched_req_init,
 * sched_cap_free), so the answer never contradicts what the pass does.
 */
#ifndef SLUICE_SCHED_WHY_H
#define SLUICE_SCHED_WHY_H

#include <stdint.h>

#include "sched.h"

/* Why node x cannot take the job, most fundamental first. */
enum sched_why_code {
	SCHED_WHY_FITS = 0,      /* it could start its share there now */
	/* never, as configured: */
	SCHED_WHY_NOT_IN_PART,   /* not a node of the job's partition */
	SCHED_WHY_EXCLUDED,      /* named by -x/--exclude */
	SCHED_WHY_NOT_LISTED,    /* -w/--nodelist names other nodes */
	SCHED_WHY_NOT_IN_RESV,   /* not a node of the job's --reservation */
	SCHED_WHY_FEATURES,      /* lacks the --constraint features */
	SCHED_WHY_CPUS,          /* fewer CPUs than one task (or the job) needs */
	SCHED_WHY_MEMORY,        /* less memory than the job asks per node */
	SCHED_WHY_GPUS,          /* fewer GPUs (of the type) than asked */
	SCHED_WHY_SHAPE,         /* each fits alone, the combination does not */
	/* not now: */
	SCHED_WHY_UNUSABLE,      /* down, drained, failing or not responding */
	SCHED_WHY_RESV_LATER,    /* its reservation has not started yet */
	SCHED_WHY_RESERVED,      /* another reservation holds it over the time
	                          * the job would run */
	SCHED_WHY_EXCLUSIVE,     /* another job holds it whole (--exclusive) */
	SCHED_WHY_OTHER_USER,    /* a user-exclusive job of another user */
	SCHED_WHY_BUSY_CPUS,     /* not enough free CPUs */
	SCHED_WHY_BUSY_MEMORY,   /* not enough free memory */
	SCHED_WHY_BUSY_GPUS,     /* not enough free GPUs */
	SCHED_WHY_BUSY,          /* free resources, not in the combination */
	SCHED_WHY_NCODES
};

/* "never" codes: nothing that ends makes the node fit. */
#define SCHED_WHY_NEVER(c) ((c) >= SCHED_WHY_NOT_IN_PART && (c) <= SCHED_WHY_SHAPE)

typedef struct sched_why_node {
	uint32_t code;           /* enum sched_why_code */
	/* What the job needs on one node (its smallest share: one task, or
	 * its per-node request) and what the node has in all / free now. */
	uint32_t cpus_need, cpus_total, cpus_free;
	uint64_t mem_need, mem_total, mem_free;          /* MB; need 0 = none */
	uint32_t gpus_need, gpus_total, gpus_free;       /* of the job's type */
	uint32_t tasks_now;      /* tasks it could take now (FITS) */
	int planned;             /* held by backfill for a higher-priority job */
	/* RESERVED: the reservation holding it; RESV_LATER, NOT_IN_RESV:
	 * the job's own (borrowed from s->resvs) */
	const sched_resv_t *resv;
} sched_why_node_t;

/* Judge node x for job j (s as the scheduler has it now, at time now:
 * the reservations of s->resvs count over the time the job would run).
 * member: 1 when the caller knows x is a node of the job's partition
 * (walking the partition's list), 0 to have it checked (O(partition
 * nodes)). */
void sched_why_node(const sched_t *s, const sched_job_t *j, uint32_t x, int member,
		    int64_t now, sched_why_node_t *out);

/* Nodes the job needs at least (its -N minimum, raised by -w and
 * constraint counts). */
uint32_t sched_why_min_nodes(const sched_t *s, const sched_job_t *j);

/* A short English name of a code ("busy: GPUs"). */
const char *sched_why_name(uint32_t code);

#endif
