/*
 * test_acct_model: the account model of the controller (ctld/assoc.c,
 * ctld/acct_lim.c) without a daemon: limit values as sacctmgr takes and
 * prints them and their DB text, the association tree's lookups and what
 * an association inherits (Max* limits, QOS list, DefaultQOS),
 * coordinators, AdminLevel, and a job's account and QOS under each
 * AccountingStorageEnforce setting. Also the lookups' cost at 1,000 users
 * x 3 accounts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctld/ctld.h"
#include "ctld/acct_lim.h"
#include "ctld/assoc_int.h"
#include "ctld/sacctmgr_int.h"
#include "errors.h"
#include "strbuf.h"
#include "tap.h"
#include "xalloc.h"

static char *fmt_key(const lim_set_t *l, const char *key)
{
	strbuf_t sb;
	strbuf_init(&sb);
	acct_lim_fmt(&sb, l, acct_lim_key(key));
	char *s = strbuf_detach(&sb);
	return s ? s : xstrdup("");
}

static void check_fmt(const lim_set_t *l, const char *key, const char *want, const char *what)
{
	char *s = fmt_key(l, key);
	is_str(s, want, "%s", what);
	free(s);
}

static void test_limits(void)
{
	lim_set_t l;
	lim_set_clear(&l);
	char *err = NULL;
	ok(acct_lim_key("maxjobs") && acct_lim_key("MaxSubmit") == acct_lim_key("MaxSubmitJobs"),
	   "option names are case-insensitive, with their aliases");
	ok(!acct_lim_key("MaxBogus"), "an unknown option is not a limit");
	ok(!acct_lim_set(&l, acct_lim_key("MaxJobs"), "4", &err), "MaxJobs=4");
	is_int(l.max_jobs, 4, "count stored");
	ok(!acct_lim_set(&l, acct_lim_key("MaxWall"), "1:00:00", &err), "MaxWall=1:00:00");
	is_int(l.max_wall, 60, "wall in minutes");
	check_fmt(&l, "MaxWall", "01:00:00", "wall printed as sacctmgr does");
	ok(!acct_lim_set(&l, acct_lim_key("MaxWall"), "2-00:00:00", &err), "MaxWall=2-00:00:00");
	check_fmt(&l, "MaxWall", "2-00:00:00", "days printed");
	ok(!acct_lim_set(&l, acct_lim_key("GrpTRES"), "cpu=8,gres/gpu=4", &err), "GrpTRES=cpu=8,gres/gpu=4");
	is_int(l.grp_tres.v[LIM_TRES_CPU], 8, "cpu");
	is_int(l.grp_tres.v[LIM_TRES_GPU], 4, "gres/gpu");
	ok(l.grp_tres.v[LIM_TRES_MEM] == LIM_UNSET, "mem untouched");
	ok(!acct_lim_set(&l, acct_lim_key("GrpTRES"), "mem=4G", &err), "GrpTRES=mem=4G adds one TRES");
	is_int(l.grp_tres.v[LIM_TRES_MEM], 4096, "mem in MB");
	is_int(l.grp_tres.v[LIM_TRES_CPU], 8, "cpu kept");
	check_fmt(&l, "GrpTRES", "cpu=8,mem=4G,gres/gpu=4", "TRES printed in Slurm's order, mem with a unit");
	ok(!acct_lim_set(&l, acct_lim_key("GrpTRES"), "cpu=-1", &err), "cpu=-1");
	check_fmt(&l, "GrpTRES", "mem=4G,gres/gpu=4", "one TRES cleared");
	ok(!acct_lim_set(&l, acct_lim_key("GrpCPUs"), "16", &err), "legacy GrpCPUs=16");
	is_int(l.grp_tres.v[LIM_TRES_CPU], 16, "sets GrpTRES cpu");
	ok(!acct_lim_set(&l, acct_lim_key("MaxTRESMins"), "cpu=600,mem=100", &err), "TRES minutes");
	check_fmt(&l, "MaxTRESMins", "cpu=600,mem=100", "TRES-minutes of mem have no unit");
	ok(!acct_lim_set(&l, acct_lim_key("MaxJobs"), "-1", &err), "MaxJobs=-1");
	ok(l.max_jobs == LIM_UNSET, "cleared");
	check_fmt(&l, "MaxJobs", "", "a cleared limit prints empty");

	lim_set_t before = l;
	ok(acct_lim_set(&l, acct_lim_key("MaxJobs"), "many", &err), "a word is refused");
	ok(err && strstr(err, "MaxJobs"), "the error names the option: %s", err ? err : "");
	free(err);
	err = NULL;
	ok(acct_lim_set(&l, acct_lim_key("GrpTRES"), "cpu=8,bogus=1", &err), "unknown TRES refused");
	ok(err && strstr(err, "bogus"), "the error names the TRES");
	free(err);
	err = NULL;
	ok(!memcmp(&before, &l, sizeof(l)), "a refused value changes nothing (all or none)");
	ok(acct_lim_set(&l, acct_lim_key("GrpTRES"), "cpu", &err), "no value refused");
	free(err);
	err = NULL;
	ok(acct_lim_set(&l, acct_lim_key("MaxWall"), "1:xx", &err), "bad time refused");
	free(err);
	err = NULL;

	/* the DB text reads back exactly */
	char *txt = acct_lim_encode(&l);
	lim_set_t back;
	ok(!acct_lim_decode(&back, txt, &err), "DB text decodes: %s", txt);
	ok(!memcmp(&back, &l, sizeof(l)), "round trip exact");
	free(txt);
	lim_set_clear(&back);
	txt = acct_lim_encode(&back);
	is_str(txt, "", "nothing set: empty text");
	free(txt);
	ok(acct_lim_decode(&back, "MaxJobs=x", &err), "a corrupt DB text is reported");
	free(err);
}

/* A small model: root, physics (under root), theory (under physics),
 * users alice (physics, theory), bob (theory; a partition one too). */
static ctld_t cd;

static acct_assoc_t *add_acct(const char *name, const char *parent)
{
	acct_account_t *a = acct_account_push(&cd.acct);
	a->name = xstrdup(name);
	uint32_t pid = parent ? acct_assoc_find(&cd, NULL, parent, NULL)->id : 0;
	acct_assoc_t *x = acct_assoc_push(&cd.acct, 0);
	x->account = xstrdup(name);
	x->parent_id = pid;
	acct_changed(&cd);
	return acct_assoc_find(&cd, NULL, name, NULL);
}

static acct_assoc_t *add_user_assoc(const char *user, uint32_t uid, const char *acct, const char *part)
{
	if (!acct_user_find(&cd, user)) {
		acct_user_t *u = acct_user_push(&cd.acct);
		u->name = xstrdup(user);
		u->uid = uid;
		u->default_account = xstrdup(acct);
		acct_changed(&cd);
	}
	uint32_t pid = acct_assoc_find(&cd, NULL, acct, NULL)->id;
	acct_assoc_t *x = acct_assoc_push(&cd.acct, 0);
	x->account = xstrdup(acct);
	x->user = xstrdup(user);
	x->uid = uid;
	x->partition = xstrdup(part);
	x->parent_id = pid;
	acct_changed(&cd);
	return acct_assoc_find(&cd, user, acct, part);
}

static job_t *new_job(uint32_t uid, const char *acct, const char *qos, const char *part)
{
	job_t *j = xcalloc(1, sizeof(*j));
	j->desc = xcalloc(1, sizeof(*j->desc));
	j->user_id = uid;
	j->desc->account = xstrdup(acct);
	j->desc->qos = xstrdup(qos);
	j->desc->partition = xstrdup(part);
	return j;
}

static void free_job(job_t *j)
{
	free(j->desc->account);
	free(j->desc->qos);
	free(j->desc->partition);
	free(j->desc);
	free(j);
}

static int resolve(uint32_t uid, const char *acct, const char *qos, const char *part,
		   char **acct_out, char **qos_out)
{
	job_t *j = new_job(uid, acct, qos, part);
	char *msg = NULL;
	int rc = acct_job_resolve(&cd, j, uid, &msg);
	free(msg);
	*acct_out = xstrdup(j->desc->account ? j->desc->account : "(null)");
	*qos_out = xstrdup(j->desc->qos ? j->desc->qos : "(null)");
	free_job(j);
	return rc;
}

/* A coordinator's settings (sacctmgr words, as the request has them) on
 * association a: NULL if she may, else why not. */
static char *coord_try(const mgr_req_t *m, acct_assoc_t *a, const char *key, const char *val)
{
	assoc_set_t s = { 0 };
	lim_set_clear(&s.lim);
	mgr_out_t o = { 0 };
	char *why = NULL;
	if (mgr_assoc_opt(&cd, &s, key, val, &o) == 1)
		why = mgr_coord_refusal(&cd, m, a, NULL, &s);
	else
		why = xstrdup("(bad option)");
	mgr_assoc_set_free(&s);
	strbuf_release(&o.out);
	strbuf_release(&o.err);
	return why;
}

static void coord_check(const mgr_req_t *m, acct_assoc_t *a, const char *key, const char *val,
			const char *want, const char *what)
{
	char *why = coord_try(m, a, key, val);
	if (why && *why && why[strlen(why) - 1] == '\n')
		why[strlen(why) - 1] = 0;
	if (want)
		ok(why && strstr(why, want), "%s: %s", what, why ? why : "(allowed)");
	else
		ok(!why, "%s: %s", what, why ? why : "allowed");
	free(why);
}

/* Run from test_model: physics (MaxJobs 10, GrpJobs 20) inherits root's
 * QOS normal; theory below it has normal,high (an admin's grant); alice
 * coordinates physics. */
static void test_coord_grants(void)
{
	acct_assoc_t *th = acct_assoc_find(&cd, NULL, "theory", NULL);
	lim_set_t b;
	acct_assoc_bound_lim(&cd, th, &b);
	is_int(b.max_jobs, 10, "bound below theory: MaxJobs as theory inherits it");
	is_int(b.grp_jobs, 20, "bound below theory: GrpJobs of physics binds there too");
	th->lim.grp_jobs = 30;
	acct_assoc_bound_lim(&cd, th, &b);
	is_int(b.grp_jobs, 20, "a higher GrpJobs on theory does not raise it");
	th->lim.grp_jobs = 5;
	acct_assoc_bound_lim(&cd, th, &b);
	is_int(b.grp_jobs, 5, "a lower one lowers it");
	th->lim.grp_jobs = LIM_UNSET;
	ok(b.grp_tres.v[LIM_TRES_CPU] == LIM_UNSET, "no GrpTRES anywhere: no bound");
	acct_assoc_t *bt = acct_assoc_find(&cd, "bob", "theory", NULL);
	is_int(acct_assoc_eff_prio(&cd, bt), 0, "no Priority anywhere");
	acct_assoc_find(&cd, NULL, "physics", NULL)->priority = 7;
	is_int(acct_assoc_eff_prio(&cd, bt), 7, "Priority inherited from two levels up");

	mgr_req_t m = { 0 };
	m.uid = 1001;
	coord_check(&m, bt, "QOS+", "high", "(high)", "a QOS physics lacks is refused by name");
	coord_check(&m, bt, "QOS", "normal,high", "(high)", "also in a whole list");
	coord_check(&m, bt, "QOS", "normal", NULL, "a QOS of physics is hers to give");
	coord_check(&m, bt, "QOS-", "high", NULL, "taking one away is free");
	coord_check(&m, bt, "QOS", "-1", NULL, "clearing what it inherits already gives nothing new");

	/* bob's own list normal: clearing or emptying it inherits theory's
	 * normal,high, a QOS she does not hold */
	assoc_set_t s = { 0 };
	lim_set_clear(&s.lim);
	mgr_out_t o = { 0 };
	mgr_assoc_opt(&cd, &s, "QOS", "normal", &o);
	mgr_assoc_apply(&cd, bt, &s);
	mgr_assoc_set_free(&s);
	is_int(bt->nqos, 1, "bob has a list of his own");
	uint32_t n;
	memset(&s, 0, sizeof(s));
	lim_set_clear(&s.lim);
	mgr_assoc_opt(&cd, &s, "QOS-", "normal", &o);
	uint32_t *after = mgr_qos_after(&cd, bt, NULL, &s, &n);
	ok(n == 2 && after[0] == 1 && after[1] == 2, "emptying a list inherits the parent's");
	free(after);
	mgr_assoc_set_free(&s);
	coord_check(&m, bt, "QOS", "-1", "(high)", "so clearing it is refused");
	coord_check(&m, bt, "QOS-", "normal", "(high)", "and so is emptying it");
	coord_check(&m, bt, "QOS+", "normal", NULL, "adding a QOS she holds is not");
	strbuf_release(&o.out);
	strbuf_release(&o.err);

	coord_check(&m, bt, "MaxJobs", "11", "MaxJobs=11 on user bob of account theory: above what account theory allows (MaxJobs=10)", "a MaxJobs above the inherited one is refused");
	coord_check(&m, bt, "MaxJobs", "10", NULL, "up to it is not");
	coord_check(&m, bt, "MaxJobs", "-1", NULL, "clearing (inheriting) is not");
	coord_check(&m, bt, "GrpJobs", "21", "GrpJobs=20", "a GrpJobs above an ancestor's is refused");
	coord_check(&m, bt, "GrpTRES", "cpu=1000", NULL, "a limit nobody above sets is free");
	coord_check(&m, bt, "Priority", "8", "Priority=8 on user bob", "a Priority above the parent's is refused");
	coord_check(&m, bt, "Priority", "7", NULL, "the parent's is not");
	coord_check(&m, bt, "Fairshare", "1000", NULL, "Fairshare is free, as in Slurm");
	m.uid = 1002;
	coord_check(&m, bt, "MaxJobs", "1", "not a coordinator", "bob coordinates nothing");
	acct_assoc_find(&cd, NULL, "physics", NULL)->priority = 0;
	free(bt->qos_ids);            /* bob inherits theory's list again */
	bt->qos_ids = NULL;
	bt->nqos = 0;
}

static void test_model(void)
{
	cd.slurm_uid = 0;
	cd.acct.cluster = xstrdup("test");
	cd.acct.next_assoc_id = cd.acct.next_qos_id = 1;
	acct_qos_t *q = acct_qos_push(&cd.acct, 0);
	q->name = xstrdup("normal");
	q = acct_qos_push(&cd.acct, 0);
	q->name = xstrdup("high");
	acct_qos_fix_names(&cd.acct);
	acct_changed(&cd);
	acct_assoc_t *root = add_acct("root", NULL);
	root->qos_ids = xmalloc(sizeof(uint32_t));
	root->qos_ids[0] = 1;
	root->nqos = 1;
	acct_assoc_t *phys = add_acct("physics", "root");
	phys->lim.max_jobs = 10;
	phys->lim.grp_jobs = 20;
	add_acct("theory", "physics");
	add_user_assoc("alice", 1001, "physics", NULL);
	add_user_assoc("alice", 1001, "theory", NULL);
	add_user_assoc("bob", 1002, "theory", NULL);
	acct_assoc_t *bp = add_user_assoc("bob", 1002, "theory", "short");
	bp->lim.max_jobs = 2;

	ok(acct_qos_by_name(&cd, "HIGH") && acct_qos_by_name(&cd, "HIGH")->id == 2, "QOS by name, any case");
	ok(acct_qos_by_id(&cd, 1) && !strcmp(acct_qos_by_id(&cd, 1)->name, "normal"), "QOS by id");
	ok(!acct_qos_by_name(&cd, "nosuch"), "unknown QOS");
	ok(acct_user_by_uid(&cd, 1002) && !strcmp(acct_user_by_uid(&cd, 1002)->name, "bob"), "user by uid");
	acct_assoc_t *bt = acct_assoc_find(&cd, "bob", "theory", NULL);
	ok(bt && !bt->partition, "user association for any partition");
	ok(acct_assoc_find(&cd, "BOB", "Theory", "short") != bt, "the partition's own association is apart");
	ok(!acct_assoc_find(&cd, "bob", "physics", NULL), "no association, none found");
	acct_assoc_t *th = acct_assoc_find(&cd, NULL, "theory", NULL);
	ok(acct_assoc_parent(&cd, bt) == th, "a user association's parent is its account's");
	ok(acct_assoc_parent(&cd, th) == acct_assoc_find(&cd, NULL, "physics", NULL), "sub-account's parent");

	lim_set_t eff;
	acct_assoc_eff_lim(&cd, bt, &eff);
	is_int(eff.max_jobs, 10, "MaxJobs inherited from two levels up");
	ok(eff.grp_jobs == LIM_UNSET, "GrpJobs not inherited");
	acct_assoc_eff_lim(&cd, acct_assoc_find(&cd, "bob", "theory", "short"), &eff);
	is_int(eff.max_jobs, 2, "its own MaxJobs wins");
	ok(acct_assoc_qos_allowed(&cd, bt, 1) && !acct_assoc_qos_allowed(&cd, bt, 2),
	   "QOS list inherited from root");
	is_int(acct_assoc_def_qos(&cd, bt), 0, "no DefaultQOS anywhere");
	th->def_qos_id = 2;
	th->qos_ids = xmalloc(2 * sizeof(uint32_t));
	th->qos_ids[0] = 1;
	th->qos_ids[1] = 2;
	th->nqos = 2;
	acct_changed(&cd);
	bt = acct_assoc_find(&cd, "bob", "theory", NULL);
	is_int(acct_assoc_def_qos(&cd, bt), 2, "DefaultQOS inherited from the account");
	ok(acct_assoc_qos_allowed(&cd, bt, 2), "the account's QOS list applies below it");

	/* coordinators: of an account and every account under it */
	acct_user_t *al = acct_user_find(&cd, "alice");
	al->coord_accounts = xmalloc(sizeof(char *));
	al->coord_accounts[0] = xstrdup("physics");
	al->ncoord = 1;
	ok(acct_is_coord(&cd, 1001, "physics") && acct_is_coord(&cd, 1001, "theory"),
	   "a coordinator of physics coordinates theory below it");
	ok(!acct_is_coord(&cd, 1001, "root") && !acct_is_coord(&cd, 1002, "theory"), "and nothing else");

	test_coord_grants();

	/* AdminLevel */
	is_int(acct_admin_level(&cd, 0), ACCT_ADMIN_SUPER, "root is an Administrator");
	is_int(acct_admin_level(&cd, 1002), ACCT_ADMIN_NONE, "bob is None");
	acct_user_find(&cd, "bob")->admin_level = ACCT_ADMIN_OPERATOR;
	ok(is_operator(&cd, 1002) && !is_super(&cd, 1002), "an Operator is not a super user");
	ok(!is_operator(&cd, 4242), "a user unknown to accounting is nobody");

	/* a job's account and QOS */
	char *a, *qs;
	cd.acct.enforce = acct_enforce_parse("associations,qos");
	is_int(resolve(1002, NULL, NULL, "defq", &a, &qs), 0, "default account");
	is_str(a, "theory", "bob's DefaultAccount");
	is_str(qs, "high", "the association's DefaultQOS");
	free(a);
	free(qs);
	is_int(resolve(1001, "PHYSICS", NULL, "defq", &a, &qs), 0, "account named in any case");
	is_str(a, "physics", "as the association spells it");
	is_str(qs, "normal", "the only allowed QOS when there is no DefaultQOS");
	free(a);
	free(qs);
	is_int(resolve(1001, "physics", "high", NULL, &a, &qs), ESLURM_INVALID_QOS, "QOS not allowed");
	free(a);
	free(qs);
	is_int(resolve(1001, "physics", "nosuch", NULL, &a, &qs), ESLURM_INVALID_QOS, "unknown QOS");
	free(a);
	free(qs);
	is_int(resolve(1002, "physics", NULL, NULL, &a, &qs), ESLURM_INVALID_ACCOUNT, "no such association");
	free(a);
	free(qs);
	is_int(resolve(4242, NULL, NULL, NULL, &a, &qs), ESLURM_INVALID_ACCOUNT, "user unknown to accounting");
	free(a);
	free(qs);
	cd.acct.enforce = acct_enforce_parse("associations");
	is_int(resolve(1001, "physics", "high", NULL, &a, &qs), 0, "without qos enforcement a QOS is not checked against the list");
	free(a);
	free(qs);
	cd.acct.enforce = 0;
	is_int(resolve(1002, "physics", NULL, NULL, &a, &qs), 0, "no enforcement: accepted");
	is_str(a, "theory", "an account without association falls back to the default one (as slurmctld)");
	free(a);
	free(qs);
	is_int(resolve(4242, "anything", "nosuch", NULL, &a, &qs), 0, "no enforcement, unknown user: accepted");
	is_str(a, "anything", "its account kept");
	free(a);
	free(qs);
	is_int(acct_enforce_parse("safe"), ACCT_ENF_ASSOCS | ACCT_ENF_LIMITS | ACCT_ENF_SAFE,
	       "safe implies limits and associations");
	is_int(acct_enforce_parse(NULL), 0, "none");
}

static void test_scale(void)
{
	/* 1,000 users x 3 accounts: lookups stay O(1) */
	ctld_t big;
	memset(&big, 0, sizeof(big));
	ctld_t saved = cd;
	cd = big;
	cd.acct.cluster = xstrdup("big");
	cd.acct.next_assoc_id = cd.acct.next_qos_id = 1;
	add_acct("root", NULL);
	char name[32];
	for (int a = 0; a < 3; a++) {
		snprintf(name, sizeof(name), "acct%d", a);
		acct_account_t *ac = acct_account_push(&cd.acct);
		ac->name = xstrdup(name);
		acct_assoc_t *x = acct_assoc_push(&cd.acct, 0);
		x->account = xstrdup(name);
		x->parent_id = 1;
	}
	for (int u = 0; u < 1000; u++) {
		acct_user_t *us = acct_user_push(&cd.acct);
		snprintf(name, sizeof(name), "user%d", u);
		us->name = xstrdup(name);
		us->uid = 10000 + (uint32_t)u;
		for (int a = 0; a < 3; a++) {
			acct_assoc_t *x = acct_assoc_push(&cd.acct, 0);
			char an[16];
			snprintf(an, sizeof(an), "acct%d", a);
			x->account = xstrdup(an);
			x->user = xstrdup(name);
			x->uid = us->uid;
			x->parent_id = 2 + (uint32_t)a;
		}
	}
	acct_changed(&cd);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int found = 0;
	for (int r = 0; r < 100; r++)
		for (int u = 0; u < 1000; u++) {
			snprintf(name, sizeof(name), "user%d", u);
			found += acct_user_by_uid(&cd, 10000 + (uint32_t)u) != NULL;
			found += acct_assoc_find(&cd, name, "acct1", NULL) != NULL;
		}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double us = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / 200000.0;
	is_int(found, 200000, "every lookup found its record");
	/* a scan of the 3,000 associations would take tens of us; the bound
	 * leaves room for sanitizers and a loaded machine */
	ok(us < 20.0, "a lookup at 1,000 users x 3 accounts takes %.3f us", us);
	acct_free(&cd.acct);
	cd = saved;
}

int main(void)
{
	test_limits();
	test_model();
	test_scale();
	acct_free(&cd.acct);
	return done_testing();
}
