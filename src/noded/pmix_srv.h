/*
 * pmix_srv: the PMIx server of a step supervisor (srun --mpi=pmix,
 * pmix_v4, MpiDefault=pmix), built on OpenPMIx's server library: what
 * OpenMPI 4.1 (and mpi4py over it) needs to start under srun.
 *
 * Each supervisor is its own PMIx server (PMIx_server_init once per
 * process), rendezvous in a directory of its own: <TmpFS or /tmp>/
 * sluice-pmix.<node>.<job>.<step>, mode 0700 and owned by the job's user,
 * so that virtual nodes on one host never share one and no other user
 * can reach the socket (PMIx's native security also checks each
 * client's uid/gid against the one registered). The namespace
 * "slurm.pmix.<job>.<step>" is registered with the step's layout (sizes,
 * node and proc maps, local peers, each rank's local/node rank, node id
 * and host); each local task gets PMIx_server_setup_fork's environment.
 *
 * OpenPMIx runs its event loop in a thread of its own; the supervisor's
 * loop stays single-threaded. A fence (fence_nb) or an abort is noted
 * under a lock and announced on a pipe the loop polls (pmix_srv_fd);
 * pmix_srv_io then sends this node's fence data through the send
 * callback (step.c: to srun, STEP_IO_PMI, the same star as pmi2's
 * fence), and pmix_srv_fence_done hands every node's data back to
 * OpenPMIx's modex callback. A one-node step answers its fence here.
 * direct_modex is refused: every fence collects all data. A node's fence
 * data is at most PMIX_FENCE_MAX bytes (the fence fails past it), as
 * pmi2's puts between fences; every fence is taken as over the whole step.
 */
#ifndef SLUICE_NODED_PMIX_SRV_H
#define SLUICE_NODED_PMIX_SRV_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proto.h"

#define PMIX_FENCE_MAX (64u << 20)

typedef struct pmix_srv pmix_srv_t;

typedef struct pmix_srv_step {
	uint32_t job_id, step_id;
	uint32_t node_id, nnodes;
	uint32_t first_task, ntasks;     /* this node's */
	uint32_t total_tasks;
	const char *tasks_per_node;      /* "2,1(x3)" of the step */
	const char *nodes;               /* the step's node list (hostlist) */
	const char *node_name;           /* this node's name */
	const char *tmp_base;            /* TmpFS, or NULL for /tmp */
	uid_t uid;
	gid_t gid;
	/* this node's fence data, to every other node */
	int (*send)(void *arg, const void *data, size_t len);
	void *arg;
} pmix_srv_step_t;

/* NULL (and an error logged) if the layout does not add up or OpenPMIx
 * would not start. At most one per process. */
pmix_srv_t *pmix_srv_new(const pmix_srv_step_t *st);
/* Finalizes OpenPMIx and removes the rendezvous directory. */
void pmix_srv_free(pmix_srv_t *s);

/* Registers local task `local` and adds its PMIx environment to env
 * (before the fork). 0, or -1 with an error logged. */
int pmix_srv_task_env(pmix_srv_t *s, uint32_t local, strv_t *env);

/* The descriptor the supervisor polls for input; then pmix_srv_io. */
int pmix_srv_fd(const pmix_srv_t *s);
void pmix_srv_io(pmix_srv_t *s);
/* Every node's fence data for the fence in progress (what srun sent
 * back). */
void pmix_srv_fence_done(pmix_srv_t *s, const void *data, size_t len);

/* A task called PMIx_Abort: 1 once (its rank, status and message, for
 * the step's end), else 0. */
int pmix_srv_abort_taken(pmix_srv_t *s, uint32_t *rank, int *code, const char **msg);

#endif
