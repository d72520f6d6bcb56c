/*
 * proto: every message Sluice daemons and commands exchange, and the one
 * schema-driven codec that encodes and decodes them.
 *
 * Each message is a plain C struct below. proto_schema.c holds one schema
 * per struct (field tag, type, offset); codec.c walks the schema, so there
 * is no hand-written pack code per message. Fields are tagged, unknown tags
 * are skipped and missing ones keep their zero/default value, so adding a
 * field does not break older peers; PROTO_VERSION changes only when a
 * field's meaning changes.
 *
 * Conventions for struct fields:
 *   - char * strings are malloc'd and may be NULL ("unset").
 *   - strv_t is a counted array of malloc'd strings.
 *   - "nX" counts go with the pointer "X" of a list of records.
 *   - times are int64_t seconds since the epoch, 0 = unset.
 *   - memory in MB; time limits in minutes (TIME_INFINITE/TIME_NO_VAL from
 *     timefmt.h).
 * proto_free(type, msg) frees everything a decoded message owns.
 */
#ifndef SLUICE_PROTO_H
#define SLUICE_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

#define PROTO_VERSION 1
#define PROTO_MAX_FRAME (64u << 20)  /* frames above 64 MiB are rejected */
#define NO_VAL32 0xfffffffeu

typedef struct strv {
	char **v;
	uint32_t n;
} strv_t;

enum msg_type {
	MSG_NONE = 0,
	MSG_RC,                  /* msg_rc_t: generic reply */
	MSG_PING,                /* msg_empty_t -> MSG_RC */
	MSG_SUBMIT,              /* job_desc_t -> MSG_SUBMIT_REPLY */
	MSG_SUBMIT_REPLY,        /* msg_submit_reply_t */
	MSG_JOB_INFO_REQ,        /* msg_info_req_t -> MSG_JOB_INFO */
	MSG_JOB_INFO,            /* msg_job_info_t */
	MSG_NODE_INFO_REQ,       /* msg_info_req_t -> MSG_NODE_INFO */
	MSG_NODE_INFO,           /* msg_node_info_t */
	MSG_PART_INFO_REQ,       /* msg_info_req_t -> MSG_PART_INFO */
	MSG_PART_INFO,           /* msg_part_info_t */
	MSG_CONFIG_REQ,          /* msg_empty_t -> MSG_CONFIG */
	MSG_CONFIG,              /* msg_config_t */
	MSG_CANCEL,              /* msg_cancel_t -> MSG_CANCEL_REPLY */
	MSG_CANCEL_REPLY,        /* msg_cancel_reply_t */
	MSG_UPDATE_NODE,         /* msg_update_node_t -> MSG_RC */
	MSG_UPDATE_PART,         /* msg_update_part_t -> MSG_RC */
	MSG_UPDATE_JOB,          /* msg_update_job_t -> MSG_RC (hold/release/...) */
	MSG_JOB_WAIT,            /* msg_job_wait_t -> MSG_JOB_INFO when reached */
	MSG_STEP_CREATE,         /* msg_step_create_t -> MSG_STEP_CREATE_REPLY */
	MSG_STEP_CREATE_REPLY,   /* msg_step_create_reply_t */
	MSG_JOB_COMPLETE,        /* msg_job_complete_t -> MSG_RC (supervisor/srun -> ctld) */
	MSG_NODE_REGISTER,       /* msg_node_register_t -> MSG_RC (noded -> ctld) */
	MSG_NODE_HEARTBEAT,      /* msg_node_register_t -> (no reply) */
	MSG_LAUNCH_JOB,          /* msg_launch_job_t (ctld -> noded, on the noded's connection) */
	MSG_SIGNAL_JOB,          /* msg_signal_job_t (ctld -> noded) */
	MSG_LAUNCH_STEP,         /* msg_launch_step_t (srun -> noded) -> IO frames */
	MSG_STEP_IO,             /* msg_step_io_t (noded supervisor -> srun, srun -> stdin) */
	MSG_STEP_TASK_EXIT,      /* msg_step_task_exit_t */
	MSG_RECONFIGURE,         /* msg_empty_t -> MSG_RC */
	MSG_SHUTDOWN,            /* msg_empty_t -> MSG_RC */
	MSG_PRIO_INFO_REQ,       /* msg_prio_req_t -> MSG_PRIO_INFO (sprio) */
	MSG_PRIO_INFO,           /* msg_prio_info_t */
	MSG_STATS_REQ,           /* msg_stats_req_t -> MSG_STATS (sdiag; reset -> MSG_RC) */
	MSG_STATS,               /* msg_stats_t */
	MSG_NODE_ACK,            /* msg_node_ack_t (ctld -> noded): a heartbeat was heard */
	MSG_NODE_PING,           /* msg_node_ping_t (ctld -> noded) -> MSG_NODE_HEARTBEAT */
	MSG_ACCT_REQ,            /* msg_acct_req_t -> MSG_ACCT_REPLY (sacct, sacctmgr, sreport, sshare) */
	MSG_ACCT_REPLY,          /* msg_acct_reply_t */
	MSG_STEP_COMPLETE,       /* msg_step_complete_t -> MSG_RC (supervisor -> ctld) */
	MSG_HEALTH_CHECK,        /* msg_info_req_t (name: node list) -> MSG_RC: the nodes
	                          * run a health check round now (sluice preflight) */
	MSG_SET_DEBUG,           /* msg_set_debug_t -> MSG_RC (scontrol setdebug) */
	MSG_STEP_STAT_AUTH,      /* msg_step_stat_t -> MSG_STEP_STAT_AUTH_REPLY (sstat -> ctld) */
	MSG_STEP_STAT_AUTH_REPLY, /* msg_step_stat_auth_t: the job's nodes and a stat credential */
	MSG_STEP_STAT,           /* msg_step_stat_t -> MSG_STEP_STAT_REPLY (sstat -> noded) */
	MSG_STEP_STAT_REPLY,     /* msg_step_stat_reply_t: live usage of the job's steps there */
	MSG_LAUNCH_PROLOG,       /* msg_launch_prolog_t (ctld -> noded, on the noded's
	                          * connection): run the node's Prolog now
	                          * (PrologFlags=Alloc) */
	MSG_PROLOG_COMPLETE,     /* msg_prolog_complete_t -> MSG_RC (noded -> ctld): a
	                          * node's Prolog (Alloc) or Epilog (not on the batch
	                          * host) ended */
	MSG_STEP_INFO_REQ,       /* msg_info_req_t -> MSG_STEP_INFO (squeue -s, scontrol show step) */
	MSG_STEP_INFO,           /* msg_step_info_t */
	MSG_LIST_PIDS_REQ,       /* msg_list_pids_req_t -> MSG_LIST_PIDS (scontrol listpids -> noded) */
	MSG_LIST_PIDS,           /* msg_list_pids_t */
	MSG_JOB_NCCL,            /* msg_job_nccl_t -> MSG_RC (batch supervisor -> ctld):
	                          * the job's NCCL transport verdict */
	MSG_RESV_UPDATE,         /* msg_resv_update_t -> MSG_RC (msg: the name on create):
	                          * scontrol create|update|delete reservation */
	MSG_RESV_INFO_REQ,       /* msg_info_req_t (name: one, or all) -> MSG_RESV_INFO */
	MSG_RESV_INFO,           /* msg_resv_info_t (scontrol show res, sinfo -T) */
	MSG_CONFIG_FILES_REQ,    /* msg_empty_t -> MSG_CONFIG_FILES (configless node
	                          * daemon -> ctld; root/SlurmUser only) */
	MSG_CONFIG_FILES,        /* msg_config_files_t */
	MSG_TYPE_END
};

typedef struct msg_empty {
	uint32_t unused;
} msg_empty_t;

/* scontrol setdebug: the controller's log level from now on (enum
 * log_level; SlurmctldDebug is read again at reconfigure). */
typedef struct msg_set_debug {
	uint32_t level;
} msg_set_debug_t;

typedef struct msg_rc {
	int32_t rc;              /* SLURM_SUCCESS or an errors.h number */
	char *msg;               /* optional detail for the user */
} msg_rc_t;

/* A job submission (sbatch) or allocation (srun) request. The controller
 * takes uid/gid from the authenticated caller, never from these fields. */
#define JOB_F_HOLD         0x0001u  /* -H: submit held (JobHeldUser) */
#define JOB_F_EXCLUSIVE    0x0002u
#define JOB_F_INTERACTIVE  0x0004u  /* srun allocation: no batch script */
#define JOB_F_REQUEUE      0x0008u
#define JOB_F_NO_REQUEUE   0x0010u
#define JOB_F_CONTIGUOUS   0x0020u
#define JOB_F_OPEN_APPEND  0x0040u  /* --open-mode=append */
#define JOB_F_HELD_ADMIN   0x0080u
#define JOB_F_OVERSUBSCRIBE 0x0100u /* -s/--oversubscribe */
#define JOB_F_EXCLUSIVE_USER 0x0200u /* --exclusive=user, ExclusiveUser=YES */
#define JOB_F_OVERCOMMIT   0x00100000u /* -O/--overcommit: one CPU per node (x
					* cpus-per-task), any number of tasks */
#define JOB_F_TEST_ONLY    0x00200000u /* --test-only: answer when and where the
					* job would start; submit nothing */
/* --kill-on-invalid-dep=yes|no (high bits: other flags grow from below) */
#define JOB_F_KILL_INV_DEP    0x40000000u
#define JOB_F_NO_KILL_INV_DEP 0x80000000u
typedef struct job_desc {
	char *name;              /* -J; default script name or "wrap" */
	char *script;            /* batch script text (NULL for srun) */
	strv_t argv;             /* srun: the command; sbatch: script args */
	strv_t env;              /* environment for the job, after --export */
	uint32_t user_id, group_id;  /* filled by the controller */
	char *user_name;         /* filled by the controller */
	char *partition, *account, *qos, *reservation, *comment;
	uint32_t min_nodes, max_nodes;   /* 0 = unset */
	uint32_t ntasks;                 /* 0 = unset */
	uint32_t cpus_per_task;          /* 0 = unset (1) */
	uint32_t ntasks_per_node;        /* 0 = unset */
	uint64_t mem_per_node;           /* MB, 0 = unset (--mem) */
	uint64_t mem_per_cpu;            /* MB, 0 = unset (--mem-per-cpu) */
	char *tres_per_node;     /* "gres:gpu:h100:2" from --gres/--gpus-per-node */
	char *tres_per_job;      /* "gres:gpu:4" from --gpus */
	uint32_t time_limit;     /* minutes, TIME_NO_VAL = unset */
	uint32_t flags;          /* JOB_F_* */
	int32_t nice;
	int64_t begin_time;
	char *req_nodes, *exc_nodes, *features, *dependency;
	char *work_dir, *std_in, *std_out, *std_err;
	char *alloc_node;        /* submitting host */
	uint32_t alloc_sid;      /* submitting session id */
	uint32_t kill_on_invalid_dep;
	uint32_t req_switch;     /* --switches=N: max leaf switches, 0 = any */
	uint32_t wait4switch;    /* --switches=N@time: seconds to wait for it */
	char *tres_per_task;     /* "gres:gpu:2" from --gpus-per-task */
	uint32_t cpus_per_gpu;   /* --cpus-per-gpu, 0 = unset */
	uint64_t mem_per_gpu;    /* MB, --mem-per-gpu, 0 = unset */
	uint32_t warn_signal;    /* --signal: the signal, 0 = none */
	uint32_t warn_time;      /* --signal @TIME: seconds before the time limit */
	uint32_t warn_flags;     /* WARN_F_* (B:, R:) */
	uint32_t get_user_env;   /* GUE_* : load the user's login environment */
	uint32_t mail_type;      /* MAIL_* (--mail-type), 0 = none */
	char *mail_user;         /* --mail-user, NULL = the job's user */
	uint32_t as_ids;         /* AS_UID|AS_GID: root's sbatch --uid/--gid put
				  * the ids to run as in user_id/group_id */
	char *request_id;        /* random per submission, the same on a
				  * client's retry: the controller answers a
				  * repeat (same uid) with the first job id */
	char *array_inx;         /* --array spec as typed ("1-10%2"), NULL = no array */
	uint32_t pn_min_cpus;    /* --mincpus: CPUs per node at least, 0 = unset */
	uint64_t pn_min_tmp;     /* --tmp: MB of TmpDisk per node at least, 0 = unset */
	int64_t deadline;        /* --deadline: must end by then, 0 = none */
} job_desc_t;
#define WARN_F_BATCH   0x1u      /* --signal=B:: only the batch shell */
#define WARN_F_REQUEUE 0x2u      /* --signal=R: (accepted, see compatibility.md) */
/* get_user_env: 0 = no; else the timeout in seconds (low 16 bits, 0 =
 * the default 8) | GUE_ON, with GUE_SHORT for "S" (no login shell). */
#define AS_UID 0x1u
#define AS_GID 0x2u
/* mail_type bits (--mail-type) */
#define MAIL_BEGIN          0x0001u
#define MAIL_END            0x0002u
#define MAIL_FAIL           0x0004u
#define MAIL_REQUEUE        0x0008u
#define MAIL_TIME_LIMIT     0x0010u
#define MAIL_TIME_LIMIT_90  0x0020u
#define MAIL_TIME_LIMIT_80  0x0040u
#define MAIL_TIME_LIMIT_50  0x0080u
#define MAIL_ARRAY_TASKS    0x0100u
#define MAIL_INVALID_DEPEND 0x0200u
#define MAIL_STAGE_OUT      0x0400u
#define MAIL_SET            0x8000u   /* given (NONE sets only this) */
#define GUE_ON    0x10000u
#define GUE_SHORT 0x20000u
#define GUE_TIMEOUT(v) ((v) & 0xffffu ? (v) & 0xffffu : 8u)
#define JOB_REQUEST_ID_MAX 64    /* longer request ids are ignored */

typedef struct msg_submit_reply {
	int32_t rc;
	uint32_t job_id;
	char *msg;               /* error detail, or user message */
	/* --test-only (JOB_F_TEST_ONLY): nothing was submitted; job_id is the
	 * id it would have had, and the plan's start, CPUs, nodes and
	 * partition (Slurm's will_run answer). */
	int64_t start_time;
	uint32_t test_cpus;
	char *test_nodes;
	char *test_partition;
} msg_submit_reply_t;

/* Filter for info requests. All fields optional (0/NULL = all). */
#define INFO_F_DETAIL 0x1u      /* scontrol -d */
typedef struct msg_info_req {
	uint32_t job_id;         /* one job */
	char *name;              /* one node or partition */
	uint32_t flags;
	int64_t changed_since;   /* reply empty with rc 0 if nothing changed */
	uint32_t fields;         /* MSG_JOB_INFO_REQ: JINFO_* groups, 0 = all */
} msg_info_req_t;

/* msg_info_req_t.fields: which groups of job_info_t fields the controller
 * fills (squeue asks for what its format, sort and filters use; fields
 * left NULL/0 cost nothing on the wire). 0 means all, as from a client
 * that predates the field. */
#define JINFO_BASIC   0x01u  /* always filled: job_id, array_*, user_id,
			      * group_id, priority, state, state_reason,
			      * start/end/suspend/pre_sus times, num_nodes;
			      * name, user_name, partition, state_desc, nodes,
			      * batch_host, array_task_str */
#define JINFO_GROUP   0x02u  /* group_name */
#define JINFO_ACCT    0x04u  /* account, qos, comment */
#define JINFO_REQ     0x08u  /* req_nodes, exc_nodes, features, dependency,
			      * alloc_node, sched_nodes */
#define JINFO_PATHS   0x10u  /* command, work_dir, std_in, std_out, std_err */
#define JINFO_TRES    0x20u  /* tres_per_node, tres_per_job, tres_req, tres_alloc,
			      * tres_per_task, cpus_per_gpu, mem_per_gpu */
#define JINFO_DETAIL  0x40u  /* scheduler, gres_detail, cpu_ids */
#define JINFO_NUMS    0x80u  /* every other number (time_limit, submit and
			      * eligible times, cpus, memory, flags, ...) */
#define JINFO_ALL     0xffu

/* One job as the controller shows it (squeue, scontrol show job). */
typedef struct job_info {
	uint32_t job_id;
	uint32_t array_job_id, array_task_id;   /* 0 / NO_VAL32 when not an array */
	char *name;
	uint32_t user_id, group_id;
	char *user_name, *group_name;
	uint32_t priority;
	int32_t nice;
	char *account, *qos, *partition;
	uint32_t state;          /* job_state_base | flags */
	uint32_t state_reason;   /* enum job_reason */
	char *state_desc;        /* reason detail ("UnavailableNodes:comp032") */
	char *dependency;
	uint32_t requeue, restarts, batch_flag;
	uint32_t exit_code;      /* raw wait status: (rc << 8) | signal */
	uint32_t derived_exit_code;
	uint32_t time_limit;     /* minutes */
	int64_t submit_time, eligible_time, accrue_time, start_time, end_time;
	int64_t suspend_time, last_sched_eval, pre_sus_time;
	char *alloc_node;
	uint32_t alloc_sid;
	char *req_nodes, *exc_nodes;
	char *nodes;             /* allocated, ranged ("comp[001-002]") */
	char *sched_nodes;       /* planned nodes of a pending job */
	char *batch_host;
	uint32_t num_nodes, max_nodes, num_cpus, num_tasks;
	uint32_t cpus_per_task, ntasks_per_node, pn_min_cpus;
	uint64_t mem_per_cpu, mem_per_node;   /* MB, 0 = unset */
	char *features;
	uint32_t flags;          /* JOB_F_* as submitted */
	uint32_t contiguous;
	char *command, *work_dir, *std_in, *std_out, *std_err;
	char *tres_per_node, *tres_per_job;
	char *tres_req;          /* "cpu=12,mem=12G,node=12,billing=12" */
	char *tres_alloc;        /* for started jobs */
	strv_t gres_detail;      /* per node: "gpu:h100:8(IDX:0-7)" (show -d) */
	char *cpu_ids;           /* per node CPU ids (show -d): "0-7" */
	char *mem_alloc;         /* per node allocated MB (show -d): "2048 2048" */
	char *comment;
	char *scheduler;         /* "Main" / "Backfill" */
	char *array_task_str;    /* pending array record: tasks not yet split ("1-4", "0-7%3") */
	char *tres_per_task;     /* JINFO_TRES: "gres:gpu:2" (--gpus-per-task) */
	uint32_t cpus_per_gpu;   /* JINFO_TRES: --cpus-per-gpu, 0 = unset */
	uint64_t mem_per_gpu;    /* JINFO_TRES: MB, --mem-per-gpu, 0 = unset */
	uint32_t assoc_id;       /* JINFO_ACCT: its association, 0 = none */
	uint32_t array_max_tasks; /* an array's %N throttle (ArrayTaskThrottle), 0 = none */
	uint64_t min_tmp_disk;   /* JINFO_NUMS: --tmp, MB per node (MinTmpDiskNode) */
	int64_t deadline;        /* JINFO_NUMS: --deadline, 0 = none */
	uint32_t time_min;       /* JINFO_NUMS: minutes (TimeMin), 0 = N/A */
	/* The NCCL transport check (job_nccl.c; JINFO_DETAIL): NULL when no
	 * verdict. transport: "Socket", "IB", a plugin's name, or for a
	 * counters verdict "Socket"/"Fabric"; source "log" or "counters". */
	char *nccl_transport, *nccl_source, *nccl_node, *nccl_detail;
	char *reservation;       /* JINFO_ACCT: --reservation, NULL none */
	int64_t nccl_time;
} job_info_t;

typedef struct msg_job_info {
	int64_t last_update;
	uint32_t njobs;
	job_info_t *jobs;
} msg_job_info_t;

/* One node (sinfo, scontrol show node). */
typedef struct node_info {
	char *name, *addr, *hostname;
	uint32_t port;
	uint32_t state;          /* node_state_base | NODE_FLAG_* */
	uint32_t cpus, cpus_alloc, cpus_efctv;
	uint32_t boards, sockets, cores, threads;
	uint32_t cpu_load;       /* load average * 100 */
	uint64_t real_memory, alloc_mem, free_mem, tmp_disk;  /* MB */
	uint32_t weight;
	char *features, *features_active;
	char *gres;              /* configured: "gpu:h100:8" */
	char *gres_used;         /* "gpu:h100:2(IDX:0-1)" */
	char *arch, *os, *version;
	char *partitions;        /* "defq,short" */
	int64_t boot_time, slurmd_start_time, last_busy;
	char *reason;
	uint32_t reason_uid;
	char *reason_user;
	int64_t reason_time;
	char *cfg_tres, *alloc_tres;
	char *comment, *extra;   /* set by scontrol update; NULL = none */
	char *health;            /* failing health checks, "check: evidence"
	                          * lines; NULL = none (health.c) */
	char *key_digest;        /* SHA-256 hex of its auth key, "unreadable",
	                          * NULL = not reported */
	uint32_t key_match;      /* KEY_MATCH_* against the controller's */
	uint32_t health_round;   /* the node's health check rounds so far */
	uint32_t health_nchecks; /* checks its health.conf has (0: none) */
} node_info_t;

/* node_info_t.key_match */
enum { KEY_MATCH_UNKNOWN = 0, KEY_MATCH_YES, KEY_MATCH_NO, KEY_MATCH_UNREADABLE };

typedef struct msg_node_info {
	int64_t last_update;
	uint32_t nnodes;
	node_info_t *nodes;
} msg_node_info_t;

#define PART_F_DEFAULT     0x01u
#define PART_F_HIDDEN      0x02u
#define PART_F_ROOT_ONLY   0x04u
#define PART_F_EXCL_USER   0x08u
#define PART_F_LLN         0x10u
#define PART_F_REQ_RESV    0x20u
#define PART_F_NO_ROOT     0x40u
typedef struct part_info {
	char *name;
	char *nodes;             /* ranged */
	uint32_t flags;          /* PART_F_* */
	uint32_t state;          /* CONF_PART_* from conf.h */
	uint32_t max_time, default_time;    /* minutes */
	uint32_t max_nodes, min_nodes;      /* UINT32_MAX = UNLIMITED */
	uint32_t priority_job_factor, priority_tier;
	char *oversubscribe;     /* "NO", "EXCLUSIVE", "YES:4", "FORCE:4" */
	char *allow_groups, *allow_accounts, *allow_qos, *qos;
	uint32_t total_cpus, total_nodes;
	uint32_t max_cpus_per_node;
	uint32_t grace_time;
	uint64_t def_mem_per_cpu, max_mem_per_cpu, def_mem_per_node, max_mem_per_node;
	char *tres;              /* "cpu=2048,mem=16000G,node=32,..." */
} part_info_t;

typedef struct msg_part_info {
	int64_t last_update;
	uint32_t nparts;
	part_info_t *parts;
} msg_part_info_t;

typedef struct msg_config {
	int64_t last_update;
	strv_t keys, values;     /* scontrol show config, in order */
} msg_config_t;

/* The controller's config files for a configless node daemon (conf_files.h):
 * names[i] ("slurm.conf", "gres.conf", ...) holds data[i]. */
typedef struct msg_config_files {
	strv_t names, data;
} msg_config_files_t;

/* scancel: the client resolves filters to job ids, the controller checks
 * permission per job and answers one rc per id. */
#define CANCEL_F_BATCH_ONLY 0x1u   /* -b */
#define CANCEL_F_FULL       0x2u   /* -f */
typedef struct msg_cancel {
	uint32_t njob_ids;
	uint32_t *job_ids;
	uint32_t signal;         /* 0 = cancel (SIGTERM, SIGKILL after KillWait) */
	uint32_t flags;
	uint32_t ntask_ids;      /* 0, or njob_ids: */
	uint32_t *task_ids;      /* job_ids[i] names an array and this its task
				  * ("11_3"); NO_VAL32: job_ids[i] as a whole */
} msg_cancel_t;

typedef struct msg_cancel_reply {
	uint32_t nrcs;
	int32_t *rcs;            /* parallel to the request's job_ids */
} msg_cancel_reply_t;

typedef struct msg_update_node {
	char *names;             /* hostlist expression */
	char *state;             /* as typed: "drain", "resume", "down", ... */
	char *reason;
	char *features, *gres;   /* optional */
	uint32_t weight;         /* 0 = unchanged */
	char *comment, *extra;   /* NULL = unchanged, "" = clear */
} msg_update_node_t;

typedef struct msg_update_part {
	char *name;
	char *state;             /* "up", "down", "drain", "inactive" or NULL */
	strv_t keys, values;     /* other Key=Value pairs as typed */
} msg_update_part_t;

typedef struct msg_update_job {
	uint32_t job_id;
	char *action;            /* "hold", "uhold", "release", "requeue" or NULL */
	strv_t keys, values;     /* other Key=Value pairs (TimeLimit, ...) */
	uint32_t array_task;     /* "11_3": task 3 + 1 of array job_id; 0 = the
				  * job (or the whole array) job_id names */
} msg_update_job_t;

/* Wait until a job starts (srun, salloc) or finishes (sbatch --wait).
 * The controller answers MSG_JOB_INFO with the one job when reached, or
 * MSG_RC with an error. */
enum { WAIT_UNTIL_STARTED = 1, WAIT_UNTIL_FINISHED = 2 };
typedef struct msg_job_wait {
	uint32_t job_id;
	uint32_t until;
} msg_job_wait_t;

typedef struct msg_step_create {
	uint32_t job_id;
	uint32_t ntasks, min_nodes;   /* 0 = all of the job's */
	char *name;
	char *digest;                 /* cred_launch_digest() of the launch srun
	                               * will send (hex); signed into the cred */
	uint32_t flags;               /* STEP_CREATE_* */
	uint32_t cpus_per_task;       /* srun -c (0 = the job's) */
	uint32_t time_limit;          /* the step's own limit (srun -t in an
	                               * allocation), minutes, 0 = none */
	char *srun_host;              /* srun's host name and pid (scontrol
	                               * show step SrunHost:Pid) */
	uint32_t srun_pid;
	/* GPUs as job_desc_t has them ("gres:gpu:h100:2", "gres:none"),
	 * NULL = not asked */
	char *tres_per_node, *tres_per_task, *tres_per_job;
	uint32_t cpus_per_gpu;        /* 0 = unset */
} msg_step_create_t;
#define STEP_CREATE_EXACT   0x1u  /* --exact (or -c): only the tasks' CPUs */
#define STEP_CREATE_OVERLAP 0x2u  /* --overlap: share CPUs and GPUs, never wait */
#define STEP_CREATE_GRES_NONE 0x4u  /* --gres=none: no GPUs (the controller
                                     * sets it from tres_per_node) */

typedef struct msg_step_create_reply {
	int32_t rc;
	uint32_t job_id, step_id;
	char *nodes;                  /* ranged */
	strv_t node_names, node_addrs;
	uint32_t nports;
	uint32_t *ports;              /* noded port per node */
	uint32_t ntasks_per_node_n;
	uint32_t *ntasks_per_node;    /* tasks on each node */
	char *cred;                   /* launch credential (signed by ctld) */
	strv_t topo_addrs;            /* SLURM_TOPOLOGY_ADDR per node */
	char *topo_pattern;           /* SLURM_TOPOLOGY_ADDR_PATTERN */
	uint32_t ncpus_per_node;
	uint32_t *cpus_per_node;      /* the job's CPUs on each node */
	strv_t cpu_ids;               /* the job's CPU ids on each node ("0-3") */
	char *launch_key;             /* auth/slurm, to a request on the Unix
	                               * socket only: cred_launch_key of cred
	                               * (hex), which srun MACs each launch with */
} msg_step_create_reply_t;

/* A batch job ended (from the job's supervisor), or an srun allocation
 * ended (from srun). */
typedef struct msg_job_complete {
	uint32_t job_id;
	uint32_t step_id;        /* NO_VAL32 for the batch script/allocation */
	uint32_t launch_seq;     /* matches msg_launch_job_t, drops stale reports */
	uint32_t exit_status;    /* raw wait status */
	uint32_t end_state;      /* JOB_COMPLETE/FAILED/TIMEOUT/CANCELLED/... */
	char *node;
	int64_t end_time;
	uint32_t rc;             /* the node's error: ESLURMD_PROLOG_FAILED, ESLURMD_EPILOG_FAILED */
} msg_job_complete_t;

/* One running step as the controller shows it (squeue -s, scontrol show
 * step): the srun steps it created and, per running job, its batch and
 * extern pseudo-steps (step ids STEP_BATCH, STEP_EXTERN of jobid.h). */
typedef struct step_info {
	uint32_t job_id, step_id;
	uint32_t array_job_id, array_task_id;   /* 0 / NO_VAL32 when not an array */
	char *name;
	uint32_t user_id;
	char *user_name, *partition;
	int64_t start_time;
	uint32_t time_limit;     /* minutes; TIME_INFINITE = none (UNLIMITED) */
	uint32_t state;          /* JOB_RUNNING */
	char *nodes;             /* ranged */
	uint32_t num_nodes, num_tasks, num_cpus;
	char *tres_alloc;        /* "cpu=4,mem=4G,node=2"; NULL for batch */
	char *srun_host;         /* NULL: (null) */
	uint32_t srun_pid;
	uint32_t dist;           /* STEP_DIST_*: Dist= of scontrol show step */
} step_info_t;
enum { STEP_DIST_NONE = 0, STEP_DIST_BLOCK, STEP_DIST_CYCLIC };

typedef struct msg_step_info {
	int64_t last_update;
	uint32_t nsteps;
	step_info_t *steps;
} msg_step_info_t;

/* scontrol listpids: the processes of a job's (or a step's, or every
 * job's) steps on one node, from that node's daemon. */
typedef struct msg_list_pids_req {
	uint32_t job_id;         /* 0 = every job on the node */
	uint32_t step_id;        /* NO_VAL32 = every step of the job */
} msg_list_pids_req_t;

typedef struct list_pid {
	uint32_t pid, job_id, step_id;
	uint32_t local_id, global_id;   /* NO_VAL32: not a task (a descendant) */
} list_pid_t;

typedef struct msg_list_pids {
	int32_t rc;              /* 0, or ESLURM_INVALID_JOB_ID: no such job/step here */
	char *node;              /* the answering node's name */
	uint32_t npids;
	list_pid_t *pids;
} msg_list_pids_t;

/* Resource use of a step's tasks (jobacct.c gathers it on the node;
 * step_usage.c merges it: tasks into a node's, nodes into the step's).
 * Sums are over the tasks covered (ntasks), so averages merge exactly;
 * *_task is the global rank holding the max (min for CPU). Memory in KiB,
 * disk in bytes (rchar/wchar), CPU in microseconds. */
typedef struct step_usage {
	uint32_t ntasks;
	uint64_t user_cpu_us, sys_cpu_us;
	uint64_t max_rss_kb, sum_rss_kb;
	uint64_t max_vmsize_kb, sum_vmsize_kb;
	uint64_t max_pages, sum_pages;
	uint64_t min_cpu_us, sum_cpu_us;
	uint64_t max_disk_read, sum_disk_read;
	uint64_t max_disk_write, sum_disk_write;
	uint32_t max_rss_task, max_vmsize_task, max_pages_task, min_cpu_task;
	uint32_t max_disk_read_task, max_disk_write_task;
} step_usage_t;

/* A step ended on one node (its supervisor, batch or srun step): the
 * node's share of the step, retried until the controller answers. */
typedef struct msg_step_complete {
	uint32_t job_id, step_id;
	uint32_t launch_seq;     /* batch step: as msg_launch_job_t */
	char *node;
	uint32_t node_id;        /* the node's index in the step (0..nnodes-1) */
	uint32_t nnodes;         /* nodes of the step */
	uint32_t exit_status;    /* raw wait status, the worst task's */
	uint32_t end_state;      /* JOB_COMPLETE/FAILED/CANCELLED/TIMEOUT/NODE_FAIL */
	int64_t start_time, end_time;
	uint32_t gathered;       /* 1: usage holds sampled memory/disk figures
	                          * (JobAcctGatherType not none) */
	step_usage_t usage;
} msg_step_complete_t;

typedef struct msg_node_register {
	char *name;
	uint32_t port;
	uint32_t cpus, boards, sockets, cores, threads;
	uint64_t real_memory, tmp_disk, free_mem;
	uint32_t cpu_load;
	char *gres;              /* "gpu:h100:8" as found */
	char *arch, *os, *version;
	int64_t boot_time, start_time;
	uint32_t njob_ids;
	uint32_t *job_ids;       /* jobs with a live supervisor on this node */
	uint64_t sent_ms;        /* the noded's CLOCK_BOOTTIME at sending, echoed
	                          * in MSG_NODE_ACK (its lease, ctld_link.c) */
	uint64_t ping_seq;       /* the last MSG_NODE_PING seq the noded got */
	uint32_t health_round;   /* built-in health check rounds run, 0: none
	                          * (no health.conf, or not run yet) */
	char *health;            /* the last round's failing checks, one
	                          * "check: evidence" line each; NULL: all pass */
	char *key_digest;        /* SHA-256 hex of the auth key file, or
	                          * "unreadable" (never the key itself) */
	uint32_t health_nchecks; /* checks its health.conf has */
} msg_node_register_t;

/* The controller asks a node to answer (with a heartbeat) now. */
typedef struct msg_node_ping {
	uint64_t seq;            /* per node, increasing; echoed in ping_seq */
	uint32_t flags;          /* PING_F_* */
} msg_node_ping_t;
/* Run a health check round now and answer with its result. */
#define PING_F_HEALTH 0x1u
/* scontrol reconfigure: re-read the config files (slurm.conf, gres.conf,
 * cgroup.conf, health.conf; fetched again when configless), then answer.
 * A node daemon that does not know the flag just answers. */
#define PING_F_RECONFIG 0x2u

/* The controller's answer to a heartbeat: the heartbeat's sent_ms, so the
 * node renews its lease from when it sent what the controller heard. */
typedef struct msg_node_ack {
	uint64_t sent_ms;
	int64_t ctld_time_ms;    /* the controller's CLOCK_REALTIME when it
	                          * answered (the node's clock offset check) */
} msg_node_ack_t;

typedef struct msg_launch_job {
	uint32_t job_id;
	uint32_t launch_seq;
	uint32_t user_id, group_id;
	char *user_name;
	char *name, *script, *work_dir, *std_in, *std_out, *std_err;
	strv_t argv, env;        /* env already includes the SLURM_* set */
	uint32_t flags;          /* JOB_F_* */
	uint32_t time_limit;     /* minutes, for the supervisor's own enforcement */
	uint32_t kill_wait;      /* seconds */
	int64_t start_time;
	char *ctld_addr;         /* where the supervisor reports completion */
	uint32_t ctld_port;
	/* The job's share of the batch host, for its cgroup (task/cgroup). */
	char *cores;             /* allocated core ids ("0-3"), NULL: unknown */
	uint64_t mem_mb;         /* memory allocated on the node, 0: none */
	uint64_t gpus;           /* bitmask of the node's GPU indices given */
	uint32_t warn_signal;    /* --signal: sent warn_time s before the limit */
	uint32_t warn_time;
	uint32_t warn_flags;     /* WARN_F_* */
	uint32_t get_user_env;   /* GUE_* */
	/* The controller's own SLURM_* variables of the job, without what the
	 * submitter exported: what the node's Prolog/Epilog (root) may trust. */
	strv_t prolog_env;
} msg_launch_job_t;

#define SIGNAL_F_KILL_JOB 0x1u   /* cancel: SIGCONT+SIGTERM, SIGKILL after wait */
#define SIGNAL_F_BATCH    0x2u   /* only the batch shell */
#define SIGNAL_F_TIME_LIMIT 0x4u /* no signal: the job's limit is now end_time */
/* Only the job's steps, not the batch shell: scancel --signal without
 * -b/-f, as Slurm. No flag: the batch shell and every step (scancel -f,
 * suspend/resume); SIGNAL_F_BATCH: the batch shell alone (-b). */
#define SIGNAL_F_STEPS    0x10u
#define SIGNAL_F_NOTIFY   0x8u   /* no signal: write message to the job's stderr
				  * (scontrol notify) */
/* PrologFlags=Alloc: the node runs its Prolog for the job at allocation
 * (docs/node-operations.md, "Prolog and epilog"). */
typedef struct msg_launch_prolog {
	uint32_t job_id;
	uint32_t launch_seq;     /* echoed in the answer: drops stale ones */
	strv_t prolog_env;       /* as msg_launch_job_t.prolog_env */
} msg_launch_prolog_t;

#define PROLOG_F_EPILOG 0x1u     /* msg_prolog_complete_t: it was the Epilog */
typedef struct msg_prolog_complete {
	uint32_t job_id;
	uint32_t launch_seq;     /* from msg_launch_prolog_t (0: a step's prolog) */
	char *node;
	uint32_t rc;             /* 0, ESLURMD_PROLOG_FAILED or ESLURMD_EPILOG_FAILED */
	uint32_t flags;          /* PROLOG_F_* */
} msg_prolog_complete_t;

typedef struct msg_signal_job {
	uint32_t job_id;
	uint32_t signal;
	uint32_t flags;
	uint32_t kill_wait;
	uint32_t end_state;      /* state to report: JOB_CANCELLED, JOB_NODE_FAIL, ... */
	int64_t end_time;        /* SIGNAL_F_TIME_LIMIT: when the time limit is
	                          * reached (epoch s), 0 = no limit */
	char *message;           /* SIGNAL_F_NOTIFY: the text (one line) */
} msg_signal_job_t;

/* The batch supervisor's verdict on the network the job's collectives use
 * (noded/nccl_watch.c), sent when it changes. */
typedef struct msg_job_nccl {
	uint32_t job_id;
	uint32_t launch_seq;     /* as msg_launch_job_t: drops a stale run's */
	char *node;
	char *transport;         /* "Socket", "IB", "IBext", ...; "Fabric" */
	uint32_t source;         /* NCCL_SRC_LOG / NCCL_SRC_COUNTERS (nccl_log.h) */
	char *detail;            /* the evidence, one line */
	int64_t time;
} msg_job_nccl_t;

typedef struct msg_launch_step {
	uint32_t job_id, step_id;
	uint32_t user_id, group_id;    /* checked against cred by noded */
	char *cred;
	strv_t argv, env;
	char *cwd;
	uint32_t ntasks;               /* tasks on this node */
	uint32_t first_task;           /* global rank of the first */
	uint32_t total_tasks;
	uint32_t node_id, nnodes;
	uint32_t flags;                /* STEP_F_* */
	uint32_t stdin_task;           /* STEP_F_STDIN: the rank that reads srun's
	                                * stdin, NO_VAL32 = every task */
	uint32_t time_limit;           /* the step's own limit in minutes (srun -t
	                                * inside an allocation), 0 = none */
	char *multi_prog;              /* srun --multi-prog: the config file's
	                                * text (multiprog.h); argv is then unused */
	/* what only sets task environment variables, not in the digest:
	 * SLURM_STEP_TASKS_PER_NODE ("2,1(x3)"), this node's
	 * SLURM_TOPOLOGY_ADDR and its pattern, SLURM_CPUS_ON_NODE */
	char *tasks_per_node, *topo_addr, *topo_pattern;
	uint32_t cpus_on_node;
	char *job_cpus_per_node;       /* STEP_F_STANDALONE: "2,1(x3)" */
	char *cpu_bind;                /* srun --cpu-bind as typed, NULL = none */
	char *cpu_ids;                 /* the job's CPU ids on this node ("0-3") */
	uint32_t cpus_per_task;
	char *gpu_bind;                /* srun --gpu-bind as typed, NULL = none */
	char *task_prolog, *task_epilog;   /* srun --task-prolog/--task-epilog
	                                    * (in the digest) */
	uint32_t pty_rows, pty_cols;   /* STEP_F_PTY: srun's window size at the
	                                * launch (later ones: STEP_IO_WINSIZE) */
	char *launch_mac;              /* auth/slurm: cred_launch_mac of this
	                                * launch under the step's launch key
	                                * (hex): srun's proof that it holds it */
} msg_launch_step_t;
#define STEP_F_UNBUFFERED 0x1u
#define STEP_F_STDIN      0x2u     /* tasks read srun's stdin (MSG_STEP_IO
	                                * STEP_IO_STDIN frames; len 0 = EOF) */
#define STEP_F_STANDALONE 0x4u     /* srun made the allocation: the node
	                                * daemon sets SLURM_NODELIST/NNODES/... */
#define STEP_F_PTY        0x8u     /* srun --pty: task 0 runs on a pseudo
	                                * terminal (stdin, stdout and stderr),
	                                * the other tasks' output goes to
	                                * /dev/null (in the digest) */

enum { STEP_IO_STDOUT = 1, STEP_IO_STDERR = 2, STEP_IO_STDIN = 0,
       STEP_IO_SIGNAL = 3,     /* srun -> supervisor: task is the signal
                                * for every task, 0 = terminate the step
                                * (-K, -W, Ctrl-C twice); no data */
       STEP_IO_WINSIZE = 4,    /* srun -> supervisor (STEP_F_PTY): srun's
                                * terminal changed size; data: rows, cols
                                * (2 bytes each, big-endian) */
       STEP_IO_PMI = 5,        /* SLURM_MPI_TYPE=pmi2, a PMI fence: node ->
                                * srun (task 0), data = its tasks' puts
                                * (pmi_kvs_pack); srun -> every node once
                                * all are in: all of them */
       STEP_IO_PMI_ABORT = 6 }; /* node -> srun: task called PMI abort;
                                * srun ends the step on every node */
typedef struct msg_step_io {
	uint32_t task;           /* global rank */
	uint32_t stream;
	uint32_t len;            /* bytes in data */
	uint8_t *data;           /* len bytes; not NUL-terminated */
} msg_step_io_t;

typedef struct msg_step_task_exit {
	uint32_t task;
	uint32_t status;         /* raw wait status */
} msg_step_task_exit_t;

/* sprio: the priority factors of pending jobs. Filters are optional
 * (empty = all). Factor values are doubles carried as their IEEE-754 bit
 * patterns in uint64_t fields (the codec has no float type): use
 * proto_dbl()/proto_dbl_bits(). */
typedef struct msg_prio_req {
	uint32_t njob_ids;
	uint32_t *job_ids;
	uint32_t nuser_ids;
	uint32_t *user_ids;
	char *partitions;        /* comma list or NULL */
} msg_prio_req_t;

typedef struct prio_tres {
	char *name;              /* "cpu", "mem", "node", "gres/gpu" */
	uint64_t weighted;       /* double bits: weight * factor */
	uint64_t weight;         /* double bits */
} prio_tres_t;

typedef struct prio_job {
	uint32_t job_id, user_id;
	char *partition;
	uint32_t priority;       /* the job's priority as the scheduler uses it */
	int64_t site;
	int32_t nice;
	uint64_t age, assoc, fairshare, jobsize, part, qos;   /* double bits, weighted */
	uint32_t ntres;
	prio_tres_t *tres;
	uint32_t direct;         /* priority set by an admin: factors not used */
} prio_job_t;

typedef struct msg_prio_info {
	uint32_t multifactor;    /* 0: PriorityType is not priority/multifactor */
	char *priority_type;
	uint32_t w_age, w_assoc, w_fairshare, w_jobsize, w_part, w_qos;
	char *w_tres;            /* PriorityWeightTRES as configured, or NULL */
	uint32_t njobs;
	prio_job_t *jobs;
} msg_prio_info_t;

/* sdiag. flags STATS_F_RESET: zero the counters (admins) -> MSG_RC. */
#define STATS_F_RESET 0x1u
typedef struct msg_stats_req {
	uint32_t flags;
} msg_stats_req_t;

/* Per RPC kind (id = Slurm's message number, name = Slurm's name) or per
 * user (id = uid, name unset). Times in microseconds. */
typedef struct rpc_stat {
	uint32_t id;
	char *name;
	uint32_t count;
	uint64_t time_us;
} rpc_stat_t;

typedef struct msg_stats {
	int64_t req_time, req_time_start;   /* now, counters' start */
	uint32_t server_threads, agent_queue, agent_count, agent_threads, dbd_queue;
	uint32_t jobs_submitted, jobs_started, jobs_completed, jobs_canceled, jobs_failed;
	int64_t job_states_ts;
	uint32_t jobs_pending, jobs_running;
	uint32_t sched_last, sched_max, sched_cycles, sched_mean, sched_mean_depth,
		 sched_queue_len;
	uint32_t bf_backfilled_total, bf_backfilled, bf_backfilled_het, bf_cycles;
	int64_t bf_last_when;
	uint32_t bf_last, bf_max, bf_mean, bf_last_depth, bf_last_depth_try,
		 bf_depth_mean, bf_depth_try_mean, bf_queue_len, bf_queue_mean,
		 bf_table_size, bf_table_mean;
	uint32_t gtod_latency;
	uint32_t nrpc_types;
	rpc_stat_t *rpc_types;
	uint32_t nrpc_users;
	rpc_stat_t *rpc_users;
} msg_stats_t;

static inline double proto_dbl(uint64_t bits)
{
	double d;
	__builtin_memcpy(&d, &bits, sizeof(d));
	return d;
}

static inline uint64_t proto_dbl_bits(double d)
{
	uint64_t b;
	__builtin_memcpy(&b, &d, sizeof(b));
	return b;
}

/* ---- codec ---- */

/* Encode msg (a struct of the given type) as a body, appended to out. */
void proto_encode(enum msg_type type, const void *msg, strbuf_t *out);
/* Decode a body into msg (zeroed first). 0, or -1 with *err (malloc'd,
 * may be NULL) on a malformed body; msg then holds nothing to free. */
int proto_decode(enum msg_type type, void *msg, const void *buf, size_t len, char **err);
/* As proto_decode, refusing ("decoded message too large") a body whose
 * decoded form would cost more than budget bytes of memory, allocations
 * counted at their real cost (malloc's header and rounding, pointers).
 * proto_decode's budget is proportional to len and generous (replies). */
int proto_decode_budget(enum msg_type type, void *msg, const void *buf, size_t len,
			size_t budget, char **err);
/* Free what a decoded (or filled-in) message owns; not msg itself. */
void proto_free(enum msg_type type, void *msg);
/* Size of the struct for a type (to allocate one); 0 for unknown types. */
size_t proto_size(enum msg_type type);
const char *proto_name(enum msg_type type);

void strv_push(strv_t *sv, const char *s);    /* copies s */
void strv_free(strv_t *sv);

/* Accounting requests (sacct, sacctmgr, sreport, sshare): one generic
 * request naming an operation and its arguments as "key=value" words
 * (op-specific), answered with a table: column names and the cells row by
 * row. The controller runs store queries off its loop (ctld/acct_rpc.c).
 * Operation numbers: see ACCT_OP_*; new ones take the next free number. */
enum acct_op {
	ACCT_OP_NONE = 0,
	ACCT_OP_SACCT = 1,       /* job and step records */
	ACCT_OP_MGR = 2,         /* sacctmgr verbs */
	ACCT_OP_SSHARE = 3,      /* fair-share tree */
	ACCT_OP_SREPORT = 4,     /* rollup reports */
	ACCT_OP_WHY = 5,         /* sluice why (live state, not accounting) */
};
/* sacctmgr (ACCT_OP_MGR): nothing was changed (" Nothing new added.",
 * " Nothing modified"): the text on stdout, exit status 1. */
#define ACCT_MGR_NOTHING 1
typedef struct msg_acct_req {
	uint32_t op;             /* enum acct_op */
	strv_t args;             /* "key=value" words */
	char *body;              /* optional text (sacctmgr load: the file) */
} msg_acct_req_t;
typedef struct msg_acct_reply {
	int32_t rc;              /* SLURM_SUCCESS or an errors.h number */
	char *msg;               /* text for the user (an error, sacctmgr's
	                          * report of what it changed) */
	strv_t cols;             /* column names */
	strv_t cells;            /* rows x cols.n, row by row */
	/* or the same cells packed, each ended by a NUL (a large answer:
	 * one allocation where cells takes one per cell); read either form
	 * with acct_reply_cells */
	uint8_t *table;
	uint32_t table_len;
} msg_acct_reply_t;

/* Move r's cells into r->table. */
void acct_reply_pack(msg_acct_reply_t *r);
/* r's cells, from either form: an array of *n pointers into r (free the
 * array, not the strings; NULL when there are none). */
const char **acct_reply_cells(const msg_acct_reply_t *r, uint32_t *n);

/* sstat: live usage of a running job's steps. sstat asks the controller
 * (MSG_STEP_STAT_AUTH: may the caller see the job, where does it run), which
 * answers with the job's nodes and a credential it signs (cred.h with the
 * digest cred_stat_digest, good for a minute, for reading the job's usage
 * only); then sstat asks each node daemon on its step port
 * (MSG_STEP_STAT with that credential) for the usage of the job's steps
 * running there, task by task, and aggregates (cmd/sstat_fmt.c). */
typedef struct msg_step_stat {
	uint32_t job_id;
	uint32_t step_id;        /* STEP_ALL (jobid.h): every step of the job */
	char *cred;              /* to noded: the controller's stat credential */
} msg_step_stat_t;
typedef struct msg_step_stat_auth {
	int32_t rc;              /* ESLURM_INVALID_JOB_ID, ESLURM_USER_ID_MISSING
	                          * (not the caller's job), or 0 */
	uint32_t job_id;
	uint32_t job_state;      /* JOB_* base state */
	strv_t node_names, node_addrs;
	uint32_t nports;
	uint32_t *ports;         /* noded port per node */
	char *cred;
} msg_step_stat_auth_t;
/* One task's figures over its life so far (the highest of each sample,
 * CPU time as user + system). */
typedef struct stat_task {
	uint32_t step_id, rank;
	uint64_t rss_kb, vmsize_kb, pages, cpu_us, disk_read, disk_write;
} stat_task_t;
/* A step running on the node: the pids of its processes there. */
typedef struct stat_step {
	uint32_t step_id;
	char *pids;              /* "12,13,20" */
} stat_step_t;
typedef struct msg_step_stat_reply {
	int32_t rc;
	char *msg;
	char *node;
	uint32_t nsteps;
	stat_step_t *steps;
	uint32_t ntasks;
	stat_task_t *tasks;      /* of every step in steps, by step */
} msg_step_stat_reply_t;

/* ---- advance reservations (scontrol create|update|delete reservation) ----
 * Flags as scontrol prints them (resv_spec.c names them). */
#define RESV_F_MAINT       0x01u
#define RESV_F_OVERLAP     0x02u
#define RESV_F_IGNORE_JOBS 0x04u
#define RESV_F_DAILY       0x08u
#define RESV_F_WEEKDAY     0x10u
#define RESV_F_WEEKEND     0x20u
#define RESV_F_WEEKLY      0x40u
#define RESV_F_SPEC_NODES  0x80u   /* set by the controller: Nodes= named */
#define RESV_F_HOURLY      0x100u
#define RESV_F_STATIC      0x200u   /* STATIC_ALLOC: nodes never replaced */
#define RESV_F_REPLACE     0x400u   /* nodes jobs take or that fail: replaced */
#define RESV_F_REPLACE_DOWN 0x800u  /* nodes that fail: replaced */
#define RESV_F_NO_HOLD     0x1000u  /* NO_HOLD_JOBS_AFTER_END */
#define RESV_F_ALL_NODES   0x2000u  /* set by the controller: Nodes=ALL */
#define RESV_F_FLEX        0x4000u   /* the ones in RESV_F_NOT_BUILT: parsed, refused */
#define RESV_F_ANY_NODES   0x8000u
#define RESV_F_PART_NODES  0x10000u
#define RESV_F_PURGE_COMP  0x20000u  /* removed once idle for its time */
#define RESV_F_FIRST_CORES 0x40000u
#define RESV_F_TIME_FLOAT  0x80000u
#define RESV_F_MAGNETIC    0x100000u
#define RESV_F_NOT_BUILT (RESV_F_FLEX | RESV_F_ANY_NODES | RESV_F_PART_NODES | \
			  RESV_F_FIRST_CORES | RESV_F_TIME_FLOAT | RESV_F_MAGNETIC)
/* The repeating ones (at most one of them per reservation). */
#define RESV_F_REPEAT (RESV_F_HOURLY | RESV_F_DAILY | RESV_F_WEEKDAY | RESV_F_WEEKEND | RESV_F_WEEKLY)
/* The controller's own: a request cannot set or clear them. */
#define RESV_F_CTLD (RESV_F_SPEC_NODES | RESV_F_ALL_NODES)
enum { RESV_OP_CREATE = 1, RESV_OP_UPDATE, RESV_OP_DELETE };
/* The client resolves times against its clock (as Slurm's scontrol);
 * unset fields are 0/NULL, duration TIME_NO_VAL (timefmt.h). */
typedef struct msg_resv_update {
	uint32_t op;             /* RESV_OP_* */
	char *name;              /* ReservationName (create: NULL = generated) */
	int64_t start_time, end_time;
	uint32_t duration;       /* minutes, TIME_INFINITE, TIME_NO_VAL unset */
	char *nodes;             /* hostlist or "ALL" */
	uint32_t node_cnt;       /* NodeCnt=, 0 unset */
	char *partition, *features;
	char *users, *accounts;  /* as typed ("alice,bob", "-bob"); update:
	                          * "+alice,-bob" (Users+=, Users-=, or
	                          * signed names) adds and removes names */
	uint32_t flags_set, flags_clear;   /* RESV_F_*: Flags=X / Flags=-X */
	int64_t duration_delta;  /* Duration+=/-=: minutes added to its end */
	uint32_t purge_comp;     /* Flags=PURGE_COMP=<t>: seconds, 0 not given */
} msg_resv_update_t;

typedef struct resv_info {
	char *name;
	uint32_t resv_id;
	int64_t start_time, end_time;
	char *nodes;             /* ranged, "" none */
	uint32_t node_cnt, core_cnt;
	char *features, *partition;   /* NULL: (null) */
	uint32_t flags;          /* RESV_F_* */
	char *tres;              /* "cpu=128" */
	char *users, *accounts;  /* NULL: (null) */
	uint32_t purge_comp;     /* seconds idle before PURGE_COMP removes it */
} resv_info_t;

typedef struct msg_resv_info {
	int64_t last_update;
	uint32_t nresvs;
	resv_info_t *resvs;
} msg_resv_info_t;

#endif
