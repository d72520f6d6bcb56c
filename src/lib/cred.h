/*
 * cred: the launch credential for a job step.
 *
 * The controller signs one per step (MSG_STEP_CREATE_REPLY.cred); srun hands
 * it to each node daemon in MSG_LAUNCH_STEP; the node daemon checks it: the
 * signature (auth_verify, signer must be root or SlurmUser), that it has not
 * expired, that its job/step/uid/gid match the request, and that the node is
 * in its node list. A credential is a printable string:
 *   "<payload>\n<hex of the auth_sign credential over payload>"
 * with payload
 *   "sluice-cred 1 job=<id> step=<id> uid=<n> gid=<n> user=<name> nodes=<ranged>
 *    tasks=<n> digest=<hex> [layout=<counts>] [alloc=<...>] [penv=<hex>]
 *    expires=<epoch>"
 * (one line). The credential is not a bearer token: digest binds it to one
 * launch request (cred_launch_digest: command, environment, directory,
 * user, flags, stdin routing), tasks and layout to the step's tasks on
 * each of its nodes (cred_launch_node_check: a node runs only the launch
 * of its own place in the step), and a node daemon accepts each (job,
 * step) once (spool_cred_use), so a captured credential can neither run
 * something else, nor run another node's share, nor run the same thing
 * again. Nor can whoever saw it write a launch of their own: each launch
 * carries a MAC under the step's launch key (cred_launch_key), which only
 * the srun the step was created for and the cluster key's holders have.
 */
#ifndef SLUICE_CRED_H
#define SLUICE_CRED_H

#include <stdint.h>
#include <time.h>

#include "auth.h"
#include "conf.h"
#include "proto.h"

#define CRED_DIGEST_HEX 64       /* hex digits of a launch digest */

typedef struct cred {
	uint32_t job_id, step_id, uid, gid;
	char *user;              /* malloc'd */
	char *nodes;             /* malloc'd ranged hostlist */
	uint32_t ntasks;         /* the step's tasks over all its nodes */
	char *digest;            /* malloc'd: cred_launch_digest of the launch */
	/* The step's tasks on each of its nodes, in the order of nodes, as
	 * Slurm compresses such lists ("2,1(x3)"); malloc'd, NULL in a stat
	 * credential (a launch without one is refused). */
	char *layout;
	/* The job's share of each node of the step, in the order of nodes,
	 * for its cgroup: "NODE=CORES:MEM_MB:GPUMASK" (hex) joined by ';'
	 * ("n1=0-3:1024:3;n2=0-1:512:0"); malloc'd, NULL when not given. */
	char *alloc;
	/* The step's own GPUs on each of its nodes, in the order of nodes,
	 * GPU index masks in hex joined by ',' ("3,c"): what its tasks see
	 * (SLURM_STEP_GPUS, CUDA_VISIBLE_DEVICES) and its device cgroup;
	 * malloc'd, NULL when the job has no GPUs on the step's nodes. */
	char *gpus;
	/* The job's own variables for the node's Prolog/Epilog (what the
	 * controller sets, never what the submitter exported), so that a
	 * node whose first contact with the job is a step runs its Prolog
	 * with values it can trust; empty when no Prolog/Epilog is set.
	 * On the wire: hex of the entries, each ended by a NUL. */
	strv_t penv;
	int64_t expires;
} cred_t;

/* SHA-256 (hex, NUL-terminated, into out) over what a step launch carries
 * alike to every node: user_id, group_id, argv, env, cwd, time_limit, the
 * flags (STEP_F_STDIN too) and stdin_task. srun computes it before the
 * step exists; what differs per node (node_id, nnodes, first_task,
 * ntasks, total_tasks) the controller decides, and signs as the
 * credential's nodes, tasks and layout: cred_launch_node_check. */
void cred_launch_digest(const msg_launch_step_t *m, char out[CRED_DIGEST_HEX + 1]);

/* The step's launch key K (hex into out): auth_key_derive(cluster key,
 * "sluice-step-launch", the whole credential string). Only holders of
 * the cluster key can compute it: the controller hands it to a srun that
 * cannot (over the Unix socket only, never TCP: step create's
 * launch_key), a key holder's srun derives it, and the node daemon
 * derives it to check cred_launch_mac. So a launch's MAC proves it was
 * written by the srun the step was created for, not by someone who only
 * saw the credential go by. 0, or -1 without the cluster key. */
int cred_launch_key(const auth_t *a, const char *cred, char out[CRED_DIGEST_HEX + 1]);
/* HMAC-SHA256 under key_hex (a cred_launch_key) of everything m carries
 * but launch_mac: its cred_launch_digest, the per-node fields (job_id,
 * step_id, node_id, nnodes, first_task, ntasks, total_tasks), what sets
 * the tasks' environment (tasks_per_node, topo_addr, topo_pattern,
 * cpus_on_node, job_cpus_per_node, cpu_bind, cpu_ids, cpus_per_task,
 * pty_rows, pty_cols) and the credential; hex into out. srun puts it in
 * launch_mac; one HMAC per node. 0, or -1 if key_hex is not 64 hex. */
int cred_launch_mac(const char *key_hex, const msg_launch_step_t *m,
		    char out[CRED_DIGEST_HEX + 1]);
/* The node daemon's check (auth/slurm): m->launch_mac is cred_launch_mac
 * under the launch key of m->cred, compared in constant time. 0, or -1
 * with *why (static) for a launch without one or with a wrong one. */
int cred_launch_mac_check(const auth_t *a, const msg_launch_step_t *m, const char **why);

/* Is m the launch of node `node`'s own place in the step c was issued
 * for? Its index in c's nodes must be m->node_id, and nnodes,
 * total_tasks, first_task and ntasks what c's nodes, tasks and layout
 * give that index. 0, or -1 with *why (a static string) naming what is
 * off. A launch captured on its way to one node and presented to another
 * is refused here, before the node marks the credential used. */
int cred_launch_node_check(const cred_t *c, const char *node, const msg_launch_step_t *m,
			   const char **why);

/* n counts as a layout ("2,1(x3)"), malloc'd. */
char *cred_layout_string(const uint32_t *v, uint32_t n);
/* The counts of a layout ("2,1(x3)") into *out (malloc'd, *n of them);
 * 0, or -1 if it is not such a list or holds more than max counts. */
int cred_layout_parse(const char *s, uint32_t max, uint32_t **out, uint32_t *n);

/* The digest of a stat credential (sstat: read the usage of a job's
 * steps, nothing else). Its input differs from every launch digest's in
 * its first bytes, so a stat credential can never launch anything. */
void cred_stat_digest(char out[CRED_DIGEST_HEX + 1]);

/* Sign c; returns the malloc'd credential string or NULL with *err. */
char *cred_create(auth_t *a, const cred_t *c, char **err);
/* Verify s: 0 and *out filled (free with cred_release), or -1 with *err
 * naming the problem ("credential expired", "credential not signed by the
 * controller", ...). signer_ok_uid: the SlurmUser uid (root always ok). */
int cred_verify(auth_t *a, const char *s, uint32_t signer_ok_uid, time_t now,
		cred_t *out, char **err);
void cred_release(cred_t *c);
/* Parse a payload (the part before the newline, already verified by
 * cred_verify, which calls this): 0 and *c filled (cred_release), or -1
 * with nothing to free. Exposed for the fuzz target. */
int cred_parse(const char *payload, cred_t *c);

#endif
