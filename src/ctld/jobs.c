/*
 * jobs.c: the controller's job records: submission (validation and
 * defaults), the hash map by id, state transitions (start, end, cancel,
 * completion, requeue, hold/release/update), dependencies, priority, the
 * batch environment, the job_info_t view, and the periodic purge of
 * finished jobs and re-kill of overdue ones.
 *
 * Memory: a job keeps its job_desc_t minus script and environment (those
 * live only in the DB row and are fetched at launch), and its strings
 * that many jobs share are interned (intern.h), so a queued job costs
 * about 0.7 KB.
 */
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctld/ctld.h"
#include "ctld/resv.h"
#include "ctld/names.h"
#include "ctld/intern.h"
#include "ctld/job_array.h"
#include "ctld/job_nccl.h"

#include "errors.h"
#include "hostlist.h"
#include "log.h"
#include "states.h"
#include "strbuf.h"
#include "timefmt.h"
#include "xalloc.h"

int64_t ctld_now(void)
{
	return (int64_t)time(NULL);
}

/* ---- hash map and list ---- */

static uint32_t hash_id(uint32_t id, uint32_t size)
{
	return (id * 2654435761u) & (size - 1);
}

static void hash_insert(ctld_t *cd, job_t *j)
{
	if (cd->hcount + 1 > cd->hsize / 2) {
		uint32_t nsize = cd->hsize ? cd->hsize * 2 : 1024;
		job_t **nt = xcalloc(nsize, sizeof(job_t *));
		for (uint32_t i = 0; i < cd->hsize; i++) {
			job_t *x = cd->htab[i];
			while (x) {
				job_t *next = x->hnext;
				uint32_t h = hash_id(x->job_id, nsize);
				x->hnext = nt[h];
				nt[h] = x;
				x = next;
			}
		}
		free(cd->htab);
		cd->htab = nt;
		cd->hsize = nsize;
	}
	uint32_t h = hash_id(j->job_id, cd->hsize);
	j->hnext = cd->htab[h];
	cd->htab[h] = j;
	cd->hcount++;
}

static void hash_remove(ctld_t *cd, job_t *j)
{
	if (!cd->hsize)
		return;
	job_t **pp = &cd->htab[hash_id(j->job_id, cd->hsize)];
	for (; *pp; pp = &(*pp)->hnext)
		if (*pp == j) {
			*pp = j->hnext;
			cd->hcount--;
			return;
		}
}

job_t *job_find(ctld_t *cd, uint32_t id)
{
	if (!cd->hsize)
		return NULL;
	for (job_t *j = cd->htab[hash_id(id, cd->hsize)]; j; j = j->hnext)
		if (j->job_id == id)
			return j;
	return NULL;
}

/* ---- request ids (idempotent submission) ---- */

static uint32_t hash_req(uint32_t uid, const char *rid, uint32_t size)
{
	uint32_t h = 2166136261u ^ uid;      /* FNV-1a */
	for (const unsigned char *p = (const unsigned char *)rid; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h & (size - 1);
}

static int has_request(const job_t *j)
{
	return j->desc && j->desc->request_id && *j->desc->request_id;
}

static void req_insert(ctld_t *cd, job_t *j)
{
	if (!has_request(j))
		return;
	if (cd->rcount + 1 > cd->rsize / 2) {
		uint32_t nsize = cd->rsize ? cd->rsize * 2 : 1024;
		job_t **nt = xcalloc(nsize, sizeof(job_t *));
		for (uint32_t i = 0; i < cd->rsize; i++) {
			job_t *x = cd->rtab[i];
			while (x) {
				job_t *next = x->rnext;
				uint32_t h = hash_req(x->user_id, x->desc->request_id, nsize);
				x->rnext = nt[h];
				nt[h] = x;
				x = next;
			}
		}
		free(cd->rtab);
		cd->rtab = nt;
		cd->rsize = nsize;
	}
	uint32_t h = hash_req(j->user_id, j->desc->request_id, cd->rsize);
	j->rnext = cd->rtab[h];
	cd->rtab[h] = j;
	cd->rcount++;
}

static void req_remove(ctld_t *cd, job_t *j)
{
	if (!cd->rsize || !has_request(j))
		return;
	job_t **pp = &cd->rtab[hash_req(j->user_id, j->desc->request_id, cd->rsize)];
	for (; *pp; pp = &(*pp)->rnext)
		if (*pp == j) {
			*pp = j->rnext;
			cd->rcount--;
			return;
		}
}

job_t *job_find_request(ctld_t *cd, uint32_t uid, const char *rid)
{
	if (!cd->rsize || !rid || !*rid)
		return NULL;
	for (job_t *j = cd->rtab[hash_req(uid, rid, cd->rsize)]; j; j = j->rnext)
		if (j->user_id == uid && !strcmp(j->desc->request_id, rid))
			return j;
	return NULL;
}

/* Jobs are kept in id order: new ids are always the largest, and
 * recovery loads them ordered. */
/* A record decoded from the DB, made whole: in the id list (append)
 * or only in the indexes (its caller puts it in the list). */
static void job_recovered_fill(ctld_t *cd, job_t *j, int append);

static void job_link(ctld_t *cd, job_t *j)
{
	hash_insert(cd, j);
	req_insert(cd, j);
	dep_index_add(cd, j);
}

static void job_unlink(ctld_t *cd, job_t *j)
{
	hash_remove(cd, j);
	req_remove(cd, j);
	dep_index_remove(cd, j);
}

static void list_append(ctld_t *cd, job_t *j)
{
	cd->jobs = xgrow(cd->jobs, sizeof(job_t *), cd->njobs + 1, &cd->ajobs);
	cd->jobs[cd->njobs++] = j;
	job_link(cd, j);
}

/* j's place in the id-ordered list, or -1. */
static long list_find(const ctld_t *cd, const job_t *j)
{
	size_t lo = 0, hi = cd->njobs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cd->jobs[mid]->job_id < j->job_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < cd->njobs && cd->jobs[lo] == j ? (long)lo : -1;
}

/* Off the dirty list: nothing of j is to be written. */
static void dirty_remove(ctld_t *cd, job_t *j)
{
	if (!j->dirty)
		return;
	for (size_t i = 0; i < cd->ndirty_jobs; i++)
		if (cd->dirty_jobs[i] == j) {
			cd->dirty_jobs[i] = cd->dirty_jobs[--cd->ndirty_jobs];
			break;
		}
	j->dirty = 0;
}

void job_forget(ctld_t *cd, job_t *j)
{
	long at = list_find(cd, j);
	if (at >= 0) {
		memmove(&cd->jobs[at], &cd->jobs[at + 1], (cd->njobs - (size_t)at - 1) * sizeof(job_t *));
		cd->njobs--;
	}
	if (j->alloc_held)
		sched_alloc_release(&cd->sched, &j->alloc);
	job_unlink(cd, j);
	dirty_remove(cd, j);
	acct_steps_job_forget(cd, j->job_id);
	cd->last_job_update = ctld_now();
	job_free(j);
}

void job_replace(ctld_t *cd, job_t *j, job_t *f)
{
	long at = list_find(cd, j);
	if (j->alloc_held)
		sched_alloc_release(&cd->sched, &j->alloc);
	job_unlink(cd, j);
	dirty_remove(cd, j);
	acct_steps_job_forget(cd, j->job_id);
	/* What memory alone keeps and the put back record still has: its
	 * running steps (but those made by the undone requests), the
	 * Prolog answers, the committed accounting record, the NCCL
	 * verdict, who it waits on after a requeue. */
	f->step_holds = j->step_holds;
	f->nstep_holds = j->nstep_holds;
	j->step_holds = NULL;
	j->nstep_holds = 0;
	step_alloc_forget_from(f, f->next_step);
	f->prolog_wait = j->prolog_wait;
	f->prolog_seq = j->prolog_seq;
	j->prolog_wait = NULL;
	f->acct_sum = j->acct_sum;
	memcpy(f->acct_keys, j->acct_keys, sizeof(f->acct_keys));
	f->nccl = j->nccl;
	j->nccl = NULL;
	f->kill_time = j->kill_time;
	f->suspend_time = j->suspend_time;
	f->pre_sus_secs = j->pre_sus_secs;
	f->last_eval = j->last_eval;
	if ((f->state & JOB_STATE_BASE) == JOB_PENDING && f->eligible_time == j->fence_until) {
		f->fence = j->fence;
		f->nfence = j->nfence;
		f->fence_until = j->fence_until;
		j->fence = NULL;
	}
	job_recovered_fill(cd, f, 0);
	if (at >= 0)
		cd->jobs[at] = f;
	cd->last_job_update = ctld_now();
	ctld_sched_request(cd);
	job_free(j);
}

void job_dirty(ctld_t *cd, job_t *j)
{
	cd->last_job_update = ctld_now();
	turn_job_changed(cd, j);
	if (j->dirty)
		return;
	j->dirty = 1;
	cd->dirty_jobs = xgrow(cd->dirty_jobs, sizeof(job_t *), cd->ndirty_jobs + 1, &cd->adirty_jobs);
	cd->dirty_jobs[cd->ndirty_jobs++] = j;
}

/* The strings of a job's in-memory job_desc_t that are interned (see
 * intern.h): shared by many jobs, they are most of a queued job's memory
 * when each job has its own copies. Other strings (argv) stay owned. */
static const size_t desc_interned[] = {
	offsetof(job_desc_t, name), offsetof(job_desc_t, user_name),
	offsetof(job_desc_t, partition), offsetof(job_desc_t, account),
	offsetof(job_desc_t, qos), offsetof(job_desc_t, reservation),
	offsetof(job_desc_t, comment), offsetof(job_desc_t, tres_per_node),
	offsetof(job_desc_t, tres_per_job), offsetof(job_desc_t, req_nodes),
	offsetof(job_desc_t, exc_nodes), offsetof(job_desc_t, features),
	offsetof(job_desc_t, dependency), offsetof(job_desc_t, work_dir),
	offsetof(job_desc_t, std_in), offsetof(job_desc_t, std_out),
	offsetof(job_desc_t, std_err), offsetof(job_desc_t, alloc_node),
	offsetof(job_desc_t, tres_per_task),
};

#define DESC_STR(d, off) (*(char **)(void *)((char *)(d) + (off)))

/* Replace d's strings by interned copies (the originals are freed). */
static void desc_intern(job_desc_t *d)
{
	for (size_t i = 0; i < ARRAY_SIZE(desc_interned); i++)
		DESC_STR(d, desc_interned[i]) = intern_take(DESC_STR(d, desc_interned[i]));
}

/* Free a job record's desc: interned strings are let go, never freed. */
static void desc_release(job_desc_t *d)
{
	for (size_t i = 0; i < ARRAY_SIZE(desc_interned); i++) {
		intern_put(DESC_STR(d, desc_interned[i]));
		DESC_STR(d, desc_interned[i]) = NULL;
	}
	proto_free(MSG_SUBMIT, d);    /* what is left: argv, script, env */
	free(d);
}

void job_free(job_t *j)
{
	if (!j)
		return;
	free(j->reason_detail);
	job_array_free(j);
	free(j->array_str);
	intern_put(j->group_name);
	free(j->deps);
	free(j->dep_str);
	free(j->fence);
	if (j->desc)
		desc_release(j->desc);
	free(j->req_idx);
	free(j->exc_idx);
	sched_alloc_free(&j->alloc);
	free(j->nodes);
	free(j->sched_nodes);
	free(j->cpu_ids);
	free(j->mem_alloc);
	strv_free(&j->gres_detail);
	intern_put(j->tres);
	step_alloc_free(j);
	free(j->prolog_wait);
	job_nccl_free(j);
	free(j);
}

void ctld_sched_request(ctld_t *cd)
{
	cd->sched_needed = 1;
}

/* ---- TRES strings ---- */

char *tres_string(uint64_t cpus, uint64_t mem, uint32_t nodes, int billing,
		  uint64_t gpus, const char *gtype, uint64_t gtype_count)
{
	strbuf_t sb = STRBUF_INIT;
	char m[32];
	if (cpus)
		strbuf_addf(&sb, "cpu=%" PRIu64, cpus);
	if (mem) {
		mem_fmt_mb(mem, m, sizeof(m));
		strbuf_addf(&sb, "%smem=%s", sb.len ? "," : "", m);
	}
	if (nodes)
		strbuf_addf(&sb, "%snode=%u", sb.len ? "," : "", nodes);
	if (billing && cpus)
		strbuf_addf(&sb, "%sbilling=%" PRIu64, sb.len ? "," : "", cpus);
	if (gpus) {
		strbuf_addf(&sb, "%sgres/gpu=%" PRIu64, sb.len ? "," : "", gpus);
		if (gtype && *gtype && gtype_count)
			strbuf_addf(&sb, ",gres/gpu:%s=%" PRIu64, gtype, gtype_count);
	}
	return strbuf_detach(&sb);
}

char *alloc_nodes_string(ctld_t *cd, const sched_alloc_t *a)
{
	const char **names = xmalloc((a->nnodes + 1) * sizeof(char *));
	for (uint32_t i = 0; i < a->nnodes; i++)
		names[i] = cd->nodes[a->nodes[i]].cf->name;
	char *s = hostlist_compress(names, a->nnodes);
	free(names);
	return s;
}

/* The gpu type of the allocated GPUs on node x (first matching type). */
static const char *alloc_gpu_type(ctld_t *cd, uint32_t x, uint64_t mask)
{
	const sched_node_t *sn = &cd->sched.nodes[x];
	for (uint32_t t = 0; t < sn->ngpu_types; t++) {
		const sched_gpu_type_t *g = &sn->gpu_types[t];
		uint64_t m = 0;
		for (uint32_t i = g->first; i < g->first + g->count && i < 64; i++)
			m |= 1ull << i;
		if (mask & m)
			return g->type;
	}
	return "";
}

uint32_t job_ntasks(const job_t *j)
{
	const job_desc_t *d = j->desc;
	uint32_t n = d->ntasks;
	if (!n && d->ntasks_per_node) {
		/* 64 bits, saturated: both come from the wire (-N4
		 * --ntasks-per-node=1073741824 wrapped to 0). */
		uint64_t p = (uint64_t)d->ntasks_per_node * (d->min_nodes ? d->min_nodes : 1);
		n = p > UINT32_MAX ? UINT32_MAX : (uint32_t)p;
	}
	if (!n)
		n = d->min_nodes ? d->min_nodes : 1;
	return n;
}

static uint32_t job_cpt(const job_t *j)
{
	return j->desc->cpus_per_task ? j->desc->cpus_per_task : 1;
}

void job_set_tres(ctld_t *cd, job_t *j)
{
	/* Interned: jobs of one shape share "cpu=1,mem=1G,node=1,billing=1". */
	intern_put(j->tres);
	if (j->alloc.nnodes && (j->state & JOB_STATE_BASE) != JOB_PENDING) {
		uint64_t cpus = 0, mem = 0, gpus = 0;
		const char *gt = "";
		for (uint32_t i = 0; i < j->alloc.nnodes; i++) {
			cpus += j->alloc.cpus[i];
			mem += j->alloc.mem[i];
			gpus += (uint64_t)__builtin_popcountll(j->alloc.gpus[i]);
			if (j->alloc.gpus[i] && !*gt)
				gt = alloc_gpu_type(cd, j->alloc.nodes[i], j->alloc.gpus[i]);
		}
		j->tres = intern_take(tres_string(cpus, mem, j->alloc.nnodes, 1, gpus, gt, gpus));
		return;
	}
	j->tres = intern_take(job_req_tres(cd, j));
}

char *job_req_tres(ctld_t *cd, const job_t *j)
{
	const job_desc_t *d = j->desc;
	uint32_t nodes = d->min_nodes ? d->min_nodes : 1;
	uint64_t cpus = (uint64_t)job_ntasks(j) * job_cpt(j);
	uint64_t gpus = j->gpus_per_job ? j->gpus_per_job : (uint64_t)j->gpus_per_node * nodes;
	if (j->gpus_per_task)
		gpus = (uint64_t)j->gpus_per_task * job_ntasks(j);
	if (d->cpus_per_gpu && cpus < gpus * d->cpus_per_gpu)
		cpus = gpus * d->cpus_per_gpu;
	uint64_t mem = d->mem_per_gpu ? d->mem_per_gpu * gpus
		     : d->mem_per_node ? d->mem_per_node * nodes : d->mem_per_cpu * cpus;
	(void)cd;
	return tres_string(cpus, mem, nodes, 1, gpus, j->gpu_type, gpus);
}

/* ---- priority ---- */

uint32_t job_priority(ctld_t *cd, const job_t *j, int64_t now)
{
	/* The formula lives in the scheduler core (sched_priority). */
	return sched_glue_priority(cd, j, now, NULL);
}

/* ---- waiters (MSG_JOB_WAIT) ---- */

static void send_one_job(ctld_t *cd, conn_t *c, job_t *j)
{
	job_info_t ji;
	job_fill_info(cd, j, &ji);
	msg_job_info_t m = { .last_update = cd->last_job_update, .njobs = 1, .jobs = &ji };
	conn_send(c, MSG_JOB_INFO, &m);
}

void jobs_wake_waiters(ctld_t *cd, job_t *j)
{
	size_t k = 0;
	/* not while its PrologSlurmctld runs (CONFIGURING) */
	int running = (j->state & JOB_STATE_BASE) == JOB_RUNNING && !(j->state & JOB_CONFIGURING);
	int done = JOB_IS_FINISHED(j->state);
	for (size_t i = 0; i < cd->nwaiters; i++) {
		waiter_t *w = &cd->waiters[i];
		if (w->job_id != j->job_id) {
			cd->waiters[k++] = *w;
			continue;
		}
		if (w->until == WAIT_UNTIL_STARTED && running) {
			send_one_job(cd, w->c, j);
		} else if (w->until == WAIT_UNTIL_STARTED && done) {
			char *m = xasprintf("Job allocation %u has been revoked.", j->job_id);
			conn_send_rc(w->c, ESLURM_ALREADY_DONE, m);
			free(m);
		} else if (w->until == WAIT_UNTIL_FINISHED && done) {
			send_one_job(cd, w->c, j);
		} else {
			cd->waiters[k++] = *w;
			continue;
		}
		/* taken back if this turn is not committed (turn.c) */
		turn_waiter_answered(cd, w);
	}
	cd->nwaiters = k;
}

/* ---- submission ---- */

int parse_gpu_tres(const char *s, uint32_t *count, char *type, size_t tlen)
{
	/* "gres:gpu:h100:2", "gres/gpu:2", "gpu:h100:2", "gpu", "gpu:2" */
	*count = 0;
	type[0] = 0;
	if (!s || !*s)
		return 0;
	if (!strncmp(s, "gres:", 5) || !strncmp(s, "gres/", 5))
		s += 5;
	if (strncmp(s, "gpu", 3) || (s[3] && s[3] != ':'))
		return ESLURM_INVALID_GRES;
	s += 3;
	if (!*s) {
		*count = 1;
		return 0;
	}
	s++;
	const char *colon = strchr(s, ':');
	const char *num = s;
	if (colon) {
		snprintf(type, tlen, "%.*s", (int)(colon - s), s);
		num = colon + 1;
	} else if (*s < '0' || *s > '9') {
		snprintf(type, tlen, "%s", s);
		*count = 1;
		return 0;
	}
	char *end = NULL;
	unsigned long v = strtoul(num, &end, 10);
	if (end == num || *end || !v || v > SCHED_MAX_GPUS * 1024)
		return ESLURM_INVALID_GRES;
	*count = (uint32_t)v;
	return 0;
}

int resolve_nodes(ctld_t *cd, const char *expr, uint32_t **idx, uint32_t *n)
{
	*idx = NULL;
	*n = 0;
	if (!expr || !*expr)
		return 0;
	char *err = NULL;
	/* A list longer than the cluster names a node it does not have:
	 * refused before it is expanded (a request's few bytes must not
	 * cost memory per host they name). */
	hostlist_t *hl = hostlist_create_max(expr, cd->nnodes, &err);
	if (!hl) {
		free(err);
		return ESLURM_INVALID_NODE_NAME;
	}
	hostlist_uniq(hl);
	size_t c = hostlist_count(hl);
	*idx = xmalloc((c ? c : 1) * sizeof(uint32_t));
	for (size_t i = 0; i < c; i++) {
		long x = conf_node_find(cd->conf, hostlist_nth(hl, i));
		if (x < 0) {
			hostlist_destroy(hl);
			xfree(*idx);
			return ESLURM_INVALID_NODE_NAME;
		}
		(*idx)[(*n)++] = (uint32_t)x;
	}
	hostlist_destroy(hl);
	return 0;
}

/* May uid (primary group gid) use partition p? As slurmctld: RootOnly
 * partitions take jobs from root/SlurmUser only; AllowGroups (other than
 * "ALL") needs the user's primary group in the list, or the user listed as
 * a member of one of its groups. */
static int part_access(ctld_t *cd, const part_t *p, uint32_t uid, uint32_t gid)
{
	const conf_part_t *cf = p->cf;
	if (is_admin(cd, uid))
		return 0;
	if (cf->root_only)
		return ESLURM_ACCESS_DENIED;
	if (!cf->allow_groups || !*cf->allow_groups || !strcasecmp(cf->allow_groups, "ALL"))
		return 0;
	/* The members were resolved off the loop (names.h): no NSS call
	 * here; the primary gid comes from the request's credential. */
	return names_groups_allow(cf->allow_groups, uid, gid) ? 0
		: ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP;
}

/* Apply partition pi to job j (j->desc filled, its nodes, GRES and
 * dependencies resolved): the one place where a partition's policy meets a
 * job, for a submission and for a move (scontrol update partition=), so a
 * move cannot skip what a submission there would be refused or given.
 * Access (RootOnly, AllowGroups) for the job's owner unless the requester
 * is an admin; State; EnforcePartLimits (MaxTime, MaxNodes/MinNodes);
 * the partition's default time and memory where the job has none;
 * OverSubscribe=EXCLUSIVE/FORCE and ExclusiveUser; and whether the job can
 * ever run there (job_sched_validate). 0 with j->part set, or an ESLURM_*
 * code (and maybe *msg) with j->part and the job's flags unchanged; the
 * defaults it filled in are not taken back (only a submission, whose job
 * is then freed, has any to fill). A flag a partition imposed earlier
 * stays on a moved job: what the job asked for itself is not recorded. */
static int job_apply_part(ctld_t *cd, job_t *j, long pi, int admin, char **msg)
{
	job_desc_t *d = j->desc;
	part_t *p = &cd->parts[pi];
	int rc;
	if (!admin && (rc = part_access(cd, p, j->user_id, j->group_id)))
		return rc;
	if (p->state == CONF_PART_INACTIVE || p->state == CONF_PART_DRAIN)
		return ESLURM_PARTITION_NOT_AVAIL;
	if (d->time_limit == TIME_NO_VAL || d->time_limit == 0)
		d->time_limit = p->default_time != TIME_NO_VAL ? p->default_time : p->max_time;
	if (cd->conf->enforce_part_limits) {
		if (p->max_time != TIME_INFINITE && d->time_limit > p->max_time)
			return ESLURM_INVALID_TIME_LIMIT;
		uint32_t want = d->min_nodes ? d->min_nodes : 1;
		if ((p->max_nodes != UINT32_MAX && want > p->max_nodes) ||
		    (d->max_nodes && d->max_nodes < p->min_nodes))
			return ESLURM_INVALID_NODE_COUNT;
	}
	if (!d->mem_per_node && !d->mem_per_cpu && !d->mem_per_gpu) {
		if (p->cf->def_mem_per_cpu)
			d->mem_per_cpu = p->cf->def_mem_per_cpu;
		else if (p->cf->def_mem_per_node)
			d->mem_per_node = p->cf->def_mem_per_node;
		else if (cd->conf->def_mem_per_cpu)
			d->mem_per_cpu = cd->conf->def_mem_per_cpu;
		else if (cd->conf->def_mem_per_node)
			d->mem_per_node = cd->conf->def_mem_per_node;
	}
	uint32_t old_part = j->part, old_flags = d->flags, share;
	int os = part_oversubscribe(p->cf->oversubscribe, &share);
	if (os == PART_OS_EXCLUSIVE)
		d->flags |= JOB_F_EXCLUSIVE;
	/* Every job of an OverSubscribe=FORCE partition shares (and shows
	 * OverSubscribe=YES, as Slurm's). */
	if (os == PART_OS_FORCE)
		d->flags |= JOB_F_OVERSUBSCRIBE;
	/* ExclusiveUser=YES: every job keeps other users off its nodes. */
	if (p->cf->exclusive_user && !(d->flags & JOB_F_EXCLUSIVE))
		d->flags |= JOB_F_EXCLUSIVE_USER;
	j->part = (uint32_t)pi;
	if ((rc = job_sched_validate(cd, j, msg))) {
		j->part = old_part;
		d->flags = old_flags;
		return rc;
	}
	j->time_limit = d->time_limit;
	return 0;
}

uint32_t job_next_id(ctld_t *cd)
{
	uint32_t id = cd->next_job_id++;
	if (cd->next_job_id > cd->conf->max_job_id || cd->next_job_id < cd->conf->first_job_id)
		cd->next_job_id = cd->conf->first_job_id ? cd->conf->first_job_id : 1;
	while (job_find(cd, cd->next_job_id))
		cd->next_job_id++;
	cd->meta_dirty = 1;
	return id;
}

int job_submit(ctld_t *cd, job_desc_t *d, uint32_t uid, uint32_t gid,
	       uint32_t *job_id, char **msg)
{
	return job_submit_test(cd, d, uid, gid, job_id, msg, NULL);
}

int job_submit_test(ctld_t *cd, job_desc_t *d, uint32_t uid, uint32_t gid,
		    uint32_t *job_id, char **msg, msg_submit_reply_t *test)
{
	*job_id = 0;
	int rc = 0;
	long pi;
	if (d->partition && *d->partition) {
		/* "-p a,b": the first partition (multi-partition jobs later). */
		char *comma = strchr(d->partition, ',');
		if (comma)
			*comma = 0;
		pi = part_find(cd, d->partition);
		if (pi < 0) {
			/* Slurm's controller adds this line before the error. */
			*msg = xasprintf("invalid partition specified: %s", d->partition);
			return ESLURM_INVALID_PARTITION_NAME;
		}
	} else {
		pi = cd->conf->default_part;
		if (pi < 0)
			return ESLURM_DEFAULT_PARTITION_NOT_SET;
		free(d->partition);
		d->partition = xstrdup(cd->parts[pi].cf->name);
	}
	part_t *p = &cd->parts[pi];
	/* Only operators may raise a job's priority with a negative nice
	 * (as Slurm). */
	if (d->nice < 0 && !is_operator(cd, uid))
		return ESLURM_ACCESS_DENIED;
	if (!(d->flags & JOB_F_INTERACTIVE) && (!d->script || !*d->script))
		return ESLURM_JOB_SCRIPT_MISSING;
	if (cd->njobs >= cd->conf->max_job_count && cd->conf->max_job_count)
		return ESLURM_MAX_JOB_COUNT;
	if (d->min_nodes && d->max_nodes && d->max_nodes < d->min_nodes)
		return ESLURM_INVALID_NODE_COUNT;

	job_t *j = xcalloc(1, sizeof(*j));
	j->desc = d;
	j->part = UINT32_MAX;    /* job_apply_part sets it */
	j->user_id = uid;
	j->group_id = gid;
	if ((rc = resolve_nodes(cd, d->req_nodes, &j->req_idx, &j->nreq)) ||
	    (rc = resolve_nodes(cd, d->exc_nodes, &j->exc_idx, &j->nexc)))
		goto fail;
	if (d->tres_per_node && (rc = parse_gpu_tres(d->tres_per_node, &j->gpus_per_node,
						     j->gpu_type, sizeof(j->gpu_type))))
		goto fail;
	if (d->tres_per_job) {
		char t2[32];
		if ((rc = parse_gpu_tres(d->tres_per_job, &j->gpus_per_job, t2, sizeof(t2))))
			goto fail;
		if (!j->gpu_type[0])
			memcpy(j->gpu_type, t2, sizeof(t2));
	}
	if (d->tres_per_task) {
		char t2[32];
		if ((rc = parse_gpu_tres(d->tres_per_task, &j->gpus_per_task, t2, sizeof(t2))))
			goto fail;
		if (!j->gpu_type[0])
			memcpy(j->gpu_type, t2, sizeof(t2));
	}
	if ((rc = job_set_deps(cd, j, d->dependency)))
		goto fail;
	if (d->array_inx && *d->array_inx) {
		if (d->flags & JOB_F_INTERACTIVE) {
			rc = ESLURM_INVALID_ARRAY;
			goto fail;
		}
		if ((rc = job_array_submit(cd, j)))
			goto fail;
	}

	/* The partition's access, limits, defaults and policy. */
	uint32_t asked_time = d->time_limit;
	if ((rc = job_apply_part(cd, j, pi, is_admin(cd, uid), msg)))
		goto fail;
	/* Its account, association and QOS (AccountingStorageEnforce). */
	if ((rc = acct_job_resolve(cd, j, uid, msg)))
		goto fail;
	/* Accounting limits that refuse at submission. */
	if ((rc = limits_submit_check(cd, j, asked_time, msg)))
		goto fail;
	/* --reservation: it exists and admits the job (resv.c) */
	if ((rc = resv_job_check(cd, j, uid)))
		goto fail;

	int64_t now = ctld_now();
	if ((rc = job_deadline_submit_check(d, now)))
		goto fail;
	if (d->flags & JOB_F_TEST_ONLY) {
		/* --test-only: the plan's answer; nothing is kept. */
		j->job_id = job_next_id(cd);
		j->submit_time = now;
		j->eligible_time = d->begin_time > now ? d->begin_time : now;
		j->priority = job_priority(cd, j, now);
		int64_t start = 0;
		uint32_t cpus = 0;
		char *nodes = NULL;
		rc = job_will_run(cd, j, now, &start, &cpus, &nodes);
		if (!rc && test) {
			test->job_id = j->job_id;
			test->start_time = start;
			test->test_cpus = cpus;
			test->test_nodes = nodes;
			test->test_partition = xstrdup(p->cf->name);
			nodes = NULL;
		}
		free(nodes);
		goto fail;
	}
	j->job_id = job_next_id(cd);
	if (j->array_pending)
		j->array_job_id = j->job_id;
	free(d->user_name);
	d->user_name = names_user(uid);
	d->user_id = uid;
	d->group_id = gid;
	j->group_name = intern_take(names_group(gid));
	if (!(d->flags & JOB_F_INTERACTIVE) && !d->std_out && d->work_dir)
		d->std_out = j->array_pending ? xasprintf("%s/slurm-%%A_%%a.out", d->work_dir)
			: xasprintf("%s/slurm-%u.out", d->work_dir, j->job_id);
	if (!(d->flags & JOB_F_INTERACTIVE) && !d->std_in)
		d->std_in = xstrdup("/dev/null");
	if (!d->name)
		d->name = xstrdup(d->flags & JOB_F_INTERACTIVE && d->argv.n ? d->argv.v[0] : "sbatch");
	j->state = JOB_PENDING;
	j->submit_time = now;
	j->eligible_time = d->begin_time > now ? d->begin_time : now;
	if (d->flags & (JOB_F_HOLD | JOB_F_HELD_ADMIN))
		j->hold = (d->flags & JOB_F_HELD_ADMIN) && is_operator(cd, uid) ? WAIT_HELD : WAIT_HELD_USER;
	/* As Slurm: a held job's dependency is looked at once released; one
	 * that can never be met is killed by the next pass if it asks. */
	if (!j->hold) {
		job_deps_turn(cd);
		job_resolve_deps(cd, j);
	}
	j->priority = job_priority(cd, j, now);
	j->reason = j->hold ? j->hold : j->dep_state == 2 ? WAIT_DEP_INVALID
		: j->dep_state ? WAIT_DEPENDENCY : WAIT_NO_REASON;
	job_set_tres(cd, j);

	/* The full description (script, env) goes to the DB; memory keeps
	 * the rest. */
	db_job_insert(cd, j, d);
	xfree(d->script);
	strv_free(&d->env);
	desc_intern(d);
	list_append(cd, j);
	cd->last_job_update = now;
	*job_id = j->job_id;
	ctld_sched_request(cd);
	verbose("job %u submitted by uid %u to %s", j->job_id, uid, p->cf->name);
	return 0;
fail:
	j->desc = NULL;           /* the caller owns d */
	job_free(j);
	(void)msg;
	return rc;
}

void job_add_recovered(ctld_t *cd, job_t *j)
{
	job_recovered_fill(cd, j, 1);
}

static void job_recovered_fill(ctld_t *cd, job_t *j, int append)
{
	j->group_name = intern_take(names_group(j->group_id));
	desc_intern(j->desc);
	acct_job_relink(cd, j);
	resolve_nodes(cd, j->desc->req_nodes, &j->req_idx, &j->nreq);
	resolve_nodes(cd, j->desc->exc_nodes, &j->exc_idx, &j->nexc);
	char t2[32];
	if (j->desc->tres_per_node)
		parse_gpu_tres(j->desc->tres_per_node, &j->gpus_per_node, j->gpu_type, sizeof(j->gpu_type));
	if (j->desc->tres_per_job) {
		parse_gpu_tres(j->desc->tres_per_job, &j->gpus_per_job, t2, sizeof(t2));
		if (!j->gpu_type[0])
			memcpy(j->gpu_type, t2, sizeof(t2));
	}
	if (j->desc->tres_per_task) {
		parse_gpu_tres(j->desc->tres_per_task, &j->gpus_per_task, t2, sizeof(t2));
		if (!j->gpu_type[0])
			memcpy(j->gpu_type, t2, sizeof(t2));
	}
	if (append)
		list_append(cd, j);
	else
		job_link(cd, j);
	/* Dependencies refer to other jobs: parse after all are loaded is
	 * not needed since dependencies point to older (smaller) ids. */
	if (job_set_deps(cd, j, j->desc->dependency))
		error("job %u: dependency '%s' no longer parses: dropped", j->job_id,
		     j->desc->dependency);
	if (j->alloc_held && j->alloc.nnodes) {
		/* Node ownership (--exclusive=user) is not stored: it is the
		 * job's own. */
		j->alloc.uid = j->user_id;
		j->alloc.excl_user = (j->desc->flags & JOB_F_EXCLUSIVE_USER) &&
				     !(j->desc->flags & JOB_F_EXCLUSIVE);
		sched_alloc_fill_cores(&cd->sched, &j->alloc);   /* older state */
		sched_alloc_commit(&cd->sched, &j->alloc);
	} else if (!j->alloc_held && (j->state & JOB_STATE_BASE) == JOB_RUNNING)
		j->alloc_held = 0;
	job_set_tres(cd, j);
}

/* ---- transitions ---- */

void job_start(ctld_t *cd, job_t *j, sched_alloc_t *a, int64_t now)
{
	acct_usage_job_start(cd, j, now);   /* its wait, for the rollups */
	sched_alloc_free(&j->alloc);
	j->alloc = *a;
	memset(a, 0, sizeof(*a));
	/* A requeued job's previous -d detail is for its old allocation. */
	xfree(j->cpu_ids);
	xfree(j->mem_alloc);
	strv_free(&j->gres_detail);
	j->alloc_held = 1;
	j->state = JOB_RUNNING;
	ctld_metrics_job_start(cd, j, now);
	j->reason = WAIT_NO_REASON;
	xfree(j->reason_detail);
	j->start_time = now;
	j->end_time = j->time_limit == TIME_INFINITE || j->time_limit == TIME_NO_VAL
		? now + 365 * 86400 : now + (int64_t)j->time_limit * 60;
	j->last_eval = now;
	free(j->nodes);
	j->nodes = alloc_nodes_string(cd, &j->alloc);
	job_set_tres(cd, j);
	acct_steps_job_start(cd, j);
	/* LastBusyTime is not touched by a start: as Slurm, it is when the
	 * node last became free (a job released it) or registered. */
	cd->last_node_update = now;
	job_dirty(cd, j);
	job_mail(cd, j, MAIL_BEGIN);
}

/* Give the job's resources back to the scheduler. */
void job_release(ctld_t *cd, job_t *j)
{
	if (!j->alloc_held)
		return;
	sched_alloc_release(&cd->sched, &j->alloc);
	j->alloc_held = 0;
	int64_t now = ctld_now();
	for (uint32_t i = 0; i < j->alloc.nnodes; i++)
		cd->nodes[j->alloc.nodes[i]].last_busy = now;
	cd->last_node_update = now;
	job_dirty(cd, j);
	ctld_sched_request(cd);
}

/* Record the end state (resources are released separately). */
void job_end(ctld_t *cd, job_t *j, uint32_t state, uint32_t exit_code, int64_t now)
{
	/* A pending job's start_time is backfill's estimate, not a start. */
	int was_pending = (j->state & JOB_STATE_BASE) == JOB_PENDING;
	if (was_pending)
		j->start_time = 0;
	else if (!JOB_IS_FINISHED(j->state))
		acct_steps_job_end(cd, j, state, exit_code, now);   /* its open steps */
	acct_usage_job_stop(cd, j, now);   /* usage up to its end */
	xfree(j->sched_nodes);
	ctld_stats_job_end(cd, state);     /* sdiag */
	j->state = state;
	j->exit_code = exit_code;
	j->end_time = now;
	/* The end reasons Slurm 22.05 gives: a job killed by a signal
	 * failed "JobLaunchFailure" (not NonZeroExitCode); one cancelled
	 * while pending keeps the reason it waited for (JobHeldUser, ...). */
	switch (state & JOB_STATE_BASE) {
	case JOB_FAILED:
		j->reason = (exit_code & 0x7f) && (exit_code & 0x7f) != 0x7f ? FAIL_LAUNCH
									     : FAIL_EXIT_CODE;
		break;
	case JOB_TIMEOUT: j->reason = FAIL_TIMEOUT; break;
	case JOB_NODE_FAIL: j->reason = FAIL_DOWN_NODE; break;
	case JOB_OOM: j->reason = FAIL_OOM; break;
	case JOB_CANCELLED:
		if (!was_pending)
			j->reason = WAIT_NO_REASON;
		break;
	case JOB_DEADLINE: j->reason = FAIL_DEADLINE; break;
	default: j->reason = WAIT_NO_REASON; break;
	}
	if (!j->start_time)
		j->start_time = now;
	xfree(j->reason_detail);
	job_set_tres(cd, j);
	job_dirty(cd, j);
	jobs_wake_waiters(cd, j);
	epilog_ctld_start(cd, j); /* EpilogSlurmctld (prolog_ctld.c) */
	ctld_sched_request(cd);   /* dependents may move */
	job_mail_end(cd, j);
}

void job_requeue(ctld_t *cd, job_t *j)
{
	acct_usage_job_stop(cd, j, ctld_now());
	acct_steps_job_unstart(cd, j->job_id);   /* a start of this turn */
	job_release(cd, j);
	sched_alloc_free(&j->alloc);
	xfree(j->nodes);
	j->state = JOB_PENDING;
	j->reason = WAIT_NO_REASON;
	j->start_time = j->end_time = 0;
	job_set_tres(cd, j);
	job_dirty(cd, j);
	ctld_sched_request(cd);
}

/* Slurm's requeue of a started batch job (node failure, scontrol
 * requeue): it counts a restart and is submitted again now. It must not
 * run twice at once, so it is fenced (docs/architecture.md, "Fencing"):
 * not eligible before every node of its old allocation has shown that
 * the old copy is gone (a heartbeat answering a ping sent after the kill,
 * or a new registration, that does not list it), and at the latest once
 * their leases have surely run out (node_fence_time), by when a node that
 * never answers has stopped it itself. This is the one rule for when a
 * requeued job may start; Slurm's fixed 121 s (cred_expire + 1) is gone:
 * step credentials of the old run are revoked where it ran. The job shows
 * PENDING Reason=BeginTime meanwhile. */
void job_requeue_restart(ctld_t *cd, job_t *j, int64_t now)
{
	int64_t until = now;
	free(j->fence);
	j->fence = xcalloc(j->alloc.nnodes ? j->alloc.nnodes : 1, sizeof(*j->fence));
	j->nfence = 0;
	for (uint32_t i = 0; i < j->alloc.nnodes; i++) {
		node_t *n = &cd->nodes[j->alloc.nodes[i]];
		int64_t t = node_fence_time(cd, n, now);
		if (t > until)
			until = t;
		/* the ping goes after the kill on the same connection: both
		 * wait in the outbox for the commit of this requeue */
		uint64_t seq = UINT64_MAX;
		if (n->conn) {
			msg_node_ping_t p = { ++n->ping_seq };
			outbox_send(cd, n, MSG_NODE_PING, &p);
			seq = p.seq;
		}
		j->fence[j->nfence++] = (fence_t){ n->idx, seq };
	}
	/* the old run's steps end here (a late report still merges in) */
	acct_steps_job_end(cd, j, JOB_CANCELLED, 0, now);
	job_requeue(cd, j);
	j->restarts++;
	j->submit_time = now;
	if (j->eligible_time < until)
		j->eligible_time = until;
	if (j->desc->begin_time < j->eligible_time)
		j->desc->begin_time = j->eligible_time;
	j->fence_until = j->eligible_time;
	if (j->nfence) {
		size_t k;
		for (k = 0; k < cd->nfenced && cd->fenced[k] != j->job_id; k++)
			;
		if (k == cd->nfenced) {
			cd->fenced = xgrow(cd->fenced, sizeof(*cd->fenced), cd->nfenced + 1, &cd->afenced);
			cd->fenced[cd->nfenced++] = j->job_id;
		}
	}
	info("job %u: requeued, may start again at the latest %+llds from now (fencing)",
	     j->job_id, (long long)(j->eligible_time - now));
	job_dirty(cd, j);
}

void job_fence_heard(ctld_t *cd, node_t *n, const msg_node_register_t *m, int reg)
{
	int64_t now = ctld_now();
	size_t k = 0;
	for (size_t i = 0; i < cd->nfenced; i++) {
		job_t *j = job_find(cd, cd->fenced[i]);
		if (!j || !j->nfence || (j->state & JOB_STATE_BASE) != JOB_PENDING) {
			if (j) {
				xfree(j->fence);
				j->nfence = 0;
			}
			continue;
		}
		int listed = 0;
		for (uint32_t x = 0; x < m->njob_ids && !listed; x++)
			listed = m->job_ids[x] == j->job_id;
		uint32_t f = 0;
		for (uint32_t x = 0; x < j->nfence; x++) {
			const fence_t *fe = &j->fence[x];
			int gone = fe->node == n->idx && !listed && (reg || m->ping_seq >= fe->ping_seq);
			if (!gone)
				j->fence[f++] = *fe;
		}
		if (f != j->nfence)
			debug("job %u: node %s no longer runs it", j->job_id, n->cf->name);
		j->nfence = f;
		if (f) {
			cd->fenced[k++] = cd->fenced[i];
			continue;
		}
		xfree(j->fence);
		/* Every old copy is gone: eligible now, unless something else
		 * (--begin, a later requeue) set a later time. */
		if (j->eligible_time == j->fence_until && j->eligible_time > now) {
			if (j->desc->begin_time == j->eligible_time)
				j->desc->begin_time = now;
			j->eligible_time = now;
			info("job %u: its old copy is gone everywhere; eligible now", j->job_id);
			job_dirty(cd, j);
			ctld_sched_request(cd);
		}
	}
	cd->nfenced = k;
}

void job_send_time_limit(ctld_t *cd, job_t *j)
{
	uint32_t base = j->state & JOB_STATE_BASE;
	if ((base != JOB_RUNNING && base != JOB_SUSPENDED) || !j->alloc.nnodes ||
	    (j->desc->flags & JOB_F_INTERACTIVE))
		return;
	node_t *n = &cd->nodes[j->alloc.nodes[0]];
	int unlimited = j->time_limit == TIME_INFINITE || j->time_limit == TIME_NO_VAL;
	msg_signal_job_t m = { .job_id = j->job_id, .flags = SIGNAL_F_TIME_LIMIT,
			       .end_time = unlimited ? 0 : j->end_time };
	outbox_send(cd, n, MSG_SIGNAL_JOB, &m);
}

void job_signal_nodes(ctld_t *cd, job_t *j, uint32_t sig, uint32_t flags, uint32_t end_state)
{
	msg_signal_job_t m = { .job_id = j->job_id, .signal = sig, .flags = flags,
			       .kill_wait = cd->conf->kill_wait, .end_state = end_state };
	for (uint32_t i = 0; i < j->alloc.nnodes; i++) {
		node_t *n = &cd->nodes[j->alloc.nodes[i]];
		/* Batch-only signals go to the batch host alone. */
		if ((flags & SIGNAL_F_BATCH) && i)
			break;
		outbox_send(cd, n, MSG_SIGNAL_JOB, &m);
	}
}

/* Is any node of the allocation connected (a supervisor will report)? */
static int batch_host_connected(ctld_t *cd, job_t *j)
{
	return j->alloc.nnodes && cd->nodes[j->alloc.nodes[0]].conn &&
	       !(j->desc->flags & JOB_F_INTERACTIVE);
}

int job_cancel(ctld_t *cd, uint32_t id, uint32_t sig, uint32_t flags, uint32_t uid)
{
	int handled = 0;
	int rc = job_array_cancel(cd, id, sig, flags, uid, &handled);
	return handled ? rc : job_cancel_record(cd, id, sig, flags, uid);
}

int job_cancel_record(ctld_t *cd, uint32_t id, uint32_t sig, uint32_t flags, uint32_t uid)
{
	job_t *j = job_find(cd, id);
	if (!j)
		return ESLURM_INVALID_JOB_ID;
	if (j->user_id != uid && !job_manager_ok(cd, j, uid))
		return ESLURM_ACCESS_DENIED;
	if (JOB_IS_FINISHED(j->state))
		return ESLURM_ALREADY_DONE;
	int64_t now = ctld_now();
	uint32_t base = j->state & JOB_STATE_BASE;
	if (base == JOB_PENDING) {
		if (sig && sig != SIGKILL && sig != SIGTERM)
			return ESLURM_JOB_PENDING;
		j->cancelled_by = 1;
		j->cancel_uid = uid;
		job_end(cd, j, JOB_CANCELLED, 0, now);
		info("job %u cancelled (pending) by uid %u", id, uid);
		return 0;
	}
	if (sig && sig != SIGKILL) {
		job_signal_nodes(cd, j, sig, (flags & CANCEL_F_BATCH_ONLY) ? SIGNAL_F_BATCH :
				 (flags & CANCEL_F_FULL) ? 0 : SIGNAL_F_STEPS, 0);
		return 0;
	}
	job_signal_nodes(cd, j, SIGTERM, SIGNAL_F_KILL_JOB, JOB_CANCELLED);
	/* a job still in its PrologSlurmctld was launched nowhere */
	int held = batch_host_connected(cd, j) && !(j->state & JOB_CONFIGURING);
	j->cancelled_by = 1;
	j->cancel_uid = uid;
	job_end(cd, j, JOB_CANCELLED, SIGTERM, now);
	if (!held)
		job_release(cd, j);
	info("job %u cancelled by uid %u", id, uid);
	return 0;
}

int job_complete(ctld_t *cd, const msg_job_complete_t *m, uint32_t uid)
{
	if (m->step_id != NO_VAL32)
		return 0;            /* step completions: nothing to record yet */
	job_t *j = job_find(cd, m->job_id);
	if (!j)
		return ESLURM_INVALID_JOB_ID;
	int interactive = (j->desc->flags & JOB_F_INTERACTIVE) != 0;
	/* A batch job's end is reported by its supervisor (root/SlurmUser);
	 * only an interactive allocation is ended by its owner's srun. A user
	 * ending her own batch job here would free its resources while the
	 * script still runs. */
	if (!is_admin(cd, uid) && (j->user_id != uid || !interactive))
		return ESLURM_ACCESS_DENIED;
	if (!interactive && m->launch_seq != j->launch_seq) {
		verbose("job %u: stale completion (launch %u, now %u) ignored", j->job_id,
			m->launch_seq, j->launch_seq);
		return 0;
	}
	int64_t now = ctld_now();
	if (JOB_IS_FINISHED(j->state)) {
		if (!j->alloc_held)
			return ESLURM_ALREADY_DONE;
		job_release(cd, j);
		return 0;
	}
	if ((j->state & JOB_STATE_BASE) != JOB_RUNNING &&
	    (j->state & JOB_STATE_BASE) != JOB_SUSPENDED)
		return ESLURM_JOB_PENDING;
	if (m->rc && job_node_error(cd, j, m))
		return 0;            /* Prolog failed: requeued (prolog_ctld.c) */
	uint32_t st = m->end_state & JOB_STATE_BASE;
	if (st == JOB_COMPLETE || st == 0)
		st = m->exit_status ? JOB_FAILED : JOB_COMPLETE;
	if (st >= JOB_END)
		st = JOB_FAILED;
	int64_t end = m->end_time > 0 && m->end_time <= now + 5 ? m->end_time : now;
	job_end(cd, j, st, m->exit_status, end);
	/* The batch host revoked the job's step credentials itself; the
	 * other nodes (and every node of an srun allocation) learn here
	 * that the job is over: they revoke them too and end any step
	 * process left, as Slurm's job termination does. */
	if (j->alloc.nnodes > 1 || interactive)
		job_signal_nodes(cd, j, SIGKILL, SIGNAL_F_KILL_JOB, st);
	job_release(cd, j);
	info("job %u ended: %s exit %u:%u", j->job_id, job_state_string(j->state),
	     m->exit_status >> 8, m->exit_status & 0x7f);
	return 0;
}

static int kv_u32(const char *v, uint32_t *out)
{
	char *end = NULL;
	long long x = strtoll(v, &end, 10);
	if (end == v || *end || x < 0 || x > UINT32_MAX)
		return -1;
	*out = (uint32_t)x;
	return 0;
}

static int job_update_apply(ctld_t *cd, job_t *j, const msg_update_job_t *m, uint32_t uid,
			    int *desc_changed);

int job_update(ctld_t *cd, const msg_update_job_t *m, uint32_t uid)
{
	int handled = 0;
	int rc = job_array_update(cd, m, uid, &handled);
	return handled ? rc : job_update_record(cd, m, uid);
}

int job_update_record(ctld_t *cd, const msg_update_job_t *m, uint32_t uid)
{
	job_t *j = job_find(cd, m->job_id);
	if (!j)
		return ESLURM_INVALID_JOB_ID;
	int desc_changed = 0;
	int rc = job_update_apply(cd, j, m, uid, &desc_changed);
	/* Nice, name, comment and partition live in the stored description,
	 * which the dirty-job write does not cover: rewrite it (also after
	 * a later key failed: what was applied stays applied). */
	if (desc_changed)
		db_job_update_desc(cd, j);
	return rc;
}

static int job_update_apply(ctld_t *cd, job_t *j, const msg_update_job_t *m, uint32_t uid,
			    int *desc_changed)
{
	/* operators and the coordinators of the job's account manage it as
	 * root does (Slurm's validate_operator / account coordinator) */
	int admin = job_manager_ok(cd, j, uid);
	/* Slurm's answers to a stranger: "Invalid user id" for updates and
	 * holds, "Access/permission denied" for the other actions */
	if (j->user_id != uid && !admin)
		return !m->action || !strcasecmp(m->action, "hold") || !strcasecmp(m->action, "uhold") ||
			!strcasecmp(m->action, "release") || !strcasecmp(m->action, "notify")
			? ESLURM_USER_ID_MISSING : ESLURM_ACCESS_DENIED;
	uint32_t base = j->state & JOB_STATE_BASE;
	int64_t now = ctld_now();
	/* scontrol notify: the text is the value of key "Message" */
	if (m->action && !strcasecmp(m->action, "notify"))
		return job_notify(cd, j, m->values.n ? m->values.v[0] : NULL);
	if (m->action)
		return job_control(cd, j, m->action, uid, admin);
	for (uint32_t i = 0; i < m->keys.n && i < m->values.n; i++) {
		const char *k = m->keys.v[i], *v = m->values.v[i];
		if (!strcasecmp(k, "TimeLimit")) {
			uint32_t t;
			if (time_limit_parse(v, &t))
				return ESLURM_INVALID_TIME_LIMIT;
			/* as Slurm: a user may lower a limit, and raise that of
			 * a pending job up to its partition's MaxTime */
			uint32_t pmax = cd->parts[j->part].max_time;
			if (!admin && (t > j->time_limit || (t == TIME_INFINITE && j->time_limit != TIME_INFINITE)) &&
			    !(base == JOB_PENDING && (pmax == TIME_INFINITE ||
						      (t != TIME_INFINITE && t <= pmax))))
				return ESLURM_ACCESS_DENIED;
			if (JOB_IS_FINISHED(j->state))
				return ESLURM_ALREADY_DONE;
			j->time_limit = t;
			j->desc->time_limit = t;
			if (base == JOB_RUNNING) {
				j->end_time = t == TIME_INFINITE ? j->start_time + 365 * 86400
					: j->start_time + (int64_t)t * 60;
				/* The supervisor enforces the limit: tell it (again
				 * at the node's next registration). */
				job_send_time_limit(cd, j);
				info("job %u: time limit set to %u min by uid %u", j->job_id, t, uid);
			}
		} else if (!strcasecmp(k, "Nice")) {
			char *end = NULL;
			long x = strtol(v, &end, 10);
			if (end == v || *end || x < -10000 || x > 10000)
				return ESLURM_NOT_SUPPORTED;
			/* as Slurm: a negative nice (a priority above what the
			 * factors give) is for operators; a user may set any
			 * nice from 0 up, back down to 0 included */
			if (!admin && x < 0)
				return ESLURM_ACCESS_DENIED;
			j->desc->nice = (int32_t)x;
			*desc_changed = 1;
			j->priority = job_priority(cd, j, now);
		} else if (!strcasecmp(k, "Priority")) {
			uint32_t x;
			if (!admin)
				return ESLURM_ACCESS_DENIED;
			if (kv_u32(v, &x))
				return ESLURM_NOT_SUPPORTED;
			if (j->hold)
				return ESLURM_JOB_HELD;
			j->priority = x;
		} else if (!strcasecmp(k, "JobName") || !strcasecmp(k, "Name")) {
			dep_index_remove(cd, j);      /* singleton groups by name */
			intern_put(j->desc->name);
			j->desc->name = intern_get(v);
			dep_index_add(cd, j);
			*desc_changed = 1;
		} else if (!strcasecmp(k, "Dependency")) {
			if (base != JOB_PENDING)
				return JOB_IS_FINISHED(j->state) ? ESLURM_ALREADY_DONE : ESLURM_JOB_NOT_PENDING;
			int drc = job_set_deps(cd, j, v);
			if (drc)
				return drc;
			intern_put(j->desc->dependency);
			j->desc->dependency = *v ? intern_get(v) : NULL;
			*desc_changed = 1;
			if (!j->hold) {
				job_deps_turn(cd);
				job_resolve_deps(cd, j);
			}
			/* as Slurm: the reason is the next pass's to say */
			if (!j->hold)
				j->reason = WAIT_NO_REASON;
		} else if (!strcasecmp(k, "Comment")) {
			intern_put(j->desc->comment);
			j->desc->comment = intern_get(v);
			*desc_changed = 1;
		} else if (!strcasecmp(k, "Partition")) {
			if (base != JOB_PENDING)
				return ESLURM_JOB_NOT_PENDING;
			long pi = part_find(cd, v);
			if (pi < 0)
				return ESLURM_INVALID_PARTITION_NAME;
			/* The same rules as a submission to that partition. */
			char *why = NULL;
			int prc = job_apply_part(cd, j, pi, admin, &why);
			if (why)
				info("job %u: move to partition %s refused: %s", j->job_id, v, why);
			free(why);
			why = NULL;
			if (prc)
				return prc;
			/* its association may be per partition */
			char *oldp = j->desc->partition;
			j->desc->partition = intern_get(v);
			if ((prc = acct_job_resolve(cd, j, uid, &why))) {
				intern_put(j->desc->partition);
				j->desc->partition = oldp;
				free(why);
				return prc;
			}
			intern_put(oldp);
			j->priority = job_priority(cd, j, now);
			*desc_changed = 1;
		} else if (!strcasecmp(k, "Account") || !strcasecmp(k, "QOS")) {
			if (base != JOB_PENDING)
				return ESLURM_JOB_NOT_PENDING;
			int qos = !strcasecmp(k, "QOS");
			char **field = qos ? &j->desc->qos : &j->desc->account;
			char *old = *field, *why = NULL;
			*field = *v ? intern_get(v) : NULL;
			int arc = acct_job_resolve(cd, j, uid, &why);
			free(why);
			if (arc) {
				intern_put(*field);
				*field = old;
				return arc;
			}
			intern_put(old);
			j->priority = job_priority(cd, j, now);
			*desc_changed = 1;
		} else {
			int urc = job_update_key(cd, j, k, v, uid, admin, desc_changed);
			if (urc < 0)
				return ESLURM_NOT_SUPPORTED;
			if (urc)
				return urc;
		}
		job_dirty(cd, j);
		ctld_sched_request(cd);
	}
	return 0;
}

/* ---- view ---- */

void job_fill_info(ctld_t *cd, job_t *j, job_info_t *ji)
{
	job_fill_info_fields(cd, j, ji, JINFO_ALL);
}

void job_fill_info_fields(ctld_t *cd, job_t *j, job_info_t *ji, uint32_t fields)
{
	/* Strings are borrowed from the record: the caller sends, then
	 * frees only the array, never with proto_free. Groups of strings
	 * the caller did not ask for (JINFO_*) stay NULL and are not sent:
	 * with 10,000 jobs they are most of the reply. */
	job_desc_t *d = j->desc;
	uint32_t base = j->state & JOB_STATE_BASE;
	int batch = !(d->flags & JOB_F_INTERACTIVE);
	memset(ji, 0, sizeof(*ji));
	ji->job_id = j->job_id;
	ji->array_task_id = NO_VAL32;
	if (job_is_array(j)) {
		job_array_fill_info(cd, j, ji);
		if (j->array_pending) {
			/* the pending tasks, "3-6%2" (borrowed like the rest) */
			free(j->array_str);
			char *p = job_array_pending_str(j);
			j->array_str = j->array_throttle ? xasprintf("%s%%%u", p, j->array_throttle)
				: xstrdup(p);
			free(p);
			ji->array_task_str = j->array_str;
		}
	}
	ji->name = d->name;
	ji->user_id = j->user_id;
	ji->group_id = j->group_id;
	ji->user_name = d->user_name;
	ji->priority = j->hold ? 0 : j->priority;
	ji->partition = cd->parts[j->part].cf->name;
	ji->state = j->state;
	ji->state_reason = j->reason;
	ji->state_desc = j->reason_detail;
	ji->start_time = j->start_time;
	ji->end_time = j->end_time;
	ji->suspend_time = j->suspend_time;
	ji->pre_sus_time = j->pre_sus_secs;
	uint32_t ntasks = job_ntasks(j);
	if (j->alloc.nnodes && base != JOB_PENDING) {
		ji->nodes = j->nodes;
		ji->batch_host = batch ? (char *)cd->nodes[j->alloc.nodes[0]].cf->name : NULL;
		ji->num_nodes = j->alloc.nnodes;
		if (fields & JINFO_NUMS)
			for (uint32_t i = 0; i < j->alloc.nnodes; i++)
				ji->num_cpus += j->alloc.cpus[i];
	} else {
		ji->num_nodes = d->min_nodes ? d->min_nodes : 1;
		if (fields & JINFO_NUMS)
			ji->num_cpus = ntasks * job_cpt(j);
	}
	if (fields & JINFO_NUMS) {
		ji->nice = d->nice;
		ji->requeue = !(d->flags & JOB_F_NO_REQUEUE);
		ji->restarts = j->restarts;
		ji->batch_flag = batch;
		ji->exit_code = j->exit_code;
		ji->time_limit = j->time_limit;
		ji->submit_time = j->submit_time;
		ji->eligible_time = j->eligible_time;
		ji->accrue_time = j->eligible_time;
		ji->last_sched_eval = j->last_eval;
		ji->alloc_sid = d->alloc_sid;
		/* -N N is N-N, as Slurm's commands send it (NumNodes=12-12). */
		ji->max_nodes = d->max_nodes ? d->max_nodes : d->min_nodes;
		ji->num_tasks = ntasks;
		ji->cpus_per_task = job_cpt(j);
		ji->ntasks_per_node = d->ntasks_per_node;
		uint64_t pn = (uint64_t)job_cpt(j) * (d->ntasks_per_node ? d->ntasks_per_node : 1);
		ji->pn_min_cpus = pn > UINT32_MAX ? UINT32_MAX : (uint32_t)pn;
		if (d->pn_min_cpus > ji->pn_min_cpus)
			ji->pn_min_cpus = d->pn_min_cpus;
		ji->min_tmp_disk = d->pn_min_tmp;
		ji->deadline = d->deadline;
		ji->time_min = job_deadline_time_min(j);
		ji->mem_per_cpu = d->mem_per_cpu;
		ji->mem_per_node = d->mem_per_node;
		ji->flags = d->flags;
		ji->contiguous = (d->flags & JOB_F_CONTIGUOUS) != 0;
	}
	if (fields & JINFO_GROUP)
		ji->group_name = j->group_name;
	if (fields & JINFO_ACCT) {
		ji->account = d->account;
		ji->qos = d->qos;
		ji->reservation = d->reservation;
		ji->comment = d->comment;
		ji->assoc_id = j->assoc_id;
	}
	if (fields & JINFO_REQ) {
		ji->dependency = j->dep_str;
		ji->alloc_node = d->alloc_node;
		ji->req_nodes = d->req_nodes;
		ji->exc_nodes = d->exc_nodes;
		ji->features = d->features;
		ji->sched_nodes = base == JOB_PENDING ? j->sched_nodes : NULL;
	}
	if (fields & JINFO_PATHS) {
		/* srun: the command; sbatch: the script path (none for stdin/--wrap). */
		ji->command = d->argv.n ? d->argv.v[0] : NULL;
		ji->work_dir = d->work_dir;
		ji->std_in = d->std_in;
		ji->std_out = d->std_out;
		ji->std_err = d->std_err ? d->std_err : d->std_out;
	}
	if (fields & JINFO_TRES) {
		ji->tres_per_node = d->tres_per_node;
		ji->tres_per_job = d->tres_per_job;
		ji->tres_per_task = d->tres_per_task;
		ji->cpus_per_gpu = d->cpus_per_gpu;
		ji->mem_per_gpu = d->mem_per_gpu;
		if (base == JOB_PENDING)
			ji->tres_req = j->tres;
		else
			ji->tres_req = ji->tres_alloc = j->tres;
	}
	if (fields & JINFO_DETAIL) {
		ji->scheduler = (char *)(j->backfilled ? "Backfill" :
					 base == JOB_PENDING && j->bf_examined ? "Backfill:*" : "Main");
		if (base != JOB_PENDING) {
			job_detail_build(cd, j);
			ji->cpu_ids = j->cpu_ids;
			ji->mem_alloc = j->mem_alloc;
			ji->gres_detail = j->gres_detail;   /* borrowed like the rest */
		}
		job_nccl_fill_info(j, ji);
	}
}

/* ---- periodic work ---- */

static void purge_job(ctld_t *cd, job_t *j)
{
	hash_remove(cd, j);
	req_remove(cd, j);
	dep_index_remove(cd, j);
	cd->dead_jobs = xgrow(cd->dead_jobs, sizeof(uint32_t), cd->ndead_jobs + 1, &cd->adead_jobs);
	cd->dead_jobs[cd->ndead_jobs++] = j->job_id;
	if (j->dirty) {
		for (size_t i = 0; i < cd->ndirty_jobs; i++)
			if (cd->dirty_jobs[i] == j) {
				cd->dirty_jobs[i] = cd->dirty_jobs[--cd->ndirty_jobs];
				break;
			}
	}
	job_free(j);
}

void jobs_periodic(ctld_t *cd, int64_t now)
{
	size_t k = 0;
	uint32_t min_age = cd->conf->min_job_age;
	for (size_t i = 0; i < cd->njobs; i++) {
		job_t *j = cd->jobs[i];
		uint32_t base = j->state & JOB_STATE_BASE;
		if (JOB_IS_FINISHED(j->state) && !j->alloc_held &&
		    j->end_time + (int64_t)min_age <= now) {
			int waited = 0;
			for (size_t w = 0; w < cd->nwaiters && !waited; w++)
				waited = cd->waiters[w].job_id == j->job_id;
			if (!waited) {
				purge_job(cd, j);
				continue;
			}
		}
		cd->jobs[k++] = j;
		if (base == JOB_RUNNING && j->time_limit != TIME_INFINITE &&
		    j->time_limit != TIME_NO_VAL) {
			int interactive = (j->desc->flags & JOB_F_INTERACTIVE) != 0;
			if (interactive && now >= j->end_time) {
				/* No supervisor enforces an srun allocation's limit. */
				job_signal_nodes(cd, j, SIGTERM, SIGNAL_F_KILL_JOB, JOB_TIMEOUT);
				job_end(cd, j, JOB_TIMEOUT, 0, now);
				job_release(cd, j);
			} else if (!interactive &&
				   now > j->end_time + (int64_t)cd->conf->kill_wait + 60 &&
				   now - j->kill_time >= 60) {
				info("job %u overdue: sending kill again", j->job_id);
				job_signal_nodes(cd, j, SIGKILL, SIGNAL_F_KILL_JOB, JOB_TIMEOUT);
				j->kill_time = now;
			}
		}
		/* A cancelled job whose supervisor never reported. */
		if (JOB_IS_FINISHED(j->state) && j->alloc_held &&
		    now > j->end_time + (int64_t)cd->conf->kill_wait + 120)
			job_release(cd, j);
	}
	cd->njobs = k;
}
