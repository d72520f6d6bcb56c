/*
 * job_array.h: job arrays in the controller (job_array.c).
 *
 * A pending array is one job record (its own id = the array job id) that
 * holds the set of task ids not started yet and the %N throttle. When the
 * scheduler starts it, one task is split off as a job of its own (a new
 * id from the sequence, ArrayJobId = the array's, ArrayTaskId = the
 * task); the last task to start keeps the array's record and id, as
 * Slurm does.
 */
#ifndef SLUICE_JOB_ARRAY_H
#define SLUICE_JOB_ARRAY_H

#include <stdint.h>

struct ctld;
struct job;
struct strbuf;
struct job_info;
struct msg_update_job;

/* Set up j (not yet stored) as an array record from j->desc->array_inx:
 * the task set, bounded by MaxArraySize, and the throttle. 0, or an
 * errors.h number (ESLURM_INVALID_ARRAY) with nothing kept. */
int job_array_submit(struct ctld *cd, struct job *j);

/* j's array record id set: the default output name "slurm-%A_%a.out". */
int job_is_array(const struct job *j);

/* How many jobs j stands for in the job-count limits (MaxSubmitJobs,
 * GrpSubmitJobs, ...): the tasks still in its pending set, else 1 (a
 * plain job, a split-off task, an array record down to its last task).
 * A split moves one task from the set to a record of its own, so the
 * sum over all records never counts a task twice. */
uint32_t job_array_ntasks(const struct job *j);

/* The scheduler starts j: the job record that runs the task (a split
 * off task, or j itself when it held one task). NULL when the split
 * could not be stored (the start is skipped, the task stays pending). */
struct job *job_array_split(struct ctld *cd, struct job *j, int64_t now);

/* Before a pass: count the running tasks of each array with a throttle.
 * Then job_array_throttled says whether a pending array record may not
 * start another task now (reason JobArrayTaskLimit). */
void job_array_count_running(struct ctld *cd);
int job_array_throttled(const struct job *j);

/* Fill the array fields of a job's info (squeue, scontrol show job). */
void job_array_fill_info(struct ctld *cd, const struct job *j, struct job_info *ji);

/* The pending task set as Slurm prints it, malloc'd ("1-4", "").  */
char *job_array_pending_str(const struct job *j);

/* Restore an array record's pending set from the state DB ("1-4"). */
int job_array_restore(struct job *j, const char *pending, uint32_t throttle);

/* Free j's array state (job_free). */
void job_array_free(struct job *j);

/* scancel of an array as a whole (id = ArrayJobId): every task and the
 * pending record. Returns what job_cancel returns for the first failure,
 * or 0. *handled is 0 when id is no array (job_cancel proceeds). */
int job_array_cancel(struct ctld *cd, uint32_t id, uint32_t sig, uint32_t flags,
		     uint32_t uid, int *handled);
/* scancel ID_TASK: the task's own job, or the task taken out of the
 * pending set. */
int job_array_cancel_task(struct ctld *cd, uint32_t id, uint32_t task, uint32_t sig,
			  uint32_t flags, uint32_t uid);

/* scontrol update jobid=ID ArrayTaskThrottle=N and hold/release of a
 * whole array: *handled is 0 when the request is not about an array. */
int job_array_update(struct ctld *cd, const struct msg_update_job *m, uint32_t uid,
		     int *handled);

/* A dependency of type (DEP_*) on array id: on all its tasks, or with
 * task != NO_VAL32 on that task alone (aftercorr: task i of a dependent
 * array waits for task i of id). 0 met, 1 waiting, 2 never satisfied.
 * Slurm's rules: after = every task started; afterany = every task
 * ended; afterok = every task ended and all completed with 0; afternotok
 * = every task ended and one did not. Costs one walk of the jobs. */
int job_array_dep(struct ctld *cd, uint32_t id, uint32_t type, uint32_t task);

/* A dependency element d of j whose target is an array (job_deps.c):
 * "afterok:11" with 11 an array, "afterok:11_*", "afterok:11_3",
 * "aftercorr:11"; *state its DEP_* state ("+MIN" counted from the
 * latest start or end of the tasks). 1 when handled here, 0 when d names
 * a plain job. */
struct dep;
int job_array_dep_target(struct ctld *cd, const struct job *j, const struct dep *d,
			 int64_t now, uint8_t *state);

/* aftercorr:t for j: j's task (for an array's pending record, the next
 * one to start, so its tasks start in order) after the same task of
 * array t completed with 0; when t has no such task, met; when t is no
 * array, as afterok:t; when j is no array, afterok on all of t. 0 met,
 * 1 waiting, 2 never. */
int job_array_dep_corr(struct ctld *cd, const struct job *j, const struct job *t);

/* The SLURM_ARRAY_* variables of a task (job_env.c). */
void job_array_env(const struct job *j, void (*set)(void *arg, const char *k, const char *v),
		   void *arg);

#endif
