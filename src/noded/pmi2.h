/*
 * pmi2: the PMI server of a step supervisor (srun --mpi=pmi2, MpiDefault=
 * pmi2), as Slurm's mpi/pmi2 plugin serves it: each task gets one end of
 * a socketpair as PMI_FD (with PMI_RANK, PMI_SIZE, PMI_JOBID) and speaks
 * PMI-1 or PMI-2 on it (lib/pmi2_wire.h); MPICH uses either.
 *
 * Served here, on the node: init/fullinit, the job's attributes
 * (PMI_process_mapping from the step's layout, universeSize), the job id
 * / kvsname "<job>.<step>", node attributes (info-putnodeattr, and
 * info-getnodeattr, waiting for a put when asked to), kvs-get of what the
 * last fence brought, finalize, abort (the step is ended), spawn and name
 * publishing refused.
 *
 * The fence (kvs-fence, barrier_in) is collective over the step: once
 * every task here that is still connected has entered it, this node's
 * puts since the last fence go out through the send callback (step.c:
 * to srun, on the step's own connection, which srun authenticated with
 * the launch credential); srun gathers every node's share and hands the
 * whole back to each node, and pmi_srv_fence_done answers the tasks.
 * A one-node step answers its fence here.
 *
 * Bounds: a command is at most PMI_CMD_MAX bytes; one node's KVS at most
 * PMI_KVS_MAX bytes (puts past it get an error reply); a task's unread
 * replies at most about 1 MB (then its commands wait unread).
 */
#ifndef SLUICE_NODED_PMI2_H
#define SLUICE_NODED_PMI2_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#define PMI_KVS_MAX (64u << 20)

typedef struct pmi_srv pmi_srv_t;

typedef struct pmi_step {
	uint32_t job_id, step_id;
	uint32_t node_id, nnodes;
	uint32_t first_task, ntasks;     /* this node's */
	uint32_t total_tasks;
	const char *tasks_per_node;      /* "2,1(x3)" of the step */
	/* this node's puts for a fence, to every other node */
	int (*send)(void *arg, const void *data, size_t len);
	void *arg;
} pmi_step_t;

/* NULL (and an error logged) if the layout does not add up. */
pmi_srv_t *pmi_srv_new(const pmi_step_t *st);
void pmi_srv_free(pmi_srv_t *s);

/* Task local's end of its socketpair, for its PMI_FD (made at the first
 * call; close-on-exec set: the task clears it), -1 on failure. After the
 * fork: pmi_srv_forked, which closes ours of the task's end. */
int pmi_srv_task_fd(pmi_srv_t *s, uint32_t local);
void pmi_srv_forked(pmi_srv_t *s, uint32_t local);
/* "<job>.<step>": PMI_JOBID and the kvsname */
const char *pmi_srv_jobid(const pmi_srv_t *s);

/* The descriptors to poll (at most ntasks entries added at pf). */
size_t pmi_srv_pollfds(const pmi_srv_t *s, struct pollfd *pf);
/* Whether fd is one of ours; then pmi_srv_io does what it is ready for. */
int pmi_srv_owns(const pmi_srv_t *s, int fd);
void pmi_srv_io(pmi_srv_t *s, int fd, short revents);
/* All nodes' puts for the fence in progress (what srun sent back). */
void pmi_srv_fence_done(pmi_srv_t *s, const void *data, size_t len);

/* A task called abort: 1 once (its rank, exit code and message, for the
 * step's end), else 0. */
int pmi_srv_abort_taken(pmi_srv_t *s, uint32_t *rank, int *code, const char **msg);

#endif
