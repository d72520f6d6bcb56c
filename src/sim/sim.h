/*
 * sim: the workload simulator's engine. An event-driven virtual clock
 * around the scheduler core (sched.h), with no daemons, no processes and
 * no wall clock: the same jobs and the same sched_t give the same
 * schedule, byte for byte.
 *
 * Events, in virtual seconds: a job's submit, a job's end (its start plus
 * its run time, already cut at its time limit by the caller), and the
 * backfill cycle every bf_interval. After the events of one instant (ends
 * first, then submits, in input order) the engine runs one scheduling turn
 * as the controller does: sched_backfill_due decides whether the pass
 * includes a backfill cycle, running jobs are handed to it with their
 * expected ends (start + time limit), sched_pass decides, and the starts
 * it returns hold their nodes until their end event (sched_alloc_release).
 * A backfill cycle is due again bf_interval after the last one; that timer
 * turn is skipped when no event came since the last cycle, since nothing
 * it decides on has changed but the clock, and a later clock only
 * shortens what a job can fit into before the reservations ahead of it.
 *
 * Priority: the caller's sched_job_t.priority (FCFS: sched_priority_basic
 * of the submit order).
 */
#ifndef SLUICE_SIM_SIM_H
#define SLUICE_SIM_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "sched/sched.h"

typedef struct sim_job {
	sched_job_t req;           /* what is asked (job_id, priority,
	                            * submit_time, part, tasks, time_limit) */
	int64_t run;               /* seconds it runs once started (<= limit) */
	int64_t user, queue;       /* from the trace, -1 = unknown */
	uint32_t procs;            /* processors asked, for the report */
	int64_t trace_id;          /* the job's id in the trace */
	/* Results: */
	int started;
	int64_t start, end;
	uint32_t nnodes;           /* nodes it got */
	int backfilled;
} sim_job_t;

typedef struct sim_counts {
	uint64_t passes;           /* scheduling turns */
	uint64_t bf_cycles;        /* of them, with a backfill cycle */
	uint64_t never_started;    /* left pending when nothing could change */
} sim_counts_t;

/* Progress callback: jobs ended so far of n (may be NULL). */
typedef void (*sim_progress_fn)(void *arg, size_t ended, size_t n);

/* Run jobs[0..n) (sorted by submit time, ties in trace order) on s (nodes
 * usable, partitions and params set, nothing allocated). Fills each job's
 * results; s's node state is back to empty afterwards. */
void sim_run(sched_t *s, sim_job_t *jobs, size_t n, sim_counts_t *counts,
	     sim_progress_fn progress, void *arg);

/* A bare machine for a trace: nodes x cpus (and gpus untyped GPUs per
 * node), one partition "sim" holding them all, with no time limit; memory
 * is not a consumable (SWF jobs rarely say how much they use).
 * backfill: SchedulerType=sched/backfill with Slurm's default parameters.
 * Free with sim_machine_free. */
void sim_machine_bare(sched_t *s, uint32_t nodes, uint32_t cpus, uint32_t gpus, int backfill);
void sim_machine_free(sched_t *s);

/* The cluster of a loaded slurm.conf (with its gres.conf and
 * topology.conf), built by the controller's own sched_build_conf: every
 * node usable but those configured FUTURE or DOWN, partitions up unless
 * configured DOWN or INACTIVE, with their MaxTime and node limits.
 * backfill < 0 keeps the config's SchedulerType; 0/1 override it. Free
 * with sched_free_conf. */
struct conf;
void sim_machine_conf(sched_t *s, const struct conf *conf, int backfill);

/* ---- from an SWF trace (sim_swf.c) ----
 * Each job asks its requested processors (else its allocated ones) as
 * that many one-CPU tasks on as many nodes as they need, in partition part;
 * its time limit is its requested time (else its run time) rounded up to
 * whole minutes, as Slurm's are, and it runs min(run time, limit).
 * Priority is FCFS: submit order (ties in trace order) through
 * sched_priority_basic. Jobs with no run time or no processors, and jobs
 * sched_job_validate refuses on s (too big for the machine), are left
 * out and counted (too_big: refused by sched_job_validate, e.g. over
 * the partition's size or MaxTime). *out is malloc'd, sorted by submit time. */
typedef struct sim_skipped {
	size_t no_runtime, no_procs, too_big;
} sim_skipped_t;

struct swf;
void sim_jobs_from_swf(const struct swf *t, const sched_t *s, uint32_t part, sim_job_t **out,
		       size_t *n, sim_skipped_t *skipped);

#endif
