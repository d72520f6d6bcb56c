/*
 * step_usage.c: building and merging a step's resource use (see
 * step_usage.h). Used by the node daemon (tasks into the node's share)
 * and the controller (nodes into the step's record).
 */
#include "step_usage.h"

#include <sys/wait.h>

#include "states.h"

void step_usage_add_task(step_usage_t *u, uint32_t rank, const task_usage_t *t)
{
	step_usage_t one = {
		.ntasks = 1,
		.user_cpu_us = t->user_cpu_us, .sys_cpu_us = t->sys_cpu_us,
		.max_rss_kb = t->rss_kb, .sum_rss_kb = t->rss_kb,
		.max_vmsize_kb = t->vmsize_kb, .sum_vmsize_kb = t->vmsize_kb,
		.max_pages = t->pages, .sum_pages = t->pages,
		.min_cpu_us = t->user_cpu_us + t->sys_cpu_us,
		.sum_cpu_us = t->user_cpu_us + t->sys_cpu_us,
		.max_disk_read = t->disk_read, .sum_disk_read = t->disk_read,
		.max_disk_write = t->disk_write, .sum_disk_write = t->disk_write,
		.max_rss_task = rank, .max_vmsize_task = rank, .max_pages_task = rank,
		.min_cpu_task = rank, .max_disk_read_task = rank, .max_disk_write_task = rank,
	};
	step_usage_merge(u, &one);
}

/* One extreme: take from's when it is more extreme (or into is empty). */
#define TAKE(cmp, v, task, bit) do {                                         \
		if (!into->ntasks || from->v cmp into->v) {                   \
			into->v = from->v;                                    \
			into->task = from->task;                              \
			took |= (bit);                                        \
		}                                                             \
	} while (0)

unsigned step_usage_merge(step_usage_t *into, const step_usage_t *from)
{
	if (!from->ntasks)
		return 0;
	unsigned took = 0;
	TAKE(>, max_rss_kb, max_rss_task, USAGE_M_RSS);
	TAKE(>, max_vmsize_kb, max_vmsize_task, USAGE_M_VMSIZE);
	TAKE(>, max_pages, max_pages_task, USAGE_M_PAGES);
	TAKE(<, min_cpu_us, min_cpu_task, USAGE_M_CPU);
	TAKE(>, max_disk_read, max_disk_read_task, USAGE_M_READ);
	TAKE(>, max_disk_write, max_disk_write_task, USAGE_M_WRITE);
	into->user_cpu_us += from->user_cpu_us;
	into->sys_cpu_us += from->sys_cpu_us;
	into->sum_rss_kb += from->sum_rss_kb;
	into->sum_vmsize_kb += from->sum_vmsize_kb;
	into->sum_pages += from->sum_pages;
	into->sum_cpu_us += from->sum_cpu_us;
	into->sum_disk_read += from->sum_disk_read;
	into->sum_disk_write += from->sum_disk_write;
	into->ntasks += from->ntasks;
	return took;
}

uint64_t step_usage_ave(uint64_t sum, uint32_t ntasks)
{
	return ntasks ? sum / ntasks : 0;
}

static int severity(uint32_t st)
{
	switch (st & JOB_STATE_BASE) {
	case JOB_NODE_FAIL: return 5;
	case JOB_TIMEOUT: return 4;
	case JOB_CANCELLED: return 3;
	case JOB_FAILED: return 2;
	case JOB_COMPLETE: return 1;
	default: return 0;      /* RUNNING: nothing known yet */
	}
}

void step_state_merge(uint32_t *state, uint32_t *exit_status, uint32_t st2, uint32_t ex2)
{
	int a = severity(*state), b = severity(st2);
	if (b > a) {
		*state = st2;
		*exit_status = ex2;
	} else if (b == a && ex2 > *exit_status) {
		*exit_status = ex2;
	}
}

void step_node_state(const int *status, uint32_t n, int timed_out, uint32_t req_state,
		     uint32_t *state, uint32_t *exit_status)
{
	*state = JOB_COMPLETE;
	*exit_status = 0;
	for (uint32_t i = 0; i < n; i++) {
		int st = status[i];
		uint32_t ts = WIFSIGNALED(st) ? JOB_CANCELLED : st ? JOB_FAILED : JOB_COMPLETE;
		step_state_merge(state, exit_status, ts, (uint32_t)st);
	}
	if (timed_out && *state != JOB_COMPLETE)
		*state = JOB_TIMEOUT;
	if ((req_state & JOB_STATE_BASE) == JOB_NODE_FAIL)
		*state = JOB_NODE_FAIL;
}

void batch_step_state(int status, uint32_t *state, uint32_t *exit_status)
{
	if (WIFSIGNALED(status)) {
		*state = JOB_CANCELLED;
		*exit_status = (uint32_t)status;
	} else {
		*state = status ? JOB_FAILED : JOB_COMPLETE;
		*exit_status = (uint32_t)status;
	}
}
