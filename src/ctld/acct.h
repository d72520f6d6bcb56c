/*
 * acct.h: the controller's accounting layer (issue 9).
 *
 * One store, no extra daemon: the accounting tables live in the
 * controller's SQLite state DB and are written in the same transaction as
 * the job state change they record (db_commit), so a crash never leaves a
 * job without its record or a record without its job.
 *
 * Modules (each owns its tables, its functions below, and its ops of
 * MSG_ACCT_REQ):
 *   acct_rpc.c     MSG_ACCT_REQ dispatch; store queries run on a reader
 *                  thread with its own read-only connection, so a heavy
 *                  sacct/sreport never lengthens a loop turn
 *   acct_jobs.c    job records (acct_job), written from db_commit
 *   acct_sacct.c   sacct's query (a store read)
 *   acct_steps.c   step records (acct_step) reported by the node daemons
 *   assoc.c        clusters, accounts, users, associations, QOS, coordinators
 *                  (acct_t below); sacctmgr; Account/QOS of a job at submit
 *   limits.c       AccountingStorageEnforce: submit-time checks, the tables
 *                  the scheduler core checks limits with (sched_limits.h),
 *                  preemption by QOS
 *   acct_usage.c   decayed usage, fair share (sshare, sprio), rollups and
 *                  sreport
 *
 * The store sits behind these functions only: a later shared accounting
 * service (slurmdbd's role, on an external database) replaces the bodies,
 * not the commands.
 */
#ifndef SLUICE_CTLD_ACCT_H
#define SLUICE_CTLD_ACCT_H

#include <stdint.h>
#include <sqlite3.h>

#include "proto.h"
#include "sched/sched_limits.h"

struct ctld;
struct job;
typedef struct conn conn_t;

/* AccountingStorageEnforce */
#define ACCT_ENF_ASSOCS  0x01u    /* associations */
#define ACCT_ENF_LIMITS  0x02u    /* limits (implies associations) */
#define ACCT_ENF_QOS     0x04u    /* qos (implies associations) */
#define ACCT_ENF_SAFE    0x08u    /* safe (implies limits) */
#define ACCT_ENF_WCKEYS  0x10u
#define ACCT_ENF_NOJOBS  0x20u
#define ACCT_ENF_NOSTEPS 0x40u
uint32_t acct_enforce_parse(const char *v);   /* NULL/"none" -> 0 */

/* sacctmgr AdminLevel */
enum { ACCT_ADMIN_NONE = 0, ACCT_ADMIN_OPERATOR, ACCT_ADMIN_SUPER };

typedef struct acct_qos {
	uint32_t id;              /* > 0, stable; "normal" is created first */
	char *name, *description;
	uint32_t *preempt_ids;    /* Preempt= (QOS ids) */
	uint32_t npreempt;
	sched_qos_t s;            /* priority, flags, limits, usage (s.name
	                           * points at name) */
	uint8_t dirty;
} acct_qos_t;

typedef struct acct_assoc {
	uint32_t id;              /* > 0, stable */
	uint32_t parent_id;       /* the parent account's association; 0 = root */
	char *account;            /* the account (for a user association: the
	                           * account it is under) */
	char *user;               /* NULL for an account association */
	uint32_t uid;             /* user associations; UINT32_MAX otherwise */
	char *partition;          /* NULL = any */
	uint32_t shares_raw;      /* Fairshare= (1); SCHED_SHARES_PARENT */
	uint32_t priority;        /* Priority= (0: not set, shown empty) */
	uint32_t def_qos_id;      /* DefaultQOS=, 0 = inherit */
	uint32_t *qos_ids;        /* QOS= (allowed), none = inherit */
	uint32_t nqos;
	lim_set_t lim;            /* as set here; LIM_UNSET inherits */
	/* Decayed usage (acct_usage.c keeps and persists it). */
	double usage_raw, usage_tres[LIM_TRES_N], usage_wall;
	uint8_t dirty;
} acct_assoc_t;

typedef struct acct_user {
	char *name;
	uint32_t uid;             /* UINT32_MAX if no such Unix user */
	uint32_t admin_level;     /* ACCT_ADMIN_* */
	char *default_account;
	char **coord_accounts;    /* accounts it coordinates */
	uint32_t ncoord;
	uint8_t dirty;
} acct_user_t;

typedef struct acct_account {
	char *name, *description, *organization;
	uint8_t dirty;
} acct_account_t;

typedef struct acct {
	char *cluster;            /* ClusterName */
	uint32_t enforce;         /* ACCT_ENF_* */
	acct_account_t *accounts; uint32_t naccounts;
	acct_user_t *users; uint32_t nusers;
	acct_assoc_t *assocs; uint32_t nassocs;   /* [0] is the root association */
	acct_qos_t *qos; uint32_t nqos;
	uint64_t gen;             /* bumped by every change of the above */
	int dirty;                /* something to write at the next commit */
	/* assoc.c's own: lookup tables (rebuilt by acct_changed) and the rows
	 * deleted since the last commit ("a\tNAME", "u\tNAME", "s\tID", "q\tID") */
	struct acct_index *ix;
	strv_t gone;
	uint32_t next_assoc_id, next_qos_id;
} acct_t;

/* ---- assoc.c ---- */
/* Load the model from the DB (creating cluster, root account and the
 * "normal" QOS on first start, as slurmdbd does) and read
 * AccountingStorageEnforce. 0 or -1 with *err. */
int acct_init(struct ctld *cd, char **err);
/* Put the model back as its tables hold it (a request's change whose
 * commit failed: turn.c), keeping the decayed usage. 0, or -1 if the
 * tables cannot be read (the model stays as it is). */
int acct_reload(struct ctld *cd);
/* Free the model (tests; the controller keeps it to the end). */
void acct_free(acct_t *m);
/* Write the changed model rows inside the open transaction (db_commit). */
void acct_commit(struct ctld *cd);
/* Create the model's tables (from db_open). 0 or -1 with *err. */
int acct_store_create(sqlite3 *db, char **err);
/* After any change of the model: rebuild the lookups, bump gen, mark it
 * to be written at the next commit (records changed carry dirty = 1). */
void acct_changed(struct ctld *cd);
/* Lookups: O(1) (hash tables rebuilt by acct_changed). Pointers are valid
 * until the next change of the model. */
acct_assoc_t *acct_assoc_by_id(struct ctld *cd, uint32_t id);
acct_account_t *acct_account_find(struct ctld *cd, const char *name);
acct_user_t *acct_user_find(struct ctld *cd, const char *name);
acct_user_t *acct_user_by_uid(struct ctld *cd, uint32_t uid);
/* The association of (user, account, partition); user NULL: the
 * account's own; partition NULL: the one for any partition. */
acct_assoc_t *acct_assoc_find(struct ctld *cd, const char *user, const char *account,
			      const char *partition);
acct_assoc_t *acct_assoc_parent(struct ctld *cd, const acct_assoc_t *a);
/* What a association has by inheritance (walks up the tree): its
 * DefaultQOS (0 = none), the association whose QOS list applies, whether
 * it may use a QOS, and its limits with the Max* ones inherited from the
 * ancestors (Grp* are not inherited, as in Slurm). */
uint32_t acct_assoc_def_qos(struct ctld *cd, const acct_assoc_t *a);
const acct_assoc_t *acct_assoc_qos_src(struct ctld *cd, const acct_assoc_t *a);
int acct_assoc_qos_allowed(struct ctld *cd, const acct_assoc_t *a, uint32_t qos_id);
void acct_assoc_eff_lim(struct ctld *cd, const acct_assoc_t *a, lim_set_t *out);
/* What binds every association below a (a coordinator's grants there
 * stay within it): a's Max* limits as it inherits them, and each Grp*
 * limit at its lowest over a and its ancestors (LIM_UNSET: none). */
void acct_assoc_bound_lim(struct ctld *cd, const acct_assoc_t *a, lim_set_t *out);
/* a's Priority, inherited from its ancestors if unset (0: none). */
uint32_t acct_assoc_eff_prio(struct ctld *cd, const acct_assoc_t *a);
/* Is uid a coordinator of account or of one of its ancestors? */
int acct_is_coord(struct ctld *cd, uint32_t uid, const char *account);
/* AdminLevel Operator or more (root and SlurmUser included). */
int acct_is_operator(struct ctld *cd, uint32_t uid);
/* A recovered job: its assoc_id/qos_id from its account and QOS names
 * (never refuses: the job was accepted). */
void acct_job_relink(struct ctld *cd, struct job *j);
acct_qos_t *acct_qos_by_id(struct ctld *cd, uint32_t id);
acct_qos_t *acct_qos_by_name(struct ctld *cd, const char *name);
/* The AdminLevel of uid (root and SlurmUser: ACCT_ADMIN_SUPER). */
uint32_t acct_admin_level(struct ctld *cd, uint32_t uid);
/* At submission: fill the job's account and QOS from the user's defaults,
 * find its association (user, account, partition), set j->assoc_id and
 * j->qos_id, and refuse what Slurm refuses under the enforce flags
 * (ESLURM_INVALID_ACCOUNT "Invalid account or account/partition
 * combination specified", ESLURM_INVALID_QOS "Invalid qos
 * specification"). 0 or an errors.h number with *msg. Also used when
 * scontrol update changes Account=, QOS= or Partition=. */
int acct_job_resolve(struct ctld *cd, struct job *j, uint32_t uid, char **msg);

/* ---- sacctmgr_rpc.c ---- */
/* ACCT_OP_MGR: sacctmgr's verbs (sacctmgr_int.h has the request). */
void acct_mgr_op(struct ctld *cd, const msg_acct_req_t *req, uint32_t uid, msg_acct_reply_t *out);

/* ---- limits.c ---- */
/* Submit-time limit checks (MaxSubmitJobs, DenyOnLimit, ...): 0 or an
 * errors.h number with *msg (ESLURM_ACCOUNTING_POLICY "Job violates
 * accounting/QOS policy (job submit limit, user's size and/or time
 * limits)"). asked_time: the --time the job was submitted with
 * (TIME_NO_VAL: none; it then gets the QOS's or association's MaxWall
 * within the partition's MaxTime, as Slurm). */
int limits_submit_check(struct ctld *cd, struct job *j, uint32_t asked_time, char **msg);
/* Hand the scheduler core (cd->sched) the association and QOS tables,
 * the enforce flags, PreemptType/PreemptMode and the QOS/association
 * priority normalizers; rebuilt only when the model changed (acct.gen),
 * else O(1). Before a pass, a priority, a submit check. */
void limits_sync(struct ctld *cd);
/* limits_sync and the decayed usage of associations and QOS: O(assocs +
 * QOS), once per pass. */
void limits_sync_usage(struct ctld *cd);
void limits_free(struct ctld *cd);
/* A job's association and QOS indexes, QOS and association priority. */
struct sched_job;
void limits_job_fill(struct ctld *cd, const struct job *j, struct sched_job *sj);
/* Preempt running job v for job by: requeue (PreemptMode=REQUEUE of v's
 * QOS, else the cluster's; a job that may not be requeued is cancelled)
 * or cancel (state PREEMPTED; SIGTERM, SIGKILL after its QOS GraceTime,
 * else KillWait). */
void limits_preempt(struct ctld *cd, const struct job *by, struct job *v);

/* ---- acct_jobs.c ---- */
/* The job's accounting record changed (called for each dirty or newly
 * inserted job from db_commit, inside the transaction). Nothing is
 * written when the record already holds these values (a fingerprint of
 * the last committed write). A failure fails the turn's transaction
 * (cd->db_failed), as any write. */
void acct_job_record(struct ctld *cd, struct job *j);
/* The transaction that held the job's last record write committed. */
void acct_job_recorded(struct job *j);
/* Migration steps: the acct_job table and its indexes, and the indexes
 * as sacct's queries use them (state_db.c). */
int acct_jobs_migrate(sqlite3 *db, char **err);
int acct_jobs_migrate_indexes(sqlite3 *db, char **err);
int acct_jobs_migrate_fewer_indexes(sqlite3 *db, char **err);
/* Migration: acct_job.array_task_str (an array's pending tasks). */
int acct_jobs_migrate_array_tasks(sqlite3 *db, char **err);
/* Migration: acct_job.resv_id (sacct's ReservationId). */
int acct_jobs_migrate_resv_id(sqlite3 *db, char **err);
void acct_jobs_close(struct ctld *cd);    /* db_close: finalize statements */

/* ---- acct_steps.c ---- */
/* Migration step: create acct_step (state_db.c's migrations[]). */
int acct_steps_migrate(sqlite3 *db, char **err);
/* Its statements, once the DB is migrated (db_open); 0 or -1 with *err. */
int acct_steps_db_init(struct ctld *cd, char **err);
void acct_steps_db_close(struct ctld *cd);
/* A step started: its row (state RUNNING) is written with the turn's
 * commit. mem_mb and cpus make its AllocTRES. */
void acct_step_start(struct ctld *cd, uint32_t job_id, uint32_t step_id, const char *name,
		     const char *nodelist, uint32_t nnodes, uint32_t ntasks, uint32_t cpus,
		     uint64_t mem_mb, int64_t start);
/* The srun step just started (acct_step_start) also records its own time
 * limit (minutes, 0 none) and srun's host and pid: what scontrol show step
 * shows, kept for a controller restart (step_info.c). */
void acct_step_launch_info(struct ctld *cd, uint32_t job_id, uint32_t step_id,
			   uint32_t time_limit, const char *srun_host, uint32_t srun_pid);
/* The job started (j->start_time, j->alloc set): its batch step, and its
 * extern step with PrologFlags=Contain. */
void acct_steps_job_start(struct ctld *cd, const struct job *j);
/* The job goes back to pending in the turn it started (its launch
 * failed): the step rows its start queued are not written. */
void acct_steps_job_unstart(struct ctld *cd, uint32_t job_id);
/* What the turn queued for the job's step rows is not written (its
 * request's commit failed and the job is put back: turn.c). */
void acct_steps_job_forget(struct ctld *cd, uint32_t job_id);
/* The job ended: its steps still open are closed with it. */
void acct_steps_job_end(struct ctld *cd, const struct job *j, uint32_t state,
			uint32_t exit_status, int64_t now);
/* MSG_STEP_COMPLETE: a node's share of a step (node traffic only). 0 or
 * an errors.h number. */
int acct_step_complete(struct ctld *cd, const msg_step_complete_t *m, uint32_t uid);
/* Queue a node's report as acct_step_complete does once it has checked
 * it (also for tests). */
void acct_steps_queue_report(struct ctld *cd, const msg_step_complete_t *m);
/* db_commit: anything queued? apply the queue inside the open
 * transaction; drop it once committed. */
int acct_steps_pending(const struct ctld *cd);
void acct_steps_commit(struct ctld *cd);
void acct_steps_committed(struct ctld *cd);

/* ---- acct_usage.c ---- */
/* Its statements (from db_open, after the migrations); freed by db_close. */
int acct_usage_db_init(struct ctld *cd, char **err);
int acct_usage_migrate(sqlite3 *db, char **err);      /* migration step */
void acct_usage_db_close(struct ctld *cd);
/* Inside db_commit's transaction: write the changed usage; after a
 * successful commit: forget what was written. */
void acct_usage_commit(struct ctld *cd);
void acct_usage_committed(struct ctld *cd);
/* Every few seconds (ctld_main.c): once a PriorityCalcPeriod has passed,
 * decay, charge the running jobs and recompute the fair-share factors. */
void acct_usage_periodic(struct ctld *cd, int64_t now);
/* Decay and charge up to now (the periodic step without the factors). */
void acct_usage_advance(struct ctld *cd, int64_t now);
/* A running job stops running (it ends or is requeued): charge it up to
 * now. Call before its state changes. */
void acct_usage_job_stop(struct ctld *cd, const struct job *j, int64_t now);
/* A pending job starts: its wait counts as Planned (rollups). Call
 * before its state changes. */
void acct_usage_job_start(struct ctld *cd, const struct job *j, int64_t now);
/* The job's TRES as charged: CPUs, MB, nodes, GPUs, billing. */
void acct_usage_job_tres(const struct ctld *cd, const struct job *j, double tres[LIM_TRES_N]);
/* 2^(-dt / half_life); 1 without decay. */
double acct_usage_decay_factor(int64_t half_life, int64_t dt);
/* The fair-share factor [0,1] of an association (0: none known). */
double acct_usage_fs_factor(struct ctld *cd, uint32_t assoc_id);
/* The association tree with its fair-share values (index i mirrors
 * acct.assocs[i]); NULL with *n = 0 if there is none. Valid until the
 * loop's next turn. gen (may be NULL): a number that changes whenever the
 * values may have (each computation of them). */
const sched_assoc_t *acct_usage_tree(struct ctld *cd, uint32_t *n, uint64_t *gen);
/* The index in acct.assocs of association id (UINT32_MAX: none). */
uint32_t acct_usage_assoc_index(struct ctld *cd, uint32_t assoc_id);

/* A benchmark build (make NORECORDS=1, bench/acct_cost.sh only) writes no
 * job, step or usage records, to measure what they cost the controller
 * against the same code otherwise; never a configuration. */
#ifdef SLUICE_BENCH_NO_RECORDS
#define ACCT_RECORDS 0
#else
#define ACCT_RECORDS 1
#endif

/* ---- acct_rollup.c (driven by acct_usage.c) ---- */
int acct_rollup_db_init(struct ctld *cd, char **err);
int acct_rollup_migrate(sqlite3 *db, char **err);     /* migration step */
/* With the usage (its watermark known): the open hour, open node events. */
void acct_rollup_load(struct ctld *cd, int64_t last);
void acct_rollup_db_close(struct ctld *cd);
int64_t rollup_hour_floor(int64_t t);     /* the start of t's hour */
int64_t rollup_hour_next(int64_t hs);      /* the start of the next one */
int rollup_hour_is_test(void);             /* SLUICE_ROLLUP_HOUR_S is set */
/* A step [last, last + secs) of a running job: its TRES-seconds. */
void acct_rollup_alloc(struct ctld *cd, int64_t last, const struct job *j, double secs,
		       const double tres[LIM_TRES_N]);
/* A pending job was eligible and waited over [from, to). */
void acct_rollup_planned(struct ctld *cd, int64_t last, const struct job *j, int64_t from, int64_t to);
/* The cluster's and the down nodes' TRES-seconds over [from, to). */
void acct_rollup_span(struct ctld *cd, int64_t from, int64_t to);
/* The hour starting at hour_start ended (every step of it was reported). */
void acct_rollup_hour_end(struct ctld *cd, int64_t hour_start);
/* In the commit: node events, the hours' sums and closes; after it. */
void acct_rollup_commit(struct ctld *cd, int64_t now);
void acct_rollup_committed(struct ctld *cd);
/* An hour's close (pure): Down cut so that Allocated + Down + PLND Down
 * fit in Reported (a job on a node counted down), Idle the rest, Planned
 * cut to Idle and taken from it. */
void acct_rollup_close_math(double *alloc, double *down, double pdown, double *planned,
			    double reported, double *idle);
/* The reservations' share of the hour [hs, he) (LIM_TRES_* order, cpu
 * only, as Slurm's reservations hold), as Slurm's rollup: pdown, the
 * CPU-seconds of the MAINT ones (not IGNORE_JOBS); adj, what Allocated
 * gains: the reserved time of the others (not IGNORE_JOBS) less their
 * jobs' time, less the time of the jobs in MAINT ones. From the acct_resv
 * and acct_job records. */
void acct_rollup_resv(sqlite3 *db, int64_t hs, int64_t he, double pdown[LIM_TRES_N],
		      double adj[LIM_TRES_N]);

/* ---- why.c ---- */
/* ACCT_OP_WHY (loop): `sluice why`; args job=ID or node=NAME; the answer
 * is a JSON document in out->msg (see why.c). */
void why_op(struct ctld *cd, const msg_acct_req_t *req, uint32_t uid, msg_acct_reply_t *out);

/* ---- acct_sshare.c ---- */
/* ACCT_OP_SSHARE (loop): the sshare rows (see acct_sshare.c). */
void acct_sshare(struct ctld *cd, const msg_acct_req_t *req, uint32_t uid, msg_acct_reply_t *out);
/* The same answer as an encoded MSG_ACCT_REPLY frame (cells packed)
 * appended to frame, from the recent answers when nothing it shows has
 * changed since (never with TRESRunMins, which moves with the clock). */
void acct_sshare_frame(struct ctld *cd, const msg_acct_req_t *req, uint32_t uid, strbuf_t *frame);
void acct_sshare_cache_free(struct ctld *cd);

/* ---- acct_rpc.c ---- */
/* r encoded as a MSG_ACCT_REPLY frame appended to frame; one too large
 * for a frame is replaced by an error answer that says so. */
void acct_reply_frame(strbuf_t *frame, msg_acct_reply_t *r);
/* MSG_ACCT_REQ from rpc_on_msg; takes the message over. */
void acct_rpc(struct ctld *cd, conn_t *c, msg_acct_req_t *req, uint32_t uid);
/* A conn closed: drop the answers the reader still owes it. */
void acct_rpc_conn_closed(struct ctld *cd, conn_t *c);
/* At exit: stop the reader thread (after the loop; answers still owed
 * are dropped). */
void acct_rpc_shutdown(struct ctld *cd);

/* Operations (the ops[] table of acct_rpc.c names each with its
 * function): a loop operation runs in the loop with the model at hand
 * (sacctmgr, sshare; changes are committed with the turn); a store read
 * runs off the loop with a read-only connection (sacct, sreport) and may
 * use only the request and this context, never ctld_t. */
/* What a store read gets besides the request: the facts of the loop it
 * may not touch from elsewhere, copied when the request arrived. */
typedef struct acct_read_ctx {
	uint32_t uid;             /* the caller */
	uint32_t admin_level;     /* its AdminLevel (ACCT_ADMIN_*) */
	const char *cluster;      /* ClusterName */
	int64_t now;
} acct_read_ctx_t;

typedef void (*acct_loop_f)(struct ctld *cd, const msg_acct_req_t *req, uint32_t uid,
			    msg_acct_reply_t *out);
typedef void (*acct_read_f)(sqlite3 *db, const acct_read_ctx_t *ctx,
			    const msg_acct_req_t *req, msg_acct_reply_t *out);

/* ---- acct_sacct.c ---- */
/* ACCT_OP_SACCT (a store read; its arguments: acct_sacct.c). */
void acct_sacct_read(sqlite3 *db, const acct_read_ctx_t *ctx, const msg_acct_req_t *req,
		     msg_acct_reply_t *out);

/* The value of "key=value" in args, or NULL (the first match). */
const char *acct_arg(const msg_acct_req_t *req, const char *key);

/* A table answer under construction (the reply's cols and cells). */
void acct_reply_col(msg_acct_reply_t *r, const char *name);
void acct_reply_cell(msg_acct_reply_t *r, const char *value);   /* NULL -> "" */
/* v as printf's "%f" writes it, byte for byte (6 decimals, correctly
 * rounded), without printf for the common case: a report of 1,000 rows
 * spent a third of its time in printf's float conversion. */
void acct_reply_cell_f6(msg_acct_reply_t *r, double v);
/* The same into buf (ACCT_F6_LEN bytes: DBL_MAX takes 317); returns its
 * length. */
#define ACCT_F6_LEN 330
int acct_fmt_f6(char *buf, double v);
void acct_reply_cellf(msg_acct_reply_t *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- acct_sreport.c ---- */
/* ACCT_OP_SREPORT (store read): rollup sums (see acct_sreport.c). */
void acct_sreport(sqlite3 *db, const acct_read_ctx_t *ctx, const msg_acct_req_t *req,
		  msg_acct_reply_t *out);

/* ---- acct_sreport_resv.c ---- */
/* ACCT_OP_SREPORT report=resv: sreport reservation Utilization's rows
 * (see acct_sreport_resv.c). */
void acct_sreport_resv(sqlite3 *db, const msg_acct_req_t *req, int64_t start, int64_t end,
		       msg_acct_reply_t *out);
/* Migration step: acct_job_resv, the job records by reservation. */
int acct_sreport_resv_migrate(sqlite3 *db, char **err);

#endif
