/*
 * supervisor: the per-job process that runs a batch script and outlives
 * the node daemon.
 *
 * noded forks it twice (setsid in between) so that init adopts it and a
 * kill -9 or restart of noded leaves it running. Before noded returns to
 * its loop, the supervisor has written <spool>/job<ID>/state (its pid and
 * /proc start time, job id, launch_seq; see spool.c), so a registration
 * right after always lists the job, and a restarted noded finds it.
 *
 * Control channel (why files + a signal, not a socket): noded writes each
 * request (a msg_signal_job_t as text) to <jobdir>/req.<seq> atomically and
 * then sends the supervisor SIGUSR1; the supervisor (signalfd) takes the
 * req.* files in name order. This works unchanged after a noded restart
 * (all it needs is the spool record), needs no listening socket per job
 * (Unix socket paths are limited to 108 bytes, test spool dirs are not)
 * and a request is never lost: one written while the supervisor is busy
 * waits for the next SIGUSR1 scan. Step supervisors (step.c) use the same
 * channel in <spool>/step<ID>.<STEP>/.
 *
 * The supervisor: writes the script (0700, owned by the user), forks the
 * job (own session, so the job and its descendants form one process group
 * to signal), which drops to the user, opens its stdio files as the user,
 * changes to the work dir (or /tmp, as Slurm) and execs the script. It
 * then waits for the job, enforces the time limit (SIGTERM to the group at
 * start_time + time_limit, SIGKILL kill_wait seconds later: JOB_TIMEOUT),
 * applies cancel/signal requests, kills what is left of the group when the
 * script exits, records the result in the spool, reports MSG_JOB_COMPLETE
 * to ctld (retrying with backoff until answered) and removes its dir. If
 * its dir disappears (an admin or a test removed the spool), it kills the
 * job and stops retrying: nobody is left to care about the report.
 *
 * Time limit: the supervisor owns its enforcement (the job ends on time
 * even while the controller is unreachable); `scontrol update TimeLimit`
 * reaches it as a control request (SIGNAL_F_TIME_LIMIT with the new end),
 * sent again at each registration of the node. Fencing: once a second it
 * checks the node's lease (spool.c) and stops the job as NODE_FAIL when
 * it has run out. A supervisor that dies (kill -9) is noticed by noded
 * (supervisor_watch), which kills what is left of its job from the
 * recorded process groups and reports the job NODE_FAIL, as slurmd does
 * for a dead slurmstepd.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "errors.h"
#include "jobacct.h"
#include "metrics.h"
#include "noded.h"
#include "health.h"
#include "nccl_watch.h"
#include "prolog.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

/* ---- shared process helpers ---- */

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int detach_fork(noded_t *nd, const int *keep, int nkeep)
{
	pid_t p = fork();
	if (p < 0)
		return -1;
	if (p > 0) {
		int st;
		while (waitpid(p, &st, 0) < 0 && errno == EINTR)
			;
		return (WIFEXITED(st) && WEXITSTATUS(st) == 0) ? 1 : -1;
	}
	/* intermediate child: new session, then the real child */
	setsid();
	pid_t q = fork();
	if (q != 0)
		_exit(q < 0 ? 1 : 0);

	/* Close noded's sockets, epoll fd, ... but keep stdio, keep[] and
	 * the log (reopened below, since its fd is not ours to know). */
	log_init("slurmstepd", 1, nd->log_level, NULL);
	int k[16];
	int nk = 0;
	for (int i = 0; i < nkeep && nk < 16; i++)
		if (keep[i] > 2)
			k[nk++] = keep[i];
	qsort(k, (size_t)nk, sizeof(int), int_cmp);
	unsigned lo = 3;
	for (int i = 0; i < nk; i++) {
		if ((unsigned)k[i] > lo)
			close_range(lo, (unsigned)k[i] - 1, 0);
		lo = (unsigned)k[i] + 1;
	}
	close_range(lo, ~0u, 0);
	log_init("slurmstepd", 1, nd->log_level, nd->log_file);
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull >= 0 && devnull != 0) {
		dup2(devnull, 0);
		close(devnull);
	}
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	return 0;
}

void set_proctitle(noded_t *nd, const char *what)
{
	char t[64];
	snprintf(t, sizeof(t), "slurmstepd: [%s]", what);
	prctl(PR_SET_NAME, "slurmstepd", 0, 0, 0);
	if (nd->title && nd->title_len > 1) {
		memset(nd->title, 0, nd->title_len);
		memcpy(nd->title, t, strlen(t) < nd->title_len - 1 ? strlen(t) : nd->title_len - 1);
	}
}

int become_user(const char *user, uint32_t uid, uint32_t gid, char **err)
{
	if (geteuid() != 0) {
		if (uid != getuid()) {
			*err = xasprintf("node daemon runs as uid %u and cannot start jobs as uid %u",
					 (unsigned)getuid(), uid);
			return -1;
		}
		return 0;
	}
	char *name = xstrdup(user);
	if (!name) {
		struct passwd *pw = getpwuid(uid);
		if (pw)
			name = xstrdup(pw->pw_name);
	}
	int rc = name ? initgroups(name, gid) : -1;
	if (rc < 0) {
		gid_t g = gid;
		rc = setgroups(1, &g);
	}
	free(name);
	if (rc < 0) {
		*err = xasprintf("unable to set groups for uid %u: %s", uid, strerror(errno));
		return -1;
	}
	if (setgid(gid) < 0 || setuid(uid) < 0) {
		*err = xasprintf("unable to become uid %u gid %u: %s", uid, gid, strerror(errno));
		return -1;
	}
	return 0;
}

int sup_signalfd(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

void child_reset_signals(void)
{
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			signal(s, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

void child_close_fds(int keep)
{
	if (keep > 3)
		close_range(3, (unsigned)keep - 1, 0);
	close_range(keep >= 3 ? (unsigned)keep + 1 : 3, ~0u, 0);
}

void job_ctl_killall(job_ctl_t *c, int sig)
{
	for (uint32_t i = 0; i < c->npgids; i++)
		if (c->pgids[i] > 0)
			killpg(c->pgids[i], sig);
	/* and what left the process groups (proctrack/cgroup) */
	if (c->cg_nd)
		noded_cgroup_signal(c->cg_nd, c->cg_uid, c->cg_job, c->cg_step, sig);
}

void job_ctl_terminate(job_ctl_t *c, uint32_t kill_wait)
{
	if (c->killing)
		return;
	c->killing = 1;
	job_ctl_killall(c, SIGCONT);
	job_ctl_killall(c, SIGTERM);
	c->kill_at = (int64_t)time(NULL) + kill_wait;
}

void job_ctl_request(job_ctl_t *c, const msg_signal_job_t *m)
{
	if (m->flags & SIGNAL_F_KILL_JOB) {
		if (!c->end_state)
			c->end_state = m->end_state ? m->end_state : JOB_CANCELLED;
		job_ctl_terminate(c, m->kill_wait ? m->kill_wait : c->kill_wait);
		return;
	}
	int sig = (int)m->signal;
	if (sig <= 0 || sig >= NSIG)
		return;
	if (m->flags & SIGNAL_F_BATCH) {
		if (c->npgids && c->pgids[0] > 0)
			kill(c->pgids[0], sig);
		return;
	}
	job_ctl_killall(c, sig);
}

int64_t job_ctl_tick(job_ctl_t *c)
{
	if (!c->killing || !c->kill_at)
		return -1;
	int64_t now = time(NULL);
	if (now >= c->kill_at) {
		job_ctl_killall(c, SIGKILL);
		c->kill_at = 0;     /* once; the kernel does the rest */
		return -1;
	}
	return (c->kill_at - now) * 1000;
}

/* ---- the batch supervisor ---- */

/* How often a supervisor checks its spool dir and the node's lease (ms):
 * part of the controller's fencing margin (NODE_FENCE_MARGIN). */
#define SUP_CHECK_MS 1000

static int dir_exists(const char *d)
{
	struct stat st;
	return stat(d, &st) == 0 && S_ISDIR(st.st_mode);
}

static void write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* Slurm's stepd line in the job's stderr when the job is cancelled or
 * runs out of time ("slurmstepd: error: *** JOB 12 ON comp001 CANCELLED
 * AT 2026-11-30T04:10:00 DUE TO TIME LIMIT ***"). efd is the job's own
 * stderr (the child opened it as the user and passed it back), so the
 * line lands where the job's output is, not over it. */
static void job_stderr_note(const noded_t *nd, const msg_launch_job_t *m, int efd,
			    const char *why)
{
	if (efd < 0)
		return;
	char when[32];
	time_fmt_iso(time(NULL), when, sizeof(when));
	dprintf(efd, "slurmstepd: error: *** JOB %u ON %s CANCELLED AT %s%s ***\n",
		m->job_id, nd->name, when, why ? why : "");
}

/* The child passes its stderr and stdout (fds 2 and 1) to the supervisor
 * over errfd (a Unix socket): one byte 'F' with the two descriptors. */
static void send_stderr_fd(int errfd)
{
	char b = 'F';
	struct iovec iov = { &b, 1 };
	union { struct cmsghdr h; char buf[CMSG_SPACE(2 * sizeof(int))]; } u;
	memset(&u, 0, sizeof(u));
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(2 * sizeof(int));
	int fds[2] = { 2, 1 };
	memcpy(CMSG_DATA(c), fds, sizeof(fds));
	while (sendmsg(errfd, &mh, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

/* Read what the child sends on errfd until exec closes it: the stderr
 * and stdout descriptors (into *efd, *ofd) and, if the launch failed,
 * its error text. */
static void recv_child(int fd, int *efd, int *ofd, strbuf_t *msg)
{
	char buf[512];
	for (;;) {
		union { struct cmsghdr h; char b[CMSG_SPACE(2 * sizeof(int))]; } u;
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = u.b, .msg_controllen = sizeof(u.b) };
		ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		size_t skip = 0;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
			    (c->cmsg_len == CMSG_LEN(sizeof(int)) ||
			     c->cmsg_len == CMSG_LEN(2 * sizeof(int)))) {
				int got[2] = { -1, -1 };
				memcpy(got, CMSG_DATA(c), c->cmsg_len - CMSG_LEN(0));
				if (*efd >= 0)
					close(*efd);
				*efd = got[0];
				if (*ofd >= 0)
					close(*ofd);
				*ofd = got[1];
				skip = buf[0] == 'F';
			}
		strbuf_add(msg, buf + skip, (size_t)n - skip);
	}
}

/* The job child: never returns. Failures before exec go to errfd as
 * text (the supervisor fails the launch), after the chdir to the job's
 * stderr as Slurm's stepd writes them. */
static void __attribute__((noreturn))
job_child(noded_t *nd, const msg_launch_job_t *m, const char *script,
	  const char *out, const char *err_path, const char *in, int errfd)
{
	child_reset_signals();
	setsid();
	char *e = NULL;
	if (noded_cgroup_attach(nd, m->user_id, m->job_id, NODED_BATCH_STEP) < 0) {
		e = xasprintf("cannot join the job's cgroup: %s", strerror(errno));
		write_all(errfd, e, strlen(e));
		_exit(1);
	}
	if (become_user(m->user_name, m->user_id, m->group_id, &e) < 0) {
		write_all(errfd, e, strlen(e));
		_exit(1);
	}
	/* the submitter's umask, before the output files are created */
	umask(env_umask(&m->env));
	int oflags = O_WRONLY | O_CREAT | O_CLOEXEC |
		((m->flags & JOB_F_OPEN_APPEND) ? O_APPEND : O_TRUNC);
	int ifd = open(in, O_RDONLY | O_CLOEXEC);
	if (ifd < 0) {
		e = xasprintf("Could not open stdin file %s: %s", in, strerror(errno));
		write_all(errfd, e, strlen(e));
		_exit(1);
	}
	int ofd = open(out, oflags, 0644);
	if (ofd < 0) {
		e = xasprintf("Could not open stdout file %s: %s", out, strerror(errno));
		write_all(errfd, e, strlen(e));
		_exit(1);
	}
	int efd = ofd;
	if (strcmp(out, err_path)) {
		efd = open(err_path, oflags, 0644);
		if (efd < 0) {
			e = xasprintf("Could not open stderr file %s: %s", err_path, strerror(errno));
			write_all(errfd, e, strlen(e));
			_exit(1);
		}
	}
	if (dup2(ifd, 0) < 0 || dup2(ofd, 1) < 0 || dup2(efd, 2) < 0) {
		e = xasprintf("dup2: %s", strerror(errno));
		write_all(errfd, e, strlen(e));
		_exit(1);
	}
	send_stderr_fd(errfd);
	const char *wd = m->work_dir && *m->work_dir ? m->work_dir : "/tmp";
	if (chdir(wd) < 0) {
		dprintf(2, "slurmstepd: error: couldn't chdir to `%s': %s: going to /tmp instead\n",
			wd, strerror(errno));
		if (chdir("/tmp") < 0)
			(void)!chdir("/");
	}
	strv_t env = { NULL, 0 };
	for (uint32_t i = 0; i < m->env.n; i++)
		strv_push(&env, m->env.v[i]);
	if (m->get_user_env && env_load_user(&env, m->get_user_env, &e) < 0) {
		dprintf(2, "slurmstepd: error: Unable to load the user's environment: %s\n", e);
		free(e);
		e = NULL;
	}
	env_set(&env, "SLURMD_NODENAME", nd->name);
	env_setf(&env, "SLURM_TASK_PID", "%d", (int)getpid());
	/* The controller numbered the job's GPUs by the node's indexes (as
	 * SLURM_JOB_GPUS keeps them); where ConstrainDevices hides the
	 * others, CUDA counts only the job's, as a step's tasks see them. */
	uint64_t vis = noded_cgroup_gpus_visible(nd, m->gpus);
	if (vis)
		gpu_env_cuda(&env, m->gpus, vis);
	env_apply_rlimits(&env, nd->conf);
	/* TaskProlog (prolog.c): export/unset/print applied to the job */
	task_prolog_run(conf_get(nd->conf, "TaskProlog"), &env, 1, prolog_timeout(nd->conf));
	char **envp = env_to_envp(&env);
	char **argv = xcalloc(m->argv.n + 2, sizeof(*argv));
	argv[0] = (char *)script;
	for (uint32_t i = 0; i < m->argv.n; i++)
		argv[i + 1] = m->argv.v[i];
	child_close_fds(errfd);
	execve(script, argv, envp);
	e = xasprintf("execve(): %s: %s", script, strerror(errno));
	write_all(errfd, e, strlen(e));
	_exit(1);
}

int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void sup_report(noded_t *nd, const char *dir, enum msg_type type, const void *msg,
		const char *what)
{
	uint64_t backoff_ms = 100;
	for (;;) {
		char *emsg = NULL;
		int rc = rpc_call_ctld_rc(nd->conf, type, msg, &emsg);
		if (rc == 0 || rc >= 2000 || rc == SLURM_ERROR) {
			if (rc && rc != ESLURM_INVALID_JOB_ID && rc != ESLURM_ALREADY_DONE)
				error("%s: end refused by controller: %s%s%s", what,
				      slurm_strerror(rc), emsg ? ": " : "", emsg ? emsg : "");
			free(emsg);
			return;
		}
		debug("%s: cannot report the end yet: %s", what, slurm_strerror(rc));
		free(emsg);
		if (!dir_exists(dir)) {
			info("%s: spool dir removed, giving up the report", what);
			return;
		}
		struct timespec ts = { (time_t)(backoff_ms / 1000), (long)(backoff_ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
		backoff_ms = backoff_ms * 2 > 10000 ? 10000 : backoff_ms * 2;
	}
}

/* Report the end to ctld until it answers: the batch step's record
 * (with its resource use), then the job's end. */
static void report_complete(noded_t *nd, const char *dir, const spool_rec_t *r, uint32_t rc)
{
	char what[48];
	msg_job_complete_t c = {
		.job_id = r->job_id, .step_id = NO_VAL32, .launch_seq = r->launch_seq,
		.exit_status = r->exit_status, .end_state = r->end_state,
		.node = nd->name, .end_time = r->end_time, .rc = rc,
	};
	snprintf(what, sizeof(what), "job %u", r->job_id);
	sup_report(nd, dir, MSG_JOB_COMPLETE, &c, what);
}

static int signal_steps_here(noded_t *nd, uint32_t job_id, uint32_t sig);
static void end_steps_here(noded_t *nd, uint32_t job_id, uint32_t kill_wait);

/* --signal: when the warning is due (0 = none: no signal or no limit). */
static int64_t warn_due(const msg_launch_job_t *m, int64_t time_limit_at)
{
	if (!m->warn_signal || !time_limit_at)
		return 0;
	return time_limit_at - (int64_t)m->warn_time;
}

static void __attribute__((noreturn))
batch_main(noded_t *nd, const msg_launch_job_t *m, const char *dir, int ready_fd)
{
	/* Requests may arrive as soon as noded knows our pid. */
	int sfd = sup_signalfd();
	char title[32];
	snprintf(title, sizeof(title), "%u.batch", m->job_id);
	set_proctitle(nd, title);
	spool_rec_t rec = {
		.job_id = m->job_id, .step_id = NODED_BATCH_STEP, .launch_seq = m->launch_seq,
		.pid = getpid(), .pid_start = proc_start_time(getpid()),
	};
	if (spool_rec_write(dir, &rec) < 0)
		error("job %u: cannot write spool record in %s: %m", m->job_id, dir);
	write_all(ready_fd, "1", 1);
	close(ready_fd);

	uint32_t status = 1u << 8, end_state = JOB_FAILED;
	int64_t time_limit_at = 0;
	if (m->time_limit && m->time_limit != TIME_INFINITE && m->time_limit != TIME_NO_VAL)
		time_limit_at = (m->start_time ? m->start_time : (int64_t)time(NULL)) +
			(int64_t)m->time_limit * 60;

	/* Script and paths. */
	char *script = xasprintf("%s/script", dir);
	pattern_ctx_t pc = {
		.job_id = m->job_id, .step_id = NODED_BATCH_STEP, .array_task_id = NO_VAL32,
		.job_name = m->name, .user = m->user_name, .node = nd->name,
	};
	pattern_ctx_array_from_env(&pc, &m->env);
	char *out = pattern_path(m->std_out, "slurm-%j.out", m->work_dir, &pc);
	char *errp = m->std_err && *m->std_err ?
		pattern_path(m->std_err, NULL, m->work_dir, &pc) : xstrdup(out);
	char *in = pattern_path(m->std_in, "/dev/null", m->work_dir, &pc);

	const char *s = m->script ? m->script : "";
	int in_cg = noded_cgroup_create(nd, m->user_id, m->job_id, NODED_BATCH_STEP, m, NULL, NULL, 0);
	pid_t pid = -1;
	int job_err = -1;        /* the job's stderr, for Slurm's CANCELLED line */
	int job_out = -1;        /* its stdout, for the NCCL check (nccl_watch.c) */
	/* The node's Prolog (prolog_node.c: once per job on the node; with
	 * PrologFlags=Alloc it already ran), here and not in noded's loop. */
	uint32_t node_rc = prolog_node_once(nd, m->job_id, &m->prolog_env) ? ESLURMD_PROLOG_FAILED : 0;
	if (node_rc) {
		/* no job: the controller requeues it held and drains the node */
	} else if (write_file_atomic(script, s, strlen(s), 0700) < 0) {
		error("job %u: cannot write script %s: %m", m->job_id, script);
	} else if (geteuid() == 0 && chown(script, m->user_id, m->group_id) < 0) {
		error("job %u: cannot chown script %s: %m", m->job_id, script);
	} else {
		int ep[2];
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ep) < 0) {
			error("job %u: socketpair: %m", m->job_id);
		} else if ((pid = fork()) < 0) {
			error("job %u: fork: %m", m->job_id);
			close(ep[0]);
			close(ep[1]);
		} else if (pid == 0) {
			close(ep[0]);
			close(sfd);
			job_child(nd, m, script, out, errp, in, ep[1]);
		} else {
			close(ep[1]);
			/* What noded kills should this supervisor die: recorded
			 * now, before the child can exec (it leads its own
			 * session, so its pid is the group to kill), not once
			 * it has, which left a window where a supervisor killed
			 * right after the exec orphaned the job. */
			if (spool_tasks_write(dir, &pid, 1) < 0)
				error("job %u: cannot record its process group: %m", m->job_id);
			strbuf_t msg = STRBUF_INIT;
			recv_child(ep[0], &job_err, &job_out, &msg);
			close(ep[0]);
			if (msg.len) {
				error("job %u: launch failed: %s", m->job_id, msg.buf);
				int st;
				while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
					;
				pid = -1;
			} else {
				info("job %u: started pid %d", m->job_id, (int)pid);
			}
			strbuf_release(&msg);
		}
	}
	/* The NCCL transport check reads the job's output through its own
	 * descriptors (reopened read-only). */
	nccl_watch_t *nccl = pid > 0 ? nccl_watch_start(nd, m, job_out, job_err) : NULL;
	if (job_out >= 0)
		close(job_out);
	/* Only the job child needed them; the supervisor lives on. */
	free(script);
	free(out);
	free(errp);
	free(in);

	noded_cg_end_t cg_end = { 0 };
	/* The batch step's record: its one task's resource use. */
	jobacct_conf_t jc;
	jobacct_conf_from(nd->conf, &jc);
	jobacct_t *ja = jobacct_new(&jc, 1, NULL);
	msg_step_complete_t sc = {
		.job_id = m->job_id, .step_id = NODED_BATCH_STEP, .launch_seq = m->launch_seq,
		.node = nd->name, .nnodes = 1, .start_time = time(NULL),
		.exit_status = status, .end_state = end_state, .gathered = jc.type != JAG_NONE,
	};
	if (pid > 0) {
		pid_t pg = pid;
		job_ctl_t ctl = { .pgids = &pg, .npgids = 1, .kill_wait = m->kill_wait,
				  .cg_nd = in_cg ? nd : NULL, .cg_uid = m->user_id,
				  .cg_job = m->job_id, .cg_step = NODED_BATCH_STEP };
		int timed_out = 0, orphaned = 0, cancelled = 0, st = 0;
		int64_t warned_for = 0;  /* the limit the --signal warning went for */
		jobacct_task_start(ja, 0, pid, 0, mono_ms());
		jobacct_save(ja, dir);    /* sstat finds the script at once */
		for (;;) {
			int64_t now = time(NULL);
			int64_t warn_at = warn_due(m, time_limit_at);
			if (warn_at && !ctl.killing && now >= warn_at && warned_for != time_limit_at) {
				/* --signal=[B:]SIG@TIME, as Slurm: B: the batch shell
				 * alone, otherwise the job's steps (not the shell).
				 * A later limit (scontrol update) warns again. */
				warned_for = time_limit_at;
				if (m->warn_flags & WARN_F_BATCH) {
					info("job %u: --signal: signal %u to the batch shell", m->job_id,
					     m->warn_signal);
					kill(pid, (int)m->warn_signal);
				} else {
					int n = signal_steps_here(nd, m->job_id, m->warn_signal);
					info("job %u: --signal: signal %u to %d step%s", m->job_id,
					     m->warn_signal, n, n == 1 ? "" : "s");
				}
			}
			if (time_limit_at && !ctl.killing && now >= time_limit_at) {
				info("job %u: time limit reached", m->job_id);
				timed_out = 1;
				job_stderr_note(nd, m, job_err, " DUE TO TIME LIMIT");
				job_ctl_terminate(&ctl, m->kill_wait);
			}
			/* Fencing: past the node's lease the controller may run
			 * the job elsewhere; this copy must be gone by then. */
			if (!ctl.killing && spool_lease_expired(nd->spool)) {
				error("job %u: the controller has not heard from this node for "
				      "its lease: stopping the job (NODE_FAIL)", m->job_id);
				job_stderr_note(nd, m, job_err,
						" DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS");
				msg_signal_job_t req = { .flags = SIGNAL_F_KILL_JOB,
							 .end_state = JOB_NODE_FAIL };
				job_ctl_request(&ctl, &req);
			}
			int64_t wait_ms = SUP_CHECK_MS;   /* spool dir and lease checks */
			int64_t t = job_ctl_tick(&ctl);
			if (t >= 0 && t < wait_ms)
				wait_ms = t;
			if (time_limit_at && !ctl.killing) {
				int64_t left = (time_limit_at - now) * 1000;
				if (left < wait_ms)
					wait_ms = left < 0 ? 0 : left;
			}
			if (warn_at && !ctl.killing && warned_for != time_limit_at) {
				int64_t left = (warn_at - now) * 1000;
				if (left < wait_ms)
					wait_ms = left < 0 ? 0 : left;
			}
			int64_t due = jobacct_due_ms(ja, mono_ms());
			if (due == 0) {
				jobacct_sample(ja, mono_ms());
				jobacct_save(ja, dir);
				due = jobacct_due_ms(ja, mono_ms());
			}
			if (due >= 0 && due < wait_ms)
				wait_ms = due;
			int64_t nt = ctl.killing ? -1 : nccl_watch_tick(nccl);
			if (nt >= 0 && nt < wait_ms)
				wait_ms = nt;
			struct pollfd pfd = { sfd, POLLIN, 0 };
			poll(&pfd, 1, (int)wait_ms + (wait_ms < SUP_CHECK_MS ? 20 : 0));
			struct signalfd_siginfo si;
			while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				if (si.ssi_signo == SIGUSR1) {
					msg_signal_job_t req;
					while (spool_request_take(dir, &req)) {
						debug("job %u: request signal %u flags %#x", m->job_id,
						      req.signal, req.flags);
						if (req.flags & SIGNAL_F_NOTIFY) {
							/* scontrol notify: Slurm's line */
							if (job_err >= 0 && req.message)
								dprintf(job_err, "slurmstepd-%s: error: %s\n",
									nd->name, req.message);
							free(req.message);
							continue;
						}
						if (req.flags & SIGNAL_F_TIME_LIMIT) {
							/* scontrol update TimeLimit: the new end */
							time_limit_at = req.end_time;
							info("job %u: time limit now ends at %lld", m->job_id,
							     (long long)time_limit_at);
							continue;
						}
						/* scancel: Slurm's line, once */
						if ((req.flags & SIGNAL_F_KILL_JOB) && !ctl.killing &&
						    !timed_out && (req.end_state & JOB_STATE_BASE) == JOB_CANCELLED) {
							job_stderr_note(nd, m, job_err, NULL);
							cancelled = 1;
						}
						job_ctl_request(&ctl, &req);
					}
				} else if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT) {
					msg_signal_job_t req = { .flags = SIGNAL_F_KILL_JOB,
								 .end_state = JOB_CANCELLED };
					job_ctl_request(&ctl, &req);
				}
			}
			/* Ended? Sample its zombie (the totals of the tree) before
			 * reaping it, then take the exact rusage. */
			siginfo_t wi;
			memset(&wi, 0, sizeof(wi));
			if (waitid(P_PID, (id_t)pid, &wi, WEXITED | WNOHANG | WNOWAIT) == 0 &&
			    wi.si_pid == pid) {
				jobacct_sample(ja, mono_ms());
				struct rusage ru;
				pid_t w;
				while ((w = wait4(pid, &st, 0, &ru)) < 0 && errno == EINTR)
					;
				jobacct_task_end(ja, pid, w == pid ? &ru : NULL);
				break;
			}
			if (!orphaned && !dir_exists(dir)) {
				orphaned = 1;
				info("job %u: spool dir removed, killing the job", m->job_id);
				job_ctl_killall(&ctl, SIGKILL);
			}
		}
		/* Descendants left behind die with the script (proctrack). */
		killpg(pg, SIGKILL);
		nccl_watch_end(nccl);
		nccl = NULL;
		noded_cgroup_end(nd, m->user_id, m->job_id, NODED_BATCH_STEP, &cg_end);
		status = (uint32_t)st;
		if (ctl.end_state)
			end_state = ctl.end_state;
		else if (timed_out)
			end_state = JOB_TIMEOUT;
		else
			end_state = st == 0 ? JOB_COMPLETE : JOB_FAILED;
		info("job %u: ended, status %#x, state %s", m->job_id, status,
		     job_state_string(end_state));
		task_epilog_run(nd->conf, m->user_name, m->user_id, m->group_id, m->work_dir,
				&m->env);
		if (end_state == JOB_NODE_FAIL) {
			sc.end_state = JOB_NODE_FAIL;
			sc.exit_status = 0;
		} else {
			batch_step_state(st, &sc.end_state, &sc.exit_status);
		}
		if (cg_end.oom_kills && !cancelled && !timed_out && !ctl.end_state) {
			/* Slurm's line, state and exit code (SIG_OOM: 0:125) */
			if (job_err >= 0)
				dprintf(job_err, "slurmstepd: error: Detected %" PRIu64 " oom-kill event(s) "
					"in StepId=%u.batch. Some of your processes may have been killed "
					"by the cgroup out-of-memory handler.\n", cg_end.oom_kills, m->job_id);
			info("job %u: %" PRIu64 " oom-kill event(s): OUT_OF_MEMORY", m->job_id,
			     cg_end.oom_kills);
			end_state = sc.end_state = JOB_OOM;
			status = sc.exit_status = NODED_SIG_OOM;
		}
		if (ja->samples)
			debug("job %u: %" PRIu64 " accounting samples, %" PRIu64 " us each",
			      m->job_id, ja->samples, ja->sample_ns / ja->samples / 1000);
		if (orphaned)
			_exit(0);
	}
	if (pid <= 0 && in_cg)     /* the launch failed */
		noded_cgroup_end(nd, m->user_id, m->job_id, NODED_BATCH_STEP, &cg_end);
	if (job_err >= 0)
		close(job_err);

	rec.done = 1;
	rec.exit_status = status;
	rec.end_state = end_state;
	rec.end_time = time(NULL);
	if (dir_exists(dir) && spool_rec_write(dir, &rec) < 0)
		error("job %u: cannot record the result: %m", m->job_id);
	/* before the controller hears of the end, so no step starts after */
	spool_revoke(nd->spool, m->job_id, rec.end_time);
	/* The job ends with its script: a step still running here (an srun
	 * the script left in the background, or one started from outside
	 * with --jobid) ends with it, as Slurm's job termination does, and
	 * before the Epilog runs and the controller hears of the end. */
	if (pid > 0)
		end_steps_here(nd, m->job_id, m->kill_wait);
	sc.end_time = rec.end_time;
	jobacct_usage(ja, &sc.usage);
	noded_cgroup_usage(&cg_end, jc.type == JAG_CGROUP, &sc.usage);
	jobacct_free(ja);
	/* a launch that failed ran no batch step: the job's end closes it */
	if (pid > 0) {
		char what[48];
		snprintf(what, sizeof(what), "step %u.batch", m->job_id);
		sup_report(nd, dir, MSG_STEP_COMPLETE, &sc, what);
	}
	/* The Epilog, once the job is gone, before its end is reported. */
	if (epilog_node_once(nd, m->job_id, &m->prolog_env) < 0 && !node_rc)
		node_rc = ESLURMD_EPILOG_FAILED;
	report_complete(nd, dir, &rec, node_rc);
	rm_rf(dir);
	_exit(0);
}

void supervisor_launch(noded_t *nd, const msg_launch_job_t *m)
{
	char *dir = spool_job_dir(nd->spool, m->job_id);
	spool_rec_t old;
	if (spool_rec_read(dir, &old) == 0 && spool_rec_alive(&old)) {
		if (old.done && old.launch_seq != m->launch_seq) {
			/* An older run that ended and is only retrying its
			 * report (the controller was unreachable): the report
			 * is stale now that the job was launched again. */
			info("job %u: launch %u replaces launch %u, which ended", m->job_id,
			     m->launch_seq, old.launch_seq);
			kill((pid_t)old.pid, SIGKILL);
			for (int i = 0; i < 100 && spool_rec_alive(&old); i++) {
				struct timespec ts = { 0, 10000000L };
				nanosleep(&ts, NULL);
			}
		} else {
			if (old.launch_seq == m->launch_seq)
				debug("job %u: launch %u already running", m->job_id, m->launch_seq);
			else
				error("job %u: launch %u refused: launch %u still running", m->job_id,
				      m->launch_seq, old.launch_seq);
			free(dir);
			return;
		}
	}
	rm_rf(dir);
	if (mkdir(dir, 0755) < 0)
		error("job %u: cannot create %s: %m", m->job_id, dir);
	else if (metrics_job_meta_write(dir, &m->env, m->user_id, 0) < 0)
		error("job %u: cannot record its metrics labels in %s: %m", m->job_id, dir);
	/* health.conf's gate: a node failing it refuses the job (health.c) */
	if (health_launch_gate(nd, m, dir)) {
		free(dir);
		return;
	}
	int rp[2];
	if (pipe2(rp, O_CLOEXEC) < 0) {
		error("job %u: pipe: %m", m->job_id);
		free(dir);
		return;
	}
	int r = detach_fork(nd, &rp[1], 1);
	if (r == 0) {
		close(rp[0]);
		batch_main(nd, m, dir, rp[1]);
	}
	close(rp[1]);
	if (r < 0) {
		error("job %u: cannot fork the supervisor: %m", m->job_id);
	} else {
		/* Wait (bounded) for the supervisor's record. */
		struct pollfd pfd = { rp[0], POLLIN, 0 };
		if (poll(&pfd, 1, 5000) <= 0)
			error("job %u: supervisor did not start in time", m->job_id);
		verbose("job %u: launched (seq %u)", m->job_id, m->launch_seq);
	}
	close(rp[0]);
	free(dir);
}

struct sig_scan {
	const msg_signal_job_t *m;
	int reached;
	int steps_only;          /* leave the batch supervisor out */
};

static void sig_one(const char *dir, const spool_rec_t *r, void *arg)
{
	struct sig_scan *ss = arg;
	if (!r || r->job_id != ss->m->job_id || r->done || !spool_rec_alive(r))
		return;
	/* Which supervisors a signal reaches: the batch shell's alone
	 * (SIGNAL_F_BATCH), the steps' alone (SIGNAL_F_STEPS), else all. */
	uint32_t fl = ss->m->flags;
	int batch = r->step_id == NODED_BATCH_STEP;
	if (ss->steps_only && batch)
		return;
	if (!(fl & (SIGNAL_F_KILL_JOB | SIGNAL_F_TIME_LIMIT)) &&
	    (((fl & SIGNAL_F_BATCH) && !batch) || ((fl & SIGNAL_F_STEPS) && batch)))
		return;
	if (spool_request_write(dir, ss->m) < 0) {
		error("job %u: cannot queue the signal request in %s: %m", r->job_id, dir);
		return;
	}
	if (kill((pid_t)r->pid, SIGUSR1) == 0)
		ss->reached++;
}

static int signal_steps_here(noded_t *nd, uint32_t job_id, uint32_t sig)
{
	msg_signal_job_t m = { .job_id = job_id, .signal = sig };
	struct sig_scan ss = { &m, 0, 1 };
	spool_scan(nd->spool, sig_one, &ss);
	return ss.reached;
}

struct steps_left {
	uint32_t job_id;
	int n;
};

static void count_step(const char *dir, const spool_rec_t *r, void *arg)
{
	struct steps_left *sl = arg;
	(void)dir;
	if (r && r->job_id == sl->job_id && r->step_id != NODED_BATCH_STEP && !r->done &&
	    spool_rec_alive(r))
		sl->n++;
}

/* Ask every step supervisor of the job on this node to end its step
 * (SIGCONT, SIGTERM, SIGKILL after kill_wait: CANCELLED) and wait for
 * them, at most kill_wait + 5 s: a supervisor that does not end by then
 * is left to supervisor_watch. Cost: one spool scan per 100 ms. */
static void end_steps_here(noded_t *nd, uint32_t job_id, uint32_t kill_wait)
{
	msg_signal_job_t m = { .job_id = job_id, .signal = SIGKILL, .flags = SIGNAL_F_KILL_JOB,
			       .kill_wait = kill_wait, .end_state = JOB_CANCELLED };
	struct sig_scan ss = { &m, 0, 1 };
	spool_scan(nd->spool, sig_one, &ss);
	if (!ss.reached)
		return;
	info("job %u: ended with %d step%s still running here: ending them", job_id, ss.reached,
	     ss.reached == 1 ? "" : "s");
	int64_t until = mono_ms() + ((int64_t)kill_wait + 5) * 1000;
	for (;;) {
		struct steps_left sl = { job_id, 0 };
		spool_scan(nd->spool, count_step, &sl);
		if (!sl.n)
			return;
		if (mono_ms() >= until) {
			error("job %u: %d step%s still running %us after the job ended", job_id,
			      sl.n, sl.n == 1 ? "" : "s", kill_wait + 5);
			return;
		}
		struct timespec ts = { 0, 100000000L };
		nanosleep(&ts, NULL);
	}
}

int supervisor_signal(noded_t *nd, const msg_signal_job_t *m)
{
	struct sig_scan ss = { m, 0, 0 };
	spool_scan(nd->spool, sig_one, &ss);
	if (!ss.reached)
		verbose("job %u: signal %u: no supervisor here", m->job_id, m->signal);
	return ss.reached;
}

/* ---- dead supervisors ---- */

struct watch {
	noded_t *nd;
	conn_t *report;
};

static void watch_one(const char *dir, const spool_rec_t *rec, void *arg)
{
	struct watch *w = arg;
	if (!rec || spool_rec_alive(rec))
		return;
	spool_rec_t r = *rec;
	int batch = r.step_id == NODED_BATCH_STEP;
	if (!r.done) {
		/* Died with its job running: nothing enforces its limit or
		 * reports its end any more. */
		int n = spool_tasks_kill(dir);
		int ncg = noded_cgroup_cleanup(w->nd, r.job_id, r.step_id);
		if (ncg)
			info("job %u: killed %d process%s left in its cgroup", r.job_id, ncg,
			     ncg == 1 ? "" : "es");
		if (batch)
			error("job %u: its supervisor (pid %lld) died; killed %d process group%s "
			      "left, reporting NODE_FAIL", r.job_id, (long long)r.pid, n,
			      n == 1 ? "" : "s");
		else
			error("step %u.%u: its supervisor (pid %lld) died; killed %d process "
			      "group%s left", r.job_id, r.step_id, (long long)r.pid, n,
			      n == 1 ? "" : "s");
		r.done = 1;
		r.exit_status = 0;
		r.end_state = JOB_NODE_FAIL;
		r.end_time = time(NULL);
		if (spool_rec_write(dir, &r) < 0)
			error("cannot record the end in %s: %m", dir);
		if (batch)
			spool_revoke(w->nd->spool, r.job_id, r.end_time);
	}
	if (!batch) {
		/* srun learns from its connection, which died with it. */
		rm_rf(dir);
		return;
	}
	if (!w->report)
		return;          /* reported once the link is back */
	msg_job_complete_t c = {
		.job_id = r.job_id, .step_id = NO_VAL32, .launch_seq = r.launch_seq,
		.exit_status = r.exit_status, .end_state = r.end_state,
		.node = w->nd->name, .end_time = r.end_time,
	};
	conn_send(w->report, MSG_JOB_COMPLETE, &c);
	rm_rf(dir);
}

void supervisor_watch(noded_t *nd, conn_t *report)
{
	struct watch w = { nd, report };
	spool_scan(nd->spool, watch_one, &w);
}
