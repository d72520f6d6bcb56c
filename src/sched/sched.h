/*
 * sched: the pure scheduler core.
 *
 * State and a clock in, decisions out: no sockets, no files, no wall clock.
 * The controller keeps a sched_t mirroring its nodes, partitions and
 * running allocations, and calls sched_pass() with the pending jobs in any
 * order; the core orders them, selects nodes/cores/memory/GPUs, and returns
 * a decision per job (start with this allocation, or stay pending with this
 * reason). The controller applies the starts (sched_alloc_commit) and
 * releases allocations when jobs end (sched_alloc_release). A future
 * simulator and the unit tests drive the same functions.
 *
 * Cost: a pass is O(pending jobs x candidate nodes) in the worst case; jobs
 * that cannot start early-exit (held, begin time, partition down, and once
 * a partition is blocked, lower-priority jobs of it get Reason=Priority
 * without a node search).
 */
#ifndef SLUICE_SCHED_H
#define SLUICE_SCHED_H

#include <stddef.h>
#include <stdint.h>

#define SCHED_MAX_GRES_TYPES 8
#define SCHED_MAX_GPUS 64       /* per node: gpu indices fit a uint64_t mask */

typedef struct sched_gpu_type {
	char type[32];           /* "h100", "" for untyped */
	uint32_t first;          /* first global index on the node */
	uint32_t count;
} sched_gpu_type_t;

typedef struct sched_node {
	const char *name;        /* borrowed from the caller */
	uint32_t cpus;           /* schedulable CPUs */
	uint64_t mem;            /* MB */
	uint32_t weight;
	uint32_t ngpu_types;
	sched_gpu_type_t gpu_types[SCHED_MAX_GRES_TYPES];
	uint32_t ngpus;          /* total */
	char *features;          /* borrowed, "h100,ib" or NULL */
	int leaf;                /* index of its leaf switch, -1 if none */
	/* Mutable state (kept by the core through commit/release): */
	int usable;              /* set by the caller: up, not drained, responding */
	uint32_t cpus_used;
	uint64_t mem_used;
	uint64_t gpus_used;      /* bitmask of used gpu indices */
	uint32_t njobs;
	int exclusive;           /* held by an --exclusive job */
} sched_node_t;

typedef struct sched_part {
	const char *name;
	uint32_t *nodes;         /* node indexes */
	uint32_t nnodes;
	int up;                  /* starts allowed: UP or DRAIN (DRAIN only refuses
	                          * new submissions); DOWN/INACTIVE block starts */
	int inactive;            /* when !up: INACTIVE (else DOWN), for the reason */
	uint32_t max_time;       /* minutes, TIME_INFINITE */
	uint32_t max_nodes, min_nodes;
	uint32_t priority_tier;
	uint64_t def_mem_per_cpu;  /* MB, 0 = none */
} sched_part_t;

typedef struct sched_job {
	uint32_t job_id;
	uint32_t priority;
	int64_t submit_time, begin_time;
	uint32_t part;           /* index into sched_t.parts */
	uint32_t min_nodes, max_nodes;   /* max 0 = min */
	uint32_t ntasks;                 /* total tasks (>= 1) */
	uint32_t cpus_per_task;          /* >= 1 */
	uint32_t ntasks_per_node;        /* 0 = unset */
	uint64_t mem_per_node;           /* MB, 0 = unset */
	uint64_t mem_per_cpu;            /* MB, 0 = unset */
	uint32_t gpus_per_node;          /* from --gres/--gpus-per-node */
	uint32_t gpus_per_job;           /* from --gpus */
	char gpu_type[32];               /* "" = any type */
	uint32_t time_limit;             /* minutes */
	int exclusive;
	int held;                        /* JobHeldUser / JobHeldAdmin */
	uint32_t held_reason;            /* enum job_reason when held */
	int dependency_wait;             /* 1: an unmet dependency (Dependency);
	                                  * 2: one that can never be met
	                                  * (DependencyNeverSatisfied) */
	uint32_t *req_nodes; uint32_t nreq_nodes;   /* -w, node indexes */
	uint32_t *exc_nodes; uint32_t nexc_nodes;   /* -x */
	const char *features;            /* --constraint "a&b" / "a|b" / NULL */
} sched_job_t;

/* The resources one job holds. */
typedef struct sched_alloc {
	uint32_t nnodes;
	uint32_t *nodes;         /* node indexes, ascending */
	uint32_t *cpus;          /* per node */
	uint64_t *mem;           /* per node, MB */
	uint64_t *gpus;          /* per node, bitmask of gpu indices */
	uint32_t *tasks;         /* per node */
	int exclusive;
} sched_alloc_t;

typedef struct sched {
	sched_node_t *nodes; uint32_t nnodes;
	sched_part_t *parts; uint32_t nparts;
} sched_t;

/* A decision for one pending job. */
typedef struct sched_decision {
	uint32_t job_index;      /* index into the array given to sched_pass */
	int start;               /* 1: start now with alloc; 0: stays pending */
	uint32_t reason;         /* enum job_reason when pending */
	char *reason_detail;     /* malloc'd or NULL ("UnavailableNodes:comp032") */
	sched_alloc_t alloc;     /* when start */
} sched_decision_t;

/* Could this job ever run in its partition on an empty, all-up cluster?
 * 0 yes; else an errors.h number (ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE,
 * ESLURM_TOO_MANY_REQUESTED_CPUS, ESLURM_INVALID_NODE_COUNT, ...) for the
 * submit-time rejection Slurm makes. */
int sched_job_validate(const sched_t *s, const sched_job_t *j);

/* One scheduling pass at time now over n pending jobs. Fills *out with one
 * decision per job (malloc'd array of n, in priority order); returned
 * starts are already committed to s's node state. */
void sched_pass(sched_t *s, sched_job_t *jobs, uint32_t n, int64_t now,
		sched_decision_t **out);
void sched_decisions_free(sched_decision_t *d, uint32_t n);

/* Apply / release an allocation to node state (recovery and job end). */
void sched_alloc_commit(sched_t *s, const sched_alloc_t *a);
void sched_alloc_release(sched_t *s, const sched_alloc_t *a);
void sched_alloc_free(sched_alloc_t *a);   /* frees arrays, not a */
void sched_alloc_copy(sched_alloc_t *dst, const sched_alloc_t *src);

/* Ordering key: higher priority first, then earlier submit, then lower id. */
int sched_job_cmp(const sched_job_t *a, const sched_job_t *b);

#endif
