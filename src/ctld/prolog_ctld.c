/*
 * prolog_ctld: what the controller does when a node's Prolog or Epilog
 * failed (docs/node-operations.md, "Prolog and epilog").
 *
 * The batch supervisor reports the job's end with msg_job_complete_t.rc
 * set to ESLURMD_PROLOG_FAILED (the Prolog failed or timed out: the job
 * never ran) or ESLURMD_EPILOG_FAILED (the Epilog failed after it ran).
 * As Slurm 22.05 does: a Prolog failure drains the node with reason
 * "Prolog error" and requeues the job held (JobHeldUser, shown as
 * "launch failed requeued held"; SchedulerParameters=nohold_on_prolog_fail
 * requeues it without the hold); an Epilog failure drains the node with
 * reason "Epilog error" and leaves the job's end as it was. The drain is
 * recorded as set by SlurmUser.
 *
 * Also PrologSlurmctld and EpilogSlurmctld (below).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctld/ctld.h"
#include "errors.h"
#include "log.h"
#include "states.h"
#include "xalloc.h"

const char *const job_launch_failed_desc = "launch failed requeued held";

void node_drain_by_slurm(ctld_t *cd, const char *name, const char *reason)
{
	long idx = name ? conf_node_find(cd->conf, name) : -1;
	if (idx < 0 || (uint32_t)idx >= cd->nnodes)
		return;
	node_t *n = &cd->nodes[idx];
	/* Slurm leaves a node that is already drained (by a person or an
	 * earlier failure) with the reason it has. */
	if (n->flags & (NODE_FLAG_DRAIN | NODE_FLAG_FAIL))
		return;
	int64_t now = ctld_now();
	n->flags |= NODE_FLAG_DRAIN;
	free(n->reason);
	n->reason = xstrdup(reason);
	n->reason_uid = cd->slurm_uid;
	n->reason_time = now;
	node_dirty(cd, n);
	node_sync_sched(cd, n);
	cd->last_node_update = now;
	error("node %s drained: %s", n->cf->name, reason);
	ctld_sched_request(cd);
}

static int nohold_on_prolog_fail(const ctld_t *cd)
{
	const char *sp = cd->conf->scheduler_parameters;
	return sp && strstr(sp, "nohold_on_prolog_fail") != NULL;
}

int job_node_error(ctld_t *cd, job_t *j, const msg_job_complete_t *m)
{
	if (m->rc == ESLURMD_EPILOG_FAILED) {
		error("job %u: epilog error on %s, draining the node", j->job_id,
		      m->node ? m->node : "?");
		node_drain_by_slurm(cd, m->node, "Epilog error");
		return 0;
	}
	if (m->rc != ESLURMD_PROLOG_FAILED)
		return 0;
	error("job %u: prolog error on %s, draining the node and requeueing the job", j->job_id,
	      m->node ? m->node : "?");
	node_drain_by_slurm(cd, m->node, "Prolog error");
	/* the other nodes it started on end it too (their Epilog) */
	if (j->alloc.nnodes > 1)
		job_signal_nodes(cd, j, SIGKILL, SIGNAL_F_KILL_JOB, JOB_CANCELLED);
	job_requeue_held(cd, j);
	return 1;
}

void job_requeue_held(ctld_t *cd, job_t *j)
{
	xfree(j->prolog_wait);
	job_requeue_restart(cd, j, ctld_now());
	if (!nohold_on_prolog_fail(cd)) {
		j->hold = WAIT_HELD_USER;
		j->reason = WAIT_HELD_USER;
		j->priority = 0;
		free(j->reason_detail);
		j->reason_detail = xstrdup(job_launch_failed_desc);
	}
	job_dirty(cd, j);
	ctld_sched_request(cd);
}

/* ---- PrologSlurmctld / EpilogSlurmctld ----
 *
 * Run by the controller as SlurmUser, never blocking its loop: each is a
 * child process whose pidfd the loop watches (a timer enforces
 * PrologEpilogTimeout by killing its process group). While a job's
 * PrologSlurmctld runs, the job is RUNNING+CONFIGURING (squeue "CF") and
 * not launched; when it exits 0 the batch script is launched (an srun
 * allocation is answered); when it fails or times out a batch job is
 * requeued and an srun allocation cancelled, as Slurm does. A controller
 * restarted while one ran starts it again for the CONFIGURING jobs it
 * recovers. EpilogSlurmctld runs at every job's end; its failure is only
 * logged. */

typedef struct ctld_script {
	uint32_t job_id;
	uint32_t launch_seq;     /* the run it is for (prolog) */
	int epilog;
	pid_t pid;
	int pidfd;
	uint64_t timer;
	ctld_t *cd;
	struct ctld_script *next;
} ctld_script_t;

#define PROLOG_RETRY_S 121

static ctld_script_t *scripts;
static int recovered;

static const char *ctld_script_path(const ctld_t *cd, int epilog)
{
	const char *p = conf_get(cd->conf, epilog ? "EpilogSlurmctld" : "PrologSlurmctld");
	return p && *p ? p : NULL;
}

static char **ctld_script_env(ctld_t *cd, const job_t *j, int epilog)
{
	strv_t e = { NULL, 0 };
	const job_desc_t *d = j->desc;
	char b[64];
#define SETS(k, v) do { const char *v_ = (v); char *kv_ = xasprintf("%s=%s", k, v_ ? v_ : ""); \
		strv_push(&e, kv_); free(kv_); } while (0)
#define SETU(k, v) do { snprintf(b, sizeof(b), "%u", (unsigned)(v)); SETS(k, b); } while (0)
	SETU("SLURM_JOB_ID", j->job_id);
	SETU("SLURM_JOBID", j->job_id);
	SETS("SLURM_JOB_USER", d->user_name);
	SETU("SLURM_JOB_UID", j->user_id);
	SETU("SLURM_JOB_GID", j->group_id);
	SETS("SLURM_JOB_NAME", d->name);
	SETS("SLURM_JOB_NODELIST", j->nodes);
	SETS("SLURM_JOB_PARTITION", j->part < cd->nparts ? cd->parts[j->part].cf->name : "");
	if (d->account)
		SETS("SLURM_JOB_ACCOUNT", d->account);
	SETS("SLURM_CLUSTER_NAME", cd->conf->cluster_name);
	if (cd->conf->path)
		SETS("SLURM_CONF", cd->conf->path);
	SETS("SLURM_SCRIPT_CONTEXT", epilog ? "epilog_slurmctld" : "prolog_slurmctld");
	if (epilog) {
		SETU("SLURM_JOB_EXIT_CODE", j->exit_code);
		snprintf(b, sizeof(b), "%u:%u", (j->exit_code >> 8) & 0xff, j->exit_code & 0x7f);
		SETS("SLURM_JOB_EXIT_CODE2", b);
	}
#undef SETS
#undef SETU
	char **envp = xcalloc(e.n + 1, sizeof(char *));
	for (uint32_t i = 0; i < e.n; i++)
		envp[i] = e.v[i];
	free(e.v);
	return envp;
}

static void script_free(ctld_script_t *s)
{
	if (s->pidfd >= 0)
		close(s->pidfd);
	free(s);
}

static void script_unlink(ctld_script_t *s)
{
	for (ctld_script_t **p = &scripts; *p; p = &(*p)->next)
		if (*p == s) {
			*p = s->next;
			return;
		}
}

/* The prolog of job j ended (ok or not): go on with the job. */
static void prolog_done(ctld_t *cd, ctld_script_t *s, int ok, const char *why)
{
	job_t *j = job_find(cd, s->job_id);
	if (!j || !(j->state & JOB_CONFIGURING) || j->launch_seq != s->launch_seq ||
	    (j->state & JOB_STATE_BASE) != JOB_RUNNING)
		return;            /* cancelled or requeued meanwhile */
	if (ok && j->prolog_wait) {
		/* the nodes' Prolog still runs (PrologFlags=Alloc):
		 * prolog_nodes.c goes on once they are done */
		debug("job %u: PrologSlurmctld done, waiting for the nodes' prolog", j->job_id);
		return;
	}
	if (ok) {
		job_configured(cd, j);
		return;
	}
	j->state &= ~JOB_CONFIGURING;
	job_dirty(cd, j);
	cd->last_job_update = ctld_now();
	int interactive = (j->desc->flags & JOB_F_INTERACTIVE) != 0;
	if (j->prolog_wait) {
		/* the nodes ran theirs: they end it (their Epilog) */
		xfree(j->prolog_wait);
		job_signal_nodes(cd, j, SIGKILL, SIGNAL_F_KILL_JOB, JOB_CANCELLED);
	}
	error("job %u: PrologSlurmctld failed: %s", j->job_id, why);
	if (interactive || (j->desc->flags & JOB_F_NO_REQUEUE)) {
		job_end(cd, j, JOB_CANCELLED, 0, ctld_now());
		job_release(cd, j);
		info("job %u: cancelled (PrologSlurmctld failed)", j->job_id);
	} else {
		/* Nothing ran anywhere: no fencing to wait for. Not before
		 * PROLOG_RETRY_S, as Slurm's requeue waits (BeginTime), so a
		 * script that always fails does not spin. */
		int64_t now = ctld_now();
		job_requeue(cd, j);
		j->restarts++;
		if (j->eligible_time < now + PROLOG_RETRY_S)
			j->eligible_time = now + PROLOG_RETRY_S;
		if (j->desc->begin_time < j->eligible_time)
			j->desc->begin_time = j->eligible_time;
		job_dirty(cd, j);
		info("job %u: requeued (PrologSlurmctld failed), eligible again in %ds", j->job_id,
		     PROLOG_RETRY_S);
	}
}

static void script_ended(ctld_t *cd, ctld_script_t *s, int st, int timed_out)
{
	char why[96];
	int ok = !timed_out && WIFEXITED(st) && WEXITSTATUS(st) == 0;
	if (timed_out)
		snprintf(why, sizeof(why), "timed out");
	else if (WIFSIGNALED(st))
		snprintf(why, sizeof(why), "killed by signal %d", WTERMSIG(st));
	else
		snprintf(why, sizeof(why), "exit status %d", WEXITSTATUS(st));
	if (s->epilog) {
		if (!ok)
			error("job %u: EpilogSlurmctld failed: %s", s->job_id, why);
		else
			debug("job %u: EpilogSlurmctld done", s->job_id);
		return;
	}
	prolog_done(cd, s, ok, why);
}

static void script_fd_cb(loop_t *l, int fd, uint32_t events, void *arg)
{
	ctld_script_t *s = arg;
	ctld_t *cd = s->cd;
	int st = 0;
	pid_t w = waitpid(s->pid, &st, WNOHANG);
	if (w == 0)
		return;
	loop_del_fd(l, fd);
	if (s->timer)
		loop_cancel_timer(l, s->timer);
	script_unlink(s);
	script_ended(cd, s, w == s->pid ? st : (127 << 8), 0);
	script_free(s);
	(void)events;
}

static void script_timer_cb(loop_t *l, void *arg)
{
	ctld_script_t *s = arg;
	ctld_t *cd = s->cd;
	s->timer = 0;
	killpg(s->pid, SIGKILL);
	int st;
	while (waitpid(s->pid, &st, 0) < 0 && errno == EINTR)
		;
	loop_del_fd(l, s->pidfd);
	script_unlink(s);
	script_ended(cd, s, st, 1);
	script_free(s);
}

static int script_start(ctld_t *cd, job_t *j, int epilog)
{
	const char *path = ctld_script_path(cd, epilog);
	if (!path)
		return 0;
	char **envp = ctld_script_env(cd, j, epilog);
	/* looked up before the fork: the child of a threaded process may
	 * only call what is async-signal-safe */
	gid_t sgid = (gid_t)cd->slurm_uid;
	if (geteuid() == 0 && cd->slurm_uid) {
		struct passwd *pw = getpwuid(cd->slurm_uid);
		if (pw)
			sgid = pw->pw_gid;
	}
	pid_t pid = fork();
	if (pid < 0) {
		error("job %u: cannot fork for %s: %m", j->job_id, path);
		for (char **e = envp; *e; e++)
			free(*e);
		free(envp);
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		for (int s = 1; s < NSIG; s++)
			if (s != SIGKILL && s != SIGSTOP)
				signal(s, SIG_DFL);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		int dn = open("/dev/null", O_RDWR);
		if (dn >= 0) {
			dup2(dn, 0);
			dup2(dn, 1);
			dup2(dn, 2);
		}
		close_range(3, ~0u, 0);
		if (geteuid() == 0 && cd->slurm_uid &&
		    (setgroups(1, &sgid) < 0 || setgid(sgid) < 0 || setuid(cd->slurm_uid) < 0))
			_exit(126);
		if (chdir("/") < 0)
			_exit(126);
		char *argv[] = { (char *)path, NULL };
		execve(path, argv, envp);
		_exit(127);
	}
	setpgid(pid, pid);
	for (char **e = envp; *e; e++)
		free(*e);
	free(envp);
	ctld_script_t *s = xcalloc(1, sizeof(*s));
	s->cd = cd;
	s->job_id = j->job_id;
	s->launch_seq = j->launch_seq;
	s->epilog = epilog;
	s->pid = pid;
	s->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (s->pidfd < 0 || loop_add_fd(cd->loop, s->pidfd, LOOP_READ, script_fd_cb, s) < 0) {
		/* no pidfd (a kernel before 5.3): wait here, bounded */
		error("job %u: cannot watch %s (pid %d): waiting for it", j->job_id, path, (int)pid);
		int st;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		script_ended(cd, s, st, 0);
		script_free(s);
		return 1;
	}
	uint32_t t = 0;
	const char *tv = conf_get(cd->conf, "PrologEpilogTimeout");
	if (tv && strtoul(tv, NULL, 10) < 65534)
		t = (uint32_t)strtoul(tv, NULL, 10);
	if (t)
		s->timer = loop_add_timer(cd->loop, (uint64_t)t * 1000, script_timer_cb, s);
	s->next = scripts;
	scripts = s;
	return 1;
}

int prolog_ctld_start(ctld_t *cd, job_t *j)
{
	if (!ctld_script_path(cd, 0))
		return 0;
	j->state |= JOB_CONFIGURING;
	job_dirty(cd, j);
	if (script_start(cd, j, 0) <= 0) {
		j->state &= ~JOB_CONFIGURING;
		return 0;      /* could not run it: go on as without one */
	}
	debug("job %u: PrologSlurmctld started", j->job_id);
	return 1;
}

void epilog_ctld_start(ctld_t *cd, job_t *j)
{
	if (ctld_script_path(cd, 1))
		script_start(cd, j, 1);
}

int prolog_ctld_running(uint32_t job_id)
{
	for (ctld_script_t *s = scripts; s; s = s->next)
		if (!s->epilog && s->job_id == job_id)
			return 1;
	return 0;
}

void prolog_ctld_recover(ctld_t *cd)
{
	if (recovered)
		return;
	recovered = 1;
	prolog_nodes_recover(cd);
	for (size_t i = 0; i < cd->njobs; i++) {
		job_t *j = cd->jobs[i];
		if ((j->state & JOB_STATE_BASE) != JOB_RUNNING || !(j->state & JOB_CONFIGURING))
			continue;
		if (prolog_ctld_running(j->job_id))
			continue;    /* started since the restart */
		if (ctld_script_path(cd, 0)) {
			info("job %u: its PrologSlurmctld was cut short by a restart: running it again",
			     j->job_id);
			if (script_start(cd, j, 0) > 0)
				continue;
		}
		/* its nodes' Prolog (PrologFlags=Alloc): prolog_nodes.c goes
		 * on when they answered */
		if (!j->prolog_wait)
			job_configured(cd, j);
	}
}
