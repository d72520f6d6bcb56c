/*
 * step: the step-launch server for srun, and the step supervisor.
 *
 * noded listens on the node's Port. The only message accepted there is
 * MSG_LAUNCH_STEP, and only with a valid launch credential (signed by the
 * controller: root or SlurmUser; not expired nor revoked; job, step, uid
 * and gid as in the request; the digest of the request (cred_launch_digest:
 * command, environment, directory, stdin routing, ...) the one it was
 * issued for; the launch that of this node's own place in the step, its
 * index, first task and task count as the credential's layout says:
 * cred_launch_node_check; written by the step's srun: in auth/slurm its
 * launch_mac under the step's launch key, cred_launch_mac_check, in
 * auth/munge a frame signed by the step's user) that this node has not
 * accepted before (spool_cred_use, kept in the spool until it expires, so
 * a restart does not reopen it). In auth/slurm the frame itself may be
 * unsigned (AUTH_UID_NONE) since srun run by a user cannot sign: the
 * credential and the MAC cover the request instead; if it is signed, the
 * signer must be the credential's user, root or SlurmUser.
 *
 * An accepted launch forks a detached step supervisor (the same double
 * fork and spool record as a batch supervisor, in <spool>/step<J>.<S>/) that
 * inherits the connection: it answers MSG_RC 0 itself, so nothing can
 * overtake that reply, then runs the node's tasks as the user, each in its
 * own session with stdout/stderr on pipes, streams their output as
 * MSG_STEP_IO frames (in whole lines per task and stream unless srun -u:
 * linebuf.h; a last line without newline goes at the stream's end), sends
 * one MSG_STEP_TASK_EXIT per task once its
 * output is drained, and exits. Stdin is /dev/null, or with STEP_F_STDIN
 * a pipe fed from srun's STEP_IO_STDIN frames (buffered per task; while
 * more than STEP_STDIN_BUFFERED bytes wait, srun's frames are not read, so
 * srun's sending thread waits instead of memory growing). When srun goes away (EOF on the
 * connection) the tasks are killed, as Slurm does. Signal/cancel requests
 * reach it through the spool request files (see supervisor.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cred.h"
#include "errors.h"
#include "hostlist.h"
#include "jobacct.h"
#include "linebuf.h"
#include "metrics.h"
#include "mpi_type.h"
#include "multiprog.h"
#include "pmi2.h"
#include "pmix_srv.h"
#include "noded.h"
#include "prolog.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

#define STEP_MAX_TASKS 4096
#define STEP_STDIN_BUFFERED (16u << 20)
/* Task output goes to srun in whole lines (linebuf.h) unless srun -u: a
 * line waits for its end up to STEP_LINE_MAX bytes, less when the node
 * runs many tasks, so that what waits for the whole step stays under
 * STEP_LINES_WAITING (8 KiB per stream at STEP_MAX_TASKS; STEP_LINE_MIN is
 * a floor should those change). Slurm's slurmstepd cuts at 1024 bytes. */
#define STEP_LINE_MAX (1u << 20)
#define STEP_LINE_MIN (4u << 10)
#define STEP_LINES_WAITING (64u << 20)
/* srun --pty: how long the terminal's output is read after its task
 * ended when something it left behind keeps the terminal open */
#define STEP_PTY_DRAIN_MS 1000

typedef struct task {
	pid_t pid;
	uint32_t rank;
	int out, err;            /* pipe read ends, -1 at EOF */
	linebuf_t line[2];       /* stdout's, stderr's unfinished line */
	int in;                  /* stdin pipe write end, -1 none or closed */
	strbuf_t inbuf;          /* stdin from srun not yet written */
	size_t inoff;
	int exited, reported;
	int status;
	int in_eof;              /* srun sent this task's stdin EOF */
	int pty;                 /* srun --pty's task 0: out is the terminal's
	                          * master, in a duplicate of it */
	int pty_slave;           /* the slave, held until the task is reaped */
	int64_t pty_drain_until; /* reaped: read what is left until then */
} task_t;

/* The task child: never returns. Errors go to its stderr pipe, as
 * slurmstepd writes them. */
/* srun --task-epilog: the task runs as our child and the epilog after it
 * (as the task, with its environment); we then end as the task ended,
 * by the same signal or with the same exit code. */
static void __attribute__((noreturn))
task_run_with_epilog(char **argv, char **envp, const char *epilog)
{
	pid_t pid = fork();
	if (pid == 0) {
		execvp(argv[0], argv);
		int en = errno;
		dprintf(2, "slurmstepd: error: execve(): %s: %s\n", argv[0], strerror(en));
		_exit(en > 0 && en < 256 ? en : 1);
	}
	int st = 1 << 8;
	/* signals for the task reach us too (one process group): let the
	 * task take them, and outlive it to run the epilog */
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	pid_t e = fork();
	if (e == 0) {
		char *eargv[] = { (char *)epilog, NULL };
		execve(epilog, eargv, envp);
		dprintf(2, "slurmstepd: error: execve(): %s: %s\n", epilog, strerror(errno));
		_exit(127);
	}
	while (e > 0 && waitpid(e, NULL, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(st)) {
		signal(WTERMSIG(st), SIG_DFL);
		raise(WTERMSIG(st));
	}
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
}

/* "0,1,2" for the tasks first..first+n-1 (SLURM_GTIDS). */
static char *gtids(uint32_t first, uint32_t n)
{
	strbuf_t sb = STRBUF_INIT;
	for (uint32_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%u", i ? "," : "", first + i);
	return strbuf_detach(&sb);
}

/* out/err -1: /dev/null (srun --pty's tasks but 0); pty >= 0: the
 * terminal's slave, for all three. */
static void __attribute__((noreturn))
task_child(noded_t *nd, const msg_launch_step_t *m, const cred_t *cr,
	   uint32_t local, int out, int err, int in, const char *srun_host, int pty,
	   int pmi_fd, const char *pmi_jobid, const strv_t *mpi_env)
{
	child_reset_signals();
	setsid();
	if (pty >= 0) {
		if (step_pty_attach(pty) < 0)
			_exit(1);
	} else {
		if (in < 0)
			in = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (out < 0)
			out = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (err < 0)
			err = out;
		if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
			_exit(1);
	}
	if (noded_cgroup_attach(nd, cr->uid, m->job_id, m->step_id) < 0) {
		dprintf(2, "slurmstepd: error: cannot join the step's cgroup: %s\n", strerror(errno));
		_exit(1);
	}
	char *e = NULL;
	if (become_user(cr->user, cr->uid, cr->gid, &e) < 0) {
		dprintf(2, "slurmstepd: error: %s\n", e);
		_exit(1);
	}
	umask(env_umask(&m->env));
	char *bind_msg = NULL;
	if (cpubind_apply(m->cpu_bind, m->cpu_ids, m->first_task + local, local, m->cpus_per_task,
			  nd->name, &bind_msg) < 0)
		dprintf(2, "slurmstepd: error: task/affinity: sched_setaffinity: %s\n", strerror(errno));
	if (bind_msg) {
		dprintf(2, "%s", bind_msg);
		free(bind_msg);
	}
	const char *wd = m->cwd && *m->cwd ? m->cwd : "/tmp";
	if (chdir(wd) < 0) {
		dprintf(2, "slurmstepd: error: couldn't chdir to `%s': %s: going to /tmp instead\n",
			wd, strerror(errno));
		if (chdir("/tmp") < 0)
			(void)!chdir("/");
	}
	strv_t env = { NULL, 0 };
	for (uint32_t i = 0; i < m->env.n; i++)
		strv_push(&env, m->env.v[i]);
	env_setf(&env, "SLURM_STEP_ID", "%u", m->step_id);
	env_setf(&env, "SLURM_STEPID", "%u", m->step_id);
	env_setf(&env, "SLURM_PROCID", "%u", m->first_task + local);
	env_setf(&env, "SLURM_LOCALID", "%u", local);
	env_setf(&env, "SLURM_NODEID", "%u", m->node_id);
	env_setf(&env, "SLURM_TASK_PID", "%d", (int)getpid());
	env_set(&env, "SLURMD_NODENAME", nd->name);
	env_setf(&env, "SLURM_STEP_NUM_TASKS", "%u", m->total_tasks);
	env_setf(&env, "SLURM_STEP_NUM_NODES", "%u", m->nnodes);
	/* What srun leaves to us (the launch it signs the digest of is
	 * made before the step exists): from the request, whose layout
	 * step_on_msg checked against the credential, and the credential. */
	env_setf(&env, "SLURM_JOB_ID", "%u", m->job_id);
	env_setf(&env, "SLURM_JOBID", "%u", m->job_id);
	env_setf(&env, "SLURM_NTASKS", "%u", m->total_tasks);
	env_setf(&env, "SLURM_NPROCS", "%u", m->total_tasks);
	if (cr->nodes)
		env_set(&env, "SLURM_STEP_NODELIST", cr->nodes);
	if ((m->flags & STEP_F_STANDALONE) && cr->nodes) {
		/* srun made the allocation: the job is the step's nodes */
		env_setf(&env, "SLURM_NNODES", "%u", m->nnodes);
		env_setf(&env, "SLURM_JOB_NUM_NODES", "%u", m->nnodes);
		env_set(&env, "SLURM_NODELIST", cr->nodes);
		env_set(&env, "SLURM_JOB_NODELIST", cr->nodes);
		if (m->tasks_per_node)
			env_set(&env, "SLURM_TASKS_PER_NODE", m->tasks_per_node);
		if (m->job_cpus_per_node)
			env_set(&env, "SLURM_JOB_CPUS_PER_NODE", m->job_cpus_per_node);
	}
	char *g = gtids(m->first_task, m->ntasks);
	env_set(&env, "SLURM_GTIDS", g);
	free(g);
	if (m->tasks_per_node)
		env_set(&env, "SLURM_STEP_TASKS_PER_NODE", m->tasks_per_node);
	if (m->cpus_on_node)
		env_setf(&env, "SLURM_CPUS_ON_NODE", "%u", m->cpus_on_node);
	env_set(&env, "SLURM_TOPOLOGY_ADDR", m->topo_addr && *m->topo_addr ? m->topo_addr : nd->name);
	env_set(&env, "SLURM_TOPOLOGY_ADDR_PATTERN",
		m->topo_pattern && *m->topo_pattern ? m->topo_pattern : "node");
	if (srun_host) {
		env_set(&env, "SLURM_LAUNCH_NODE_IPADDR", srun_host);
		env_set(&env, "SLURM_SRUN_COMM_HOST", srun_host);
	}
	if (pmi_fd >= 0) {
		/* --mpi=pmi2: what MPICH's PMI clients read (pmi2.c serves
		 * the other end); the descriptor outlives the exec */
		fcntl(pmi_fd, F_SETFD, 0);
		env_setf(&env, "PMI_FD", "%d", pmi_fd);
		env_setf(&env, "PMI_RANK", "%u", m->first_task + local);
		env_setf(&env, "PMI_SIZE", "%u", m->total_tasks);
		env_set(&env, "PMI_JOBID", pmi_jobid);
	}
	/* --mpi=pmix: PMIx_server_setup_fork's, made before the fork */
	for (uint32_t i = 0; mpi_env && i < mpi_env->n; i++) {
		const char *eq = strchr(mpi_env->v[i], '=');
		char *k = xstrndup(mpi_env->v[i], (size_t)(eq - mpi_env->v[i]));
		env_set(&env, k, eq + 1);
		free(k);
	}
	env_setf(&env, "SLURM_JOB_UID", "%u", cr->uid);
	env_setf(&env, "SLURM_JOB_GID", "%u", cr->gid);
	if (cr->user)
		env_set(&env, "SLURM_JOB_USER", cr->user);
	/* the step's GPUs here (the controller chose them: the credential) */
	uint64_t sg;
	if (cr->gpus && gpu_cred_mask(cr->gpus, m->node_id, &sg) == 0) {
		int closest = m->gpu_bind && strcasestr(m->gpu_bind, "closest");
		uint64_t close = closest ? gpu_close_to_task(nd->node) : 0;
		uint64_t tg = gpu_bind_task(m->gpu_bind, sg, local, m->ntasks, close);
		if (closest && m->ntasks > 1 && !(close & sg))
			dprintf(2, "slurmstepd: error: Bind request gpu:%s does not specify any "
				"devices within the allocation for task %u. Binding to the first "
				"device in the allocation instead.\n", m->gpu_bind, local);
		uint64_t vis = noded_cgroup_gpus_visible(nd, sg);
		gpu_env_set(&env, noded_alloc_gpus(nd, cr->alloc), sg, tg, vis);
		if (m->gpu_bind && !strncasecmp(m->gpu_bind, "verbose", 7)) {
			char *line = gpu_bind_verbose(sg, tg, vis);
			dprintf(2, "%s", line);
			free(line);
		}
	}
	strv_t mp = { NULL, 0 };
	const strv_t *av = &m->argv;
	if (m->multi_prog) {
		if (multiprog_argv(m->multi_prog, m->first_task + local, &mp) < 0) {
			dprintf(2, "slurmstepd: error: no --multi-prog line for task %u\n",
				m->first_task + local);
			_exit(1);
		}
		av = &mp;
	}
	/* TaskProlog of slurm.conf, then srun --task-prolog, as Slurm
	 * (prolog.c: export/unset/print applied to the task) */
	task_prolog_run(conf_get(nd->conf, "TaskProlog"), &env, 1, prolog_timeout(nd->conf));
	if (m->task_prolog && *m->task_prolog)
		task_prolog_run(m->task_prolog, &env, 1, prolog_timeout(nd->conf));
	char **argv = xcalloc(av->n + 1, sizeof(*argv));
	for (uint32_t i = 0; i < av->n; i++)
		argv[i] = av->v[i];
	if (!argv[0]) {
		dprintf(2, "slurmstepd: error: no command given\n");
		_exit(1);
	}
	env_apply_rlimits(&env, nd->conf);
	/* execvp searches the PATH of our own environment: make it the
	 * step's. */
	char **envp = env_to_envp(&env);
	environ = envp;
	child_close_fds(pmi_fd);
	if (m->task_epilog && *m->task_epilog)
		task_run_with_epilog(argv, envp, m->task_epilog);
	execvp(argv[0], argv);
	int en = errno;
	dprintf(2, "slurmstepd: error: execve(): %s: %s\n", argv[0], strerror(en));
	environ = NULL;   /* freed for valgrind's leak check at _exit */
	free(envp);
	free(argv);
	strv_free(&env);
	strv_free(&mp);
	_exit(en > 0 && en < 256 ? en : 1);
}

/* Stop feeding a task's stdin (EOF for it, or it is gone). */
static void task_stdin_close(task_t *t)
{
	if (t->in >= 0)
		close(t->in);
	t->in = -1;
	strbuf_release(&t->inbuf);
	t->inoff = 0;
}

/* Write what is buffered for the task's stdin, as much as the pipe takes;
 * at EOF (eof set) and nothing left, close it. */
static void task_stdin_flush(task_t *t, int eof)
{
	while (t->in >= 0 && t->inoff < t->inbuf.len) {
		ssize_t w = write(t->in, t->inbuf.buf + t->inoff, t->inbuf.len - t->inoff);
		if (w > 0) {
			t->inoff += (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		task_stdin_close(t);      /* EPIPE: the task closed its stdin */
		return;
	}
	if (t->in >= 0) {
		strbuf_setlen(&t->inbuf, 0);
		t->inoff = 0;
		/* a terminal has no end of input: the task's keeps its
		 * master until it exits (srun's stdin was not a terminal) */
		if (eof && !t->pty)
			task_stdin_close(t);
	}
}

static int send_io(rpc_t *r, uint32_t rank, uint32_t stream, const char *buf, size_t n)
{
	msg_step_io_t io = { .task = rank, .stream = stream, .len = (uint32_t)n,
			     .data = (uint8_t *)buf };
	return rpc_send(r, MSG_STEP_IO, &io);
}

/* Where a task stream's pieces go (linebuf_emit_fn). */
typedef struct io_dest {
	rpc_t *r;
	uint32_t rank, stream;
} io_dest_t;

static int send_piece(void *arg, const char *data, size_t len)
{
	const io_dest_t *d = arg;
	return send_io(d->r, d->rank, d->stream, data, len);
}

/* The longest line kept whole for one stream of a node running n tasks. */
static size_t step_line_max(uint32_t n)
{
	size_t per = STEP_LINES_WAITING / (2 * (size_t)(n ? n : 1));
	return per > STEP_LINE_MAX ? STEP_LINE_MAX : per < STEP_LINE_MIN ? STEP_LINE_MIN : per;
}

/* srun --pty: task 0 on a pseudo terminal (step_pty.c), the node's other
 * tasks with stdout and stderr on /dev/null, as Slurm. The task is forked,
 * or has failed (t->exited). */
static void start_pty_task(noded_t *nd, const msg_launch_step_t *m, const cred_t *cr,
			  uint32_t i, task_t *t, rpc_t *r, const char *srun_host, int sfd,
			  int *srun_gone, pmi_srv_t *pmi, const strv_t *mpi_env)
{
	int pmi_fd = pmi ? pmi_srv_task_fd(pmi, i) : -1;
	const char *pmi_jobid = pmi ? pmi_srv_jobid(pmi) : NULL;
	if (t->rank != 0) {
		/* stdin stays as the launch says (/dev/null: srun's goes to
		 * task 0 alone) */
		if ((t->pid = fork()) == 0) {
			close(sfd);
			task_child(nd, m, cr, i, -1, -1, -1, srun_host, -1, pmi_fd, pmi_jobid, mpi_env);
		}
		if (pmi)
			pmi_srv_forked(pmi, i);
		if (t->pid < 0) {
			error("step %u.%u: fork: %m", m->job_id, m->step_id);
			t->exited = 1, t->status = 1 << 8;
			t->pid = 0;
		}
		return;
	}
	int master, slave;
	char *e = NULL;
	if (step_pty_open(cr->uid, cr->gid, m->pty_rows, m->pty_cols, &master, &slave, &e) < 0) {
		error("step %u.%u: %s", m->job_id, m->step_id, e);
		char *line = xasprintf("slurmstepd: error: %s\n", e);
		if (!*srun_gone && send_io(r, t->rank, STEP_IO_STDERR, line, strlen(line)))
			*srun_gone = 1;
		free(line);
		free(e);
		t->exited = 1, t->status = 1 << 8;
		return;
	}
	int in = fcntl(master, F_DUPFD_CLOEXEC, 3);
	if ((t->pid = fork()) == 0) {
		close(sfd);
		task_child(nd, m, cr, i, -1, -1, -1, srun_host, slave, pmi_fd, pmi_jobid, mpi_env);
	}
	if (pmi)
		pmi_srv_forked(pmi, i);
	if (t->pid < 0 || in < 0) {
		error("step %u.%u: fork: %m", m->job_id, m->step_id);
		close(master);
		close(slave);
		if (in >= 0)
			close(in);
		t->exited = 1, t->status = 1 << 8;
		t->pid = 0;
		return;
	}
	/* non-blocking for both (one open file): srun's input waits in
	 * inbuf rather than blocking the supervisor */
	fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
	t->pty = 1;
	t->out = master;
	t->in = in;
	t->pty_slave = slave;
}

/* pmi2.c's fence: this node's puts to srun (STEP_IO_PMI) */
static int pmi_send_fence(void *arg, const void *data, size_t len)
{
	return send_io(arg, 0, STEP_IO_PMI, data, len) ? -1 : 0;
}

static void __attribute__((noreturn))
step_main(noded_t *nd, const msg_launch_step_t *m, const cred_t *cr, int fd,
	  const char *dir, int ready_fd)
{
	int sfd = sup_signalfd();
	signal(SIGPIPE, SIG_IGN);
	char title[32];
	snprintf(title, sizeof(title), "%u.%u", m->job_id, m->step_id);
	set_proctitle(nd, title);
	spool_rec_t rec = { .job_id = m->job_id, .step_id = m->step_id,
			    .pid = getpid(), .pid_start = proc_start_time(getpid()) };
	if (spool_rec_write(dir, &rec) < 0)
		error("step %u.%u: cannot write spool record: %m", m->job_id, m->step_id);
	(void)!write(ready_fd, "1", 1);
	close(ready_fd);

	/* srun's address as we see it (SLURM_LAUNCH_NODE_IPADDR) */
	char srun_host[INET6_ADDRSTRLEN] = "";
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);
	if (getpeername(fd, (struct sockaddr *)&peer, &plen) == 0) {
		if (peer.ss_family == AF_INET)
			inet_ntop(AF_INET, &((struct sockaddr_in *)&peer)->sin_addr, srun_host,
				  sizeof(srun_host));
		else if (peer.ss_family == AF_INET6)
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&peer)->sin6_addr, srun_host,
				  sizeof(srun_host));
		if (!strncmp(srun_host, "::ffff:", 7) && strchr(srun_host, '.'))
			memmove(srun_host, srun_host + 7, strlen(srun_host + 7) + 1);  /* v4 */
	}

	rpc_t *r = rpc_from_fd(nd->conf, fd);
	msg_rc_t rc = { 0, NULL };
	/* The node's Prolog at the job's first step here (prolog_node.c:
	 * once per job on the node; a later step waits for a run in
	 * progress); srun's launch is answered once it is done. */
	if (prolog_node_configured(nd)) {
		strv_t pe = { NULL, 0 };
		env_setf(&pe, "SLURM_JOB_ID", "%u", m->job_id);
		env_setf(&pe, "SLURM_JOBID", "%u", m->job_id);
		env_setf(&pe, "SLURM_JOB_UID", "%u", cr->uid);
		env_setf(&pe, "SLURM_JOB_GID", "%u", cr->gid);
		if (cr->user)
			env_set(&pe, "SLURM_JOB_USER", cr->user);
		for (uint32_t i = 0; i < cr->penv.n; i++) {
			const char *eq = strchr(cr->penv.v[i], '=');
			char *k = xstrndup(cr->penv.v[i], (size_t)(eq - cr->penv.v[i]));
			env_set(&pe, k, eq + 1);
			free(k);
		}
		int failed = prolog_node_once(nd, m->job_id, &pe) < 0;
		strv_free(&pe);
		if (failed) {
			rc.rc = ESLURMD_PROLOG_FAILED;
			rpc_send(r, MSG_RC, &rc);
			rpc_close(r);
			prolog_node_report(nd, m->job_id, 0, ESLURMD_PROLOG_FAILED, 0);
			rm_rf(dir);
			_exit(0);
		}
	}
	int srun_gone = rpc_send(r, MSG_RC, &rc) != 0;

	uint32_t n = m->ntasks;
	/* --mpi=pmi2 (SLURM_MPI_TYPE, in the launch's digest): PMI for the
	 * tasks, its fences through srun (pmi2.h) */
	pmi_srv_t *pmi = NULL;
	const char *mpi = env_get(&m->env, "SLURM_MPI_TYPE");
	if (mpi && mpi_type_parse(mpi) == MPI_TYPE_PMI2) {
		pmi_step_t ps = { .job_id = m->job_id, .step_id = m->step_id,
				  .node_id = m->node_id, .nnodes = m->nnodes,
				  .first_task = m->first_task, .ntasks = n,
				  .total_tasks = m->total_tasks, .tasks_per_node = m->tasks_per_node,
				  .send = pmi_send_fence, .arg = r };
		pmi = pmi_srv_new(&ps);
	}
	/* --mpi=pmix: OpenPMIx's server for the tasks, its fences through
	 * srun as pmi2's (pmix_srv.h) */
	pmix_srv_t *pmix = NULL;
	if (mpi && mpi_type_parse(mpi) == MPI_TYPE_PMIX) {
		const char *tmpfs = conf_get(nd->conf, "TmpFS");
		pmix_srv_step_t ps = { .job_id = m->job_id, .step_id = m->step_id,
				       .node_id = m->node_id, .nnodes = m->nnodes,
				       .first_task = m->first_task, .ntasks = n,
				       .total_tasks = m->total_tasks,
				       .tasks_per_node = m->tasks_per_node, .nodes = cr->nodes,
				       .node_name = nd->name, .tmp_base = tmpfs,
				       .uid = cr->uid, .gid = cr->gid,
				       .send = pmi_send_fence, .arg = r };
		pmix = pmix_srv_new(&ps);
		if (!pmix && !srun_gone) {
			const char *line = "slurmstepd: error: mpi/pmix: cannot start the PMIx "
					   "server (see the node daemon's log)\n";
			if (send_io(r, m->first_task, STEP_IO_STDERR, line, strlen(line)))
				srun_gone = 1;
		}
	}
	strv_t mpi_env = { NULL, 0 };
	task_t *t = xcalloc(n ? n : 1, sizeof(*t));
	pid_t *pgids = xcalloc(n ? n : 1, sizeof(*pgids));
	int in_cg = noded_cgroup_create(nd, cr->uid, m->job_id, m->step_id, NULL, cr->alloc,
					 cr->gpus, m->node_id);
	job_ctl_t ctl = { .pgids = pgids, .npgids = n, .kill_wait = nd->conf->kill_wait,
			  .cg_nd = in_cg ? nd : NULL, .cg_uid = cr->uid, .cg_job = m->job_id,
			  .cg_step = m->step_id };
	/* srun -u (and --pty, which implies it): the bytes as read */
	int whole_lines = !(m->flags & STEP_F_UNBUFFERED);
	size_t line_max = step_line_max(n);
	for (uint32_t i = 0; i < n; i++) {
		int po[2], pe[2], pi[2] = { -1, -1 };
		t[i].rank = m->first_task + i;
		t[i].out = t[i].err = t[i].in = t[i].pty_slave = -1;
		strv_free(&mpi_env);
		if (pmix && pmix_srv_task_env(pmix, i, &mpi_env) < 0) {
			t[i].exited = 1, t[i].status = 1 << 8;
			continue;
		}
		linebuf_init(&t[i].line[0], line_max);
		linebuf_init(&t[i].line[1], line_max);
		if (m->flags & STEP_F_PTY) {
			start_pty_task(nd, m, cr, i, &t[i], r, srun_host, sfd, &srun_gone, pmi,
				       pmix ? &mpi_env : NULL);
			pgids[i] = t[i].pid;
			continue;
		}
		if ((m->flags & STEP_F_STDIN) &&
		    (m->stdin_task == NO_VAL32 || m->stdin_task == t[i].rank) &&
		    pipe2(pi, O_CLOEXEC) < 0)
			pi[0] = pi[1] = -1;   /* no pipe: /dev/null */
		if (pipe2(po, O_CLOEXEC) < 0) {
			t[i].exited = 1, t[i].status = 1 << 8;
			continue;
		}
		if (pipe2(pe, O_CLOEXEC) < 0) {
			close(po[0]), close(po[1]);
			t[i].exited = 1, t[i].status = 1 << 8;
			continue;
		}
		int pmi_fd = pmi ? pmi_srv_task_fd(pmi, i) : -1;
		pid_t pid = fork();
		if (pid == 0) {
			close(sfd);
			task_child(nd, m, cr, i, po[1], pe[1], pi[0], srun_host, -1, pmi_fd,
				   pmi ? pmi_srv_jobid(pmi) : NULL, pmix ? &mpi_env : NULL);
		}
		if (pmi)
			pmi_srv_forked(pmi, i);
		close(po[1]);
		close(pe[1]);
		if (pi[0] >= 0) {
			close(pi[0]);
			fcntl(pi[1], F_SETFL, fcntl(pi[1], F_GETFL) | O_NONBLOCK);
			t[i].in = pid > 0 ? pi[1] : (close(pi[1]), -1);
		}
		if (pid < 0) {
			error("step %u.%u: fork: %m", m->job_id, m->step_id);
			close(po[0]), close(pe[0]);
			t[i].exited = 1, t[i].status = 1 << 8;
			continue;
		}
		t[i].pid = pid;
		pgids[i] = pid;
		t[i].out = po[0];
		t[i].err = pe[0];
	}
	strv_free(&mpi_env);

	/* resource use of the tasks (jobacct.c) */
	jobacct_conf_t jc;
	jobacct_conf_from(nd->conf, &jc);
	jobacct_t *ja = jobacct_new(&jc, n, NULL);
	int64_t started = time(NULL);
	for (uint32_t i = 0; i < n; i++)
		jobacct_task_start(ja, i, t[i].pid, t[i].rank, mono_ms());
	jobacct_save(ja, dir);        /* sstat finds the tasks at once */
	int timed_out = 0;

	/* what noded kills should this process die (supervisor_watch) */
	if (spool_tasks_write_ranks(dir, pgids, n, m->first_task) < 0)
		error("step %u.%u: cannot record its process groups: %m", m->job_id, m->step_id);

	int64_t limit_at = m->time_limit ? (int64_t)time(NULL) + (int64_t)m->time_limit * 60 : 0;
	char *buf = xmalloc(65536);
	struct pollfd *pf = xcalloc(2 + 4 * (size_t)(n ? n : 1), sizeof(*pf));
	int stdin_eof = !(m->flags & STEP_F_STDIN);
	for (;;) {
		/* Report tasks that are done and drained. */
		uint32_t left = 0;
		for (uint32_t i = 0; i < n; i++) {
			if (t[i].pty && t[i].exited && t[i].out >= 0 &&
			    mono_ms() >= t[i].pty_drain_until) {
				/* something the task left holds its terminal:
				 * it gets a hangup, the step ends */
				close(t[i].out);
				t[i].out = -1;
			}
			if (t[i].exited && t[i].out < 0 && t[i].err < 0 && !t[i].reported) {
				msg_step_task_exit_t te = { t[i].rank, (uint32_t)t[i].status };
				if (!srun_gone && rpc_send(r, MSG_STEP_TASK_EXIT, &te) != 0)
					srun_gone = 1;
				t[i].reported = 1;
			}
			if (!t[i].reported)
				left++;
		}
		if (!left)
			break;
		size_t np = 0, waiting = 0;
		for (uint32_t i = 0; i < n; i++)
			waiting += t[i].inbuf.len - t[i].inoff;
		pf[np++] = (struct pollfd){ sfd, POLLIN, 0 };
		if (!srun_gone && waiting <= STEP_STDIN_BUFFERED)
			pf[np++] = (struct pollfd){ fd, POLLIN, 0 };
		for (uint32_t i = 0; i < n; i++) {
			if (t[i].out >= 0)
				pf[np++] = (struct pollfd){ t[i].out, POLLIN, 0 };
			if (t[i].err >= 0)
				pf[np++] = (struct pollfd){ t[i].err, POLLIN, 0 };
			if (t[i].in >= 0 && t[i].inoff < t[i].inbuf.len)
				pf[np++] = (struct pollfd){ t[i].in, POLLOUT, 0 };
		}
		if (pmi)
			np += pmi_srv_pollfds(pmi, pf + np);
		if (pmix)
			pf[np++] = (struct pollfd){ pmix_srv_fd(pmix), POLLIN, 0 };
		/* The step's own time limit (srun -t in an allocation): Slurm's
		 * line to srun's stderr, then SIGTERM, SIGKILL after KillWait. */
		int64_t now = time(NULL);
		if (limit_at && !ctl.killing && now >= limit_at) {
			char when[32], *line;
			time_fmt_iso((time_t)now, when, sizeof(when));
			line = xasprintf("slurmstepd: error: *** STEP %u.%u ON %s CANCELLED AT %s "
					 "DUE TO TIME LIMIT ***\n", m->job_id, m->step_id, nd->name, when);
			info("step %u.%u: time limit reached", m->job_id, m->step_id);
			if (!srun_gone && send_io(r, m->first_task, STEP_IO_STDERR, line, strlen(line)))
				srun_gone = 1;
			free(line);
			timed_out = 1;
			job_ctl_terminate(&ctl, ctl.kill_wait);
		}
		/* Fencing, as the batch supervisor: past the node's lease the
		 * job may run elsewhere. */
		if (!ctl.killing && spool_lease_expired(nd->spool)) {
			error("step %u.%u: the controller has not heard from this node for its "
			      "lease: stopping the step", m->job_id, m->step_id);
			job_ctl_terminate(&ctl, ctl.kill_wait);
		}
		int64_t tmo = job_ctl_tick(&ctl);
		if (limit_at && !ctl.killing) {
			int64_t left = (limit_at - now) * 1000;
			if (tmo < 0 || left < tmo)
				tmo = left < 0 ? 0 : left;
		}
		if (tmo < 0 || tmo > 1000)
			tmo = 1000;    /* the lease check */
		int64_t due = jobacct_due_ms(ja, mono_ms());
		if (due == 0) {
			jobacct_sample(ja, mono_ms());
			jobacct_save(ja, dir);
			due = jobacct_due_ms(ja, mono_ms());
		}
		if (due >= 0 && due < tmo)
			tmo = due;
		if (poll(pf, np, (int)tmo + 20) < 0 && errno != EINTR)
			break;
		for (size_t k = 0; k < np; k++) {
			if (!pf[k].revents)
				continue;
			int pfd = pf[k].fd;
			if (pfd == sfd) {
				struct signalfd_siginfo si;
				while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
					if (si.ssi_signo == SIGUSR1) {
						msg_signal_job_t req;
						while (spool_request_take(dir, &req)) {
							if (!(req.flags & SIGNAL_F_NOTIFY))
								job_ctl_request(&ctl, &req);
							free(req.message);
						}
					} else if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT) {
						job_ctl_terminate(&ctl, ctl.kill_wait);
					}
				}
				int st;
				pid_t w;
				/* A task ended: one sample while it is a zombie (the
				 * totals of its tree), then the exact rusage. */
				siginfo_t wi;
				memset(&wi, 0, sizeof(wi));
				if (waitid(P_ALL, 0, &wi, WEXITED | WNOHANG | WNOWAIT) == 0 && wi.si_pid)
					jobacct_sample(ja, mono_ms());
				struct rusage ru;
				int reaped = 0;
				while ((w = wait4(-1, &st, WNOHANG, &ru)) > 0) {
					jobacct_task_end(ja, w, &ru);
					reaped = 1;
					for (uint32_t i = 0; i < n; i++) {
						if (t[i].pid != w)
							continue;
						t[i].exited = 1;
						t[i].status = st;
						/* what the task left behind goes with it */
						killpg(w, SIGKILL);
						pgids[i] = 0;
						task_stdin_close(&t[i]);
						if (t[i].pty_slave >= 0) {
							/* the master reads EIO once drained */
							close(t[i].pty_slave);
							t[i].pty_slave = -1;
							t[i].pty_drain_until = mono_ms() + STEP_PTY_DRAIN_MS;
						}
					}
				}
				if (reaped)     /* once for all the tasks reaped now */
					jobacct_save(ja, dir);
			} else if (pfd == fd) {
				/* srun sends stdin frames (STEP_F_STDIN) or nothing;
				 * EOF means it is gone. Every frame already read is
				 * taken: poll() would not report buffered ones. */
				do {
					enum msg_type ty = MSG_NONE;
					void *msg = NULL;
					int e = rpc_recv(r, &ty, &msg, 1000);
					if (e == SLUICE_E_TIMEOUT)
						break;
					if (e) {     /* closed, or bytes that are no frame */
						srun_gone = 1;
						info("step %u.%u: srun went away, killing the tasks",
						     m->job_id, m->step_id);
						job_ctl_killall(&ctl, SIGKILL);
						break;
					}
					const msg_step_io_t *io = msg;
					if (ty == MSG_STEP_IO && io->stream == STEP_IO_SIGNAL &&
					    !io->task && !ctl.killing) {
						/* srun ends the step (-K, -W, Ctrl-C) */
						char when[32], *line;
						time_fmt_iso(time(NULL), when, sizeof(when));
						line = xasprintf("slurmstepd: error: *** STEP %u.%u ON %s "
								 "CANCELLED AT %s ***\n", m->job_id,
								 m->step_id, nd->name, when);
						if (send_io(r, m->first_task, STEP_IO_STDERR, line,
							    strlen(line)))
							srun_gone = 1;
						free(line);
						ctl.end_state = JOB_CANCELLED;
						job_ctl_terminate(&ctl, ctl.kill_wait);
					} else if (ty == MSG_STEP_IO && io->stream == STEP_IO_SIGNAL &&
						   io->task > 0 && io->task < 65) {
						job_ctl_killall(&ctl, (int)io->task);
					} else if (ty == MSG_STEP_IO && io->stream == STEP_IO_PMI && pmi) {
						pmi_srv_fence_done(pmi, io->data, io->len);
					} else if (ty == MSG_STEP_IO && io->stream == STEP_IO_PMI && pmix) {
						pmix_srv_fence_done(pmix, io->data, io->len);
					} else if (ty == MSG_STEP_IO && io->stream == STEP_IO_WINSIZE) {
						for (uint32_t i = 0; i < n; i++)
							if (t[i].pty)
								step_pty_winsize(t[i].in, io->data, io->len);
					}
					if (!e && ty == MSG_STEP_IO && io->stream == STEP_IO_STDIN) {
						/* EOF for every task, or for one (srun
						 * -i with a per-task file name) */
						if (!io->len && io->task == NO_VAL32)
							stdin_eof = 1;
						for (uint32_t i = 0; i < n && !io->len; i++)
							if (io->task == t[i].rank)
								t[i].in_eof = 1;
						for (uint32_t i = 0; i < n && io->len; i++)
							if (t[i].in >= 0 && (io->task == NO_VAL32 ||
									     io->task == t[i].rank))
								strbuf_add(&t[i].inbuf, io->data, io->len);
					}
					proto_msg_destroy(ty, msg);
				} while (!srun_gone && rpc_has_frame(r));
				for (uint32_t i = 0; i < n; i++)
					task_stdin_flush(&t[i], stdin_eof || t[i].in_eof);
			} else if (pmix && pfd == pmix_srv_fd(pmix)) {
				pmix_srv_io(pmix);
			} else if (pmi && pmi_srv_owns(pmi, pfd)) {
				pmi_srv_io(pmi, pfd, pf[k].revents);
			} else if (pf[k].events == POLLOUT) {
				for (uint32_t i = 0; i < n; i++)
					if (t[i].in == pfd)
						task_stdin_flush(&t[i], stdin_eof || t[i].in_eof);
			} else {
				for (uint32_t i = 0; i < n; i++) {
					int *p = t[i].out == pfd ? &t[i].out :
						 t[i].err == pfd ? &t[i].err : NULL;
					if (!p)
						continue;
					ssize_t got = read(pfd, buf, 65536);
					/* EAGAIN: a terminal's master (non-blocking) */
					if (got < 0 && (errno == EINTR || errno == EAGAIN))
						break;
					int s = p == &t[i].out ? 0 : 1;
					io_dest_t d = { r, t[i].rank, s ? STEP_IO_STDERR : STEP_IO_STDOUT };
					linebuf_t *lb = &t[i].line[s];
					if (got <= 0) {
						/* the end: a last line without its newline
						 * goes too */
						if (!srun_gone && linebuf_flush(lb, send_piece, &d))
							srun_gone = 1;
						close(pfd);
						*p = -1;
						break;
					}
					int e = 0;
					if (srun_gone)
						;   /* read on so that the task is not blocked */
					else if (whole_lines && !t[i].pty)
						e = linebuf_feed(lb, buf, (size_t)got, send_piece, &d);
					else
						e = send_piece(&d, buf, (size_t)got);
					if (e)
						srun_gone = 1;
					break;
				}
			}
		}
		/* a task called PMI abort: the step ends, as MPI_Abort asks */
		uint32_t ab_rank;
		int ab_code;
		const char *ab_msg;
		if (((pmi && pmi_srv_abort_taken(pmi, &ab_rank, &ab_code, &ab_msg)) ||
		     (pmix && pmix_srv_abort_taken(pmix, &ab_rank, &ab_code, &ab_msg))) &&
		    !ctl.killing) {
			char *line = xasprintf("slurmstepd: error: *** STEP %u.%u ON %s: PMI abort "
					       "by task %u (exit code %d)%s%s ***\n", m->job_id,
					       m->step_id, nd->name, ab_rank, ab_code,
					       *ab_msg ? ": " : "", ab_msg);
			info("step %u.%u: task %u called PMI abort", m->job_id, m->step_id, ab_rank);
			/* the line, then srun ends the step on the other nodes */
			if (!srun_gone && (send_io(r, ab_rank, STEP_IO_STDERR, line, strlen(line)) ||
					   send_io(r, ab_rank, STEP_IO_PMI_ABORT, NULL, 0)))
				srun_gone = 1;
			free(line);
			job_ctl_terminate(&ctl, ctl.kill_wait);
		}
	}
	/* the PMIx server and its directory go before srun hears the end */
	pmix_srv_free(pmix);
	/* nothing of the step outlives it; an OOM kill is said as Slurm's
	 * stepd says it, on srun's stderr */
	noded_cg_end_t cg_end;
	noded_cgroup_end(nd, cr->uid, m->job_id, m->step_id, &cg_end);
	if (cg_end.oom_kills && !srun_gone) {
		char *line = xasprintf("slurmstepd: error: Detected %" PRIu64 " oom-kill event(s) in "
				       "StepId=%u.%u. Some of your processes may have been killed by "
				       "the cgroup out-of-memory handler.\n", cg_end.oom_kills,
				       m->job_id, m->step_id);
		send_io(r, m->first_task, STEP_IO_STDERR, line, strlen(line));
		free(line);
	}

	/* This node's share of the step, to the controller: once before
	 * srun's connection closes, so that when srun returns the step's
	 * CPUs are free for the next step (ctld/step_alloc.c); if the
	 * controller does not answer at once, srun goes on and the report
	 * is retried after. */
	msg_step_complete_t sc = {
		.job_id = m->job_id, .step_id = m->step_id, .node = nd->name,
		.node_id = m->node_id, .nnodes = m->nnodes, .start_time = started,
		.end_time = time(NULL), .gathered = jc.type != JAG_NONE,
		.end_state = JOB_COMPLETE,
	};
	int *stv = xcalloc(n ? n : 1, sizeof(int));
	for (uint32_t i = 0; i < n; i++)
		stv[i] = t[i].status;
	step_node_state(stv, n, timed_out, ctl.end_state, &sc.end_state, &sc.exit_status);
	free(stv);
	if (cg_end.oom_kills && !timed_out && !ctl.end_state) {
		sc.end_state = JOB_OOM;
		sc.exit_status = NODED_SIG_OOM;
	}
	jobacct_usage(ja, &sc.usage);
	noded_cgroup_usage(&cg_end, jc.type == JAG_CGROUP, &sc.usage);
	jobacct_free(ja);
	rec.done = 1;
	rec.exit_status = sc.exit_status;
	rec.end_state = sc.end_state;
	rec.end_time = sc.end_time;
	if (spool_rec_write(dir, &rec) < 0)
		error("step %u.%u: cannot record the result: %m", m->job_id, m->step_id);
	char what[48];
	snprintf(what, sizeof(what), "step %u.%u", m->job_id, m->step_id);
	char *emsg = NULL;
	int rc1 = rpc_call_ctld_rc(nd->conf, MSG_STEP_COMPLETE, &sc, &emsg);
	int reported = rc1 == 0 || rc1 >= 2000 || rc1 == SLURM_ERROR;
	if (rc1 && reported && rc1 != ESLURM_INVALID_JOB_ID && rc1 != ESLURM_ALREADY_DONE)
		error("%s: end refused by controller: %s%s%s", what, slurm_strerror(rc1),
		      emsg ? ": " : "", emsg ? emsg : "");
	free(emsg);
	rpc_close(r);
	if (!reported)
		sup_report(nd, dir, MSG_STEP_COMPLETE, &sc, what);
	rm_rf(dir);
	for (uint32_t i = 0; i < n; i++) {
		task_stdin_close(&t[i]);
		linebuf_release(&t[i].line[0]);
		linebuf_release(&t[i].line[1]);
	}
	pmi_srv_free(pmi);
	free(buf);
	free(pf);
	free(t);
	free(pgids);
	_exit(0);
}

static void step_launch(noded_t *nd, conn_t *c, const msg_launch_step_t *m, const cred_t *cr)
{
	char *dir = spool_step_dir(nd->spool, m->job_id, m->step_id);
	spool_rec_t old;
	if (spool_rec_read(dir, &old) == 0 && spool_rec_alive(&old)) {
		conn_send_rc(c, ESLURM_ALREADY_DONE, "step already running on this node");
		conn_close(c);
		free(dir);
		return;
	}
	rm_rf(dir);
	if (mkdir(dir, 0755) < 0)
		error("step %u.%u: cannot create %s: %m", m->job_id, m->step_id, dir);
	else if (metrics_job_meta_write(dir, &m->env, m->user_id, 1) < 0)
		error("step %u.%u: cannot record its metrics labels in %s: %m", m->job_id, m->step_id, dir);
	int rp[2];
	if (pipe2(rp, O_CLOEXEC) < 0) {
		conn_send_rc(c, SLURM_ERROR, "cannot start the step supervisor");
		conn_close(c);
		free(dir);
		return;
	}
	int keep[2] = { conn_fd(c), rp[1] };
	int r = detach_fork(nd, keep, 2);
	if (r == 0) {
		close(rp[0]);
		int fd = conn_fd(c);
		/* the inherited fd was non-blocking for the loop */
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		step_main(nd, m, cr, fd, dir, rp[1]);
	}
	close(rp[1]);
	if (r < 0) {
		conn_send_rc(c, SLURM_ERROR, "cannot start the step supervisor");
	} else {
		struct pollfd pfd = { rp[0], POLLIN, 0 };
		if (poll(&pfd, 1, 5000) <= 0)
			error("step %u.%u: supervisor did not start in time", m->job_id, m->step_id);
		verbose("step %u.%u: launched %u tasks", m->job_id, m->step_id, m->ntasks);
	}
	close(rp[0]);
	/* The supervisor owns the connection now; ours just goes away. */
	conn_close(c);
	free(dir);
}

static void step_on_msg(conn_t *c, enum msg_type type, void *msg, uint32_t uid,
			uint32_t gid, void *arg)
{
	noded_t *nd = arg;
	conn_set_autoflush(c, 1);
	if (type == MSG_STEP_STAT) {
		/* sstat: the credential inside is the proof */
		step_stat_handle(nd, c, msg, uid);
		conn_close(c);
		return;
	}
	if (type == MSG_LIST_PIDS_REQ) {   /* scontrol listpids (listpids.c) */
		/* unsigned: answered on this host only, as Slurm's stepd
		 * sockets are (a /proc scan for anyone on the network would
		 * cost us and tell them who runs what) */
		if (!conn_peer_is_local(c)) {
			error("step port: refusing listpids from %s (not this host)", conn_peer(c));
			conn_send_rc(c, ESLURM_ACCESS_DENIED,
				     "scontrol listpids is answered on the node itself only");
			conn_close(c);
			return;
		}
		listpids_answer(nd, c, msg);
		conn_close(c);
		return;
	}
	if (type != MSG_LAUNCH_STEP) {
		/* Launch/signal from ctld come only on the ctld link. */
		error("step port: refusing %s from %s", proto_name(type), conn_peer(c));
		conn_send_rc(c, ESLURM_ACCESS_DENIED, "only step launches are accepted on this port");
		conn_close(c);
		return;
	}
	const msg_launch_step_t *m = msg;
	cred_t cr;
	memset(&cr, 0, sizeof(cr));
	char *err = NULL;
	const char *why = NULL;
	if (!m->cred || cred_verify(nd->auth, m->cred, nd->slurm_uid, time(NULL), &cr, &err) < 0) {
		char *t = xasprintf("invalid job credential: %s", err ? err : "missing");
		error("step %u.%u from %s: %s", m->job_id, m->step_id, conn_peer(c), t);
		conn_send_rc(c, ESLURM_ACCESS_DENIED, t);
		conn_close(c);
		free(t);
		free(err);
		return;
	}
	int64_t now = time(NULL);
	int64_t revoked = spool_revoked_at(nd->spool, cr.job_id, now);
	if (revoked && cr.expires - NODED_CRED_LIFE <= revoked) {
		/* issued before the job ended here (Slurm's rule) */
		error("step %u.%u from %s: %s", m->job_id, m->step_id, conn_peer(c),
		      slurm_strerror(ESLURMD_CREDENTIAL_REVOKED));
		conn_send_rc(c, ESLURMD_CREDENTIAL_REVOKED, NULL);
		conn_close(c);
		cred_release(&cr);
		return;
	}
	char digest[CRED_DIGEST_HEX + 1];
	cred_launch_digest(m, digest);
	if (cr.job_id != m->job_id || cr.step_id != m->step_id)
		why = "credential is for another job step";
	else if (cr.uid != m->user_id || cr.gid != m->group_id)
		why = "credential user/group do not match the request";
	else if (strcmp(digest, cr.digest))
		why = "launch does not match its credential (command, environment or directory changed)";
	else if (auth_kind(nd->auth) == AUTH_HMAC && cred_launch_mac_check(nd->auth, m, &why) < 0)
		;   /* not written by the step's srun: it may not take the I/O */
	else if (auth_kind(nd->auth) == AUTH_MUNGE && uid == AUTH_UID_NONE)
		why = "launch not signed by the step's user (auth/munge)";
	else if (cred_launch_node_check(&cr, nd->name, m, &why) < 0)
		;   /* another node's launch, or not this step's layout */
	else if (uid != AUTH_UID_NONE && uid != 0 && uid != nd->slurm_uid && uid != cr.uid)
		why = "request signed by another user";
	else if (geteuid() != 0 && cr.uid != getuid())
		why = "node daemon is not root and cannot run tasks as another user";
	else if (m->ntasks > STEP_MAX_TASKS)
		why = "too many tasks for one node";
	if (why) {
		error("step %u.%u from %s: %s", m->job_id, m->step_id, conn_peer(c), why);
		conn_send_rc(c, ESLURM_ACCESS_DENIED, why);
		conn_close(c);
	} else if (spool_cred_use(nd->spool, cr.job_id, cr.step_id, cr.expires, now) < 0) {
		/* once per node: a captured launch cannot run again */
		error("step %u.%u from %s: %s: credential already used on this node", m->job_id,
		      m->step_id, conn_peer(c), slurm_strerror(ESLURMD_CREDENTIAL_REPLAYED));
		conn_send_rc(c, ESLURMD_CREDENTIAL_REPLAYED, NULL);
		conn_close(c);
	} else {
		step_launch(nd, c, m, &cr);
	}
	cred_release(&cr);
}

static void step_on_close(conn_t *c, void *arg)
{
}

/* The step port takes MSG_LAUNCH_STEP, sstat's MSG_STEP_STAT and
 * scontrol's MSG_LIST_PIDS_REQ, unsigned allowed (srun or sstat run by a
 * user cannot sign; the credential inside is the proof), and
 * hands the conn to the step supervisor at once: a conn has 10 s to
 * deliver its launch, 64 such conns at a time, 32 MB of launches in
 * flight. */
static const net_policy_t step_policy = {
	.name = "step port",
	.allowed = NET_MSG(MSG_LAUNCH_STEP) | NET_MSG(MSG_STEP_STAT) | NET_MSG(MSG_LIST_PIDS_REQ),
	/* listpids: any local user may list, as with Slurm's stepd sockets
	 * (what it shows, pids, every user sees in /proc anyway) */
	.unsigned_ok = NET_MSG(MSG_LAUNCH_STEP) | NET_MSG(MSG_STEP_STAT) | NET_MSG(MSG_LIST_PIDS_REQ),
	.max_unauth = 64, .unauth_ms = 10000, .unauth_bytes = 32u << 20,
	.idle_ms = 60000,
};

int step_server_start(noded_t *nd)
{
	int fd = net_listen_tcp(nd->loop, nd->auth, NULL, nd->node->port, &step_policy,
				step_on_msg, step_on_close, nd);
	if (fd < 0)
		return -1;
	nd->listen_fd = fd;
	return 0;
}
