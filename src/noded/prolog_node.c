/*
 * prolog_node: the node's Prolog and Epilog once per job on every node of
 * it, as Slurm 22.05 runs them (docs/node-operations.md, "Prolog and
 * epilog").
 *
 * Whoever first needs the job on this node runs its Prolog: the Alloc
 * runner (PrologFlags=Alloc, MSG_LAUNCH_PROLOG at allocation), the batch
 * supervisor, or the supervisor of the job's first srun step here. The
 * others wait for that run and take its result, so a node runs the Prolog
 * once per job, never once per step. The record of it is
 * <spool>/prolog.<job>: an flock on it orders the runs (a step that
 * arrives while the Prolog runs waits for it), and it holds the result
 * ("state=ok" / "state=failed") and the job's prolog environment, which
 * the Epilog reuses. The Epilog runs once the job is over here: on the
 * batch host by the batch supervisor, elsewhere by a runner the node
 * daemon starts when the controller ends the job (MSG_SIGNAL_JOB with
 * SIGNAL_F_KILL_JOB), after the job's steps on the node are gone; it
 * marks the record "state=done" and removes it. A runner whose node
 * script failed tells the controller (MSG_PROLOG_COMPLETE), which drains
 * the node. Nothing here runs in the node daemon's loop: the runners are
 * detached processes like the supervisors.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "errors.h"
#include "noded.h"
#include "prolog.h"
#include "xalloc.h"

#define REC_MAX (256u << 10)      /* a record is a few hundred bytes */

int prolog_node_configured(const noded_t *nd)
{
	return (nd->conf->prolog && *nd->conf->prolog) || (nd->conf->epilog && *nd->conf->epilog);
}

static char *rec_path(const noded_t *nd, uint32_t job_id)
{
	return xasprintf("%s/prolog.%u", nd->spool, job_id);
}

/* Open path (creating it with create) and lock it; a record removed
 * while we waited for its lock is opened again. -1 with errno. */
static int rec_lock(const char *path, int create)
{
	for (int tries = 0; tries < 100; tries++) {
		int fd = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
		if (fd < 0)
			return -1;
		while (flock(fd, LOCK_EX) < 0 && errno == EINTR)
			;
		struct stat st;
		if (fstat(fd, &st) == 0 && st.st_nlink > 0)
			return fd;
		close(fd);
		if (!create) {
			errno = ENOENT;
			return -1;
		}
	}
	errno = EAGAIN;
	return -1;
}

/* The record's state ("" when new) and environment. */
static void rec_read(int fd, char *state, size_t slen, strv_t *env)
{
	strbuf_t sb = STRBUF_INIT;
	char buf[4096];
	ssize_t n;
	off_t off = 0;
	state[0] = 0;
	while (sb.len < REC_MAX && (n = pread(fd, buf, sizeof(buf), off)) > 0) {
		strbuf_add(&sb, buf, (size_t)n);
		off += n;
	}
	char *save = NULL;
	for (char *l = sb.len ? strtok_r(sb.buf, "\n", &save) : NULL; l;
	     l = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(l, "state=", 6))
			snprintf(state, slen, "%s", l + 6);
		else if (env && !strncmp(l, "env ", 4) && strchr(l + 4, '='))
			strv_push(env, l + 4);
	}
	strbuf_release(&sb);
}

static void rec_write(int fd, const char *state, const strv_t *env)
{
	strbuf_t sb = STRBUF_INIT;
	strbuf_addf(&sb, "state=%s\n", state);
	for (uint32_t i = 0; env && i < env->n; i++)
		if (!strchr(env->v[i], '\n'))
			strbuf_addf(&sb, "env %s\n", env->v[i]);
	if (ftruncate(fd, 0) < 0 || pwrite(fd, sb.buf, sb.len, 0) != (ssize_t)sb.len)
		error("cannot write a prolog record: %m");
	strbuf_release(&sb);
}

int prolog_node_once(noded_t *nd, uint32_t job_id, const strv_t *penv)
{
	if (!prolog_node_configured(nd))
		return 0;
	char *path = rec_path(nd, job_id);
	int fd = rec_lock(path, 1);
	if (fd < 0) {
		/* no record: run it anyway (the Epilog may then not run) */
		error("job %u: cannot open %s: %m", job_id, path);
		free(path);
		return prolog_job(nd, job_id, penv, 0);
	}
	free(path);
	char state[16];
	rec_read(fd, state, sizeof(state), NULL);
	int rc;
	if (!strcmp(state, "ok") || !strcmp(state, "failed")) {
		rc = !strcmp(state, "ok") ? 0 : -1;   /* it already ran here */
	} else {
		rc = prolog_job(nd, job_id, penv, 0);
		rec_write(fd, rc ? "failed" : "ok", penv);
	}
	close(fd);                 /* unlocks: the others waiting go on */
	return rc;
}

int epilog_node_once(noded_t *nd, uint32_t job_id, const strv_t *penv)
{
	if (!prolog_node_configured(nd))
		return 0;
	char *path = rec_path(nd, job_id);
	int fd = rec_lock(path, 0);
	if (fd < 0) {
		free(path);
		return 1;              /* the job never started here, or done */
	}
	char state[16];
	strv_t env = { NULL, 0 };
	rec_read(fd, state, sizeof(state), &env);
	int rc = 0;
	if (!strcmp(state, "done"))
		rc = 1;
	else
		rc = prolog_job(nd, job_id, penv && penv->n ? penv : &env, 1);
	rec_write(fd, "done", NULL);
	unlink(path);
	close(fd);
	strv_free(&env);
	free(path);
	return rc;
}

/* Report a node script's result to the controller until it answers
 * (bounded: a controller gone for 10 minutes loses it, logged). */
static void report(noded_t *nd, const msg_prolog_complete_t *m)
{
	uint64_t backoff_ms = 100;
	int64_t give_up = mono_ms() + 600000;
	for (;;) {
		char *emsg = NULL;
		int rc = rpc_call_ctld_rc(nd->conf, MSG_PROLOG_COMPLETE, m, &emsg);
		if (rc == 0 || rc >= 2000 || rc == SLURM_ERROR) {
			if (rc && rc != ESLURM_INVALID_JOB_ID && rc != ESLURM_ALREADY_DONE)
				error("job %u: %s result refused by the controller: %s%s%s", m->job_id,
				      (m->flags & PROLOG_F_EPILOG) ? "epilog" : "prolog",
				      slurm_strerror(rc), emsg ? ": " : "", emsg ? emsg : "");
			free(emsg);
			return;
		}
		free(emsg);
		if (mono_ms() > give_up) {
			error("job %u: could not tell the controller the %s's result", m->job_id,
			      (m->flags & PROLOG_F_EPILOG) ? "epilog" : "prolog");
			return;
		}
		struct timespec ts = { (time_t)(backoff_ms / 1000), (long)(backoff_ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
		backoff_ms = backoff_ms * 2 > 5000 ? 5000 : backoff_ms * 2;
	}
}

void prolog_node_report(noded_t *nd, uint32_t job_id, uint32_t launch_seq, uint32_t rc,
			uint32_t flags)
{
	msg_prolog_complete_t m = { .job_id = job_id, .launch_seq = launch_seq, .node = nd->name,
				    .rc = rc, .flags = flags };
	report(nd, &m);
}

void prolog_node_alloc(noded_t *nd, const msg_launch_prolog_t *m)
{
	int r = detach_fork(nd, NULL, 0);
	if (r < 0)
		error("job %u: cannot start its prolog: %m", m->job_id);
	if (r != 0)
		return;
	char title[32];
	snprintf(title, sizeof(title), "%u.prolog", m->job_id);
	set_proctitle(nd, title);
	int rc = prolog_node_once(nd, m->job_id, &m->prolog_env);
	prolog_node_report(nd, m->job_id, m->launch_seq, rc ? ESLURMD_PROLOG_FAILED : 0, 0);
	_exit(0);
}

/* Is a supervisor of job_id (batch: step_id NODED_BATCH_STEP; steps:
 * anything else) alive here? */
struct live_scan {
	uint32_t job_id;
	int batch;
	int found;
};

static void live_one(const char *dir, const spool_rec_t *r, void *arg)
{
	struct live_scan *ls = arg;
	(void)dir;
	if (!r || r->job_id != ls->job_id || ls->found)
		return;
	if ((r->step_id == NODED_BATCH_STEP) == ls->batch && spool_rec_alive(r))
		ls->found = 1;
}

static int live_here(noded_t *nd, uint32_t job_id, int batch)
{
	struct live_scan ls = { job_id, batch, 0 };
	spool_scan(nd->spool, live_one, &ls);
	return ls.found;
}

void epilog_node_on_kill(noded_t *nd, uint32_t job_id)
{
	if (!prolog_node_configured(nd))
		return;
	char *path = rec_path(nd, job_id);
	int there = access(path, F_OK) == 0;
	free(path);
	/* the batch supervisor runs the batch host's Epilog itself */
	if (!there || live_here(nd, job_id, 1))
		return;
	int r = detach_fork(nd, NULL, 0);
	if (r < 0)
		error("job %u: cannot start its epilog: %m", job_id);
	if (r != 0)
		return;
	char title[32];
	snprintf(title, sizeof(title), "%u.epilog", job_id);
	set_proctitle(nd, title);
	/* after the job's steps here are gone (they are being killed):
	 * KillWait and some, then it runs regardless, as Slurm's does */
	int64_t until = mono_ms() + ((int64_t)nd->conf->kill_wait + 10) * 1000;
	while (live_here(nd, job_id, 0) && mono_ms() < until) {
		struct timespec ts = { 0, 50000000L };
		nanosleep(&ts, NULL);
	}
	int rc = epilog_node_once(nd, job_id, NULL);
	if (rc < 0)
		prolog_node_report(nd, job_id, 0, ESLURMD_EPILOG_FAILED, PROLOG_F_EPILOG);
	_exit(0);
}
