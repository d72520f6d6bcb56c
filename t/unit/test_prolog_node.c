/* Unit tests for the Prolog/Epilog once per job on a node
 * (src/noded/prolog_node.c): the first caller runs the Prolog, the others
 * take its result without running it again, also concurrent ones (which
 * wait for the run in progress); the Epilog runs once with the Prolog's
 * environment and removes the record; a failed Prolog is remembered;
 * nothing runs and nothing is written without a Prolog or Epilog. Also
 * what a later step's check costs. */
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "noded/noded.h"
#include "noded/prolog.h"
#include "xalloc.h"

static void script(const char *path, const char *body)
{
	FILE *f = fopen(path, "w");
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	chmod(path, 0755);
}

static int lines(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int n = 0, c;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return xstrdup("");
	char buf[8192];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return xstrdup(buf);
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void)
{
	char tmpl[] = "/tmp/test_prolog_node.XXXXXX";
	char *dir = mkdtemp(tmpl);
	ok(dir != NULL, "temp dir");
	char *pro = xasprintf("%s/prolog", dir), *epi = xasprintf("%s/epilog", dir);
	char *pcount = xasprintf("%s/p.count", dir), *ecount = xasprintf("%s/e.count", dir);
	char *eenv = xasprintf("%s/e.env", dir), *fail = xasprintf("%s/fail", dir);
	char *body = xasprintf("echo x >>%s; sleep 0.3; test -e %s && exit 2; exit 0", pcount, fail);
	script(pro, body);
	free(body);
	body = xasprintf("echo x >>%s; env >%s", ecount, eenv);
	script(epi, body);
	free(body);

	conf_t conf = { .prolog = pro, .epilog = epi };
	noded_t nd = { .conf = &conf, .name = (char *)"n1", .spool = dir };
	strv_t env = { NULL, 0 };
	env_set(&env, "SLURM_JOB_ID", "7");
	env_set(&env, "SLURM_JOB_NODELIST", "n[1-3]");
	env_set(&env, "SLURM_JOB_NAME", "a b=c");

	/* three callers at once: one run, all see its result */
	pid_t kids[2];
	for (int i = 0; i < 2; i++) {
		kids[i] = fork();
		if (kids[i] == 0)
			_exit(prolog_node_once(&nd, 7, &env) == 0 ? 0 : 1);
	}
	int rc = prolog_node_once(&nd, 7, &env);
	int kids_ok = 1;
	for (int i = 0; i < 2; i++) {
		int st = 0;
		waitpid(kids[i], &st, 0);
		kids_ok &= WIFEXITED(st) && WEXITSTATUS(st) == 0;
	}
	is_int(rc, 0, "prolog ok");
	ok(kids_ok, "concurrent callers got its result");
	is_int(lines(pcount), 1, "ran once for three callers");
	char *rec = xasprintf("%s/prolog.7", dir);
	ok(access(rec, F_OK) == 0, "record kept for the epilog");

	/* a later step: the record answers; what that costs */
	double t0 = mono();
	int n = 200, all_ok = 1;
	for (int i = 0; i < n; i++)
		all_ok &= prolog_node_once(&nd, 7, &env) == 0;
	double per = (mono() - t0) / n * 1e6;
	ok(all_ok, "later steps: ok");
	is_int(lines(pcount), 1, "and not run again");
	ok(per < 2000, "a later step's check costs %.1f us", per);

	/* the epilog: once, with the prolog's environment, record gone */
	is_int(epilog_node_once(&nd, 7, NULL), 0, "epilog ok");
	is_int(lines(ecount), 1, "epilog ran");
	char *e = slurp(eenv);
	ok(strstr(e, "SLURM_JOB_NODELIST=n[1-3]\n") && strstr(e, "SLURM_JOB_NAME=a b=c\n") &&
	   strstr(e, "SLURM_SCRIPT_CONTEXT=epilog_slurmd\n") && strstr(e, "SLURMD_NODENAME=n1\n"),
	   "epilog has the prolog's environment");
	free(e);
	ok(access(rec, F_OK) < 0, "record removed");
	is_int(epilog_node_once(&nd, 7, NULL), 1, "second epilog: nothing to do");
	is_int(lines(ecount), 1, "epilog not run again");
	is_int(epilog_node_once(&nd, 8, NULL), 1, "job never here: no epilog");

	/* a failed prolog is remembered; the epilog still runs after it */
	fclose(fopen(fail, "w"));
	is_int(prolog_node_once(&nd, 9, &env), -1, "prolog fails");
	is_int(prolog_node_once(&nd, 9, &env), -1, "a later step gets the failure");
	is_int(lines(pcount), 2, "without running it again");
	is_int(epilog_node_once(&nd, 9, NULL), 0, "epilog after a failed prolog");
	unlink(fail);
	/* the job started again on the node (requeued): a new run */
	is_int(prolog_node_once(&nd, 9, &env), 0, "after the epilog: runs again");
	is_int(lines(pcount), 3, "a new run");
	is_int(epilog_node_once(&nd, 9, NULL), 0, "its epilog");

	/* no prolog and no epilog: nothing runs, nothing is written */
	conf_t none = { 0 };
	noded_t nd0 = { .conf = &none, .name = (char *)"n1", .spool = dir };
	is_int(prolog_node_once(&nd0, 10, &env), 0, "none configured: ok");
	char *rec10 = xasprintf("%s/prolog.10", dir);
	ok(access(rec10, F_OK) < 0, "no record written");
	/* an epilog alone: the record says the job started here */
	conf_t eonly = { .epilog = epi };
	noded_t nd1 = { .conf = &eonly, .name = (char *)"n1", .spool = dir };
	is_int(prolog_node_once(&nd1, 10, &env), 0, "epilog only: prolog step ok");
	is_int(lines(pcount), 3, "no prolog ran");
	is_int(epilog_node_once(&nd1, 10, NULL), 0, "its epilog");
	is_int(lines(ecount), 4, "ran");

	strv_free(&env);
	char *cmd = xasprintf("rm -rf %s", dir);
	(void)!system(cmd);
	free(cmd);
	free(rec);
	free(rec10);
	free(pro);
	free(epi);
	free(pcount);
	free(ecount);
	free(eenv);
	free(fail);
	return done_testing();
}
