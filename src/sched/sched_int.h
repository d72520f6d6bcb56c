/*
 * sched_int.h: what the files of the scheduler core share, private to
 * src/sched (the public API is sched.h): the per-job request, the pass
 * context, and the functions one file of the core calls in another.
 *
 * sched.c        the pass: queue order, main pass, allocation bookkeeping
 * sched_select.c node selection: features, GPUs and cores, what a node
 *                can hold, the pass context, placement, validation
 * sched_backfill.c the backfill cycle (timeline, reservations)
 * sched_preempt.c  preemption (PreemptType=preempt/qos)
 * sched_resv.c   advance reservations: who may hold which node when
 */
#ifndef SLUICE_SCHED_INT_H
#define SLUICE_SCHED_INT_H

#include <stdint.h>

#include "sched.h"

/* --constraint counts and matching OR, per job (sched_select.c). */
#define SCHED_FEAT_MAX 8

typedef struct feat_req {
	int mor;                 /* matching OR: terms are the alternatives */
	uint32_t n;              /* terms: alternatives, or counted features */
	struct {
		const char *name;    /* into the job's expression */
		uint32_t len, count;
	} t[SCHED_FEAT_MAX];
	uint32_t total;          /* sum of the counts */
} feat_req_t;

/* The request of one job, derived from it once per pass (sched_req_init). */
typedef struct req {
	uint32_t min_nodes, max_nodes;
	uint32_t ntasks, cpt, tpn;
	uint64_t mem_node;       /* MB per node, 0 = use mem_per_task */
	uint64_t mem_per_cpu;
	uint32_t gpn, gpj;
	uint32_t gpt, cpg;       /* gpus per task, cpus per gpu */
	uint64_t mpg;            /* MB per gpu */
	const char *gtype;
	uint32_t share;          /* jobs per CPU it may share with (1: none) */
	int whole;               /* --exclusive: every CPU and GPU of its nodes */
	int excl;                /* --exclusive, no other job on its nodes (not
	                          * in an OverSubscribe=FORCE partition) */
	int otpc;                /* CR_ONE_TASK_PER_CORE */
	int mem_free_all;        /* memory not consumed: check RealMemory only */
	int contig;              /* --contiguous */
	int excl_user;           /* --exclusive=user */
	int count_ids;           /* CR_CPU: the job's CPU count is what it asked,
	                          * not the CPU ids it holds */
	uint32_t mincpus;        /* --mincpus: CPUs per node at least */
	uint64_t tmp;            /* --tmp: MB of TmpDisk per node */
	int overcommit;          /* -O: cpt CPUs per node, tasks unbounded */
	feat_req_t feat;         /* --constraint counts / matching OR */
	int64_t rv_dur;          /* seconds it holds nodes, for reservations
	                          * (INT64_MAX: no time limit) */
} req_t;

/* ---- the pass context ---- */

/* A node the job could use now, with what it could take there. */
typedef struct cand {
	uint32_t node, cap, gfree;
	uint64_t gmask;          /* GPUs the job may take on the node */
} cand_t;

/* Per partition: its nodes in order and their search trees. */
typedef struct part_ctx {
	uint32_t *order;         /* partition nodes by (weight, index) */
	uint32_t n;
	uint32_t size;           /* leaves of the segment tree (power of 2) */
	uint32_t *tree;          /* max free cpus per subtree, over order */
	uint32_t *gtree;         /* max free gpus (any type) per subtree */
	int blocked;
	uint32_t n_usable;       /* main pass: nodes usable at its start */
	char *na_detail;         /* sched_fit.c: its unavailable nodes, */
	uint32_t na_gen;         /* as of this withheld_gen */
} part_ctx_t;

/* One pass's working state over the scheduler's nodes. */
typedef struct ctx {
	sched_t *s;
	part_ctx_t *parts;
	uint32_t *pos;           /* [part * nnodes + node]: index in order or -1 */
	uint8_t *mark;           /* per node: 1 excluded, 2 required */
	cand_t *cands;
	uint32_t *leaf_cnt, *leaf_cap, *leaf_gpu;
	uint32_t *leaf_tmp;      /* 3 per leaf, for place() */
	uint32_t *sw_sum;        /* 3 per switch (count, tasks, gpus), place() */
	uint8_t *leaf_seen;
	int nleaves;             /* max leaf index + 1, 0 without topology */
	int64_t now;
	lim_ctx_t *lim;          /* accounting limits, NULL = none */
	uint8_t *preempted;      /* per sched_t.running: chosen to go */
	uint8_t *withheld;       /* per node, main pass only (NULL = none):
	                          * required by a --nodelist job found busy,
	                          * kept from later jobs as Slurm takes them
	                          * out of avail_node_bitmap */
	uint32_t withheld_gen;   /* bumped at each change of withheld */
	/* Advance reservations (sched_resv.c; all NULL without any): the
	 * reservations holding node x are rv_idx[rv_off[x] .. rv_off[x+1]);
	 * rv_maint_part[v * nparts + p]: MAINT reservation v holds every
	 * node of partition p; rv_blocked[v]: a job of v waits on Resources
	 * this pass (later jobs of v: Priority). */
	uint32_t *rv_off, *rv_idx;
	uint8_t *rv_maint_part;
	uint8_t *rv_blocked;
} ctx_t;

/* sched_select_nodes: placed, busy now, or required nodes not usable;
 * sched_fit_class adds SEL_NEVER. */
enum { SEL_OK = 0, SEL_BUSY, SEL_NOT_AVAIL, SEL_NEVER,
       SEL_RESV };   /* kept off only by reservations (of others, or
                      * outside its own): pending, backfill plans it */

/* ---- sched_select.c ---- */

/* Does a node with these features (comma list) match the --constraint
 * expression per node? */
int sched_features_match(const char *node_features, const char *expr);
/* Mask of the node's gpu indices of the wanted type ("" any). */
uint64_t sched_gpu_mask(const sched_node_t *n, const char *want);
/* CPU ids allocation a holds on its i-th node. */
uint32_t sched_alloc_node_ids(const sched_alloc_t *a, uint32_t i);
/* Free CPU ids of a node with core tracking, into free_ (core_words). */
void sched_cores_free(const sched_node_t *n, uint64_t *free_);
/* Take up to *left lowest bits of (avail & pref) into out, clearing them
 * from avail (pref NULL: any). */
void sched_bits_take(uint64_t *avail, const uint64_t *pref, uint64_t *out,
		     uint32_t words, uint32_t *left);
/* Derive job j's request. */
void sched_req_init(const sched_t *s, const sched_job_t *j, req_t *r);
/* Tasks a node with the given free resources can take for the job (0:
 * none); *gfree gets the free GPUs of the wanted type. */
uint32_t sched_cap_free(const sched_node_t *n, const sched_job_t *j, const req_t *r,
			uint32_t cpus_free, uint64_t mem_free, uint64_t gavail, uint32_t *gfree);
/* sched_cap_free of node n with nothing running on it. */
uint32_t sched_cap_empty(const sched_node_t *n, const sched_job_t *j, const req_t *r,
			 uint32_t *gfree);
/* The pass context over s's nodes: init, node x changed, release. */
void sched_ctx_init(ctx_t *c, sched_t *s);
void sched_ctx_node_changed(ctx_t *c, uint32_t x);
void sched_ctx_release(ctx_t *c);
/* Is the candidate set enough? (count, tasks, gpus) */
int sched_enough(const req_t *r, uint32_t cnt, uint64_t tasks, uint64_t gpus);
/* Build the allocation from the first k candidates. */
void sched_build_alloc(const sched_t *s, const sched_job_t *j, const req_t *r,
		       const cand_t *c, uint32_t k, sched_alloc_t *a);
/* Choose nodes among the n candidates (the first nreq required), by
 * topology where it applies; the count chosen (moved to the front of cd),
 * 0 if none. */
uint32_t sched_place(ctx_t *c, const sched_job_t *j, const req_t *r, cand_t *cd,
		     uint32_t n, uint32_t nreq);
/* --switches=N@wait: too many leaves and still within the wait. */
int sched_switches_refused(ctx_t *c, const sched_job_t *j, const cand_t *cd, uint32_t k);
/* Find an allocation for job j now: SEL_*. SEL_NOT_AVAIL sets *detail
 * to the required nodes that are not usable; SEL_RESV (a required node
 * reserved for others, or outside its reservation) to Slurm's words for
 * it (sched_resv_detail). Nodes reserved for others are never chosen. */
int sched_select_nodes(ctx_t *c, const sched_job_t *j, const req_t *r,
		       sched_alloc_t *a, char **detail);

/* Job j found no nodes now (SEL_BUSY): would it fit if the nodes it may
 * use were empty? SEL_BUSY: yes, on available nodes (it waits for running
 * jobs: Resources); SEL_RESV: only with nodes advance reservations keep
 * from it (*detail sched_resv_detail's); SEL_NOT_AVAIL: only with nodes that are down, drained,
 * not responding or withheld (*detail "UnavailableNodes:..." as Slurm
 * lists them: the partition's unavailable nodes, only the required ones
 * among them when the job names some); SEL_NEVER: not even on every node
 * of its partition (Slurm: "not runnable with present config",
 * PartitionNodeLimit). O(nodes of the partition). */
int sched_fit_class(ctx_t *c, const sched_job_t *j, const req_t *r, char **detail);

/* A job that names nodes of which some are down, drained or not
 * responding: "UnavailableNodes:<those>" (Slurm sets ReqNodeNotAvail when
 * such a job is submitted, and its main pass keeps that reason while a
 * job ahead blocks the partition); NULL when every named node is usable.
 * O(required nodes). */
char *sched_req_unavail_detail(const ctx_t *c, const sched_job_t *j);

/* CPUs an oversubscribing job (share > 1) can have on node n: whole
 * units whose CPUs are each free or shared by fewer than share jobs. */
uint32_t sched_shared_cpus_avail(const sched_node_t *n, uint32_t share);

/* Inline, as they were within one file: backfill asks them per node and
 * per tested job. */

/* CPUs and memory node n has for job r now. */
/* a * b, or UINT32_MAX where the product does not fit: a request's task
 * and CPU counts come from the wire and multiply (-N4
 * --ntasks-per-node=1073741824 wrapped to 0 tasks in 32 bits and started
 * on four 4-CPU nodes); saturated, the request is simply too large. */
static inline uint32_t sched_mul_sat(uint32_t a, uint32_t b)
{
	uint64_t p = (uint64_t)a * b;
	return p > UINT32_MAX ? UINT32_MAX : (uint32_t)p;
}

static inline uint32_t sched_node_cpus_avail(const sched_node_t *n, const req_t *r)
{
	if (n->exclusive)
		return 0;
	if (r->share > 1)
		return sched_shared_cpus_avail(n, r->share);
	return n->cpus > n->cpus_used ? n->cpus - n->cpus_used : 0;
}

/* --exclusive=user: may job j (of uid) share node n with what runs on
 * it? Not if a user-exclusive job of another user is there, nor, for a
 * user-exclusive job, if any job of another user is (a node whose
 * ownership is unclear counts as shared). */
static inline int sched_user_blocked(const sched_node_t *n, const sched_job_t *j, const req_t *r)
{
	if (!n->njobs)
		return 0;
	if (n->excl_user_jobs && n->owner_uid != j->user_id)
		return 1;
	return r->excl_user && (n->owner_uid != j->user_id || n->owner_jobs != n->njobs);
}

static inline uint64_t sched_node_mem_avail(const sched_node_t *n, const req_t *r)
{
	if (r->mem_free_all)
		return n->mem;
	return n->mem > n->mem_used ? n->mem - n->mem_used : 0;
}

/* ---- sched.c ---- */

/* Start the decision's allocation now: commit it, refresh its nodes. */
void sched_commit_start(ctx_t *c, sched_decision_t *dd);

/* ---- sched_backfill.c ---- */

/* The backfill cycle over the n jobs in idx order (decisions d in that
 * order; cand: 1 for those backfill may try, 2 for those it only marks
 * examined: over a limit in the main pass). */
void sched_backfill(ctx_t *c, sched_job_t *jobs, const uint32_t *idx, uint32_t n,
		    sched_decision_t *d, const uint8_t *cand);

/* ---- sched_resv.c ---- */

/* Build / free the per-node reservation lists of the context (called by
 * sched_ctx_init / sched_ctx_release). */
void sched_resv_ctx_init(ctx_t *c);
void sched_resv_ctx_release(ctx_t *c);
/* Job j's reservation, NULL if none (or an index out of range). */
const sched_resv_t *sched_resv_of(const sched_t *s, const sched_job_t *j);
/* Seconds job j holds its nodes (its time limit, else its partition's
 * MaxTime), INT64_MAX without a limit: it overlaps every reservation
 * that has not ended. */
int64_t sched_resv_dur(const sched_t *s, const sched_job_t *j);
/* Is node x one of rv's nodes? O(log nodes): rv->nodes is ascending. */
int sched_resv_has_node(const sched_resv_t *rv, uint32_t x);
/* Without a pass context (sluice why): a reservation other than j's own
 * that holds node x at some moment of the time j would run if it
 * started now (or at its own reservation's start), NULL if none.
 * O(reservations x log nodes). */
const sched_resv_t *sched_resv_node_block(const sched_t *s, const sched_job_t *j, uint32_t x,
					  int64_t now);
/* Is node x in reservation v? O(reservations on x). */
int sched_resv_node_in(const ctx_t *c, uint32_t x, uint32_t v);
/* WAIT_RESERVATION when j is in a reservation that is not active at
 * now (or one the core was not given), else 0. */
uint32_t sched_resv_job_reason(const ctx_t *c, const sched_job_t *j, int64_t now);
/* The earliest start >= t at which job j may hold node x for dur
 * seconds as far as reservations go (INT64_MAX: never): past every
 * other reservation on x whose window it would overlap, and for a job
 * in a reservation inside its window on its nodes. t itself when x is
 * free of them. O(reservations on x ^ 2), usually O(1). */
int64_t sched_resv_next_start(const ctx_t *c, const sched_job_t *j, uint32_t x, int64_t t,
			      int64_t dur);
/* May job j (request r) hold node x from now on? */
static inline int sched_resv_blocks(const ctx_t *c, const sched_job_t *j, const req_t *r,
				    uint32_t x)
{
	if (!c->rv_off && !j->resv)
		return 0;
	return sched_resv_next_start(c, j, x, c->now, r->rv_dur) != c->now;
}
/* For a job in a reservation: its nodes in the partition, in the
 * partition's order (malloc'd, *n of them), so a search walks them and
 * not the whole partition; NULL for a job in none. O(its nodes x log). */
uint32_t *sched_resv_part_order(const ctx_t *c, const sched_job_t *j, uint32_t *n);
/* The reason detail of a job kept off reserved nodes: "Reserved for
 * maintenance" when a MAINT reservation holding every node of its
 * partition overlaps [t, t + dur), else "May be reserved for other job"
 * (Slurm 22.05's words). */
const char *sched_resv_detail(const ctx_t *c, const sched_job_t *j, int64_t t, int64_t dur);

/* ---- sched_preempt.c ---- */

/* Job j blocked by Resources: the running jobs to preempt for it, into
 * dd->preempt (none if its QOS may preempt none that would help). */
void sched_try_preempt(ctx_t *c, const sched_job_t *j, const req_t *r, sched_decision_t *dd);

#endif
