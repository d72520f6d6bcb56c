/*
 * test_cred: the launch digest a step credential binds (cred_launch_digest):
 * stable, the same for every node of a step, and different whenever the
 * command, environment, directory, user, group, time limit, flags or
 * stdin routing change; a SHA-256 as 64 lowercase hex digits. The job's
 * prolog environment (penv) and the task layout survive a signed round
 * trip, values with blanks and '=' included, and a malformed one is
 * refused. cred_launch_node_check: a node takes only the launch of its own
 * place in the step (index, first task, task count), so one node's launch
 * presented to another is refused. The launch MAC (cred_launch_key,
 * cred_launch_mac, cred_launch_mac_check): each node's launch carries its
 * own; one node's MAC on another node's fields, a MAC under another
 * cluster key or another step's key, and a launch without one are refused;
 * every field of the launch but the MAC itself changes it.
 */
#include "tap.h"
#include "cred.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "proto_schema.h"

static void launch_init(msg_launch_step_t *m)
{
	memset(m, 0, sizeof(*m));
	m->job_id = 7;
	m->step_id = 2;
	m->user_id = 1000;
	m->group_id = 100;
	m->cwd = (char *)"/home/alice";
	m->flags = STEP_F_STANDALONE;
	strv_push(&m->argv, "hostname");
	strv_push(&m->argv, "-s");
	strv_push(&m->env, "PATH=/bin");
	strv_push(&m->env, "SLURM_UMASK=0077");
}

static void launch_free(msg_launch_step_t *m)
{
	strv_free(&m->argv);
	strv_free(&m->env);
}

static void test_penv(void)
{
	char tmpl[] = "/tmp/test_cred.XXXXXX";
	char *dir = mkdtemp(tmpl);
	char *key = xasprintf("%s/slurm.key", dir);
	char *err = NULL;
	ok(dir && auth_keygen(key, &err) == 0, "keygen");
	conf_t c = { .dir = dir, .auth_type = (char *)"auth/slurm" };
	auth_t *a = auth_create(&c, &err);
	ok(a != NULL, "auth: %s", err ? err : "ok");
	char digest[CRED_DIGEST_HEX + 1];
	memset(digest, 'a', CRED_DIGEST_HEX);
	digest[CRED_DIGEST_HEX] = 0;
	cred_t cr = { .job_id = 9, .step_id = 0, .uid = 1000, .gid = 100, .user = (char *)"alice",
		      .nodes = (char *)"n[1-2]", .ntasks = 2, .digest = digest,
		      .expires = time(NULL) + 60 };
	strv_push(&cr.penv, "SLURM_JOB_NAME=my job=x");
	strv_push(&cr.penv, "SLURM_JOB_NODELIST=n[1-2]");
	strv_push(&cr.penv, "SLURM_JOB_ACCOUNT=");
	cr.layout = (char *)"1(x2)";
	char *s = cred_create(a, &cr, &err);
	ok(s != NULL, "signed with penv");
	cred_t out;
	ok(s && cred_verify(a, s, 0, time(NULL), &out, &err) == 0, "verified");
	is_int((int)out.penv.n, 3, "3 variables");
	if (out.penv.n == 3) {
		is_str(out.penv.v[0], "SLURM_JOB_NAME=my job=x", "blanks and '=' kept");
		is_str(out.penv.v[1], "SLURM_JOB_NODELIST=n[1-2]", "second");
		is_str(out.penv.v[2], "SLURM_JOB_ACCOUNT=", "empty value");
	}
	is_int((int)out.ntasks, 2, "fields after it still parse");
	is_str(out.layout, "1(x2)", "layout signed and read back");
	cred_release(&out);
	free(s);
	/* the step's GPUs per node are signed: changing them breaks it */
	cr.gpus = (char *)"3,c";
	s = cred_create(a, &cr, &err);
	ok(s && cred_verify(a, s, 0, time(NULL), &out, &err) == 0 && out.gpus &&
	   !strcmp(out.gpus, "3,c"), "step GPUs signed and read back");
	cred_release(&out);
	char *g = s ? strstr(s, "gpus=3,c") : NULL;
	if (g)
		g[5] = 'f';   /* gpus=f,c: every GPU on node 0 */
	ok(g && cred_verify(a, s, 0, time(NULL), &out, &err) < 0, "step GPUs changed: refused");
	cred_release(&out);
	free(s);
	cr.gpus = NULL;
	strv_free(&cr.penv);
	s = cred_create(a, &cr, &err);
	ok(s && !strstr(s, "penv="), "no penv: none written");
	free(s);

	/* malformed: odd hex, an entry without '=', one not ended by NUL */
	static const char *const bad[] = { "414", "4100", "413d62", "zz00" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *p = xasprintf("sluice-cred 1 job=9 step=0 uid=1 gid=1 user=a nodes=n1 tasks=1 "
				    "digest=%s penv=%s expires=99", digest, bad[i]);
		cred_t x;
		ok(cred_parse(p, &x) < 0, "penv=%s refused", bad[i]);
		free(p);
	}
	char *p = xasprintf("sluice-cred 1 job=9 step=0 uid=1 gid=1 user=a nodes=n1 tasks=1 "
			    "digest=%s penv=413d6200 expires=99", digest);
	cred_t x;
	ok(cred_parse(p, &x) == 0 && x.penv.n == 1 && !strcmp(x.penv.v[0], "A=b"), "penv=A=b");
	cred_release(&x);
	free(p);
	auth_destroy(a);
	unlink(key);
	rmdir(dir);
	free(key);
	free(err);
}

static void test_layout(void)
{
	uint32_t v[] = { 2, 2, 1, 3, 3, 3 }, *o = NULL, n = 0;
	char *s = cred_layout_string(v, 6);
	is_str(s, "2(x2),1,3(x3)", "layout compressed as Slurm's count lists");
	ok(cred_layout_parse(s, 6, &o, &n) == 0 && n == 6 && !memcmp(o, v, sizeof(v)),
	   "and read back");
	free(o);
	ok(cred_layout_parse(s, 5, &o, &n) < 0 && !o, "more counts than nodes refused");
	free(s);
	static const char *const bad[] = { "", "2,", ",2", "(x2)", "2(x0)", "2(x", "2(x2", "a",
					   "2 1", "2(x2)3", "99999999999", "1(x99999999999)" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		o = NULL;
		ok(cred_layout_parse(bad[i], 100, &o, &n) < 0 && !o, "layout '%s' refused", bad[i]);
	}
	ok(cred_layout_parse(NULL, 100, &o, &n) < 0, "no layout refused");
}

/* A step of 5 tasks on n[1-3]: 2 on n1, 2 on n2, 1 on n3. */
static void node_launch(msg_launch_step_t *m, uint32_t node_id, uint32_t first, uint32_t ntasks)
{
	launch_init(m);
	m->node_id = node_id;
	m->first_task = first;
	m->ntasks = ntasks;
	m->total_tasks = 5;
	m->nnodes = 3;
}

static void test_node_check(void)
{
	char digest[CRED_DIGEST_HEX + 1];
	memset(digest, 'a', CRED_DIGEST_HEX);
	digest[CRED_DIGEST_HEX] = 0;
	cred_t c = { .job_id = 7, .step_id = 2, .uid = 1000, .gid = 100, .user = (char *)"alice",
		     .nodes = (char *)"n[1-3]", .ntasks = 5, .digest = digest,
		     .layout = (char *)"2(x2),1" };
	msg_launch_step_t m;
	const char *why = NULL;
	struct { const char *node; uint32_t id, first, n; } good[] = {
		{ "n1", 0, 0, 2 }, { "n2", 1, 2, 2 }, { "n3", 2, 4, 1 } };
	for (int i = 0; i < 3; i++) {
		node_launch(&m, good[i].id, good[i].first, good[i].n);
		ok(cred_launch_node_check(&c, good[i].node, &m, &why) == 0,
		   "%s takes its own launch", good[i].node);
		for (int k = 0; k < 3; k++) {
			if (k == i)
				continue;
			why = NULL;
			ok(cred_launch_node_check(&c, good[k].node, &m, &why) < 0 && why,
			   "%s's launch presented to %s refused: %s", good[i].node, good[k].node,
			   why ? why : "");
		}
		launch_free(&m);
	}
	node_launch(&m, 1, 2, 2);
	is_int(cred_launch_node_check(&c, "n2", &m, &why), 0, "n2's launch");
	m.first_task = 3;
	ok(cred_launch_node_check(&c, "n2", &m, &why) < 0, "another first task refused");
	m.first_task = 2;
	m.ntasks = 3;
	ok(cred_launch_node_check(&c, "n2", &m, &why) < 0, "another task count refused");
	m.ntasks = 2;
	m.total_tasks = 4;
	ok(cred_launch_node_check(&c, "n2", &m, &why) < 0, "another total refused");
	m.total_tasks = 5;
	m.nnodes = 2;
	ok(cred_launch_node_check(&c, "n2", &m, &why) < 0, "another node count refused");
	m.nnodes = 3;
	ok(cred_launch_node_check(&c, "n4", &m, &why) < 0 && !strcmp(why, "this node is not in the credential"),
	   "a node not in the step refused");
	c.layout = NULL;
	ok(cred_launch_node_check(&c, "n2", &m, &why) < 0, "no layout: refused");
	c.layout = (char *)"2,3";
	ok(cred_launch_node_check(&c, "n2", &m, &why) < 0, "a layout for fewer nodes refused");
	c.layout = (char *)"2(x3)";
	ok(cred_launch_node_check(&c, "n2", &m, &why) < 0, "a layout of other than the tasks refused");
	launch_free(&m);
}

/* A fresh cluster key in a directory of its own; *dir to clean up. */
static auth_t *key_auth(char **dir)
{
	char tmpl[] = "/tmp/test_cred.XXXXXX";
	*dir = xstrdup(mkdtemp(tmpl));
	char *key = xasprintf("%s/slurm.key", *dir), *err = NULL;
	auth_t *a = NULL;
	if (auth_keygen(key, &err) == 0) {
		conf_t c = { .dir = *dir, .auth_type = (char *)"auth/slurm" };
		a = auth_create(&c, &err);
	}
	ok(a != NULL, "cluster key: %s", err ? err : "ok");
	free(err);
	free(key);
	return a;
}

static void key_auth_done(auth_t *a, char *dir)
{
	char *key = xasprintf("%s/slurm.key", dir);
	auth_destroy(a);
	unlink(key);
	rmdir(dir);
	free(key);
	free(dir);
}

/* A step of 5 tasks on n[1-3] (2, 2, 1), its credential signed with a. */
static char *step_cred(auth_t *a, uint32_t step)
{
	char digest[CRED_DIGEST_HEX + 1], *err = NULL;
	msg_launch_step_t m;
	launch_init(&m);
	cred_launch_digest(&m, digest);
	launch_free(&m);
	cred_t c = { .job_id = 7, .step_id = step, .uid = 1000, .gid = 100, .user = (char *)"alice",
		     .nodes = (char *)"n[1-3]", .ntasks = 5, .digest = digest,
		     .layout = (char *)"2(x2),1", .expires = time(NULL) + 60 };
	char *s = cred_create(a, &c, &err);
	free(err);
	return s;
}

static void test_launch_mac(void)
{
	char *dir_a, *dir_b;
	auth_t *a = key_auth(&dir_a), *b = key_auth(&dir_b);
	char *cred = step_cred(a, 2), *cred3 = step_cred(a, 3);
	ok(cred && cred3, "credentials signed");
	char k[CRED_DIGEST_HEX + 1], k2[CRED_DIGEST_HEX + 1], kb[CRED_DIGEST_HEX + 1];
	char k3[CRED_DIGEST_HEX + 1];
	ok(cred_launch_key(a, cred, k) == 0 && strspn(k, "0123456789abcdef") == CRED_DIGEST_HEX,
	   "launch key: 64 hex digits");
	ok(cred_launch_key(a, cred, k2) == 0 && !strcmp(k, k2), "launch key stable");
	ok(cred_launch_key(b, cred, kb) == 0 && strcmp(k, kb), "another cluster key: another launch key");
	ok(cred_launch_key(a, cred3, k3) == 0 && strcmp(k, k3), "another step: another launch key");
	ok(cred_launch_key(NULL, cred, k2) < 0, "no cluster key: no launch key");
	ok(!strstr(cred, k), "the launch key is not in the credential");

	struct { uint32_t id, first, n; } nodes[] = { { 0, 0, 2 }, { 1, 2, 2 }, { 2, 4, 1 } };
	char mac[3][CRED_DIGEST_HEX + 1];
	msg_launch_step_t m;
	const char *why = NULL;
	for (int i = 0; i < 3; i++) {
		node_launch(&m, nodes[i].id, nodes[i].first, nodes[i].n);
		m.cred = cred;
		ok(cred_launch_mac(k, &m, mac[i]) == 0, "node %d: MAC", i);
		m.launch_mac = mac[i];
		why = NULL;
		is_int(cred_launch_mac_check(a, &m, &why), 0, "node %d takes its own launch (%s)", i,
		       why ? why : "ok");
		launch_free(&m);
	}
	ok(strcmp(mac[0], mac[1]) && strcmp(mac[1], mac[2]), "each node's MAC differs");
	/* the eavesdropper's forgery: node 0's launch with node 1's fields */
	for (int i = 0; i < 3; i++)
		for (int t = 0; t < 3; t++) {
			if (t == i)
				continue;
			node_launch(&m, nodes[t].id, nodes[t].first, nodes[t].n);
			m.cred = cred;
			m.launch_mac = mac[i];
			why = NULL;
			ok(cred_launch_mac_check(a, &m, &why) < 0 && why &&
			   strstr(why, "launch MAC does not match"),
			   "node %d's MAC on node %d's launch refused: %s", i, t, why ? why : "");
			launch_free(&m);
		}
	node_launch(&m, 1, 2, 2);
	m.cred = cred;
	m.launch_mac = mac[1];
	ok(cred_launch_mac_check(b, &m, &why) < 0, "a node with another cluster key refuses it");
	char fb[CRED_DIGEST_HEX + 1], f3[CRED_DIGEST_HEX + 1];
	ok(cred_launch_mac(kb, &m, fb) == 0, "MAC under another cluster's key");
	m.launch_mac = fb;
	ok(cred_launch_mac_check(a, &m, &why) < 0, "a MAC under another cluster key refused");
	ok(cred_launch_mac(k3, &m, f3) == 0, "MAC under another step's key");
	m.launch_mac = f3;
	ok(cred_launch_mac_check(a, &m, &why) < 0, "a MAC under another step's key refused");
	m.launch_mac = NULL;
	why = NULL;
	ok(cred_launch_mac_check(a, &m, &why) < 0 && why && strstr(why, "carries no MAC"),
	   "a launch without a MAC refused: %s", why ? why : "");
	m.launch_mac = (char *)"";
	ok(cred_launch_mac_check(a, &m, &why) < 0, "an empty MAC refused");
	char shortmac[CRED_DIGEST_HEX];
	memcpy(shortmac, mac[1], CRED_DIGEST_HEX - 1);
	shortmac[CRED_DIGEST_HEX - 1] = 0;
	m.launch_mac = shortmac;
	ok(cred_launch_mac_check(a, &m, &why) < 0, "a truncated MAC refused");
	m.launch_mac = mac[1];
	m.cred = cred3;
	ok(cred_launch_mac_check(a, &m, &why) < 0, "the MAC with another step's credential refused");
	m.cred = NULL;
	ok(cred_launch_mac_check(a, &m, &why) < 0, "no credential: refused");
	m.cred = cred;
	ok(cred_launch_mac_check(a, &m, &why) == 0, "and back: taken");
	ok(cred_launch_mac((const char *)"xyz", &m, fb) < 0, "a key that is not 64 hex: no MAC");
	launch_free(&m);

	/* every field the launch carries is under the MAC (schema walk:
	 * a new field is covered or this fails) */
	const proto_schema_t *sc = proto_schema(MSG_LAUNCH_STEP);
	char base[CRED_DIGEST_HEX + 1], d[CRED_DIGEST_HEX + 1];
	node_launch(&m, 1, 2, 2);
	m.cred = cred;
	cred_launch_mac(k, &m, base);
	launch_free(&m);
	for (size_t i = 0; sc && i < sc->nfields; i++) {
		const proto_field_t *f = &sc->fields[i];
		if (!strcmp(f->name, "launch_mac"))
			continue;
		node_launch(&m, 1, 2, 2);
		m.cred = cred;
		void *at = (char *)&m + f->off;
		int known = 1;
		if (f->type == FT_U32)
			*(uint32_t *)at ^= 0x10;
		else if (f->type == FT_STR)
			*(char **)at = *(char **)at ? NULL : (char *)"x";
		else if (f->type == FT_STRV)
			strv_push((strv_t *)at, "x");
		else
			known = 0;
		ok(known, "field %s: a type this test can change", f->name);
		cred_launch_mac(k, &m, d);
		ok(strcmp(d, base) != 0, "field %s is under the MAC", f->name);
		launch_free(&m);
	}
	free(cred);
	free(cred3);
	key_auth_done(a, dir_a);
	key_auth_done(b, dir_b);
}

int main(void)
{
	test_penv();
	msg_launch_step_t m;
	char base[CRED_DIGEST_HEX + 1], d[CRED_DIGEST_HEX + 1];

	launch_init(&m);
	cred_launch_digest(&m, base);
	is_int((int)strlen(base), CRED_DIGEST_HEX, "64 hex digits");
	ok(strspn(base, "0123456789abcdef") == CRED_DIGEST_HEX, "lowercase hex");
	cred_launch_digest(&m, d);
	is_str(d, base, "stable");

	/* sstat's stat credential: its own digest, never a launch's */
	char sd[CRED_DIGEST_HEX + 1], sd2[CRED_DIGEST_HEX + 1];
	cred_stat_digest(sd);
	cred_stat_digest(sd2);
	is_str(sd, sd2, "stat digest stable");
	ok(strspn(sd, "0123456789abcdef") == CRED_DIGEST_HEX, "stat digest: 64 hex digits");
	ok(strcmp(sd, base), "a stat digest is not a launch digest");

	/* per node and after the step exists: not covered */
	m.node_id = 3;
	m.first_task = 12;
	m.ntasks = 4;
	m.total_tasks = 16;
	m.nnodes = 4;
	m.cred = (char *)"whatever";
	cred_launch_digest(&m, d);
	is_str(d, base, "task layout and the credential are not in it (the same on every node)");
	launch_free(&m);

#define CHANGED(what, stmt)                                     \
	do {                                                    \
		launch_init(&m);                                \
		stmt;                                           \
		cred_launch_digest(&m, d);                      \
		ok(strcmp(d, base) != 0, "%s changes it", what); \
		launch_free(&m);                                \
	} while (0)

	CHANGED("another command", (free(m.argv.v[0]), m.argv.v[0] = xstrdup("rm")));
	CHANGED("another argument", (free(m.argv.v[1]), m.argv.v[1] = xstrdup("-f")));
	CHANGED("an extra argument", strv_push(&m.argv, "x"));
	CHANGED("arguments split differently",
		(free(m.argv.v[0]), m.argv.v[0] = xstrdup("hostname-s"), free(m.argv.v[1]),
		 m.argv.v[1] = xstrdup("")));
	CHANGED("an environment value", (free(m.env.v[0]), m.env.v[0] = xstrdup("PATH=/tmp")));
	CHANGED("an extra variable", strv_push(&m.env, "LD_PRELOAD=/tmp/x.so"));
	CHANGED("a variable moved from env to argv",
		(strv_push(&m.argv, m.env.v[1]), free(m.env.v[1]), m.env.n--));
	CHANGED("another directory", m.cwd = (char *)"/tmp");
	CHANGED("no directory", m.cwd = NULL);
	CHANGED("another uid", m.user_id = 0);
	CHANGED("another gid", m.group_id = 0);
	CHANGED("a time limit", m.time_limit = 5);
	CHANGED("unbuffered", m.flags |= STEP_F_UNBUFFERED);
	CHANGED("not standalone", m.flags = 0);
	CHANGED("stdin forwarded", m.flags |= STEP_F_STDIN);
	CHANGED("stdin to one task", m.stdin_task = 5);
	test_layout();
	test_node_check();
	test_launch_mac();
	return done_testing();
}
