/*
 * job_update: the keys of scontrol update jobid= beyond those jobs.c
 * handles (TimeLimit, Nice, Priority, JobName, Comment, Partition,
 * Account, QOS, Dependency): NumNodes, NumTasks, MinMemoryNode,
 * MinMemoryCPU, Features, ExcNodeList, ReqNodeList, Gres, StartTime
 * (EligibleTime) and Requeue, with Slurm 22.05's rules: all but Requeue
 * are for pending jobs ("Job is no longer pending execution" once started;
 * NumNodes of a running job: "Requested operation not supported on this
 * system"), and a change that would leave the job unable ever to run is
 * refused with the error Slurm gives (invalid feature, node, gres).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ctld/ctld.h"
#include "ctld/intern.h"
#include "errors.h"
#include "log.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

static int u32_of(const char *v, uint32_t *out)
{
	char *end = NULL;
	long long x = strtoll(v, &end, 10);
	if (end == v || *end || x < 0 || x > (long long)UINT32_MAX - 1)
		return -1;
	*out = (uint32_t)x;
	return 0;
}

/* Replace an interned description string (NULL for ""). */
static void set_interned(char **field, const char *v)
{
	intern_put(*field);
	*field = v && *v ? intern_get(v) : NULL;
}

/* After a change to what the job asks for: can it still ever run where it
 * is? Otherwise err (the change is taken back by the caller). */
static int still_valid(ctld_t *cd, job_t *j, int err)
{
	char *msg = NULL;
	int rc = job_sched_validate(cd, j, &msg);
	if (rc)
		info("job %u: update refused: %s", j->job_id, msg ? msg : slurm_strerror(rc));
	free(msg);
	return rc ? err : 0;
}

int job_update_key(ctld_t *cd, job_t *j, const char *k, const char *v, uint32_t uid,
		   int admin, int *desc_changed)
{
	job_desc_t *d = j->desc;
	uint32_t base = j->state & JOB_STATE_BASE;
	int finished = JOB_IS_FINISHED(j->state);
	int rc = 0;
	(void)uid;
	(void)admin;

	if (!strcasecmp(k, "Requeue")) {
		uint32_t x;
		if (u32_of(v, &x) || x > 1)
			return ESLURM_NOT_SUPPORTED;
		if (finished)
			return ESLURM_ALREADY_DONE;
		d->flags &= ~(JOB_F_REQUEUE | JOB_F_NO_REQUEUE);
		d->flags |= x ? JOB_F_REQUEUE : JOB_F_NO_REQUEUE;
		*desc_changed = 1;
		return 0;
	}

	int known = !strcasecmp(k, "NumNodes") || !strcasecmp(k, "NumTasks") ||
		!strcasecmp(k, "MinMemoryNode") || !strcasecmp(k, "MinMemoryCPU") ||
		!strcasecmp(k, "Features") || !strcasecmp(k, "ExcNodeList") ||
		!strcasecmp(k, "ReqNodeList") || !strcasecmp(k, "Gres") ||
		!strcasecmp(k, "StartTime") || !strcasecmp(k, "EligibleTime");
	if (!known)
		return -1;
	if (finished)
		return ESLURM_JOB_NOT_PENDING;
	if (base != JOB_PENDING) {
		if (!strcasecmp(k, "NumNodes"))
			return ESLURM_NOT_SUPPORTED;     /* no shrinking of a running job */
		if (!strcasecmp(k, "ReqNodeList"))
			return ESLURM_INVALID_NODE_NAME;
		return ESLURM_JOB_NOT_PENDING;
	}

	if (!strcasecmp(k, "NumNodes")) {
		/* "N" or "N-M" */
		uint32_t lo, hi;
		const char *dash = strchr(v, '-');
		char *a = dash ? strndup(v, (size_t)(dash - v)) : strdup(v);
		int bad = !a || u32_of(a, &lo) || !lo;
		free(a);
		if (bad)
			return ESLURM_INVALID_NODE_COUNT;
		hi = 0;
		if (dash && (u32_of(dash + 1, &hi) || hi < lo))
			return ESLURM_INVALID_NODE_COUNT;
		uint32_t omin = d->min_nodes, omax = d->max_nodes;
		d->min_nodes = lo;
		d->max_nodes = hi;
		if ((rc = still_valid(cd, j, ESLURM_INVALID_NODE_COUNT))) {
			d->min_nodes = omin;
			d->max_nodes = omax;
			return rc;
		}
	} else if (!strcasecmp(k, "NumTasks")) {
		uint32_t x, old = d->ntasks;
		if (u32_of(v, &x) || !x)
			return ESLURM_BAD_TASK_COUNT;
		d->ntasks = x;
		if ((rc = still_valid(cd, j, ESLURM_BAD_TASK_COUNT))) {
			d->ntasks = old;
			return rc;
		}
	} else if (!strcasecmp(k, "MinMemoryNode") || !strcasecmp(k, "MinMemoryCPU")) {
		uint32_t x;
		if (u32_of(v, &x))
			return ESLURM_INVALID_TASK_MEMORY;
		uint64_t on = d->mem_per_node, oc = d->mem_per_cpu;
		int node = !strcasecmp(k, "MinMemoryNode");
		d->mem_per_node = node ? x : 0;
		d->mem_per_cpu = node ? 0 : x;
		if ((rc = still_valid(cd, j, ESLURM_INVALID_TASK_MEMORY))) {
			d->mem_per_node = on;
			d->mem_per_cpu = oc;
			return rc;
		}
	} else if (!strcasecmp(k, "Features")) {
		char *old = d->features ? intern_get(d->features) : NULL;
		set_interned(&d->features, v);
		if ((rc = still_valid(cd, j, ESLURM_INVALID_FEATURE))) {
			set_interned(&d->features, old);
			intern_put(old);
			return rc;
		}
		intern_put(old);
	} else if (!strcasecmp(k, "ExcNodeList") || !strcasecmp(k, "ReqNodeList")) {
		int req = !strcasecmp(k, "ReqNodeList");
		uint32_t *idx = NULL, n = 0;
		if ((rc = resolve_nodes(cd, v, &idx, &n)))
			return rc;
		char **field = req ? &d->req_nodes : &d->exc_nodes;
		uint32_t **jidx = req ? &j->req_idx : &j->exc_idx;
		uint32_t *jn = req ? &j->nreq : &j->nexc;
		char *old = *field ? intern_get(*field) : NULL;
		uint32_t *oidx = *jidx, on = *jn;
		set_interned(field, v);
		*jidx = idx;
		*jn = n;
		if ((rc = still_valid(cd, j, ESLURM_INVALID_NODE_NAME))) {
			set_interned(field, old);
			intern_put(old);
			free(idx);
			*jidx = oidx;
			*jn = on;
			return rc;
		}
		intern_put(old);
		free(oidx);
	} else if (!strcasecmp(k, "Gres")) {
		uint32_t count = 0;
		char type[32];
		if (*v && strcasecmp(v, "none") && parse_gpu_tres(v, &count, type, sizeof(type)))
			return ESLURM_INVALID_GRES;
		char *norm = NULL;
		if (count) {
			const char *s = v;
			if (!strncmp(s, "gres:", 5) || !strncmp(s, "gres/", 5))
				s += 5;
			norm = xasprintf("gres:%s", s);
		}
		char *old = d->tres_per_node ? intern_get(d->tres_per_node) : NULL;
		uint32_t ocount = j->gpus_per_node;
		char otype[sizeof(j->gpu_type)];
		memcpy(otype, j->gpu_type, sizeof(otype));
		set_interned(&d->tres_per_node, norm);
		free(norm);
		j->gpus_per_node = count;
		if (count)
			snprintf(j->gpu_type, sizeof(j->gpu_type), "%s", type);
		if ((rc = still_valid(cd, j, ESLURM_INVALID_GRES))) {
			set_interned(&d->tres_per_node, old);
			intern_put(old);
			j->gpus_per_node = ocount;
			memcpy(j->gpu_type, otype, sizeof(otype));
			return rc;
		}
		intern_put(old);
	} else {                           /* StartTime, EligibleTime */
		time_t t;
		int64_t now = ctld_now();
		if (time_abs_parse(v, (time_t)now, &t))
			return ESLURM_INVALID_TIME_VALUE;
		d->begin_time = (int64_t)t;
		j->eligible_time = (int64_t)t > now ? (int64_t)t : now;
	}
	job_set_tres(cd, j);
	*desc_changed = 1;
	return 0;
}
