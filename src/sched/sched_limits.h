/*
 * sched_limits.h: the data the pure scheduler core gets for accounting
 * limits and fair share (AccountingStorageEnforce=limits,qos,...).
 *
 * The controller keeps the association tree and the QOS list (ctld/acct.h)
 * and hands the core, with each pass, a flat copy of what it needs: the
 * associations (parent by index, limits as set), the QOS, and the decayed
 * usage. The core counts the running and pending jobs itself from the
 * jobs it is given, so no counter can drift.
 *
 * Units: counts are counts, wall limits minutes, TRES as Slurm counts them
 * (cpu: CPUs, mem: MB, node: nodes, gres/gpu: GPUs, billing: billing
 * units); *_mins limits are TRES-minutes; usage is TRES-seconds.
 */
#ifndef SLUICE_SCHED_LIMITS_H
#define SLUICE_SCHED_LIMITS_H

#include <stdint.h>

/* TRES indexes: the first four are the SCHED_TRES_* of sched.h. Slurm's
 * ids are 1 cpu, 2 mem, 4 node, 5 billing, 1001.. gres/gpu. */
enum {
	LIM_TRES_CPU = 0,
	LIM_TRES_MEM = 1,
	LIM_TRES_NODE = 2,
	LIM_TRES_GPU = 3,       /* "gres/gpu" */
	LIM_TRES_BILLING = 4,
	LIM_TRES_N = 5
};

/* A limit not set (Slurm prints it empty; an association inherits its
 * parent's Max* value then). */
#define LIM_UNSET UINT64_MAX

typedef struct lim_tres {
	uint64_t v[LIM_TRES_N];      /* LIM_UNSET where not set */
} lim_tres_t;

/* One set of limits, as sacctmgr names them. Associations use the
 * common part; the per-user/per-account ones exist on QOS only. */
typedef struct lim_set {
	uint64_t max_jobs, max_submit;          /* MaxJobs, MaxSubmitJobs */
	uint64_t grp_jobs, grp_submit;          /* GrpJobs, GrpSubmitJobs */
	uint64_t max_wall, grp_wall;            /* MaxWall(DurationPerJob), GrpWall: minutes */
	lim_tres_t max_tres_pj;                 /* MaxTRES (per job) */
	lim_tres_t max_tres_pn;                 /* MaxTRESPerNode */
	lim_tres_t max_tres_mins_pj;            /* MaxTRESMins (per job) */
	lim_tres_t grp_tres;                    /* GrpTRES */
	lim_tres_t grp_tres_mins;               /* GrpTRESMins */
	lim_tres_t grp_tres_run_mins;           /* GrpTRESRunMins */
	/* QOS only (LIM_UNSET on associations) */
	uint64_t max_jobs_pu, max_submit_pu;    /* MaxJobsPerUser, MaxSubmitJobsPerUser */
	uint64_t max_jobs_pa, max_submit_pa;    /* MaxJobsPerAccount, MaxSubmitJobsPerAccount */
	lim_tres_t max_tres_pu;                 /* MaxTRESPerUser */
	lim_tres_t max_tres_pa;                 /* MaxTRESPerAccount */
	lim_tres_t min_tres_pj;                 /* MinTRES (per job) */
} lim_set_t;

/* All of a lim_set_t unset. */
void lim_set_clear(lim_set_t *l);

/* QOS flags (sacctmgr Flags=) */
#define LIM_QOS_F_DENY_ON_LIMIT      0x01u   /* DenyOnLimit */
#define LIM_QOS_F_NO_DECAY           0x02u   /* NoDecay */
#define LIM_QOS_F_PART_QOS           0x04u   /* OverPartQOS */
#define LIM_QOS_F_NO_RESERVE         0x08u   /* NoReserve */
#define LIM_QOS_F_REQUIRE_RESV       0x10u   /* RequiresReservation */
#define LIM_QOS_F_USAGE_FACTOR_SAFE  0x20u   /* UsageFactorSafe */

/* PreemptMode of a QOS */
enum { LIM_PREEMPT_OFF = 0, LIM_PREEMPT_CANCEL, LIM_PREEMPT_REQUEUE,
       LIM_PREEMPT_SUSPEND };

#define SCHED_SHARES_PARENT UINT32_MAX   /* FairShare=parent */

/* An association as the core sees it. Index 0 is the cluster's root
 * association; parent is an index (-1 for the root). A user association
 * has uid set; an account association uid = UINT32_MAX. */
typedef struct sched_assoc {
	uint32_t id;                 /* the store's id (stable) */
	int32_t parent;              /* index into sched_t.assocs, -1 = root */
	uint32_t uid;                /* user associations; UINT32_MAX otherwise */
	const char *account;         /* borrowed */
	const char *partition;       /* borrowed; NULL = any */
	lim_set_t lim;               /* as set on this association */
	uint32_t shares_raw;         /* FairShare=; SCHED_SHARES_PARENT */
	uint32_t priority;           /* Priority= (assoc factor) */
	uint8_t is_user;             /* a user association (uid may still be
	                              * UINT32_MAX: a user with no Unix
	                              * account, as sacctmgr allows) */
	/* Decayed usage (controller-kept, from running and ended jobs):
	 * TRES-seconds times the QOS UsageFactor, this association and its
	 * subtree. usage_raw is the billing usage fair share uses. */
	double usage_raw;
	double usage_tres[LIM_TRES_N];
	double usage_wall;           /* seconds, for GrpWall */
	/* Fair share (written by sched_fairshare): */
	double fs_factor;            /* [0,1], user associations */
	double fs_norm_shares, fs_norm_usage, fs_eff_usage, fs_level;
} sched_assoc_t;

typedef struct sched_qos {
	uint32_t id;                 /* the store's id */
	const char *name;            /* borrowed */
	uint32_t priority;           /* Priority= */
	double usage_factor;         /* UsageFactor= (1.0) */
	double usage_threshold;      /* UsageThreshold= (0 = none) */
	uint32_t flags;              /* LIM_QOS_F_* */
	uint32_t preempt_mode;       /* LIM_PREEMPT_* (OFF: the cluster's) */
	uint64_t *preempt;           /* bitmap by QOS index: QOS this one may
	                              * preempt (borrowed; NULL = none) */
	uint32_t grace_time;         /* GraceTime=, seconds */
	lim_set_t lim;
	double usage_tres[LIM_TRES_N];   /* decayed TRES-seconds (GrpTRESMins) */
	double usage_wall;               /* seconds (GrpWall) */
} sched_qos_t;

/* ---- limits in the core's pass (sched.c, sched_backfill.c use these) ----
 * lim_ctx_new counts, from the running jobs it is given, the jobs and
 * TRES in use per association (and its subtree, for Grp* limits), per
 * QOS, per (QOS, user) and per (QOS, account), and resolves the Max*
 * limits an association inherits from its parents. lim_job_check then
 * tells whether one pending job may start now (0) or Slurm's reason
 * (enum job_reason) for the first limit it is over, in Slurm's order: the
 * job's QOS first, then its association up to the root; a limit set on
 * the QOS overrides the association's. lim_job_start adds a job the pass
 * starts. Cost: O(running x depth + assocs + pending) to build,
 * O(depth x TRES) per check. */
struct sched;
struct sched_job;
struct sched_alloc;
typedef struct lim_ctx lim_ctx_t;

/* NULL when the pass enforces no limits (sched_t.lim_enforce 0 or no
 * tables). */
lim_ctx_t *lim_ctx_new(const struct sched *s, const struct sched_job *jobs, uint32_t n,
		       int64_t now);
uint32_t lim_job_check(const lim_ctx_t *c, const struct sched_job *j);
void lim_job_start(lim_ctx_t *c, const struct sched_job *j, const struct sched_alloc *a);
void lim_ctx_free(lim_ctx_t *c);

/* The per-job limits alone (MaxTRES, MaxTRESPerNode, MaxTRESMins,
 * MaxWall, MinTRES of the job's QOS and its association's inherited
 * Max* values): 0 or the reason. For submit-time refusal (DenyOnLimit)
 * without counting anything. */
uint32_t lim_job_check_static(const struct sched *s, const struct sched_job *j);

/* The TRES a pending job asks for (its minimum: min_nodes nodes; memory
 * from --mem, --mem-per-cpu, --mem-per-gpu or the partition's
 * DefMemPerCPU; billing = CPUs), total and per node. */
void lim_job_tres(const struct sched *s, const struct sched_job *j, uint64_t tres[LIM_TRES_N],
		  uint64_t per_node[LIM_TRES_N]);
/* The TRES an allocation holds. */
void lim_alloc_tres(const struct sched_alloc *a, uint64_t tres[LIM_TRES_N]);

#endif
