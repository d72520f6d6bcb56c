/*
 * prolog: the node's Prolog and Epilog scripts, and the TaskProlog /
 * TaskEpilog of a job's tasks, run as Slurm 22.05 runs them (man
 * slurm.conf, "Prolog and Epilog Scripts"; docs/node-operations.md).
 *
 * Prolog/Epilog run as root (the node daemon's user) in the job's
 * supervisor, never in the node daemon's loop: the batch supervisor runs
 * the Prolog before it forks the job and the Epilog after the job has
 * ended, before it reports the end. A value may be a glob
 * (Prolog=/etc/slurm/prolog.d/x*): the matches run in name order and the
 * first that fails stops the rest. Each script gets only the variables
 * Slurm hands a prolog (prolog_env: the job's SLURM_JOB_* variables, its
 * GPUs, SLURM_SCRIPT_CONTEXT, SLURMD_NODENAME), no search path, stdin,
 * stdout and stderr on /dev/null and none of the daemon's descriptors.
 * PrologEpilogTimeout bounds each script (its whole process group is
 * killed); PrologFlags=Serial makes the node run one at a time (an flock
 * on <spool>/prolog.lock).
 *
 * TaskProlog runs as the user just before the task's program; its
 * standard output is read line by line: "export NAME=value" sets a
 * variable of the task, "unset NAME" removes one, "print text" writes
 * text to the task's standard output; other lines are ignored.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "noded.h"
#include "prolog.h"
#include "xalloc.h"

/* What a prolog sees of the job's environment (the rest is the job's
 * own business): the names Slurm's slurmd sets for a prolog. */
static const char *const prolog_vars[] = {
	"SLURM_JOB_ID", "SLURM_JOBID", "SLURM_JOB_USER", "SLURM_JOB_UID", "SLURM_JOB_GID",
	"SLURM_JOB_NAME", "SLURM_JOB_NODELIST", "SLURM_NODELIST", "SLURM_JOB_PARTITION",
	"SLURM_JOB_ACCOUNT", "SLURM_JOB_CONSTRAINTS", "SLURM_JOB_RESERVATION",
	"SLURM_CLUSTER_NAME", "SLURM_CONF", "SLURM_JOB_GPUS", "CUDA_VISIBLE_DEVICES",
	"GPU_DEVICE_ORDINAL", "SLURM_JOB_NUM_NODES", "SLURM_ARRAY_JOB_ID",
	"SLURM_ARRAY_TASK_ID", "SLURM_RESTART_COUNT",
};

char **prolog_env(const char *node, const strv_t *jobenv, const char *context)
{
	strv_t e = { NULL, 0 };
	for (size_t i = 0; i < sizeof(prolog_vars) / sizeof(prolog_vars[0]); i++) {
		const char *v = env_get(jobenv, prolog_vars[i]);
		if (v)
			env_set(&e, prolog_vars[i], v);
	}
	/* SLURM_JOB_GROUP: the name of the job's group, where it has one */
	env_set(&e, "SLURM_SCRIPT_CONTEXT", context);
	env_set(&e, "SLURMD_NODENAME", node);
	char **envp = xcalloc(e.n + 1, sizeof(char *));
	for (uint32_t i = 0; i < e.n; i++)
		envp[i] = e.v[i];
	free(e.v);
	return envp;
}

void prolog_env_free(char **envp)
{
	if (!envp)
		return;
	for (char **p = envp; *p; p++)
		free(*p);
	free(envp);
}

uint32_t prolog_timeout(const conf_t *conf)
{
	const char *v = conf_get(conf, "PrologEpilogTimeout");
	if (!v || !*v)
		return 0;
	char *end;
	unsigned long t = strtoul(v, &end, 10);
	/* 65534/65535 are Slurm's "not set"/"infinite" */
	if (*end || t >= 65534)
		return 0;
	return (uint32_t)t;
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for pid at most timeout_ms (< 0: forever). 1 with *st when it
 * ended, 0 on timeout. A pidfd makes it a poll; without one (old kernels)
 * it polls waitpid every few milliseconds. */
static int wait_bounded(pid_t pid, int64_t timeout_ms, int *st)
{
	int pfd = -1;
#ifdef SYS_pidfd_open
	pfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	int64_t end = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	for (;;) {
		pid_t w = waitpid(pid, st, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR)) {
			if (pfd >= 0)
				close(pfd);
			if (w < 0)
				*st = 127 << 8;
			return 1;
		}
		int64_t left = end < 0 ? 1000 : end - now_ms();
		if (end >= 0 && left <= 0) {
			if (pfd >= 0)
				close(pfd);
			return 0;
		}
		if (pfd >= 0) {
			struct pollfd p = { pfd, POLLIN, 0 };
			poll(&p, 1, (int)(left > 1000 ? 1000 : left));
		} else {
			struct timespec ts = { 0, 2000000L };
			nanosleep(&ts, NULL);
		}
	}
}

/* Run one script as the caller's user; 0 if it exited 0. */
static int run_one(const char *path, char *const envp[], uint32_t timeout_s, char **why)
{
	pid_t pid = fork();
	if (pid < 0) {
		*why = xasprintf("fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		child_reset_signals();
		setpgid(0, 0);
		int dn = open("/dev/null", O_RDWR);
		if (dn >= 0) {
			dup2(dn, 0);
			dup2(dn, 1);
			dup2(dn, 2);
		}
		child_close_fds(-1);
		if (chdir("/") < 0)
			_exit(127);
		char *argv[] = { (char *)path, NULL };
		execve(path, argv, envp);
		_exit(127);
	}
	setpgid(pid, pid);   /* either side may win the race; both ask the same */
	int st = 0;
	if (!wait_bounded(pid, timeout_s ? (int64_t)timeout_s * 1000 : -1, &st)) {
		killpg(pid, SIGKILL);
		kill(pid, SIGKILL);
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		*why = xasprintf("%s timed out after %us", path, timeout_s);
		return -1;
	}
	/* what it left behind in its group goes too */
	killpg(pid, SIGKILL);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFSIGNALED(st))
		*why = xasprintf("%s killed by signal %d", path, WTERMSIG(st));
	else if (WEXITSTATUS(st) == 127 && access(path, X_OK) < 0)
		*why = xasprintf("%s cannot be run: %s", path, strerror(errno));
	else
		*why = xasprintf("%s exited with status %d", path, WEXITSTATUS(st));
	return -1;
}

int prolog_run(const char *spec, char *const envp[], uint32_t timeout_s, const char *lock,
	       char **why)
{
	*why = NULL;
	if (!spec || !*spec)
		return 0;
	int lfd = -1;
	if (lock) {
		lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (lfd >= 0)
			while (flock(lfd, LOCK_EX) < 0 && errno == EINTR)
				;
	}
	int rc = 0;
	if (strpbrk(spec, "*?[")) {
		glob_t g;
		memset(&g, 0, sizeof(g));
		int gr = glob(spec, 0, NULL, &g);
		if (gr == 0) {
			for (size_t i = 0; i < g.gl_pathc && rc == 0; i++)
				rc = run_one(g.gl_pathv[i], envp, timeout_s, why);
		} else if (gr != GLOB_NOMATCH) {
			*why = xasprintf("%s: cannot expand the pattern", spec);
			rc = -1;
		}
		globfree(&g);
	} else {
		rc = run_one(spec, envp, timeout_s, why);
	}
	if (lfd >= 0)
		close(lfd);       /* releases the lock */
	return rc;
}

/* ---- TaskProlog / TaskEpilog ---- */

static void env_unset(strv_t *env, const char *name)
{
	size_t n = strlen(name);
	for (uint32_t i = 0; i < env->n; i++)
		if (!strncmp(env->v[i], name, n) && env->v[i][n] == '=') {
			free(env->v[i]);
			env->v[i] = env->v[--env->n];
			return;
		}
}

void task_prolog_line(const char *line, strv_t *env, int outfd)
{
	while (*line == ' ' || *line == '\t')
		line++;
	if (!strncmp(line, "export ", 7)) {
		const char *kv = line + 7;
		while (*kv == ' ')
			kv++;
		const char *eq = strchr(kv, '=');
		if (!eq || eq == kv)
			return;
		char *name = xstrndup(kv, (size_t)(eq - kv));
		env_set(env, name, eq + 1);
		free(name);
	} else if (!strncmp(line, "unset ", 6)) {
		const char *name = line + 6;
		while (*name == ' ')
			name++;
		char *nm = xstrdup(name);
		nm[strcspn(nm, " \t")] = 0;
		if (*nm)
			env_unset(env, nm);
		free(nm);
	} else if (!strncmp(line, "print ", 6) && outfd >= 0) {
		/* the line and its newline in one write: the tasks of a step
		 * print at once, and srun relays what each writes as it comes */
		char *t = xasprintf("%s\n", line + 6);
		size_t n = strlen(t);
		const char *p = t;
		while (n) {
			ssize_t w = write(outfd, p, n);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			p += w;
			n -= (size_t)w;
		}
		free(t);
	}
}

int task_prolog_run(const char *path, strv_t *env, int outfd, uint32_t timeout_s)
{
	int p[2];
	if (!path || !*path)
		return 0;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	char **envp = env_to_envp(env);
	pid_t pid = fork();
	if (pid < 0) {
		free(envp);
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		child_reset_signals();
		setpgid(0, 0);
		dup2(p[1], 1);
		int dn = open("/dev/null", O_RDONLY);
		if (dn >= 0)
			dup2(dn, 0);
		child_close_fds(-1);
		char *argv[] = { (char *)path, NULL };
		execve(path, argv, envp);
		_exit(127);
	}
	free(envp);
	close(p[1]);
	strbuf_t sb = STRBUF_INIT;
	char buf[4096];
	int64_t end = timeout_s ? now_ms() + (int64_t)timeout_s * 1000 : -1;
	for (;;) {
		int left = end < 0 ? -1 : (int)(end - now_ms());
		if (end >= 0 && left <= 0)
			break;
		struct pollfd pf = { p[0], POLLIN, 0 };
		if (poll(&pf, 1, left) == 0)
			break;
		ssize_t n = read(p[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (sb.len < (1u << 20))     /* what a task prolog may say */
			strbuf_add(&sb, buf, (size_t)n);
	}
	close(p[0]);
	int st = 0;
	if (!wait_bounded(pid, end < 0 ? -1 : (end - now_ms() > 0 ? end - now_ms() : 0), &st)) {
		killpg(pid, SIGKILL);
		kill(pid, SIGKILL);
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	char *save = NULL;
	for (char *l = sb.len ? strtok_r(sb.buf, "\n", &save) : NULL; l;
	     l = strtok_r(NULL, "\n", &save))
		task_prolog_line(l, env, outfd);
	strbuf_release(&sb);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

int prolog_job(noded_t *nd, uint32_t job_id, const strv_t *jobenv, int epilog)
{
	const char *spec = epilog ? nd->conf->epilog : nd->conf->prolog;
	if (!spec || !*spec)
		return 0;
	const char *what = epilog ? "epilog" : "prolog";
	char **envp = prolog_env(nd->name, jobenv, epilog ? "epilog_slurmd" : "prolog_slurmd");
	char *lock = conf_prolog_flag(nd->conf, "Serial") ? xasprintf("%s/prolog.lock", nd->spool) : NULL;
	char *why = NULL;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	int rc = prolog_run(spec, envp, prolog_timeout(nd->conf), lock, &why);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (rc)
		error("job %u: %s failed: %s", job_id, what, why ? why : "unknown");
	else
		debug("job %u: %s ran in %.2f ms", job_id, what,
		      (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6);
	free(why);
	free(lock);
	prolog_env_free(envp);
	return rc;
}

int task_epilog_run(const conf_t *conf, const char *user, uint32_t uid, uint32_t gid,
		    const char *work_dir, const strv_t *jobenv)
{
	const char *path = conf_get(conf, "TaskEpilog");
	if (!path || !*path)
		return 0;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		child_reset_signals();
		setsid();
		char *e = NULL;
		if (become_user(user, uid, gid, &e) < 0)
			_exit(1);
		umask(env_umask(jobenv));
		if (!work_dir || chdir(work_dir) < 0)
			(void)!chdir("/tmp");
		strv_t env = { NULL, 0 };
		for (uint32_t i = 0; i < jobenv->n; i++)
			strv_push(&env, jobenv->v[i]);
		int dn = open("/dev/null", O_RDWR);
		if (dn >= 0) {
			dup2(dn, 0);
			dup2(dn, 1);
			dup2(dn, 2);
		}
		child_close_fds(-1);
		char *argv[] = { (char *)path, NULL };
		execve(path, argv, env_to_envp(&env));
		_exit(127);
	}
	uint32_t t = prolog_timeout(conf);
	int st = 0;
	if (!wait_bounded(pid, t ? (int64_t)t * 1000 : -1, &st)) {
		killpg(pid, SIGKILL);
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}
