/*
 * ctld.h: the controller's state and the functions its modules share.
 *
 * One ctld_t owns everything: config, event loop, the SQLite state DB, the
 * node/partition/job records and the sched_t mirror the scheduler core
 * works on. Modules: state_db.c (durability), jobs.c (job records and
 * transitions), job_env.c (a batch job's environment), nodes.c (nodes and partitions), sched_glue.c (scheduling
 * passes and launches), rpc.c (message dispatch), ctld_main.c (startup and
 * the loop hooks).
 *
 * Durability rule: every change marks its record dirty (job_dirty,
 * node_dirty, part_dirty); the loop's before_sleep hook writes the dirty
 * records in one transaction, commits, and only then flushes replies.
 */
#ifndef SLUICE_CTLD_H
#define SLUICE_CTLD_H

#include <stdint.h>
#include <sqlite3.h>

#include "auth.h"
#include "conf.h"
#include "loop.h"
#include "net.h"
#include "proto.h"
#include "sched/sched.h"
#include "acct.h"
#include "http.h"
#include "prom.h"
#include "states.h"

/* One element of a job's dependency (job_deps.c). */
enum dep_type { DEP_AFTER = 1, DEP_AFTERANY, DEP_AFTEROK, DEP_AFTERNOTOK,
		DEP_AFTERCORR, DEP_SINGLETON, DEP_AFTERBB };
/* Its state, as scontrol shows it: "(unfulfilled)", met (then not shown),
 * "(failed)". */
enum dep_state { DEP_UNFULFILLED = 0, DEP_FULFILLED, DEP_FAILED };
#define DEP_TASK_NONE UINT32_MAX       /* "afterok:5" */
#define DEP_TASK_ALL  (UINT32_MAX - 1) /* "afterok:5_*" */
typedef struct dep {
	uint8_t type;             /* enum dep_type */
	uint8_t state;            /* enum dep_state */
	uint32_t job_id;          /* 0 for singleton */
	uint32_t task_id;         /* "_N" array task, or DEP_TASK_* */
	uint32_t time_min;        /* "+N": minutes after start/end, 0 none */
} dep_t;

/* A node that may still run an old copy of a requeued job (fencing):
 * released when it shows the copy is gone (jobs.c, job_fence_heard). */
typedef struct fence {
	uint32_t node;            /* index into ctld_t.nodes */
	uint64_t ping_seq;        /* a heartbeat must echo at least this ping,
	                           * sent after the kill (UINT64_MAX: only a new
	                           * registration tells) */
} fence_t;

typedef struct step_hold step_hold_t;

typedef struct job {
	uint32_t job_id;
	uint32_t state;           /* job_state_base | flags */
	uint32_t reason;          /* enum job_reason */
	char *reason_detail;      /* "UnavailableNodes:comp032" or NULL */
	uint32_t user_id, group_id;
	char *group_name;
	uint32_t priority;
	uint32_t part;            /* index into ctld_t.parts */
	uint32_t launch_seq;
	uint32_t exit_code;       /* raw wait status */
	uint32_t time_limit;      /* minutes */
	uint32_t hold;            /* 0, WAIT_HELD_USER or WAIT_HELD (admin) */
	int64_t submit_time, eligible_time, start_time, end_time, last_eval;
	int64_t kill_time;        /* last kill sent for an overdue job */
	uint32_t next_step;
	uint32_t restarts;         /* times requeued (scontrol show job Restarts=) */
	int64_t suspend_time;     /* last scontrol suspend or resume
	                           * (job_control.c); not kept by restarts */
	uint32_t pre_sus_secs;    /* run time before the last suspend */
	fence_t *fence;           /* requeued: nodes not yet known to have
	                           * stopped the old copy */
	uint32_t nfence;
	int64_t fence_until;      /* when the last of them surely has (the
	                           * lease), the eligible time it set */
	uint8_t alloc_held;       /* alloc still committed to the scheduler */
	uint8_t dirty;
	uint8_t dep_state;        /* 0 met/none, 1 waiting, 2 never */
	uint8_t dep_or;           /* "?": any one of deps is enough */
	uint32_t ndeps;
	dep_t *deps;
	char *dep_str;            /* deps as Slurm shows them, NULL if none
	                           * left (job_deps.c keeps it) */
	uint32_t sidx;            /* position in its name+user group
	                           * (job_deps.c, singleton) */
	job_desc_t *desc;         /* as submitted, minus script and env (in the DB) */
	uint32_t *req_idx, nreq, *exc_idx, nexc;   /* -w / -x as node indexes */
	uint32_t gpus_per_node, gpus_per_job;
	uint32_t gpus_per_task;   /* --gpus-per-task */
	uint32_t assoc_id;        /* its association (acct.h), 0 = none */
	uint32_t qos_id;          /* its QOS, 0 = none */
	uint32_t cancel_uid;      /* who cancelled it (sacct "CANCELLED by"), */
	uint8_t cancelled_by;     /* when this is set; not kept across restarts */
	uint64_t acct_sum;        /* fingerprint of its committed accounting
	                           * record (acct_jobs.c), 0 = none known */
	uint64_t acct_sum_new;    /* of the record written this turn */
	int64_t acct_keys[6];     /* the committed record's indexed columns
	                           * (acct_jobs.c), valid while acct_sum != 0 */
	char gpu_type[32];
	sched_alloc_t alloc;
	char *nodes;              /* allocated nodes, ranged */
	char *tres;               /* cached TRES string (req or alloc) */
	char *sched_nodes;        /* pending: nodes backfill plans for it */
	uint8_t backfilled;       /* started by backfill (Scheduler=Backfill) */
	uint8_t bf_examined;      /* pending, a backfill cycle has tested it
	                           * (Scheduler=Backfill:*) */
	char *cpu_ids;            /* show -d: per node CPU ids, space separated
	                           * ("0-7 0-3"); built on demand, NULL before */
	strv_t gres_detail;       /* show -d: per node "gpu:h100:2(IDX:0-1)" */
	char *mem_alloc;          /* show -d: per node MB, space separated */
	uint32_t array_job_id;    /* job_array.c: 0 = no array, else the array's id */
	uint32_t array_task_id;   /* NO_VAL32: the array's pending record */
	uint32_t array_throttle;  /* %N (ArrayTaskThrottle), 0 = none */
	uint32_t array_nrun;      /* pending record: its running tasks (a pass's count) */
	struct array_set *array_pending;   /* pending record: tasks not started */
	char *array_str;          /* its last formatted form (job info borrows it) */
	struct job *hnext;        /* hash chain */
	struct job *rnext;        /* request id hash chain (desc->request_id) */
	struct step_hold *step_holds;   /* CPUs its running steps hold
	                                 * (step_alloc.c); in memory only */
	uint32_t nstep_holds;
	uint64_t *prolog_wait;    /* PrologFlags=Alloc: bit i set while node i
	                           * of the allocation has not answered its
	                           * Prolog (prolog_nodes.c); in memory only */
	uint32_t prolog_seq;      /* the run those answers are for */
	uint8_t turn_req;         /* turn.c: changed by a request this turn */
	struct job_nccl *nccl;    /* job_nccl.c: the NCCL transport verdict, NULL none */
} job_t;

typedef struct node {
	uint32_t idx;
	const conf_node_t *cf;
	uint32_t base;            /* NODE_UNKNOWN/DOWN/FUTURE, or NODE_IDLE = up */
	uint32_t flags;           /* NODE_FLAG_DRAIN/FAIL/NO_RESPOND */
	char *reason;
	uint32_t reason_uid;
	int64_t reason_time;
	conn_t *conn;             /* the noded's registered connection */
	int64_t last_heard;       /* wall s; never before the node's lease
	                           * renewal (a node renews only from what the
	                           * controller answered) */
	uint64_t ping_sent_ms;    /* loop ms of the unanswered ping, 0 = none */
	uint64_t ping_seq;        /* the last ping's sequence number */
	char *arch, *os, *version;
	int64_t boot_time, start_time, last_busy;
	uint32_t cpu_load, port;
	uint64_t free_mem;
	char *partitions;         /* "defq,short" */
	char *cfg_tres;
	char *topo_addr;          /* SLURM_TOPOLOGY_ADDR */
	char *comment, *extra;    /* scontrol update Comment=/Extra=; persisted */
	char *health;             /* failing health checks the node reported
	                           * ("check: evidence" lines), NULL none */
	char *key_digest;         /* its auth key's digest, as reported */
	uint32_t key_match;       /* KEY_MATCH_* */
	uint32_t health_round, health_nchecks; /* as the node reported */
	uint8_t dirty;
	uint8_t turn_req;         /* turn.c: changed by a request this turn */
} node_t;

typedef struct part {
	const conf_part_t *cf;
	uint32_t state;           /* CONF_PART_* */
	uint32_t max_time, default_time, max_nodes, min_nodes;
	uint32_t priority_job_factor, priority_tier;
	uint32_t total_cpus;
	char *tres;
	uint8_t dirty;
	uint8_t turn_req;         /* turn.c: changed by a request this turn */
} part_t;

typedef struct waiter {
	conn_t *c;
	uint32_t job_id, until;
	uint32_t uid;             /* who waits (per-user cap, rpc.c) */
} waiter_t;

/* sdiag counters (rpc_sched.c keeps and reports them). One entry per RPC
 * kind as Slurm numbers them (id), and per calling uid. */
typedef struct ctld_rpc_stat {
	uint32_t id;              /* Slurm message number, or uid */
	uint32_t count;
	uint64_t time_us;
} ctld_rpc_stat_t;

typedef struct ctld_stats {
	int64_t since;            /* start, or the last sdiag -r */
	uint32_t jobs_submitted, jobs_started, jobs_completed, jobs_canceled, jobs_failed;
	uint32_t sched_cycles, sched_last_us, sched_max_us, sched_last_queue;
	uint64_t sched_sum_us, sched_depth_sum;
	uint32_t bf_cycles, bf_last_us, bf_max_us, bf_last_depth, bf_last_depth_try;
	uint32_t bf_last_queue, bf_last_table, bf_backfilled, bf_backfilled_total;
	uint64_t bf_sum_us, bf_depth_sum, bf_depth_try_sum, bf_queue_sum, bf_table_sum;
	int64_t bf_last_when;
	uint32_t gtod_latency_us; /* 1000 gettimeofday() calls, at start */
	ctld_rpc_stat_t *rpc_types; size_t nrpc_types, arpc_types;
	ctld_rpc_stat_t *rpc_users; size_t nrpc_users, arpc_users;
} ctld_stats_t;

/* What the metrics endpoint adds to the sdiag counters (metrics.c): never
 * reset by sdiag -r (Prometheus counters and histograms). */
typedef struct ctld_mstats {
	uint64_t jobs_submitted, jobs_started;
	uint64_t jobs_ended[JOB_END];   /* by base end state */
	prom_hist_t sched_cycle, bf_cycle;   /* seconds */
	prom_hist_t commit;             /* seconds, commits that wrote */
	uint64_t commit_failures;
	uint32_t commit_last_us, commit_max_us;
	prom_hist_t turn;               /* loop turn busy time, seconds */
	uint32_t turn_max_us;
	struct { char *part; prom_hist_t h; } *wait;   /* job wait by partition */
	size_t nwait, await;
	http_server_t *http;            /* NULL: metrics off */
	uint32_t scrape_last_us;
	size_t scrape_last_bytes;
} ctld_mstats_t;

typedef struct ctld {
	conf_t *conf;
	const char *conf_path;
	loop_t *loop;
	auth_t *auth;
	uint32_t slurm_uid;
	int64_t boot_time;
	char key_digest[65];      /* our auth key's (node_health.c) */
	int64_t key_digest_at;    /* when read (re-read each minute) */
	int key_drain;            /* health.conf: a differing key drains */

	/* state DB */
	char *db_path;            /* StateSaveLocation/sluice.db */
	sqlite3 *db;
	sqlite3_stmt *st_begin, *st_commit, *st_job_ins, *st_job_upd, *st_job_del,
		*st_job_desc, *st_node_save, *st_part_save, *st_meta_set;
	sqlite3_stmt *st_node_notes;   /* nodes.comment/extra, after st_node_save */
	sqlite3_stmt *st_node_weight;  /* nodes.weight, after st_node_save */
	sqlite3_stmt *st_acct_job;     /* acct_jobs.c: upsert of a job's record */
	sqlite3_stmt *st_acct_job_keys;      /* acct_jobs.c: its indexed columns */
	sqlite3_stmt *st_acct_job_upd[64];   /* acct_jobs.c: updates by changed keys */
	sqlite3_stmt *st_job_array;    /* jobs.array_*, after a save of an array job */
	int in_txn;
	int db_failed;          /* a statement of the open transaction failed */
	int db_errno;           /* why it failed (ENOSPC, EIO, ...) */
	int db_redo;            /* the last transaction was rolled back: redo pending */
	struct db_pending *pending;   /* job inserts and description rewrites of
				       * the open transaction, until committed */
	size_t npending, apending;
	/* The store cannot be written (disk full, I/O error): state changes
	 * are refused (store_refused), reads are served, and the commit of
	 * what is pending is retried until it succeeds (ctld_main.c). */
	int store_failing;
	uint64_t store_retry_ms;  /* loop clock of the last attempt */
	/* turn.c: the jobs the turn's requests changed (undone if their
	 * commit fails) and the node-bound messages waiting for a commit. */
	int in_request;         /* a client's state-changing request is handled */
	uint32_t *turn_jobs;
	size_t nturn_jobs, aturn_jobs;
	uint32_t *turn_nodes, *turn_parts;  /* indexes, as turn_jobs */
	size_t nturn_nodes, aturn_nodes, nturn_parts, aturn_parts;
	int turn_acct;          /* a request changed the accounting model */
	struct waiter *turn_waiters;  /* answered since the last commit */
	size_t nturn_waiters, aturn_waiters;
	uint32_t *held_waits;   /* jobs whose waiters' answers were taken back */
	size_t nheld_waits, aheld_waits;
	struct outbox_msg *outbox;
	size_t noutbox, aoutbox;
	const struct turn_ops *turn_ops;  /* turn_undo_ops, set at start */
	int lock_fd;            /* StateSaveLocation itself, locked for life (dirlock_take) */
	uint32_t jobs_accepted; /* since start (SLUICE_FAULT counts them) */

	node_t *nodes;
	uint32_t nnodes;
	part_t *parts;
	uint32_t nparts;
	sched_t sched;

	/* jobs: hash by id + array in id order */
	job_t **htab;
	uint32_t hsize, hcount;
	job_t **jobs;
	size_t njobs, ajobs;
	uint32_t next_job_id;
	int meta_dirty;
	/* jobs by (uid, desc->request_id), for idempotent submission: a job
	 * is in it from submission (or recovery) until purged */
	job_t **rtab;
	uint32_t rsize, rcount;

	uint32_t *fenced;         /* ids of jobs with a fence (few) */
	size_t nfenced, afenced;
	uint64_t nodes_tick_ms;   /* loop ms of the last nodes_periodic */

	job_t **dirty_jobs;
	size_t ndirty_jobs, adirty_jobs;
	uint32_t *dead_jobs;     /* ids to delete from the DB */
	size_t ndead_jobs, adead_jobs;

	waiter_t *waiters;
	size_t nwaiters, awaiters;

	int sched_needed;
	int sched_now;            /* an srun waits: schedule this turn, unthrottled */
	uint64_t last_sched_ms, sched_timer;
	int64_t last_job_update, last_node_update, last_part_update;
	int shutdown;

	/* priority/multifactor weights (0 with priority/basic) */
	int multifactor;
	uint32_t w_age, w_part, w_size, max_age_s;
	uint32_t max_pjf, total_cpus;

	ctld_stats_t stats;      /* sdiag */
	ctld_mstats_t mstats;    /* metrics endpoint (metrics.c) */

	acct_t acct;             /* accounts, users, associations, QOS (acct.h) */
	struct acct_reader *reader;   /* acct_rpc.c: store queries off the loop */
	struct limits_state *limits;  /* limits.c: the core's association/QOS tables */
	struct acct_steps *steps;     /* acct_steps.c: step record changes to commit */
	struct acct_usage *usage;     /* acct_usage.c: decayed usage, fair share */
	struct acct_rollup *rollup;   /* acct_rollup.c: sreport's rollups, node events */
	struct dep_index *depidx;     /* job_deps.c: jobs by name+user (singleton) */
	struct resv_state *resv;      /* resv.c: advance reservations */
	struct ss_cache *sshare_cache; /* acct_sshare.c: recent sshare answers */
	uint64_t conf_gen;       /* bumped by every reconfigure */
} ctld_t;

/* ---- state_db.c ---- */
int db_open(ctld_t *cd, const char *path, char **err);
void db_close(ctld_t *cd);
/* Run a statement of the open transaction that returns no rows; a failure
 * is logged and fails the transaction (as every write of db_commit). 0 or
 * -1. */
int db_exec_step(ctld_t *cd, sqlite3_stmt *st, const char *what);
void db_begin(ctld_t *cd);           /* lazily opens the turn's transaction */
/* Write the dirty records and commit. 0, or -1 (cd->db_errno says why):
 * the transaction is rolled back, but nothing is forgotten: the dirty
 * records stay dirty and this transaction's job inserts and description
 * rewrites are redone by the next call, so memory and DB converge once a
 * commit succeeds. */
int db_commit(ctld_t *cd);
void db_job_insert(ctld_t *cd, job_t *j, const job_desc_t *full);
int db_job_fetch_desc(ctld_t *cd, uint32_t job_id, job_desc_t *out);
void db_job_update_desc(ctld_t *cd, const job_t *j);
int db_load(ctld_t *cd);             /* recovery at start */
/* A migration step (state_db.c's migrations[]): DDL on db inside the
 * step's transaction; 0, or -1 with *err (malloc'd). */
typedef int (*db_migrate_f)(sqlite3 *db, char **err);
/* sqlite3_exec: 0, or -1 with *err (malloc'd). */
int db_exec(sqlite3 *db, const char *sql, char **err);
/* Does TABLE have COLUMN? (for idempotent ADD COLUMN migration steps) */
int db_has_column(sqlite3 *db, const char *table, const char *column);
/* A column a migration adds, with its declaration ("INTEGER DEFAULT 0"). */
typedef struct db_column {
	const char *table, *column, *decl;
} db_column_t;
/* ALTER TABLE ... ADD COLUMN for each of cols[n] the DB lacks (a step
 * must be idempotent: a DB whose version was set back reruns it). 0, or
 * -1 with *err naming the column (malloc'd). */
int db_add_columns(sqlite3 *db, const db_column_t *cols, size_t n, char **err);
/* Rebuild table as a WITHOUT ROWID table, its PRIMARY KEY the b-tree's
 * key (one page less per write than a rowid table and its key index),
 * rows and columns kept. Idempotent; a migration step's transaction
 * holds it. The table must have a PRIMARY KEY and no other index. */
int db_without_rowid(sqlite3 *db, const char *table, char **err);
/* How many migration steps this sluice knows (PRAGMA user_version of a
 * DB it has opened). */
int db_schema_version(void);

/* The reply to a state change refused while the store is failing
 * ("state save location '/x': No space left on device"; malloc'd). */
char *store_error_msg(const ctld_t *cd);

/* Read job job_id's committed record from the DB into *out, decoded as
 * recovery does (not linked anywhere: job_replace does that): 0, 1 if
 * it has none, -1 if it cannot be read. */
int db_job_read(ctld_t *cd, uint32_t job_id, job_t **out);
/* Put node n's (partition p's) committed row back into its record: the
 * state, the drain/fail flags, reason, comment, extra and weight (a
 * partition's state and limits), or the configured ones if it has no
 * row. 0, or -1 if it cannot be read (the record stays as it is). */
int db_node_restore(ctld_t *cd, node_t *n);
int db_part_restore(ctld_t *cd, part_t *p);

/* ---- turn.c: what a loop turn's requests did, until it is committed ----
 * A request reported as failed must not have happened. The loop commits
 * the turn's request changes before its scheduling pass (ctld_main.c);
 * if that commit fails, turn_undo puts every job a client's request
 * changed back as committed (new ones are forgotten) and drops the
 * node-bound messages those requests queued. Messages to node daemons
 * that announce a change (launches, signals, a fence's ping) wait in the
 * outbox for the commit that makes their change durable, whatever made
 * them; liveness (heartbeat answers, pings) goes out directly. */
/* rpc.c, around a client's state-changing request: 1 before, 0 after. */
void turn_request(ctld_t *cd, int on);
/* jobs.c/state_db.c: j is changed or created; noted if by a request. */
void turn_job_changed(ctld_t *cd, job_t *j);
/* nodes.c: n (p) is marked for the store; noted if by a request. The
 * accounting model (assoc.c) and reservations (resv.c: resv_undo) note
 * their own. */
void turn_node_changed(ctld_t *cd, node_t *n);
void turn_part_changed(ctld_t *cd, part_t *p);
void turn_acct_changed(ctld_t *cd);
/* jobs.c: waiter w (MSG_JOB_WAIT) was answered. If the turn's changes
 * are not committed (turn_hold_replies), the answer is taken back and w
 * waits again; after the next commit it is answered as committed. */
void turn_waiter_answered(ctld_t *cd, const waiter_t *w);
/* ctld_main.c: the turn's changes are not durable (its commit failed, or
 * the store is failing and none was tried): take back the answers given
 * to waiters, which would announce them. */
void turn_hold_replies(ctld_t *cd);
/* rpc.c: c closed; forget what is noted of it. */
void turn_conn_closed(ctld_t *cd, conn_t *c);
/* Queue msg of type for node n, to be sent once a commit succeeded. */
void outbox_send(ctld_t *cd, node_t *n, enum msg_type type, const void *msg);
/* A commit succeeded: send the outbox, forget the turn's requests. */
void turn_committed(ctld_t *cd);
/* A commit failed: undo what the turn's requests did (when the store
 * was working until now, undo set) and keep the rest of the outbox. */
void turn_failed(ctld_t *cd, int undo);
/* What turn.c asks of the modules that own the records, through
 * cd->turn_ops (NULL: nothing is put back): undo puts back, as committed,
 * what the turn's requests changed; settle clears their marks; wake
 * answers a waiter of job_id whose answer was held. turn_undo.c's. */
struct turn_ops {
	void (*undo)(ctld_t *cd);
	void (*settle)(ctld_t *cd);
	void (*wake)(ctld_t *cd, uint32_t job_id);
};
extern const struct turn_ops turn_undo_ops;

/* ---- jobs.c ---- */
job_t *job_find(ctld_t *cd, uint32_t id);
/* A job created this turn whose commit failed: out of memory, as if it
 * had never been (no DB delete: it has no row). */
void job_forget(ctld_t *cd, job_t *j);
/* Put f (db_job_read) in j's place: j's in-memory-only state that f
 * can keep (running steps, prolog answers, the committed accounting
 * record's fingerprint) moves over, j is freed. */
void job_replace(ctld_t *cd, job_t *j, job_t *f);
/* The job uid submitted with request id rid (job_desc_t.request_id), or
 * NULL. A client's retry of a submission carries the same id. */
job_t *job_find_request(ctld_t *cd, uint32_t uid, const char *rid);
void job_dirty(ctld_t *cd, job_t *j);
int job_submit(ctld_t *cd, job_desc_t *d, uint32_t uid, uint32_t gid,
	       uint32_t *job_id, char **msg);
/* job_submit, and for a JOB_F_TEST_ONLY description (nothing submitted;
 * the caller still owns d) the plan's answer in *test: job_id (an id is
 * used up, as in Slurm), start_time, test_cpus, test_nodes and
 * test_partition (malloc'd). */
int job_submit_test(ctld_t *cd, job_desc_t *d, uint32_t uid, uint32_t gid,
		    uint32_t *job_id, char **msg, msg_submit_reply_t *test);
void job_fill_info(ctld_t *cd, job_t *j, job_info_t *ji);
/* Only the JINFO_* groups of strings in fields (proto.h); numbers always. */
void job_fill_info_fields(ctld_t *cd, job_t *j, job_info_t *ji, uint32_t fields);
void job_start(ctld_t *cd, job_t *j, sched_alloc_t *a, int64_t now);
void job_end(ctld_t *cd, job_t *j, uint32_t state, uint32_t exit_code, int64_t now);

/* job_mail.c: run MailProg for event (MAIL_BEGIN, MAIL_END, MAIL_FAIL)
 * if the job asked for it; job_mail_end picks END or FAIL as Slurm does
 * for an ended job. Never waits for the mailer. */
void job_mail(ctld_t *cd, const job_t *j, uint32_t event);
void job_mail_end(ctld_t *cd, const job_t *j);
void job_release(ctld_t *cd, job_t *j);
void job_requeue(ctld_t *cd, job_t *j);
/* Seconds a requeued job waits when there is no node lease
 * (SlurmdTimeout=0) to bound its old copy (Slurm: cred_expire 120 + 1);
 * also the lifetime of step credentials (rpc.c). */
#define JOB_REQUEUE_DELAY 121
/* Requeue a started batch job (node failure, scontrol requeue): counts a
 * restart and fences it: it may start again only once every node of its
 * old allocation has shown that the old copy is gone, or at the latest
 * when their leases have surely run out (node_fence_time). Call after
 * the kill was sent to the nodes and before the allocation is gone. */
void job_requeue_restart(ctld_t *cd, job_t *j, int64_t now);
/* A node's heartbeat (registration: reg set) lists the jobs it runs: lift
 * its fence from requeued jobs it no longer runs. */
void job_fence_heard(ctld_t *cd, node_t *n, const msg_node_register_t *m, int reg);
/* Tell the batch host the job's time limit now ends at j->end_time. */
void job_send_time_limit(ctld_t *cd, job_t *j);
/* scancel of an id: an array's id cancels the whole array (job_array.c);
 * job_cancel_record cancels that one record. */
int job_cancel(ctld_t *cd, uint32_t id, uint32_t sig, uint32_t flags, uint32_t uid);
int job_cancel_record(ctld_t *cd, uint32_t id, uint32_t sig, uint32_t flags, uint32_t uid);
/* scontrol update/hold/release: of a whole array for an array's id
 * (job_array.c), else of one record (job_update_record). */
int job_update(ctld_t *cd, const msg_update_job_t *m, uint32_t uid);
int job_update_record(ctld_t *cd, const msg_update_job_t *m, uint32_t uid);
int job_complete(ctld_t *cd, const msg_job_complete_t *m, uint32_t uid);
/* prolog_ctld.c: a node's Prolog/Epilog failure reported with a job's
 * end (m->rc): drain the node ("Prolog error"/"Epilog error") and, for a
 * Prolog, requeue the job held; 1 if the job was requeued (its end is
 * then not recorded), 0 otherwise. */
int job_node_error(ctld_t *cd, job_t *j, const msg_job_complete_t *m);
/* Drain node name with reason, as set by SlurmUser, unless it is drained
 * or failed already. */
void node_drain_by_slurm(ctld_t *cd, const char *name, const char *reason);
/* PrologSlurmctld of a job just started: 1 if it runs (the job is
 * CONFIGURING; prolog_ctld.c launches it, or requeues/cancels it, when
 * the script ends), 0 if none is configured (launch it now). */
int prolog_ctld_start(ctld_t *cd, job_t *j);
/* EpilogSlurmctld of a job that ended (runs in the background). */
void epilog_ctld_start(ctld_t *cd, job_t *j);
/* Once after recovery: run again the PrologSlurmctld of CONFIGURING jobs. */
void prolog_ctld_recover(ctld_t *cd);
/* 1 while the PrologSlurmctld of job_id runs. */
int prolog_ctld_running(uint32_t job_id);
/* Requeue a started batch job held after a node's Prolog failed
 * ("launch failed requeued held"; SchedulerParameters=
 * nohold_on_prolog_fail: not held). */
void job_requeue_held(ctld_t *cd, job_t *j);
/* ---- prolog_nodes.c: the node Prolog/Epilog on every node ---- */
/* 1 if slurm.conf has a Prolog or an Epilog. */
int prolog_nodes_configured(const ctld_t *cd);
/* The job's own variables a node's Prolog gets (never the submitter's
 * exported ones); free with strv_free. */
strv_t prolog_nodes_env(ctld_t *cd, job_t *j);
/* A job just started: with PrologFlags=Alloc ask every node of it to run
 * its Prolog; 1 if the job now waits for them (CONFIGURING), 0 if it
 * goes on (no Alloc, or NoHold). */
int prolog_nodes_start(ctld_t *cd, job_t *j);
/* A node registered: ask it again for the Prolog of CONFIGURING jobs
 * that wait for it. */
void prolog_nodes_registered(ctld_t *cd, node_t *n);
/* After recovery: CONFIGURING jobs wait again for their nodes. */
void prolog_nodes_recover(ctld_t *cd);
/* MSG_PROLOG_COMPLETE from a node daemon (root/SlurmUser). */
int prolog_nodes_complete(ctld_t *cd, const msg_prolog_complete_t *m, uint32_t uid);
/* Nothing more to wait for: clear CONFIGURING and launch the batch
 * script, or answer the srun/salloc waiting for the allocation. */
void job_configured(ctld_t *cd, job_t *j);
/* A node's Prolog failed for running job j: end it everywhere; requeue
 * a batch job held, end an srun/salloc allocation FAILED. */
void job_prolog_failed(ctld_t *cd, job_t *j, const char *node);
/* "launch failed requeued held": the reason text of such a job. */
extern const char *const job_launch_failed_desc;
void job_signal_nodes(ctld_t *cd, job_t *j, uint32_t sig, uint32_t flags, uint32_t end_state);
void job_add_recovered(ctld_t *cd, job_t *j);
void job_free(job_t *j);
void job_set_tres(ctld_t *cd, job_t *j);
/* The TRES the job asks for, as scontrol prints them (malloc'd). */
char *job_req_tres(ctld_t *cd, const job_t *j);
uint32_t job_priority(ctld_t *cd, const job_t *j, int64_t now);
void jobs_periodic(ctld_t *cd, int64_t now);
void jobs_wake_waiters(ctld_t *cd, job_t *j);
/* ---- job_control.c ---- */
/* scontrol hold|uhold|release|requeue|requeuehold|top|suspend|resume on
 * j by uid (admin: job_manager_ok). 0 or an errors.h number. */
int job_control(ctld_t *cd, job_t *j, const char *action, uint32_t uid, int admin);
/* scontrol notify: write text to the running batch job's stderr (its
 * supervisor on the batch host, as slurmstepd's "error:" line). */
int job_notify(ctld_t *cd, job_t *j, const char *text);
/* A batch job's script for its owner or a manager (scontrol write
 * batch_script): 0 and *script (malloc'd), or an errors.h number. */
int job_batch_script(ctld_t *cd, uint32_t job_id, uint32_t uid, char **script);
/* ---- job_update.c ---- */
/* One Key=Value of scontrol update jobid= that jobs.c does not handle:
 * 0, an errors.h number, or -1 for a key it does not know. Sets
 * *desc_changed when the stored description must be rewritten. */
int job_update_key(ctld_t *cd, job_t *j, const char *k, const char *v, uint32_t uid,
		   int admin, int *desc_changed);
/* jobs.c helpers it shares */
int parse_gpu_tres(const char *s, uint32_t *count, char *type, size_t tlen);
int resolve_nodes(ctld_t *cd, const char *expr, uint32_t **idx, uint32_t *n);
/* ---- job_deps.c ---- */
/* Parse a dependency expression (sbatch -d) into *deps, *n and *or_flag
 * ("?" anywhere: any one is enough; else all). Ids of jobs unknown here
 * are kept (they count as met, as Slurm's purged jobs). self_id: the
 * job's own id (refused as a target), 0 if none yet. 0, or
 * ESLURM_DEPENDENCY or ESLURM_NOT_SUPPORTED ("expand"). "" gives none. */
int dep_parse(const char *s, uint32_t self_id, dep_t **deps, uint32_t *n, int *or_flag);
/* Replace j's dependency by s (parsed as dep_parse); j->desc->dependency
 * is not touched. 0 or an errors.h number (j unchanged). */
int job_set_deps(ctld_t *cd, job_t *j, const char *s);
/* Where one target of j's dependency stands now: an enum dep_state.
 * The one place that looks at target jobs (array targets extend it). */
uint8_t dep_target_state(ctld_t *cd, const job_t *j, const dep_t *d, int64_t now);
/* Recompute j's dependency (each element, j->dep_state, j->dep_str).
 * O(elements); singleton through the name+user index. Returns 1 if
 * anything changed. Call job_deps_turn first in each new turn. */
int job_resolve_deps(ctld_t *cd, job_t *j);
/* A new turn: what the singleton index summarised may have moved. */
void job_deps_turn(ctld_t *cd);
/* Kill j when its dependency can never be met (--kill-on-invalid-dep,
 * else DependencyParameters=kill_invalid_depend)? */
int job_deps_kill_invalid(const ctld_t *cd, const job_t *j);
/* The name+user index (singleton): a job is in it from list_append until
 * purged; call remove/add around a change of name. */
void dep_index_add(ctld_t *cd, job_t *j);
void dep_index_remove(ctld_t *cd, job_t *j);
/* The tasks a job asked for (-n, else --ntasks-per-node x nodes, else
 * one per node). */
uint32_t job_ntasks(const job_t *j);
/* The next free job id of the sequence (FirstJobId..MaxJobId); marks
 * the meta record dirty. */
uint32_t job_next_id(ctld_t *cd);
/* Write an array job's columns of its jobs row (job_array.c keeps them). */
void db_job_array_save(ctld_t *cd, const job_t *j);
/* ---- job_env.c ---- */
char **job_build_env(ctld_t *cd, job_t *j, const job_desc_t *full, uint32_t *n);
/* assoc.c, who may do what. is_admin: the daemons' identity (root,
 * SlurmUser: node registration, job ends). With sacctmgr's AdminLevel:
 * is_super: root, SlurmUser or Administrator (nodes, partitions,
 * reconfigure: Slurm's super user); is_operator: those or Operator (other
 * users' jobs). */
int is_admin(const ctld_t *cd, uint32_t uid);
int is_super(const ctld_t *cd, uint32_t uid);
int is_operator(const ctld_t *cd, uint32_t uid);
/* May uid act on j as its owner's manager: an operator, or a coordinator
 * of the job's account (cancel, hold, release, update). */
int job_manager_ok(ctld_t *cd, const job_t *j, uint32_t uid);
void ctld_sched_request(ctld_t *cd);
/* ctld_main.c: apply conf's SluiceLogFormat and SlurmctldSyslogDebug. */
void ctld_log_conf(const conf_t *conf);

/* ---- nodes.c ---- */
int nodes_init(ctld_t *cd);
/* The state a node of cf has before it registers or anything is saved:
 * its base (NODE_UNKNOWN, or FUTURE/DOWN as State= says) and flags. */
uint32_t node_conf_base(const conf_node_t *cf, uint32_t *flags);
/* The scheduler's copy of partition p follows its state and limits. */
void part_sync_sched(ctld_t *cd, part_t *p);
uint32_t node_state(const ctld_t *cd, const node_t *n);
void node_dirty(ctld_t *cd, node_t *n);
void part_dirty(ctld_t *cd, part_t *p);
int node_register(ctld_t *cd, conn_t *c, msg_node_register_t *m, int heartbeat);
/* Set (or clear, reason NULL) a node's reason, who set it and when. */
void node_set_reason(ctld_t *cd, node_t *n, const char *reason, uint32_t uid, int64_t now);

/* ---- node_health.c ---- */

/* A registration or heartbeat of n: record its failing health checks and
 * key digest; drain it (reason "health: ...", set by SlurmUser) when
 * something fails, resume it when all passes again, never touching a
 * drain an admin set. */
/* CLOCK_REALTIME in ms (the time heartbeat answers carry). */
int64_t ctld_realtime_ms(void);
void node_health_heard(ctld_t *cd, node_t *n, const msg_node_register_t *m, int64_t now);
/* MSG_HEALTH_CHECK (admins): ask the nodes of m->name (all when empty)
 * to run a health check round now; their heartbeats bring the result. */
int node_health_request(ctld_t *cd, const msg_info_req_t *m, uint32_t uid, char **msg);
/* The Prometheus family sluice_health_check_failing{node,check}. */
struct strbuf;
void node_health_metrics(const ctld_t *cd, struct strbuf *sb);
void node_conn_closed(ctld_t *cd, conn_t *c);
int node_update(ctld_t *cd, const msg_update_node_t *m, uint32_t uid, char **msg);
int part_update(ctld_t *cd, const msg_update_part_t *m, uint32_t uid, char **msg);
void node_fill_info(ctld_t *cd, node_t *n, node_info_t *ni);
void part_fill_info(ctld_t *cd, part_t *p, part_info_t *pi);
void nodes_periodic(ctld_t *cd, int64_t now);
void node_sync_sched(ctld_t *cd, node_t *n);
long part_find(const ctld_t *cd, const char *name);
void node_fail_jobs(ctld_t *cd, node_t *n, int64_t now);
/* Seconds past the last renewal of a node's lease that a supervisor may
 * need to notice the lease ran out and to have killed its job (check
 * interval, rounding of last_heard to seconds, scheduling delays). */
#define NODE_FENCE_MARGIN 5
/* When a job copy on n is surely gone though n is not heard from:
 * last_heard + lease + KillWait + NODE_FENCE_MARGIN (wall s); without a
 * lease, now + JOB_REQUEUE_DELAY. */
int64_t node_fence_time(const ctld_t *cd, const node_t *n, int64_t now);
/* Ask n to answer now (MSG_NODE_PING); returns the ping's seq, or
 * UINT64_MAX when n is not connected. */
uint64_t node_ping(ctld_t *cd, node_t *n);
/* How often nodes_periodic should run (ms), from SlurmdTimeout. */
uint64_t nodes_tick_interval(const ctld_t *cd);

/* ---- sched_glue.c ---- */
void sched_glue_build(ctld_t *cd);
void sched_glue_free(ctld_t *cd);
/* Fill j->cpu_ids and j->gres_detail (scontrol show job -d) from its
 * allocation, once; a no-op without allocation or when already built. */
void job_detail_build(ctld_t *cd, job_t *j);
void ctld_schedule(ctld_t *cd);
/* The scheduler core's view of a job (for checks outside a pass). */
void sched_glue_job(ctld_t *cd, const job_t *j, sched_job_t *sj);
int job_launch(ctld_t *cd, job_t *j);
/* Could the job ever run (sched_job_validate)? An errors.h number, and in
 * *msg (if not NULL and unset) Slurm's detail line for the refusal. */
int job_sched_validate(ctld_t *cd, const job_t *j, char **msg);
/* --test-only (sched_glue.c): when and where job j (not in the queue)
 * would start by the backfill plan, as Slurm's will_run. 0 with *start,
 * *cpus and *nodes (malloc'd), or an errors.h number. */
int job_will_run(ctld_t *cd, const job_t *j, int64_t now, int64_t *start, uint32_t *cpus,
		 char **nodes);

/* job_deadline.c: --deadline. TimeMin the job shows for it (1 minute
 * when it has no time limit, else 0 = N/A). */
uint32_t job_deadline_time_min(const job_t *j);
/* Submission: a deadline already past is ESLURM_INVALID_TIME_LIMIT. */
int job_deadline_submit_check(const job_desc_t *d, int64_t now);
/* Would the job, started now, end after its deadline? */
int job_deadline_missed(const job_t *j, int64_t now);
/* A pending job that missed its deadline ends DEADLINE (reason DeadLine);
 * 1 if it did. */
int job_deadline_check(ctld_t *cd, job_t *j, int64_t now);
/* At its start: a job without a time limit gets the minutes left. */
void job_deadline_fit(job_t *j, int64_t now);
/* A partition's OverSubscribe value: PART_OS_*, and for YES/FORCE the
 * jobs per CPU in *max (":N", 4 by default as Slurm; 1 otherwise). */
enum { PART_OS_NO = SCHED_OS_NO, PART_OS_EXCLUSIVE = SCHED_OS_EXCLUSIVE,
       PART_OS_YES = SCHED_OS_YES, PART_OS_FORCE = SCHED_OS_FORCE };
int part_oversubscribe(const char *v, uint32_t *max);
/* (Re)load SchedulerType/SchedulerParameters/TopologyParam and the
 * Priority* weights from cd->conf into cd->sched (params, prio); called by
 * sched_glue_build and after a reconfigure. */
void ctld_load_sched_conf(ctld_t *cd);
/* The job's priority now (multifactor or basic, per the config) and, if f
 * is not NULL, its factors (sprio). Held jobs: 0. */
uint32_t sched_glue_priority(ctld_t *cd, const job_t *j, int64_t now, sched_prio_factors_t *f);

/* ---- rpc.c ---- */
void rpc_on_msg(conn_t *c, enum msg_type type, void *msg, uint32_t uid, uint32_t gid, void *arg);
void rpc_on_close(conn_t *c, void *arg);

/* ---- names.c glue (ctld_main.c) ---- */
/* Have the worker resolve the AllowGroups of cd->conf's partitions
 * (GroupUpdateTime, GroupUpdateForce); at start and on reconfigure. */
void ctld_watch_groups(ctld_t *cd);

/* ---- reconfig.c ---- */
/* Re-read the config files and swap them in (see reconfig.c). 0, or
 * SLURM_ERROR with *msg (malloc'd): every reason, one per line; the
 * running config then stays in force. */
int ctld_reconfigure(ctld_t *cd, char **msg);

/* ---- configless.c ---- */
/* SlurmctldParameters lists enable_configless. */
int configless_enabled(const conf_t *conf);
/* Answer a node daemon's MSG_CONFIG_FILES_REQ (uid: the signed sender). */
void configless_answer(ctld_t *cd, conn_t *c, uint32_t uid);

/* ---- rpc_sched.c (sprio, sdiag) ---- */
void rpc_prio_info(ctld_t *cd, conn_t *c, const void *req, uint32_t uid);
void rpc_stats_info(ctld_t *cd, conn_t *c, const void *req, uint32_t uid);
uint64_t ctld_stats_us(void);     /* monotonic microseconds */
void ctld_stats_init(ctld_t *cd);
/* Around one request's handling: begin (before the handler, which may
 * take the message over) notes its kind and the time; ctld_stats_rpc
 * (after) counts it for its kind and its caller. */
typedef struct ctld_rpc_mark {
	uint32_t kind;            /* Slurm message number */
	uint64_t t0;
} ctld_rpc_mark_t;
ctld_rpc_mark_t ctld_stats_begin(enum msg_type type, const void *msg);
void ctld_stats_rpc(ctld_t *cd, const ctld_rpc_mark_t *mark, uint32_t uid);
/* One scheduling pass: started at t0, cd->sched.last holds its counters. */
void ctld_stats_pass(ctld_t *cd, uint64_t t0);
void ctld_stats_job_end(ctld_t *cd, uint32_t state);
/* sdiag's numbers (MSG_STATS), for sdiag and the metrics alike; free with
 * proto_free(MSG_STATS, m). */
void ctld_stats_fill(ctld_t *cd, msg_stats_t *m);

/* ---- metrics.c (MetricsType=metrics/openmetrics) ---- */
void ctld_metrics_init(ctld_t *cd);
/* Serve /metrics on MetricsPort if MetricsType says so: 0 (also when
 * off), or -1 with *err (malloc'd). Call after recovery, before the loop. */
int ctld_metrics_start(ctld_t *cd, char **err);
/* The exposition text: what NULL for everything, or one of Slurm's
 * endpoint names ("jobs", "nodes", "partitions", "scheduler",
 * "jobs-users-accts"). */
void ctld_metrics_render(ctld_t *cd, const char *what, strbuf_t *sb);
void ctld_metrics_cycle(ctld_t *cd, uint64_t us, int backfill);
void ctld_metrics_commit(ctld_t *cd, uint64_t us, int rc);
void ctld_metrics_turn(ctld_t *cd, uint64_t us);
void ctld_metrics_job_start(ctld_t *cd, const job_t *j, int64_t now);
void ctld_metrics_job_end(ctld_t *cd, uint32_t state);

/* ---- helpers ---- */
int64_t ctld_now(void);
char *alloc_nodes_string(ctld_t *cd, const sched_alloc_t *a);
char *tres_string(uint64_t cpus, uint64_t mem, uint32_t nodes, int billing,
		  uint64_t gpus, const char *gtype, uint64_t gtype_count);

/* ---- step_stat.c ---- */
/* sstat: may uid read the live usage of job m->job_id; its nodes and a
 * stat credential (MSG_STEP_STAT_AUTH_REPLY). */
void do_step_stat_auth(ctld_t *cd, conn_t *c, const msg_step_stat_t *m, uint32_t uid);

/* ---- step_alloc.c ---- */

/* What a step asks of the allocation (step create). */
typedef struct step_req {
	uint32_t nnodes, ntasks;         /* its nodes (at most the job's), tasks */
	uint32_t cpus_per_task;          /* 0: 1 */
	uint32_t flags;                  /* STEP_CREATE_* */
	/* GPUs, 0 = not asked: --gpus-per-node (or --gres=gpu:N),
	 * --gpus-per-task, --gpus (over its nodes); none of them: all of the
	 * job's on its nodes (STEP_CREATE_GRES_NONE: none) */
	uint32_t gpus_per_node, gpus_per_task, gpus;
	uint32_t cpus_per_gpu;           /* --cpus-per-gpu with --exact */
	const uint64_t *gpu_ok;          /* per job node: the GPUs of the asked
	                                  * type; NULL = any */
} step_req_t;
/* Where a step runs: per node of the step, in the allocation's order,
 * the job node index, its tasks and its GPUs there (malloc'd). */
typedef struct step_pick {
	uint32_t nnodes;
	uint32_t *node_idx, *tasks;
	uint64_t *gpus;
} step_pick_t;
/* Place step step_id on the allocation (step_alloc.c says how) and hold
 * its CPUs and GPUs there. 0 and *out (step_pick_release it), or
 * ESLURM_NODES_BUSY when other steps hold them (srun retries),
 * ESLURM_INVALID_GRES when the job lacks the GPUs it asks for,
 * ESLURM_BAD_TASK_COUNT for no nodes. */
int step_alloc_take(job_t *j, uint32_t step_id, const step_req_t *rq, step_pick_t *out);
void step_pick_release(step_pick_t *p);
/* Node node_id of the step reported its end: its CPUs there are free;
 * once every node reported, the step's record is gone. */
void step_alloc_node_done(job_t *j, uint32_t step_id, uint32_t node_id);
void step_alloc_free(job_t *j);
/* Drop the holds of steps numbered from next_step on (their creation
 * was undone: turn.c). */
void step_alloc_forget_from(job_t *j, uint32_t next_step);

/* A running srun step: its CPU holds and what squeue -s shows of it. */
struct step_hold {
	uint32_t step_id;
	int64_t job_start;         /* j->start_time when it was made */
	uint32_t nnodes;           /* its nodes */
	uint32_t *node_idx;        /* per node: its index in the job's allocation */
	uint32_t *tasks;           /* per node: its tasks there (0: recovered) */
	uint32_t *cpus;            /* held per node; 0 once that node reported */
	uint64_t *gpus;            /* held per node (GPU index mask); 0 likewise */
	uint8_t *reported;         /* per node: 1 once it reported the end */
	char *name, *nodes, *tres, *srun_host;
	uint32_t ntasks, ncpus, time_limit, srun_pid;   /* time_limit: minutes, 0 none */
	int64_t start;
};
/* What a step shows (borrowed strings; step_alloc_describe copies). */
typedef struct step_desc {
	const char *name, *nodes, *tres, *srun_host;
	uint32_t ntasks, ncpus, time_limit, srun_pid;
	int64_t start;
} step_desc_t;
/* Set the shown fields of step step_id (taken by step_alloc_take). */
void step_alloc_describe(job_t *j, uint32_t step_id, const step_desc_t *d);
/* Recovery: a running step of a running job, from its accounting row
 * (node_idx: its nodes' indexes in the allocation; done: the nodes_done
 * bitmap, NULL = none reported). Holds no CPUs or GPUs. */
void step_alloc_recover(job_t *j, uint32_t step_id, uint32_t nnodes, const uint32_t *node_idx,
			const uint8_t *done, size_t done_len, const step_desc_t *d);
/* The job's running steps of its current run (*n of them). */
const step_hold_t *step_alloc_list(job_t *j, uint32_t *n);

/* ---- step_info.c ---- */

/* MSG_STEP_INFO_REQ: the running steps (req->job_id: of one job). */
void step_info_reply(ctld_t *cd, conn_t *c, const msg_info_req_t *req);
/* After db_load: the running steps' records from their acct_step rows. */
void step_info_recover(ctld_t *cd);
/* Migration step: the columns acct_step gains for live steps. */
int step_info_migrate(sqlite3 *db, char **err);

#endif
