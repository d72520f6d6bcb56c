/*
 * test_cred: the launch digest a step credential binds (cred_launch_digest):
 * stable, the same for every node of a step, and different whenever the
 * command, environment, directory, user, group, time limit or flags
 * change; a SHA-256 as 64 lowercase hex digits. The job's prolog
 * environment (penv) survives a signed round trip, values with blanks and
 * '=' included, and a malformed one is refused.
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
	cred_release(&out);
	free(s);
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

	/* per node and after the step exists: not covered */
	m.node_id = 3;
	m.first_task = 12;
	m.ntasks = 4;
	m.total_tasks = 16;
	m.nnodes = 4;
	m.flags |= STEP_F_STDIN;
	m.stdin_task = 5;
	m.cred = (char *)"whatever";
	cred_launch_digest(&m, d);
	is_str(d, base, "task layout, stdin routing and the credential are not in it");
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
	return done_testing();
}
