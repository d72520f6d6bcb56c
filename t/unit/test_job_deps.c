/*
 * test_job_deps: job dependencies (job_deps.c) on an in-memory
 * controller: the parser (every type, "+time", "?" and ",", array task
 * suffixes, Slurm's refusals), each target state, all-of and any-of, the
 * text scontrol shows, singleton by name and user, the kill policy, and
 * that resolving many singleton jobs stays linear.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tap.h"

#include "ctld/ctld.h"
#include "ctld/intern.h"
#include "ctld_fixture.h"
#include "errors.h"
#include "states.h"
#include "xalloc.h"

static int parse_rc(const char *s, uint32_t *n, int *or_flag)
{
	dep_t *d = NULL;
	uint32_t k = 0;
	int o = 0;
	int rc = dep_parse(s, 0, &d, &k, &o);
	free(d);
	if (n)
		*n = k;
	if (or_flag)
		*or_flag = o;
	return rc;
}

static void test_parse(void)
{
	dep_t *d = NULL;
	uint32_t n = 0;
	int o = -1;
	ok(!dep_parse("afterok:12:13+5,after:14_3+2?singleton", 0, &d, &n, &o), "parse a full expression");
	is_int(n, 4, "four elements");
	is_int(o, 1, "'?' anywhere makes it any-of");
	is_int(d[0].type, DEP_AFTEROK, "afterok");
	is_int(d[0].job_id, 12, "id 12");
	is_int(d[0].time_min, 0, "no delay");
	is_int(d[0].task_id, DEP_TASK_NONE, "no task");
	is_int(d[1].job_id, 13, "second id of the same type");
	is_int(d[1].time_min, 5, "+5 minutes");
	is_int(d[2].type, DEP_AFTER, "after");
	is_int(d[2].task_id, 3, "array task _3");
	is_int(d[2].time_min, 2, "+2 after the task");
	is_int(d[3].type, DEP_SINGLETON, "singleton");
	free(d);

	uint32_t k;
	ok(!parse_rc("afterany:5,afternotok:6", &k, &o) && k == 2 && !o, "',' is all-of");
	ok(!parse_rc("AFTEROK:5", &k, NULL) && k == 1, "type names ignore case");
	ok(!parse_rc("afterok:5:5+3", &k, NULL) && k == 1, "the same target twice counts once");
	ok(!parse_rc("aftercorr:5", NULL, NULL), "aftercorr");
	ok(!parse_rc("afterburstbuffer:5", NULL, NULL), "afterburstbuffer");
	ok(!parse_rc("afterok:5_*", NULL, NULL), "a whole array: _*");
	ok(!parse_rc("", &k, NULL) && k == 0, "empty: none");
	ok(!parse_rc("afterok:999999", NULL, NULL), "unknown ids are accepted (met, as Slurm)");

	static const char *bad[] = {
		"afterok", "afterok:", "afterok:abc", "afterok:0", "after:4+x", "after:4+0",
		"bogus:1", "singleton:1", ",afterok:1", "afterok:1,", "afterok:1,,afterany:2",
		"afterok:1:", "afterok:1x", "afterok:4294967296", "afterok:1_", "afterok:1+",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		is_int(parse_rc(bad[i], NULL, NULL), ESLURM_DEPENDENCY, "refused: %s", bad[i]);
	is_int(parse_rc("expand:4", NULL, NULL), ESLURM_NOT_SUPPORTED, "expand: not supported");
	d = NULL;
	is_int(dep_parse("afterok:7", 7, &d, &n, &o), ESLURM_DEPENDENCY, "a job cannot wait for itself");
	ok(!d && !n, "nothing left on a refusal");
}

static job_t *mk(ctld_t *cd, uint32_t state, uint32_t uid, const char *name)
{
	job_t *j = fixture_job(cd, state, uid, uid ? "alice" : "root", NULL, 0, 0, 1, 0);
	if (name) {
		dep_index_remove(cd, j);
		intern_put(j->desc->name);
		j->desc->name = intern_get(name);
		dep_index_add(cd, j);
	}
	return j;
}

static void finish(job_t *t, uint32_t state, uint32_t exit_code, int64_t end)
{
	t->state = state;
	t->exit_code = exit_code;
	t->end_time = end;
	if (!t->start_time)
		t->start_time = end;
}

/* Set j's dependency to s and resolve it; returns j->dep_state. */
static int dep(ctld_t *cd, job_t *j, const char *s)
{
	if (job_set_deps(cd, j, s))
		return -1;
	job_deps_turn(cd);
	job_resolve_deps(cd, j);
	return j->dep_state;
}

static const char *str(const job_t *j)
{
	return j->dep_str ? j->dep_str : "(null)";
}

static void test_resolve(ctld_t *cd)
{
	int64_t now = ctld_now();
	job_t *pend = mk(cd, JOB_PENDING, 0, NULL);
	job_t *run = mk(cd, JOB_RUNNING, 0, NULL);
	job_t *ok1 = mk(cd, JOB_RUNNING, 0, NULL);
	finish(ok1, JOB_COMPLETE, 0, now - 30);
	job_t *bad = mk(cd, JOB_RUNNING, 0, NULL);
	finish(bad, JOB_FAILED, 1 << 8, now - 30);
	job_t *canc = mk(cd, JOB_PENDING, 0, NULL);
	finish(canc, JOB_CANCELLED, 0, now - 30);
	job_t *j = mk(cd, JOB_PENDING, 0, "waiter");
	char buf[128];

	snprintf(buf, sizeof(buf), "after:%u", pend->job_id);
	is_int(dep(cd, j, buf), 1, "after: a pending target waits");
	snprintf(buf, sizeof(buf), "after:%u(unfulfilled)", pend->job_id);
	is_str(str(j), buf, "shown unfulfilled");
	snprintf(buf, sizeof(buf), "after:%u", run->job_id);
	is_int(dep(cd, j, buf), 0, "after: a started target is met");
	is_str(str(j), "(null)", "nothing left to show");
	snprintf(buf, sizeof(buf), "after:%u", canc->job_id);
	is_int(dep(cd, j, buf), 0, "after: a target cancelled while pending is met");
	snprintf(buf, sizeof(buf), "after:%u+5", run->job_id);
	is_int(dep(cd, j, buf), 1, "after+5: 30 s after the start still waits");
	snprintf(buf, sizeof(buf), "after:%u+5(unfulfilled)", run->job_id);
	is_str(str(j), buf, "shown with its delay");
	run->start_time = now - 301;
	job_deps_turn(cd);
	job_resolve_deps(cd, j);
	is_int(j->dep_state, 0, "after+5: met 5 minutes after the start");

	snprintf(buf, sizeof(buf), "afterany:%u", run->job_id);
	is_int(dep(cd, j, buf), 1, "afterany: a running target waits");
	snprintf(buf, sizeof(buf), "afterany:%u", bad->job_id);
	is_int(dep(cd, j, buf), 0, "afterany: a failed target is met");
	snprintf(buf, sizeof(buf), "afterany:%u+1", bad->job_id);
	is_int(dep(cd, j, buf), 1, "afterany+1: 30 s after the end waits");

	snprintf(buf, sizeof(buf), "afterok:%u", ok1->job_id);
	is_int(dep(cd, j, buf), 0, "afterok: exit 0 is met");
	snprintf(buf, sizeof(buf), "afterok:%u", bad->job_id);
	is_int(dep(cd, j, buf), 2, "afterok: a failed target never");
	snprintf(buf, sizeof(buf), "afterok:%u(failed)", bad->job_id);
	is_str(str(j), buf, "shown failed");
	snprintf(buf, sizeof(buf), "afterok:%u", canc->job_id);
	is_int(dep(cd, j, buf), 2, "afterok: a cancelled target never");
	snprintf(buf, sizeof(buf), "afternotok:%u", bad->job_id);
	is_int(dep(cd, j, buf), 0, "afternotok: a failed target is met");
	snprintf(buf, sizeof(buf), "afternotok:%u", canc->job_id);
	is_int(dep(cd, j, buf), 0, "afternotok: a cancelled target is met");
	snprintf(buf, sizeof(buf), "afternotok:%u", ok1->job_id);
	is_int(dep(cd, j, buf), 2, "afternotok: exit 0 never");
	is_int(dep(cd, j, "afterok:999999"), 0, "a target that is gone: lifted");

	/* all-of and any-of */
	snprintf(buf, sizeof(buf), "afterok:%u,afterany:%u", ok1->job_id, run->job_id);
	is_int(dep(cd, j, buf), 1, "all-of: one met, one waiting: waits");
	snprintf(buf, sizeof(buf), "afterany:%u(unfulfilled)", run->job_id);
	is_str(str(j), buf, "only what is not met is shown");
	snprintf(buf, sizeof(buf), "afterok:%u,afterany:%u", bad->job_id, run->job_id);
	is_int(dep(cd, j, buf), 2, "all-of: one failed: never");
	snprintf(buf, sizeof(buf), "afterok:%u(failed),afterany:%u(unfulfilled)", bad->job_id, run->job_id);
	is_str(str(j), buf, "all-of text");
	snprintf(buf, sizeof(buf), "afterok:%u?afterany:%u", bad->job_id, run->job_id);
	is_int(dep(cd, j, buf), 1, "any-of: one failed, one waiting: waits");
	snprintf(buf, sizeof(buf), "afterok:%u(failed)?afterany:%u(unfulfilled)", bad->job_id, run->job_id);
	is_str(str(j), buf, "any-of text");
	snprintf(buf, sizeof(buf), "afterok:%u?afterok:%u", bad->job_id, canc->job_id);
	is_int(dep(cd, j, buf), 2, "any-of: all failed: never");
	snprintf(buf, sizeof(buf), "afterok:%u?afterany:%u", ok1->job_id, run->job_id);
	is_int(dep(cd, j, buf), 0, "any-of: one met is enough");
	is_str(str(j), "(null)", "any-of met: nothing shown");
	snprintf(buf, sizeof(buf), "afterok:%u,afterok:%u?afterany:%u", run->job_id, run->job_id, pend->job_id);
	is_int(dep(cd, j, buf), 1, "mixed: '?' wins, duplicates dropped");
	snprintf(buf, sizeof(buf), "afterok:%u(unfulfilled)?afterany:%u(unfulfilled)", run->job_id, pend->job_id);
	is_str(str(j), buf, "mixed text: every separator '?'");

	/* a met element stays met when its target goes back to pending */
	snprintf(buf, sizeof(buf), "after:%u,afterany:%u", run->job_id, pend->job_id);
	is_int(dep(cd, j, buf), 1, "after met, afterany waiting");
	run->state = JOB_PENDING;
	job_deps_turn(cd);
	job_resolve_deps(cd, j);
	snprintf(buf, sizeof(buf), "afterany:%u(unfulfilled)", pend->job_id);
	is_str(str(j), buf, "after stays met after its target is requeued");
	run->state = JOB_RUNNING;
	is_int(dep(cd, j, ""), 0, "an empty dependency clears it");
	ok(!j->ndeps && !j->dep_str, "nothing left");
}

static void test_singleton(ctld_t *cd)
{
	job_t *a = mk(cd, JOB_RUNNING, 1001, "barrier");
	job_t *b = mk(cd, JOB_PENDING, 1001, "barrier");
	job_t *c = mk(cd, JOB_PENDING, 1001, "barrier");
	job_t *other_user = mk(cd, JOB_PENDING, 1002, "barrier");
	job_t *other_name = mk(cd, JOB_PENDING, 1001, "barrier2");
	is_int(dep(cd, b, "singleton"), 1, "singleton: one of the name runs: waits");
	is_str(str(b), "singleton(unfulfilled)", "singleton text");
	is_int(dep(cd, other_user, "singleton"), 0, "another user's job of that name does not count");
	is_int(dep(cd, other_name, "singleton"), 0, "another name does not count");
	finish(a, JOB_COMPLETE, 0, ctld_now());
	is_int(dep(cd, b, "singleton"), 0, "the running one ended: the first pending may go");
	is_int(dep(cd, c, "singleton"), 1, "a later one waits for the earlier pending one");
	b->state = JOB_RUNNING;
	job_deps_turn(cd);
	job_resolve_deps(cd, c);
	is_int(c->dep_state, 1, "and then for it running");
	finish(b, JOB_COMPLETE, 0, ctld_now());
	job_deps_turn(cd);
	job_resolve_deps(cd, c);
	is_int(c->dep_state, 0, "both ended: met");
	/* a rename moves a job between groups */
	job_t *d = mk(cd, JOB_PENDING, 1001, "barrier3");
	job_t *e = mk(cd, JOB_PENDING, 1001, "barrier4");
	is_int(dep(cd, e, "singleton"), 0, "alone under its name");
	dep_index_remove(cd, d);
	intern_put(d->desc->name);
	d->desc->name = intern_get("barrier4");
	dep_index_add(cd, d);
	job_deps_turn(cd);
	e->deps[0].state = DEP_UNFULFILLED;
	job_resolve_deps(cd, e);
	is_int(e->dep_state, 1, "an earlier job renamed to its name blocks it");
}

/* Each fixture_ctld replaces the one fixture_keep holds: these stay
 * reachable, so that leak checks report only what is truly lost. */
static ctld_t *volatile keep_cds[3];

static void test_kill(const char *dir)
{
	ctld_t *cd = fixture_ctld(dir, 2, "DependencyParameters=max_depend_depth=5,kill_invalid_depend\n");
	keep_cds[1] = cd;
	job_t *j = mk(cd, JOB_PENDING, 0, NULL);
	ok(job_deps_kill_invalid(cd, j), "DependencyParameters=kill_invalid_depend kills");
	j->desc->flags |= JOB_F_NO_KILL_INV_DEP;
	ok(!job_deps_kill_invalid(cd, j), "--kill-on-invalid-dep=no overrides it");
	char *d2 = xasprintf("%s/2", dir);
	mkdir(d2, 0700);
	ctld_t *cd2 = fixture_ctld(d2, 2, "DependencyParameters=kill_invalid_depend_not\n");
	keep_cds[2] = cd2;
	job_t *k = mk(cd2, JOB_PENDING, 0, NULL);
	ok(!job_deps_kill_invalid(cd2, k), "only the whole word counts");
	k->desc->flags |= JOB_F_KILL_INV_DEP;
	ok(job_deps_kill_invalid(cd2, k), "--kill-on-invalid-dep=yes kills");
	free(d2);
}

/* 20,000 pending singleton jobs of one name and user: one turn resolves
 * them all with one look at the group (quadratic would be 4e8 steps). */
static void test_scale(ctld_t *cd)
{
	enum { N = 20000 };
	job_t **v = xmalloc(N * sizeof(*v));
	for (int i = 0; i < N; i++) {
		v[i] = mk(cd, JOB_PENDING, 1003, "wave");
		job_set_deps(cd, v[i], "singleton");
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	job_deps_turn(cd);
	uint32_t met = 0;
	for (int i = 0; i < N; i++) {
		job_resolve_deps(cd, v[i]);
		met += v[i]->dep_state == 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	is_int(met, 1, "exactly one of 20,000 singleton jobs may start");
	ok(v[0]->dep_state == 0, "the first one");
	printf("# resolving 20,000 singleton jobs: %.1f ms\n", ms);
	ok(ms < 1000, "one turn over 20,000 singleton jobs is linear (%.1f ms)", ms);
	free(v);
}

int main(void)
{
	char tmpl[] = "/tmp/test_job_deps.XXXXXX";
	const char *dir = mkdtemp(tmpl);
	ctld_t *cd = fixture_ctld(dir, 4, NULL);
	keep_cds[0] = cd;
	test_parse();
	test_resolve(cd);
	test_singleton(cd);
	char *kd = xasprintf("%s/k", dir);
	mkdir(kd, 0700);
	test_kill(kd);
	free(kd);
	test_scale(cd);
	done_testing();
}
