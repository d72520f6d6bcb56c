/*
 * step_usage: building and merging the resource use of a step
 * (step_usage_t, proto.h). The node daemon adds its tasks one by one; the
 * controller merges the nodes' reports into the step's record. Pure
 * functions, no I/O.
 */
#ifndef SLUICE_STEP_USAGE_H
#define SLUICE_STEP_USAGE_H

#include <stdint.h>

#include "proto.h"

/* One task's figures over its life (its whole process tree). */
typedef struct task_usage {
	uint64_t rss_kb, vmsize_kb;   /* highest seen */
	uint64_t pages;               /* major page faults */
	uint64_t user_cpu_us, sys_cpu_us;
	uint64_t disk_read, disk_write;   /* bytes */
} task_usage_t;

/* Which extreme a merge took from the other side (step_usage_merge). */
enum {
	USAGE_M_RSS = 1u << 0, USAGE_M_VMSIZE = 1u << 1, USAGE_M_PAGES = 1u << 2,
	USAGE_M_CPU = 1u << 3, USAGE_M_READ = 1u << 4, USAGE_M_WRITE = 1u << 5,
};

/* Add one task (global rank) to u (which starts zeroed). */
void step_usage_add_task(step_usage_t *u, uint32_t rank, const task_usage_t *t);
/* Merge from into into: sums add, maxima (minimum for CPU) with their
 * task. Returns the USAGE_M_* bits of the extremes now taken from from
 * (ties keep into's), so the caller can record from's node for them. An
 * empty side (ntasks 0) takes nothing / gives everything. */
unsigned step_usage_merge(step_usage_t *into, const step_usage_t *from);
/* sum / ntasks, 0 when there are no tasks. */
uint64_t step_usage_ave(uint64_t sum, uint32_t ntasks);

/* A step's state and exit status from its parts (nodes, or the job's end
 * for what never reported): the more severe state wins (NODE_FAIL,
 * TIMEOUT, CANCELLED, FAILED, COMPLETED in that order), and between equal
 * states the higher exit status. */
void step_state_merge(uint32_t *state, uint32_t *exit_status, uint32_t st2, uint32_t ex2);

/* A step's state and exit status on one node from its tasks' raw wait
 * statuses, as Slurm records them: a task killed by a signal makes it
 * CANCELLED (raw status, "0:9"), a non-zero exit FAILED ("3:0"), the worst
 * task deciding; past the step's time limit TIMEOUT; stopped for a lost
 * node (req_state NODE_FAIL, the kill request's) NODE_FAIL. */
void step_node_state(const int *status, uint32_t n, int timed_out, uint32_t req_state,
		     uint32_t *state, uint32_t *exit_status);
/* The batch step's: the script's exit code (FAILED when not 0); killed
 * by a signal CANCELLED with it, scancel's SIGTERM included ("0:15", as
 * the Slurm 22.05 capture's sacct shows the cancelled job 3's batch step
 * long after the cancel), and so past the time limit. */
void batch_step_state(int status, uint32_t *state, uint32_t *exit_status);

#endif
