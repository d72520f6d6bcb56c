/*
 * prolog: Prolog/Epilog and TaskProlog/TaskEpilog of the node (see
 * prolog.c). Everything here blocks: call it from a supervisor or a job
 * child, never from the node daemon's loop.
 */
#ifndef SLUICE_NODED_PROLOG_H
#define SLUICE_NODED_PROLOG_H

#include <stdint.h>

#include "conf.h"
#include "proto.h"

/* The environment of a Prolog/Epilog: the prolog variables of jobenv (the
 * controller's own variables of the job, msg_launch_job_t.prolog_env,
 * never what the submitter exported) plus SLURM_SCRIPT_CONTEXT=context ("prolog_slurmd",
 * "epilog_slurmd") and SLURMD_NODENAME. NULL-terminated; free with
 * prolog_env_free. */
char **prolog_env(const char *node, const strv_t *jobenv, const char *context);
void prolog_env_free(char **envp);
/* PrologEpilogTimeout in seconds, 0 = no limit. */
uint32_t prolog_timeout(const conf_t *conf);
/* Run the scripts spec names (a path or a glob, matches in name order)
 * with envp, each bounded by timeout_s (0: none); with lock, holding an
 * flock on that file (PrologFlags=Serial). 0 when all exited 0; -1 at
 * the first failure, with *why (malloc'd) saying which and how. */
int prolog_run(const char *spec, char *const envp[], uint32_t timeout_s, const char *lock,
	       char **why);

struct noded;
/* The node's Prolog (epilog 0) or Epilog (1) for a job whose environment
 * is jobenv, as the supervisor runs it; logs a failure. 0 on success or
 * when none is configured, -1 when a script failed or timed out. */
int prolog_job(struct noded *nd, uint32_t job_id, const strv_t *jobenv, int epilog);

/* ---- prolog_node.c: once per job on every node of it ---- */

/* 1 if the node has a Prolog or Epilog (else the calls below do nothing). */
int prolog_node_configured(const struct noded *nd);
/* The node's Prolog for job_id with penv (the job's prolog environment),
 * run by the first caller on this node; later callers (other steps, the
 * batch supervisor after the Alloc runner) wait for it and get its result.
 * 0 ok (or none configured), -1 it failed. Blocks. */
int prolog_node_once(struct noded *nd, uint32_t job_id, const strv_t *penv);
/* The node's Epilog for job_id, once, if the job started here (its
 * prolog record exists): with penv, or the environment the Prolog had
 * when penv is NULL or empty. 0 ok, -1 failed, 1 nothing to do. Blocks. */
int epilog_node_once(struct noded *nd, uint32_t job_id, const strv_t *penv);
/* Tell the controller (MSG_PROLOG_COMPLETE, retried until it answers). */
void prolog_node_report(struct noded *nd, uint32_t job_id, uint32_t launch_seq, uint32_t rc,
			uint32_t flags);
/* From the node daemon's loop, never blocking it: PrologFlags=Alloc,
 * run the Prolog in a detached runner and report its result. */
void prolog_node_alloc(struct noded *nd, const msg_launch_prolog_t *m);
/* From the node daemon's loop: the controller ended job_id; where it
 * started here and no batch supervisor of it runs here (that one runs
 * the Epilog itself), a detached runner waits for its steps to be gone,
 * runs the Epilog and reports a failure. */
void epilog_node_on_kill(struct noded *nd, uint32_t job_id);

/* Apply one line of TaskProlog output to env: "export N=V", "unset N",
 * "print TEXT" (TEXT and a newline to outfd). */
void task_prolog_line(const char *line, strv_t *env, int outfd);
/* Run a TaskProlog (or TaskEpilog) as the calling user with env, and
 * apply what it prints to env / outfd. 0 if it exited 0. */
int task_prolog_run(const char *path, strv_t *env, int outfd, uint32_t timeout_s);
/* Run TaskEpilog (if configured) as the job's user in work_dir with the
 * job's environment, bounded by PrologEpilogTimeout; its output is
 * discarded. 0 if it exited 0 or none is configured. */
int task_epilog_run(const conf_t *conf, const char *user, uint32_t uid, uint32_t gid,
		    const char *work_dir, const strv_t *jobenv);

#endif
