/*
 * job_nccl: the controller's side of the NCCL transport check (issue 11
 * item 5). A job's batch supervisor (noded/nccl_watch.c) reports which
 * network the job's collectives use (MSG_JOB_NCCL); the verdict lives on
 * the job (job_t.nccl), in the state DB (columns of jobs, a migration),
 * in `scontrol show job` (NcclTransport=), `sluice why` and /metrics.
 */
#ifndef SLUICE_CTLD_JOB_NCCL_H
#define SLUICE_CTLD_JOB_NCCL_H

#include <stdint.h>

#include "ctld/ctld.h"
#include "strbuf.h"

struct json_t;

typedef struct job_nccl {
	char *transport;           /* "Socket", "IB", ...; "Fabric" (counters) */
	char *node;                /* the node that judged */
	char *detail;              /* the evidence, one line */
	uint32_t source;           /* NCCL_SRC_* (nccl_log.h) */
	uint32_t launch_seq;       /* the run it is about */
	int64_t time;
} job_nccl_t;

/* MSG_JOB_NCCL from a node daemon (uid must be root/SlurmUser): record
 * the verdict on the job and mark it dirty. 0, or an errors.h code
 * (ESLURM_INVALID_JOB_ID, ESLURM_ALREADY_DONE for a stale run, ...). */
int job_nccl_report(ctld_t *cd, const msg_job_nccl_t *m, uint32_t uid);

/* The verdict of j's current run, or NULL. */
const job_nccl_t *job_nccl_get(const job_t *j);
void job_nccl_free(job_t *j);

/* Borrow the verdict's strings into ji (job_fill_info_fields). */
void job_nccl_fill_info(const job_t *j, job_info_t *ji);

/* State DB: the migration step (columns nccl_* of jobs), the save of a
 * dirty job's verdict (db_commit) and their recovery (db_load). */
int job_nccl_migrate(sqlite3 *db, char **err);
void job_nccl_db_save(ctld_t *cd, const job_t *j);
void job_nccl_db_load(ctld_t *cd);

/* /metrics: sluice_job_nccl_transport{job_id,user,transport,source} 1
 * for each running job with a verdict, and the counter
 * sluice_jobs_nccl_socket_fallback_total. O(jobs). */
void job_nccl_metrics(ctld_t *cd, strbuf_t *sb);

/* `sluice why`: the verdict as a JSON object (NULL when none). */
struct json_t *job_nccl_why(const job_t *j);

#endif
