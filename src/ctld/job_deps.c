/*
 * job_deps: job dependencies (sbatch -d/--dependency): parsing a
 * dependency expression into the job's dep_t list at submission, and
 * resolving it against the jobs it names (j->dep_state: 0 satisfied,
 * 1 waiting, 2 never satisfiable) each scheduling turn.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctld/ctld.h"
#include "ctld/job_array.h"
#include "errors.h"
#include "xalloc.h"

int job_parse_deps(ctld_t *cd, const char *s, dep_t **deps, uint32_t *n)
{
	*deps = NULL;
	*n = 0;
	if (!s || !*s)
		return 0;
	char *dup = xstrdup(s), *save = NULL;
	size_t alloc = 0;
	int rc = 0;
	for (char *tok = strtok_r(dup, ",?", &save); tok; tok = strtok_r(NULL, ",?", &save)) {
		char *colon = strchr(tok, ':');
		if (!colon) {
			rc = ESLURM_DEPENDENCY;
			break;
		}
		*colon = 0;
		uint32_t type;
		if (!strcasecmp(tok, "after"))
			type = DEP_AFTER;
		else if (!strcasecmp(tok, "afterany"))
			type = DEP_AFTERANY;
		else if (!strcasecmp(tok, "afterok"))
			type = DEP_AFTEROK;
		else if (!strcasecmp(tok, "afternotok"))
			type = DEP_AFTERNOTOK;
		else if (!strcasecmp(tok, "aftercorr"))
			type = DEP_AFTERCORR;
		else {
			rc = ESLURM_DEPENDENCY;
			break;
		}
		for (char *idp = colon + 1; idp && *idp;) {
			char *end = NULL;
			unsigned long id = strtoul(idp, &end, 10);
			if (end == idp || !id || (*end && *end != ':' && *end != '+')) {
				rc = ESLURM_DEPENDENCY;
				break;
			}
			if (*end == '+')      /* after:id+time: time ignored */
				while (*end && *end != ':')
					end++;
			if (!job_find(cd, (uint32_t)id)) {
				rc = ESLURM_DEPENDENCY;
				break;
			}
			*deps = xgrow(*deps, sizeof(dep_t), *n + 1, &alloc);
			(*deps)[(*n)++] = (dep_t){ type, (uint32_t)id };
			idp = *end == ':' ? end + 1 : NULL;
		}
		if (rc)
			break;
	}
	free(dup);
	if (rc) {
		xfree(*deps);
		*n = 0;
	}
	return rc;
}

/* Recompute j->dep_state from the jobs it depends on. Unknown (purged)
 * jobs count as satisfied. */
void job_resolve_deps(ctld_t *cd, job_t *j)
{
	if (!j->ndeps) {
		j->dep_state = 0;
		return;
	}
	int wait = 0, never = 0;
	for (uint32_t i = 0; i < j->ndeps; i++) {
		job_t *t = job_find(cd, j->deps[i].job_id);
		if (!t)
			continue;
		if (j->deps[i].type == DEP_AFTERCORR) {
			/* task i after task i (job_array.c) */
			int ds = job_array_dep_corr(cd, j, t);
			wait |= ds == 1;
			never |= ds == 2;
			continue;
		}
		if (t->array_job_id == t->job_id) {
			/* an array's id: its tasks (job_array.c) */
			int ds = job_array_dep(cd, t->job_id, j->deps[i].type, NO_VAL32);
			wait |= ds == 1;
			never |= ds == 2;
			continue;
		}
		uint32_t st = t->state & JOB_STATE_BASE;
		int done = JOB_IS_FINISHED(t->state);
		int okend = st == JOB_COMPLETE && t->exit_code == 0;
		switch (j->deps[i].type) {
		case DEP_AFTER:
			if (st == JOB_PENDING)
				wait = 1;
			break;
		case DEP_AFTERANY:
			if (!done)
				wait = 1;
			break;
		case DEP_AFTEROK:
			if (!done)
				wait = 1;
			else if (!okend)
				never = 1;
			break;
		case DEP_AFTERNOTOK:
			if (!done)
				wait = 1;
			else if (okend)
				never = 1;
			break;
		}
	}
	j->dep_state = never ? 2 : wait ? 1 : 0;
}
