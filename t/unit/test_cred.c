/*
 * test_cred: the launch digest a step credential binds (cred_launch_digest):
 * stable, the same for every node of a step, and different whenever the
 * command, environment, directory, user, group, time limit or flags
 * change; a SHA-256 as 64 lowercase hex digits.
 */
#include "tap.h"
#include "cred.h"
#include "xalloc.h"

#include <string.h>

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

int main(void)
{
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
