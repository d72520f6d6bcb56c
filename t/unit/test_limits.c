/*
 * test_limits: the controller side of the accounting limits (limits.c)
 * without a daemon: the core's tables built from the model (parents by
 * id, the QOS Preempt= bitmaps, rebuilt when acct.gen moves), the
 * enforce and preemption settings from slurm.conf, a job's indexes and
 * priority factors, and the submit-time refusals with Slurm's reasons
 * (every task of an array counted as a job).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#include "array_range.h"
#include "ctld/ctld.h"
#include "ctld/job_array.h"
#include "errors.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

static const char *fixtures(void)
{
	const char *e = getenv("CONF_FIXTURES");
	return e ? e : "t/unit/conf";
}

/* The model: root(1) > acct(2) > alice(3, uid 1001); QOS normal(1),
 * high(2, Preempt=normal, Priority=100). */
static void model(ctld_t *cd)
{
	acct_t *m = &cd->acct;
	m->nassocs = 3;
	m->assocs = xcalloc(3, sizeof(acct_assoc_t));
	const char *accts[3] = { "root", "acct", "acct" };
	for (uint32_t i = 0; i < 3; i++) {
		acct_assoc_t *a = &m->assocs[i];
		a->id = i + 1;
		a->parent_id = i;        /* 0 for the root */
		a->account = (char *)accts[i];
		a->uid = UINT32_MAX;
		lim_set_clear(&a->lim);
	}
	m->assocs[2].user = (char *)"alice";
	m->assocs[2].uid = 1001;
	m->assocs[1].priority = 50;
	m->nqos = 2;
	m->qos = xcalloc(2, sizeof(acct_qos_t));
	m->qos[0].id = 1;
	m->qos[0].name = (char *)"normal";
	m->qos[1].id = 2;
	m->qos[1].name = (char *)"high";
	m->qos[1].s.priority = 100;
	static uint32_t pre[1] = { 1 };
	m->qos[1].preempt_ids = pre;
	m->qos[1].npreempt = 1;
	for (uint32_t i = 0; i < 2; i++) {
		lim_set_clear(&m->qos[i].s.lim);
		m->qos[i].s.usage_factor = 1.0;
	}
	m->gen = 1;
}

static job_t *mkjob(ctld_t *cd, uint32_t id, uint32_t state, uint32_t qos_id)
{
	job_t *j = xcalloc(1, sizeof(*j));
	j->job_id = id;
	j->state = state;
	j->user_id = 1001;
	j->assoc_id = 3;
	j->qos_id = qos_id;
	j->part = 0;
	j->time_limit = 30;
	j->desc = xcalloc(1, sizeof(job_desc_t));
	j->desc->ntasks = 1;
	j->desc->cpus_per_task = 1;
	j->desc->time_limit = 30;
	if (cd) {
		cd->jobs = xrealloc(cd->jobs, (cd->njobs + 1) * sizeof(job_t *));
		cd->jobs[cd->njobs++] = j;
	}
	return j;
}

/* j becomes a pending array record holding the tasks of spec. */
static void mkarray(job_t *j, const char *spec)
{
	uint32_t thr;
	job_array_free(j);
	j->array_pending = xmalloc(sizeof(*j->array_pending));
	if (array_spec_parse(spec, 0, j->array_pending, &thr))
		abort();
	j->array_job_id = j->job_id;
}

static void job_del(job_t *j)
{
	job_array_free(j);
	free(j->desc);
	free(j);
}

int main(void)
{
	ctld_t cd;
	memset(&cd, 0, sizeof(cd));
	char *path = xasprintf("%s/limits/slurm.conf", fixtures());
	cd.conf = conf_load(path, CONF_FULL);
	free(path);
	ok(cd.conf && !cd.conf->nerrors, "the fixture config loads");
	nodes_init(&cd);
	sched_glue_build(&cd);
	model(&cd);

	limits_sync(&cd);
	sched_t *s = &cd.sched;
	is_int(s->nassocs, 3, "three associations handed to the core");
	is_int(s->assocs[0].parent, -1, "the root has no parent");
	is_int(s->assocs[2].parent, 1, "alice's parent is the account (by id)");
	is_int(s->assocs[2].uid, 1001, "a user association has its uid");
	is_int(s->assocs[1].uid, UINT32_MAX, "an account association has none");
	ok(s->qos[1].preempt && (s->qos[1].preempt[0] & 1), "high may preempt normal (bitmap)");
	ok(!s->qos[0].preempt, "normal may preempt nothing");
	is_int(s->lim_enforce, SCHED_LIM_ENFORCE, "AccountingStorageEnforce=limits: enforced, not safe");
	is_int(s->preempt_mode, LIM_PREEMPT_REQUEUE, "preempt/qos with PreemptMode=REQUEUE");
	is_int(s->prio.max_qos_priority, 100, "highest QOS priority");
	is_int(s->prio.max_assoc_priority, 50, "highest association priority");

	/* A job's indexes and priority inputs. */
	job_t *pj = mkjob(NULL, 99, JOB_PENDING, 2);
	sched_job_t sj;
	sched_glue_job(&cd, pj, &sj);
	is_int(sj.assoc, 2, "the job's association index");
	is_int(sj.qos, 1, "the job's QOS index");
	is_int(sj.qos_priority, 100, "its QOS priority");
	is_int(sj.assoc_priority, 50, "its association's priority, inherited from the account");
	sched_prio_factors_t f;
	sched_glue_priority(&cd, pj, 1000, &f);
	ok(f.qos > 999.9 && f.qos < 1000.1, "QOS factor: 100/100 x 1000");
	ok(f.assoc > 499.9 && f.assoc < 500.1, "ASSOC factor: 50/50 x 500");

	/* A model change is seen (gen). */
	cd.acct.qos[0].s.priority = 200;
	limits_sync(&cd);
	is_int(s->prio.max_qos_priority, 100, "no rebuild while gen is unchanged");
	cd.acct.gen++;
	limits_sync(&cd);
	is_int(s->prio.max_qos_priority, 200, "rebuilt when gen moves");

	/* Submit: MaxSubmitJobs=2 on the account, inherited by alice. */
	cd.acct.assocs[1].lim.max_submit = 2;
	cd.acct.gen++;
	mkjob(&cd, 1, JOB_RUNNING, 1);
	mkjob(&cd, 2, JOB_COMPLETE, 1);
	char *msg = NULL;
	is_int(limits_submit_check(&cd, pj, 30, &msg), 0, "one job running: a second may be submitted");
	mkjob(&cd, 3, JOB_PENDING, 1);
	int rc = limits_submit_check(&cd, pj, 30, &msg);
	is_int(rc, ESLURM_ACCOUNTING_POLICY, "two in the queue: refused (finished jobs do not count)");
	is_str(msg, "AssocMaxSubmitJobLimit", "with Slurm's reason as the message");
	free(msg);
	msg = NULL;
	cd.acct.assocs[1].lim.max_submit = LIM_UNSET;
	cd.acct.assocs[0].lim.grp_submit = 2;
	cd.acct.gen++;
	limits_submit_check(&cd, pj, 30, &msg);
	is_str(msg, "AssocGrpSubmitJobsLimit", "GrpSubmitJobs=2 on the root");
	free(msg);
	msg = NULL;
	cd.acct.assocs[0].lim.grp_submit = LIM_UNSET;
	cd.acct.qos[1].s.lim.max_submit_pu = 0;
	cd.acct.gen++;
	limits_submit_check(&cd, pj, 30, &msg);
	is_str(msg, "QOSMaxSubmitJobPerUserLimit", "QOS MaxSubmitJobsPerUser=0");
	free(msg);
	msg = NULL;
	cd.acct.qos[1].s.lim.max_submit_pu = LIM_UNSET;

	/* Arrays: every task counts (issue 19). Jobs 1 (running) and 3
	 * (pending) are alice's in QOS normal; pj asks for QOS high. */
	cd.acct.qos[1].s.lim.max_submit_pu = 3;
	cd.acct.gen++;
	mkarray(pj, "0-999");
	is_int(limits_submit_check(&cd, pj, 30, &msg), ESLURM_ACCOUNTING_POLICY,
	       "MaxSubmitJobsPerUser=3: an array of 1000 tasks is refused whole");
	is_str(msg, "QOSMaxSubmitJobPerUserLimit", "with the reason a single job gets");
	free(msg);
	msg = NULL;
	mkarray(pj, "0-3");
	is_int(limits_submit_check(&cd, pj, 30, &msg), ESLURM_ACCOUNTING_POLICY,
	       "4 tasks over a limit of 3: refused");
	free(msg);
	msg = NULL;
	mkarray(pj, "0-2");
	is_int(limits_submit_check(&cd, pj, 30, &msg), 0, "3 tasks within 3: accepted");
	job_t *arr = mkjob(&cd, 4, JOB_PENDING, 2);
	mkarray(arr, "0-2");
	job_array_free(pj);
	is_int(limits_submit_check(&cd, pj, 30, &msg), ESLURM_ACCOUNTING_POLICY,
	       "a queued array of 3 tasks: a single job is refused");
	free(msg);
	msg = NULL;
	/* A task split off and running: 2 pending in the record + 1 of its
	 * own are still 3, never 4. */
	mkarray(arr, "1-2");
	job_t *task = mkjob(&cd, 5, JOB_RUNNING, 2);
	task->array_job_id = 4;
	task->array_task_id = 0;
	is_int(limits_submit_check(&cd, pj, 30, &msg), ESLURM_ACCOUNTING_POLICY,
	       "one task split off and running: still 3, refused");
	free(msg);
	msg = NULL;
	task->state = JOB_COMPLETE;
	is_int(limits_submit_check(&cd, pj, 30, &msg), 0,
	       "the split-off task ended: 2 left, a single job is accepted (no double count)");
	mkarray(pj, "0-1");
	is_int(limits_submit_check(&cd, pj, 30, &msg), ESLURM_ACCOUNTING_POLICY,
	       "but not an array of 2");
	free(msg);
	msg = NULL;
	cd.acct.qos[1].s.lim.max_submit_pu = LIM_UNSET;
	/* Now 2 tasks of QOS high are queued; pj is an array of 2. */
	cd.acct.qos[1].s.lim.grp_submit = 3;
	cd.acct.gen++;
	limits_submit_check(&cd, pj, 30, &msg);
	is_str(msg, "QOSGrpSubmitJobsLimit", "QOS GrpSubmitJobs=3: 2 queued + 2 asked refused");
	free(msg);
	msg = NULL;
	cd.acct.qos[1].s.lim.grp_submit = 4;
	cd.acct.gen++;
	is_int(limits_submit_check(&cd, pj, 30, &msg), 0, "GrpSubmitJobs=4: accepted");
	cd.acct.qos[1].s.lim.grp_submit = LIM_UNSET;
	cd.acct.qos[1].s.lim.max_submit_pa = 3;
	cd.acct.gen++;
	limits_submit_check(&cd, pj, 30, &msg);
	is_str(msg, "MaxSubmitJobsPerAccount", "QOS MaxSubmitJobsPerAccount=3: refused");
	free(msg);
	msg = NULL;
	cd.acct.qos[1].s.lim.max_submit_pa = LIM_UNSET;
	/* alice's association: jobs 1 and 3 and the array's 2 tasks = 4. */
	cd.acct.assocs[1].lim.max_submit = 5;
	cd.acct.gen++;
	limits_submit_check(&cd, pj, 30, &msg);
	is_str(msg, "AssocMaxSubmitJobLimit", "MaxSubmitJobs=5 (inherited): 4 + 2 tasks refused");
	free(msg);
	msg = NULL;
	job_array_free(pj);
	is_int(limits_submit_check(&cd, pj, 30, &msg), 0, "4 + a single job accepted");
	/* As Slurm: a QOS MaxSubmitJobsPerAccount replaces MaxSubmitJobs. */
	cd.acct.assocs[1].lim.max_submit = 1;
	cd.acct.qos[1].s.lim.max_submit_pa = 10;
	cd.acct.gen++;
	is_int(limits_submit_check(&cd, pj, 30, &msg), 0,
	       "QOS MaxSubmitJobsPerAccount=10 set: the association's MaxSubmitJobs=1 is not checked");
	cd.acct.qos[1].s.lim.max_submit_pa = LIM_UNSET;
	cd.acct.assocs[1].lim.max_submit = LIM_UNSET;
	cd.acct.assocs[0].lim.grp_submit = 5;
	cd.acct.gen++;
	mkarray(pj, "7,9");
	limits_submit_check(&cd, pj, 30, &msg);
	is_str(msg, "AssocGrpSubmitJobsLimit", "GrpSubmitJobs=5 on the root: 4 + 2 tasks refused");
	free(msg);
	msg = NULL;
	job_array_free(pj);
	is_int(limits_submit_check(&cd, pj, 30, &msg), 0, "4 + a single job accepted");
	cd.acct.assocs[0].lim.grp_submit = LIM_UNSET;
	cd.acct.gen++;

	/* DenyOnLimit: a per-job limit refuses at submit, else it pends. */
	cd.acct.qos[1].s.lim.max_tres_pj.v[LIM_TRES_CPU] = 1;
	pj->desc->ntasks = 2;
	cd.acct.gen++;
	is_int(limits_submit_check(&cd, pj, 30, &msg), 0, "over MaxTRES without DenyOnLimit: accepted");
	cd.acct.qos[1].s.flags |= LIM_QOS_F_DENY_ON_LIMIT;
	cd.acct.gen++;
	is_int(limits_submit_check(&cd, pj, 30, &msg), ESLURM_ACCOUNTING_POLICY,
	       "with DenyOnLimit: refused");
	is_str(msg, "QOSMaxCpuPerJobLimit", "naming the limit");
	free(msg);
	msg = NULL;
	pj->desc->ntasks = 1;

	/* No --time: the QOS MaxWall, within the partition's MaxTime=60. */
	cd.acct.qos[1].s.lim.max_wall = 20;
	cd.acct.gen++;
	pj->time_limit = pj->desc->time_limit = 60;
	is_int(limits_submit_check(&cd, pj, TIME_NO_VAL, &msg), 0, "accepted");
	is_int(pj->time_limit, 20, "no --time: MaxWall=20 of the QOS");
	cd.acct.qos[1].s.lim.max_wall = 90;
	cd.acct.gen++;
	limits_submit_check(&cd, pj, TIME_NO_VAL, &msg);
	is_int(pj->time_limit, 60, "MaxWall=90 capped by the partition's MaxTime=60");
	pj->time_limit = pj->desc->time_limit = 45;
	limits_submit_check(&cd, pj, 45, &msg);
	is_int(pj->time_limit, 45, "an asked --time is kept");
	is_str(msg, NULL, "no message when accepted");

	/* Without enforcement nothing is refused. */
	conf_t *keep = cd.conf;
	char *p2 = xasprintf("%s/gres/slurm.conf", fixtures());
	cd.conf = conf_load(p2, CONF_FULL);
	free(p2);
	cd.acct.qos[1].s.lim.max_submit_pu = 0;
	cd.acct.gen++;
	is_int(limits_submit_check(&cd, pj, 30, &msg), 0, "no AccountingStorageEnforce: accepted");
	is_int(s->lim_enforce, 0, "and the core enforces nothing");
	is_int(s->preempt_mode, LIM_PREEMPT_OFF, "no PreemptType: no preemption");
	conf_destroy(cd.conf);
	cd.conf = keep;

	for (size_t i = 0; i < cd.njobs; i++)
		job_del(cd.jobs[i]);
	free(cd.jobs);
	job_del(pj);
	sched_glue_free(&cd);
	for (uint32_t i = 0; i < cd.nnodes; i++) {
		free(cd.nodes[i].cfg_tres);
		free(cd.nodes[i].topo_addr);
		free(cd.nodes[i].partitions);
	}
	for (uint32_t i = 0; i < cd.nparts; i++)
		free(cd.parts[i].tres);
	free(cd.nodes);
	free(cd.parts);
	conf_destroy(cd.conf);
	free(cd.acct.assocs);
	free(cd.acct.qos);
	return done_testing();
}
