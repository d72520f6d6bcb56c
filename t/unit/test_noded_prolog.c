/* Unit tests for the node's Prolog/Epilog runner and the TaskProlog
 * output rules (src/noded/prolog.c). */
#include "tap.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "noded/noded.h"
#include "noded/prolog.h"
#include "xalloc.h"

static void script(const char *dir, const char *name, const char *body)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	chmod(p, 0755);
	free(p);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return xstrdup("");
	char buf[4096];
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
	/* TaskProlog lines */
	strv_t env = { NULL, 0 };
	env_set(&env, "KEEP", "1");
	env_set(&env, "GONE", "1");
	int p[2];
	ok(pipe(p) == 0, "pipe");
	task_prolog_line("export A=b c=d", &env, p[1]);
	task_prolog_line("  unset GONE", &env, p[1]);
	task_prolog_line("print hello world", &env, p[1]);
	task_prolog_line("export =nothing", &env, p[1]);
	task_prolog_line("exported X=1", &env, p[1]);
	task_prolog_line("printed no", &env, p[1]);
	close(p[1]);
	char out[256];
	ssize_t n = read(p[0], out, sizeof(out) - 1);
	out[n > 0 ? n : 0] = 0;
	close(p[0]);
	is_str(env_get(&env, "A"), "b c=d", "export takes everything after the first =");
	ok(env_get(&env, "GONE") == NULL, "unset removes");
	is_str(env_get(&env, "KEEP"), "1", "others stay");
	ok(env_get(&env, "X") == NULL && env_get(&env, "") == NULL, "malformed lines ignored");
	is_str(out, "hello world\n", "print writes its text and a newline");
	/* ... in one write: the tasks of a step print at once, and a line
	 * split in two writes came out interleaved with another task's
	 * (a SOCK_SEQPACKET pair keeps each write a record of its own) */
	int sp[2];
	ok(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sp) == 0, "seqpacket pair");
	task_prolog_line("print one line", &env, sp[0]);
	n = recv(sp[1], out, sizeof(out) - 1, MSG_DONTWAIT);
	out[n > 0 ? n : 0] = 0;
	is_str(out, "one line\n", "print: the line and its newline are one write");
	close(sp[0]);
	close(sp[1]);
	strv_free(&env);

	/* Prolog globs: name order, stop at the first failure */
	char tmpl[] = "/tmp/test_noded_prolog.XXXXXX";
	char *dir = mkdtemp(tmpl);
	ok(dir != NULL, "temp dir");
	char *log = xasprintf("%s/log", dir);
	char *body = xasprintf("echo 2 >>%s", log);
	script(dir, "p2", body);
	free(body);
	body = xasprintf("echo 1 >>%s; echo \"$SLURM_SCRIPT_CONTEXT $SLURM_JOB_ID $(env | grep -c ^PATH=)\" >>%s", log, log);
	script(dir, "p1", body);
	free(body);
	body = xasprintf("echo 3 >>%s; exit 4", log);
	script(dir, "p3", body);
	free(body);
	body = xasprintf("echo 9 >>%s", log);
	script(dir, "p9", body);
	free(body);
	strv_t jenv = { NULL, 0 };
	env_set(&jenv, "SLURM_JOB_ID", "77");
	env_set(&jenv, "PATH", "/usr/bin");
	env_set(&jenv, "SECRET", "x");
	char **envp = prolog_env("n1", &jenv, "prolog_slurmd");
	int has_secret = 0, has_path = 0;
	for (char **e = envp; *e; e++) {
		has_secret |= !strncmp(*e, "SECRET=", 7);
		has_path |= !strncmp(*e, "PATH=", 5);
	}
	ok(!has_secret && !has_path, "the job's other variables are not passed on");
	char *glob = xasprintf("%s/p*", dir);
	char *why = NULL;
	ok(prolog_run(glob, envp, 0, NULL, &why) == -1, "a failing script fails the run");
	char *got = slurp(log);
	is_str(got, "1\nprolog_slurmd 77 0\n2\n3\n", "in name order, the 4th not run");
	ok(why && strstr(why, "p3 exited with status 4"), "why names the script: %s", why);
	free(got);
	free(why);
	why = NULL;

	/* timeout kills the whole group */
	unlink(log);
	body = xasprintf("sleep 30 & sleep 30; echo late >>%s", log);
	script(dir, "slow", body);
	free(body);
	char *slow = xasprintf("%s/slow", dir);
	double t0 = mono();
	ok(prolog_run(slow, envp, 1, NULL, &why) == -1, "past its timeout it fails");
	double took = mono() - t0;
	ok(took >= 0.9 && took < 5, "after about the timeout (%.2fs)", took);
	ok(why && strstr(why, "timed out after 1s"), "why says timed out: %s", why);
	free(why);
	why = NULL;
	ok(access(log, F_OK) != 0, "the script was stopped");

	/* no match of a glob: nothing to run; a missing plain path fails */
	char *none = xasprintf("%s/none*", dir);
	ok(prolog_run(none, envp, 0, NULL, &why) == 0, "a glob without matches runs nothing");
	char *missing = xasprintf("%s/missing", dir);
	ok(prolog_run(missing, envp, 0, NULL, &why) == -1, "a missing script fails");
	ok(why && strstr(why, "cannot be run"), "why: %s", why);
	free(why);

	/* PrologFlags=Serial: a second run waits for the first one's lock */
	char *lock = xasprintf("%s/prolog.lock", dir);
	script(dir, "nap", "sleep 1");
	script(dir, "quick", "exit 0");
	char *nap = xasprintf("%s/nap", dir), *quick = xasprintf("%s/quick", dir);
	pid_t c = fork();
	if (c == 0) {
		char *w = NULL;
		_exit(prolog_run(nap, envp, 0, lock, &w) == 0 ? 0 : 1);
	}
	while (access(lock, F_OK) != 0)
		usleep(1000);
	usleep(200000);
	t0 = mono();
	ok(prolog_run(quick, envp, 0, lock, &why) == 0, "the second serial run succeeds");
	took = mono() - t0;
	ok(took > 0.4, "after the first released the lock (waited %.2fs)", took);
	int cst;
	waitpid(c, &cst, 0);
	ok(WIFEXITED(cst) && WEXITSTATUS(cst) == 0, "the first serial run succeeded");
	t0 = mono();
	ok(prolog_run(quick, envp, 0, NULL, &why) == 0, "without the lock");
	ok(mono() - t0 < 0.4, "no wait (%.2fs)", mono() - t0);
	free(nap);
	free(quick);

	prolog_env_free(envp);
	strv_free(&jenv);
	char *rm = xasprintf("rm -rf %s", dir);
	ok(system(rm) == 0, "cleanup");
	free(rm);
	free(glob);
	free(slow);
	free(none);
	free(missing);
	free(lock);
	free(log);
	return done_testing();
}
