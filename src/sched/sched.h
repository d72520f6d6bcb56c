/*
 * sched: the pure scheduler core.
 *
 * State and a clock in, decisions out: no sockets, no files, no wall clock.
 * The controller keeps a sched_t mirroring its nodes, partitions and
 * running allocations, and calls sched_pass() with the pending jobs in any
 * order; the core orders them, selects nodes/cores/memory/GPUs, and returns
 * a decision per job (start with this allocation, or stay pending with this
 * reason). The controller applies the starts (sched_alloc_commit) and
 * releases allocations when jobs end (sched_alloc_release). A future
 * simulator and the unit tests drive the same functions.
 *
 * Backfill (sched/backfill): set sched_t.running (running allocations and
 * their expected ends) and run_backfill before the pass; pending jobs then
 * also get an expected start_time and sched_nodes, and nodes held for a
 * reservation get .planned. Priority (sched_priority) is computed by the
 * caller before the pass, from sched_t.prio.
 *
 * Cost: the main pass is O(pending jobs x log) plus a node search for the
 * jobs tried; jobs that cannot start early-exit (held, begin time,
 * partition down, and once a partition is blocked, lower-priority jobs of
 * it get Reason=Priority without a node search). A backfill cycle costs
 * O(bf_max_job_test x partition nodes x events per node).
 */
#ifndef SLUICE_SCHED_H
#define SLUICE_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "sched_limits.h"

#define SCHED_MAX_GRES_TYPES 8
#define SCHED_MAX_GPUS 64       /* per node: gpu indices fit a uint64_t mask */

typedef struct sched_gpu_type {
	char type[32];           /* "h100", "" for untyped */
	uint32_t first;          /* first global index on the node */
	uint32_t count;
} sched_gpu_type_t;

typedef struct sched_node {
	const char *name;        /* borrowed from the caller */
	uint32_t cpus;           /* schedulable CPUs */
	uint64_t mem;            /* MB */
	uint32_t weight;
	uint32_t ngpu_types;
	sched_gpu_type_t gpu_types[SCHED_MAX_GRES_TYPES];
	uint32_t ngpus;          /* total */
	char *features;          /* borrowed, "h100,ib" or NULL */
	uint64_t tmp_disk;       /* MB of TmpDisk (--tmp asks at least) */
	int leaf;                /* index of its leaf switch, -1 if none */
	/* Mutable state (kept by the core through commit/release): */
	int usable;              /* set by the caller: up, not drained, responding */
	uint32_t cpus_used;
	uint64_t mem_used;
	uint64_t gpus_used;      /* bitmask of used gpu indices */
	uint32_t njobs;
	int exclusive;           /* held by an --exclusive job */
	int planned;             /* written by a backfill cycle: held for a
	                          * higher-priority job's reservation */
	/* CPU ids (optional): with cores_used set, allocations also get which
	 * CPUs (0 .. cpus-1, bitmaps of core_words words), lowest free first,
	 * and GPUs are chosen so their Cores= overlap those CPUs where they
	 * can. gpu_cores: per gpu index, core_words words of the CPUs it is
	 * close to (borrowed; NULL = no affinity known). cores_used: caller
	 * allocates zeroed, the core keeps it through commit/release. NULL:
	 * CPUs are counted only. */
	uint32_t core_words;
	const uint64_t *gpu_cores;
	uint64_t *cores_used;
	/* SelectTypeParameters: CPU ids are allocated in aligned blocks of
	 * cpu_unit ids (ThreadsPerCore under CR_Core and CR_CPU: no two jobs
	 * on one core; a socket's CPUs under CR_Socket; 0 = 1). Under CR_Core
	 * and CR_Socket the job's CPU count is rounded up to them; under
	 * CR_CPU it stays what was asked (slurm.conf(5)). */
	uint32_t cpu_unit;
	/* OverSubscribe: per CPU id, how many oversubscribing jobs hold it
	 * (caller allocates cpus bytes zeroed with cores_used; NULL = no
	 * sharing on this node). A CPU in cores_used with share 0 is held by
	 * a job that does not share. */
	uint8_t *cpu_share;
	/* --exclusive=user / ExclusiveUser: owner_uid's jobs are owner_jobs
	 * of the node's njobs (all of them: one user's node); excl_user_jobs
	 * of them keep other users out. Kept by commit/release. */
	uint32_t owner_uid, owner_jobs, excl_user_jobs;
} sched_node_t;

/* ---- scheduler parameters (SchedulerType + SchedulerParameters) ----
 * Parsed by the controller from slurm.conf (sched_params_parse) and kept in
 * sched_t.params; defaults as Slurm 22.05's. */
typedef struct sched_params {
	int backfill;              /* SchedulerType=sched/backfill */
	uint32_t bf_window;        /* minutes (1440) */
	uint32_t bf_resolution;    /* seconds (60) */
	uint32_t bf_max_job_test;  /* jobs examined per backfill cycle (500) */
	uint32_t bf_max_job_user;  /* per user per backfill cycle, 0 = no limit */
	int bf_continue;           /* accepted; a pass is never interrupted */
	uint32_t default_queue_depth; /* jobs tried by the main pass (100) */
	uint32_t bf_interval;      /* seconds between backfill cycles (30) */
	int topo_optional;         /* TopologyParam=TopoOptional */
	/* SelectTypeParameters (sched_params_select) */
	int mem_not_consumed;      /* CR_CPU, CR_Core, CR_Socket without
	                            * _Memory: --mem only filters nodes by
	                            * their RealMemory (default: consumed) */
	int cr_unit;               /* SCHED_CR_CORE (default), _CPU or _SOCKET */
	int one_task_per_core;     /* CR_ONE_TASK_PER_CORE */
} sched_params_t;

enum { SCHED_CR_CORE = 0, SCHED_CR_CPU, SCHED_CR_SOCKET };

/* Defaults, then "key=value,..." from SchedulerParameters applied on top.
 * Unknown keys are ignored (Slurm accepts many the core does not use). */
void sched_params_init(sched_params_t *p);
void sched_params_parse(sched_params_t *p, const char *scheduler_type,
			const char *scheduler_parameters);
/* SelectTypeParameters ("CR_Core_Memory", "CR_CPU", ...; NULL = the
 * default CR_Core_Memory) into mem_not_consumed, cr_unit, one_task_per_core. */
void sched_params_select(sched_params_t *p, const char *select_type_parameters);
/* The cpu_unit of a node under p->cr_unit. */
uint32_t sched_cpu_unit(const sched_params_t *p, uint32_t cores_per_socket,
			uint32_t threads_per_core);

/* ---- multifactor priority (priority/multifactor) ----
 * priority = site + sum(weight_x * factor_x) - nice, factors in [0,1];
 * see sched_priority(). priority/basic: FIFO (sched_priority_basic). */
#define SCHED_PRIO_MAX_TRES 8
enum { SCHED_TRES_CPU = 0, SCHED_TRES_MEM, SCHED_TRES_NODE, SCHED_TRES_GPU };

typedef struct sched_prio_conf {
	int multifactor;           /* PriorityType=priority/multifactor */
	uint32_t w_age, w_assoc, w_fairshare, w_jobsize, w_partition, w_qos;
	uint32_t max_age;          /* PriorityMaxAge in seconds (7 days) */
	int favor_small;           /* PriorityFavorSmall=YES */
	uint32_t flags;            /* SCHED_PRIO_F_* from PriorityFlags */
	/* PriorityWeightTRES=CPU=1000,Mem=2000,GRES/gpu=3000: one weight per
	 * SCHED_TRES_* index (0 = not weighted). */
	double w_tres[SCHED_PRIO_MAX_TRES];
	/* Normalizers (set by the caller from the cluster's shape). */
	uint32_t cluster_nodes, cluster_cpus;
	uint32_t max_part_job_factor;   /* max PriorityJobFactor over partitions */
	uint32_t max_qos_priority;      /* max QOS priority (0: factor 0) */
	uint32_t max_assoc_priority;    /* max association Priority (0: factor 0) */
	/* Partitions (borrowed; totals from sched_totals) for the TRES
	 * factor: requested / partition total. NULL: no TRES factor. */
	const struct sched_part *parts; uint32_t nparts;
} sched_prio_conf_t;

#define SCHED_PRIO_F_SMALL_RELATIVE_TO_TIME 0x1u
#define SCHED_PRIO_F_ACCRUE_ALWAYS          0x2u
#define SCHED_PRIO_F_NO_NORMAL_PART         0x4u   /* NO_NORMAL_PART */

/* The factors of one job (for sprio). The weighted values (weight *
 * factor, as Slurm's sprio prints by default) and the normalized factors
 * in [0,1] (sprio -n). */
typedef struct sched_prio_factors {
	uint32_t priority;         /* the final priority (1 .. 0xfffffffe) */
	int64_t site;              /* admin site factor */
	int32_t nice;              /* --nice (subtracted) */
	double age, assoc, fairshare, jobsize, partition, qos;      /* weighted */
	double n_age, n_assoc, n_fairshare, n_jobsize, n_partition, n_qos; /* [0,1] */
	double tres[SCHED_PRIO_MAX_TRES];     /* weighted, per SCHED_TRES_* */
	double n_tres[SCHED_PRIO_MAX_TRES];   /* [0,1] */
} sched_prio_factors_t;

/* Parse "PriorityWeightTRES" ("CPU=1000,Mem=2000,GRES/gpu=3000") into
 * c->w_tres; unknown TRES names are skipped. */
void sched_prio_parse_tres(sched_prio_conf_t *c, const char *weights);

typedef struct sched_part {
	const char *name;
	uint32_t *nodes;         /* node indexes */
	uint32_t nnodes;
	int up;                  /* starts allowed: UP or DRAIN (DRAIN only refuses
	                          * new submissions); DOWN/INACTIVE block starts */
	int inactive;            /* when !up: INACTIVE (else DOWN), for the reason */
	uint32_t max_time;       /* minutes, TIME_INFINITE */
	uint32_t max_nodes, min_nodes;
	uint32_t priority_tier;
	uint64_t def_mem_per_cpu;  /* MB, 0 = none */
	uint32_t priority_job_factor;  /* PriorityJobFactor */
	/* OverSubscribe=YES:N / FORCE:N: up to max_share jobs per CPU
	 * (0 or 1: none, the default NO); YES shares only the CPUs of jobs
	 * that asked (--oversubscribe), FORCE those of every job. */
	uint32_t max_share;
	int force_share;
	/* Totals for the TRES priority factor (sched_totals). */
	uint32_t total_cpus, total_nodes, total_gpus;
	uint64_t total_mem;
} sched_part_t;

/* ---- advance reservations (scontrol create reservation) ----
 * A reservation holds whole nodes over [start, end). A job that is not in
 * it never holds one of those nodes at any moment of that window (its own
 * [start, start + time limit) is checked against it, in the main pass and
 * in backfill's plan); a job in it (sched_job_t.resv) runs only on its
 * nodes and starts only inside the window (Reason=Reservation before).
 * Running jobs are not touched by a reservation's start. */
typedef struct sched_resv {
	const char *name;          /* borrowed */
	const uint32_t *nodes;     /* node indexes, ascending (borrowed) */
	uint32_t nnodes;
	int64_t start, end;        /* end: INT64_MAX for an infinite one */
	uint32_t flags;            /* SCHED_RESV_F_* */
} sched_resv_t;

#define SCHED_RESV_F_MAINT  0x1u   /* Flags=MAINT: maintenance (the reason
                                    * jobs kept off it get names it) */

typedef struct sched_job {
	uint32_t job_id;
	uint32_t priority;
	int64_t submit_time, begin_time;
	uint32_t part;           /* index into sched_t.parts */
	uint32_t min_nodes, max_nodes;   /* max 0 = min */
	uint32_t ntasks;                 /* total tasks (>= 1) */
	uint32_t cpus_per_task;          /* >= 1 */
	uint32_t ntasks_per_node;        /* 0 = unset */
	uint64_t mem_per_node;           /* MB, 0 = unset */
	uint64_t mem_per_cpu;            /* MB, 0 = unset */
	uint32_t gpus_per_node;          /* from --gres/--gpus-per-node */
	uint32_t gpus_per_job;           /* from --gpus */
	char gpu_type[32];               /* "" = any type */
	uint32_t time_limit;             /* minutes */
	int exclusive;
	int held;                        /* JobHeldUser / JobHeldAdmin */
	uint32_t held_reason;            /* enum job_reason when held */
	int dependency_wait;             /* 1: an unmet dependency (Dependency);
	                                  * 2: one that can never be met
	                                  * (DependencyNeverSatisfied) */
	uint32_t *req_nodes; uint32_t nreq_nodes;   /* -w, node indexes */
	uint32_t *exc_nodes; uint32_t nexc_nodes;   /* -x */
	const char *features;            /* --constraint "a&b" / "a|b" / NULL */
	/* Priority inputs (sched_priority). */
	uint32_t user_id;                /* bf_max_job_user */
	int32_t nice;                    /* --nice */
	int64_t eligible_time;           /* 0: begin_time, else submit_time */
	uint32_t part_job_factor;        /* the partition's PriorityJobFactor */
	uint32_t qos_priority;           /* the QOS's Priority, 0 without QOS */
	uint32_t assoc_priority;         /* its association's Priority (inherited), 0 = none */
	double fairshare;                /* [0,1] from accounting; hook, the
	                                  * controller passes 0 until it has one */
	int64_t site_factor;
	/* Topology: --switches=N[@max-time] (0 = any) */
	uint32_t req_switch;
	uint32_t wait4switch;            /* seconds to wait for req_switch */
	/* GPU-relative requests (--gpus-per-task, --cpus-per-gpu,
	 * --mem-per-gpu; 0 = unset): a node's GPUs are tasks x gpus_per_task,
	 * its CPUs max(tasks x cpus_per_task, GPUs x cpus_per_gpu) and its
	 * memory GPUs x mem_per_gpu. */
	uint32_t gpus_per_task;
	uint32_t cpus_per_gpu;
	uint64_t mem_per_gpu;            /* MB */
	int oversubscribe;               /* --oversubscribe (-s) */
	int exclusive_user;              /* --exclusive=user, ExclusiveUser=YES:
	                                  * nodes shared with its user's jobs only */
	int contiguous;                  /* --contiguous: consecutive nodes */
	uint32_t pn_min_cpus;            /* --mincpus: a node gives at least
	                                  * this many CPUs, 0 = unset */
	uint64_t pn_min_tmp;             /* --tmp: MB of TmpDisk a node has */
	int overcommit;                  /* -O: cpus_per_task CPUs per node,
	                                  * any number of tasks on them */
	/* Accounting (sched_t.assocs/qos): indexes, -1 = none. */
	int32_t assoc;
	int32_t qos;
	/* --reservation: 1 + its index in sched_t.resvs, 0 = none (so a
	 * zeroed job is in none; the caller has checked the job may use it). */
	uint32_t resv;
} sched_job_t;

/* The resources one job holds. */
typedef struct sched_alloc {
	uint32_t nnodes;
	uint32_t *nodes;         /* node indexes, ascending */
	uint32_t *cpus;          /* per node */
	uint64_t *mem;           /* per node, MB */
	uint64_t *gpus;          /* per node, bitmask of gpu indices */
	uint32_t *tasks;         /* per node */
	int exclusive;
	int shared;              /* CPUs held oversubscribed (cpu_share) */
	uint32_t uid;            /* the job's user (node ownership) */
	int excl_user;           /* --exclusive=user: keeps other users out */
	/* CPU ids per node (nodes with cores_used): node i's bitmap is
	 * cores[i * cwords .. +cwords). cwords 0 / cores NULL: none. */
	uint32_t cwords;
	uint64_t *cores;
} sched_alloc_t;

/* A running allocation and when it is expected to end (start + time
 * limit), for backfill's plan. */
typedef struct sched_running {
	const sched_alloc_t *alloc;
	int64_t end_time;          /* expected end; past = ends any moment */
	/* For limits and preemption (sched_t.assocs/qos set): */
	uint32_t job_id;
	uint32_t uid;
	int32_t assoc, qos;        /* indexes, -1 = none */
	int64_t start_time;
	uint32_t part;             /* its partition */
	int ending;                /* ended, still holding its nodes until its
	                            * node reports (a preempted job): counted
	                            * as free for preemption, never a victim */
} sched_running_t;

/* Counters of the last pass (sdiag): the core counts, the controller adds
 * wall-clock times and keeps the totals. */
typedef struct sched_pass_stats {
	uint32_t main_depth;       /* jobs the main pass examined */
	uint32_t main_started;
	uint32_t queue_len;        /* pending jobs given to the pass */
	int bf_ran;                /* a backfill cycle ran in this pass */
	uint32_t bf_depth;         /* jobs backfill examined */
	uint32_t bf_depth_try;     /* of them, ones it tried to place */
	uint32_t bf_started;       /* started by backfill */
	uint32_t bf_table_size;    /* entries in the availability timeline */
} sched_pass_stats_t;

typedef struct sched {
	sched_node_t *nodes; uint32_t nnodes;
	sched_part_t *parts; uint32_t nparts;
	sched_params_t params;
	/* Running jobs for backfill (borrowed, set by the caller before
	 * sched_pass; NULL/0 = none known). */
	const sched_running_t *running; uint32_t nrunning;
	int run_backfill;          /* caller: backfill is due in this pass */
	sched_pass_stats_t last;   /* written by sched_pass */
	sched_prio_conf_t prio;    /* priority weights (the caller computes
	                            * priorities; kept here for sprio) */
	/* topology/tree above the leaves (borrowed; 0/NULL: leaves only).
	 * Switches 0 .. (number of leaves - 1) are the leaves of
	 * sched_node_t.leaf, the others their ancestors; sw_parent[s] is the
	 * parent switch or -1, sw_level[s] 0 for leaves. */
	uint32_t nswitches;
	const int32_t *sw_parent;
	const uint32_t *sw_level;
	/* Accounting limits (sched_limits.h; borrowed, set by the caller
	 * before sched_pass; NULL/0 = none). With lim_enforce &
	 * SCHED_LIM_ENFORCE a job over a limit stays pending with Slurm's
	 * reason (AssocMaxJobsLimit, QOSGrpGRES, ...) and does not block
	 * lower-priority jobs. */
	const sched_assoc_t *assocs; uint32_t nassocs;
	const sched_qos_t *qos; uint32_t nqos;
	uint32_t lim_enforce;      /* SCHED_LIM_* */
	/* PreemptType=preempt/qos: the cluster's PreemptMode
	 * (LIM_PREEMPT_CANCEL / _REQUEUE; LIM_PREEMPT_OFF = no preemption).
	 * A pending job blocked by Resources whose QOS may preempt running
	 * jobs' QOS (sched_qos_t.preempt) gets decision.preempt. */
	uint32_t preempt_mode;
	/* Advance reservations (borrowed, set by the caller before
	 * sched_pass / sched_will_run; NULL/0 = none). */
	const sched_resv_t *resvs; uint32_t nresvs;
} sched_t;

#define SCHED_LIM_ENFORCE 0x1u     /* AccountingStorageEnforce=limits */
#define SCHED_LIM_SAFE    0x2u     /* ...,safe */

/* decision.reason when the pass did not look at the job (beyond
 * default_queue_depth with no backfill cycle): keep the previous one. */
#define SCHED_REASON_KEEP UINT32_MAX

/* A decision for one pending job. */
typedef struct sched_decision {
	uint32_t job_index;      /* index into the array given to sched_pass */
	int start;               /* 1: start now with alloc; 0: stays pending */
	uint32_t reason;         /* enum job_reason when pending */
	char *reason_detail;     /* malloc'd or NULL ("UnavailableNodes:comp032") */
	sched_alloc_t alloc;     /* when start */
	int backfilled;          /* started by backfill (Scheduler=Backfill) */
	int bf_examined;         /* this pass's backfill cycle tested the job */
	int64_t start_time;      /* pending: expected start, 0 = unknown */
	char *sched_nodes;       /* pending: malloc'd planned nodes or NULL */
	/* Preemption: indexes into sched_t.running of the jobs to preempt
	 * (malloc'd) so this job can start once they are gone; the job
	 * itself stays pending (Resources) in this pass. */
	uint32_t *preempt;
	uint32_t npreempt;
} sched_decision_t;

/* Could this job ever run in its partition on an empty, all-up cluster?
 * A job in a reservation (j->resv): on that reservation's nodes, so
 * sched_t.resvs must be current here too (as for sched_pass).
 * 0 yes; else an errors.h number (ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE,
 * ESLURM_TOO_MANY_REQUESTED_CPUS, ESLURM_INVALID_NODE_COUNT, ...) for the
 * submit-time rejection Slurm makes. */
int sched_job_validate(const sched_t *s, const sched_job_t *j);
/* For a job sched_job_validate refused: Slurm's detail line when one
 * node's memory or CPUs can never hold what the job asks per node ("Memory
 * specification can not be satisfied", "CPU count per node can not be
 * satisfied"), else NULL. */
const char *sched_job_refusal_detail(const sched_t *s, const sched_job_t *j);

/* One scheduling pass at time now over n pending jobs. Fills *out with one
 * decision per job (malloc'd array of n, in priority order); returned
 * starts are already committed to s's node state. */
void sched_pass(sched_t *s, sched_job_t *jobs, uint32_t n, int64_t now,
		sched_decision_t **out);
void sched_decisions_free(sched_decision_t *d, uint32_t n);

/* --test-only (Slurm's will_run): when and where job probe would start if
 * it were submitted now, by the backfill plan: running jobs end at their
 * expected ends, and the pending jobs of jobs[0..n) that come before it
 * in priority order (not held, no dependency, at most bf_max_job_test)
 * reserve their planned starts first. Changes nothing in s. Returns the
 * start (>= now, or the probe's begin time) with *out the allocation
 * (sched_alloc_free it), or INT64_MAX when it finds none within
 * bf_window (out left empty). */
int64_t sched_will_run(sched_t *s, const sched_job_t *jobs, uint32_t n,
		       const sched_job_t *probe, int64_t now, sched_alloc_t *out);

/* Apply / release an allocation to node state (recovery and job end). */
void sched_alloc_commit(sched_t *s, const sched_alloc_t *a);
void sched_alloc_release(sched_t *s, const sched_alloc_t *a);
void sched_alloc_free(sched_alloc_t *a);   /* frees arrays, not a */
void sched_alloc_copy(sched_alloc_t *dst, const sched_alloc_t *src);
/* An allocation recovered without CPU ids (older state): give it the
 * lowest free CPU ids of each node with core tracking, close to its GPUs
 * first. Call before sched_alloc_commit. */
void sched_alloc_fill_cores(const sched_t *s, sched_alloc_t *a);

/* Recompute each partition's totals (cpus, nodes, memory, gpus) from its
 * nodes; call after building or changing the node/partition layout. */
void sched_totals(sched_t *s);

/* Multifactor priority of a pending job at time now (Slurm's formula,
 * see sched_prio.c); fills *out (may be NULL) and returns the priority.
 * With c->multifactor 0 returns 0 and leaves the factors zero. */
uint32_t sched_priority(const sched_prio_conf_t *c, const sched_job_t *j, int64_t now,
			sched_prio_factors_t *out);
/* priority/basic: FIFO by job id, minus nice, clamped to >= 1. */
uint32_t sched_priority_basic(uint32_t job_id, int32_t nice);

/* ---- from the config (sched_conf.c) ----
 * sched_build_conf: s (zeroed by the caller) from the loaded slurm.conf/gres.conf/
 * topology.conf: nodes (CPUs, memory, weight, features, GPUs by type with
 * gres.conf Cores= affinity, CPU units under SelectTypeParameters, leaf
 * switches), the switch tree, partitions (nodes, tiers, job factor,
 * DefMemPerCPU, OverSubscribe=FORCE) and their totals, then
 * sched_load_conf. Nodes start unusable and partitions down: the caller
 * sets usable/up/limits from its own state. sched_load_conf: the
 * scheduler, select and priority parameters alone (a reconfigure).
 * sched_free_conf frees what sched_build_conf allocated. */
struct conf;
void sched_build_conf(sched_t *s, const struct conf *conf);
void sched_load_conf(sched_t *s, const struct conf *conf);
void sched_free_conf(sched_t *s);
/* A partition's OverSubscribe value: SCHED_OS_*, and for YES/FORCE the
 * jobs per CPU in *max (":N", default 4; 1 otherwise). */
enum { SCHED_OS_NO, SCHED_OS_EXCLUSIVE, SCHED_OS_YES, SCHED_OS_FORCE };
int sched_part_oversubscribe(const char *v, uint32_t *max);

/* Is a backfill cycle due in a pass at time now over npending jobs, the
 * last cycle having run at last_backfill (0: never)? Every bf_interval
 * seconds, and in every pass while the queue is no deeper than
 * default_queue_depth (a cycle then costs next to nothing and expected
 * start times stay current). The controller and the simulator both ask
 * this before sched_pass (sched_t.run_backfill) and note now as the last
 * cycle when sched_t.last.bf_ran. */
int sched_backfill_due(const sched_params_t *p, int64_t last_backfill, int64_t now,
		       uint32_t npending);

/* Ordering key: higher priority first, then earlier submit, then lower id. */
int sched_job_cmp(const sched_job_t *a, const sched_job_t *b);

#endif
