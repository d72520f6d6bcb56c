/*
 * srun: run a parallel command, as a job step.
 *
 * Inside an allocation (SLURM_JOB_ID set, or --jobid) srun only creates a
 * step. Standalone it first asks for an allocation (MSG_SUBMIT with
 * JOB_F_INTERACTIVE), waits for it to start (printing Slurm's "queued and
 * waiting" / "has been allocated" lines), runs one step, and reports the
 * allocation's end itself (MSG_JOB_COMPLETE). The step: MSG_STEP_CREATE
 * gives the nodes and a launch credential; srun sends MSG_LAUNCH_STEP to
 * each node daemon and relays the MSG_STEP_IO frames that come back on
 * those connections as they arrive (-l prefixes each line with the rank).
 * Stdin goes the other way, as Slurm's default: srun's stdin to every
 * task (-i N: task N only; -i none: nobody; -i FILE: that file, read
 * here). A thread reads it and sends STEP_IO_STDIN frames (an empty one at
 * EOF), so a task that does not read its stdin never holds up the output.
 *
 * Exit status (man srun): the largest task exit code, or 128+signal for
 * a task killed by a signal. SIGINT/SIGTERM cancel a standalone job; a
 * second one exits at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "cmd/jobopts.h"
#include "cred.h"
#include "errors.h"
#include "log.h"
#include "net.h"
#include "states.h"
#include "strbuf.h"
#include "timefmt.h"
#include "xalloc.h"

extern char **environ;

static int sig_pipe[2] = { -1, -1 };
static volatile sig_atomic_t sig_count;

static void on_signal(int sig)
{
	int saved = errno;
	unsigned char b = (unsigned char)sig;
	sig_count++;
	if (write(sig_pipe[1], &b, 1) < 0) {
		/* pipe full: the loop is already awake */
	}
	errno = saved;
}

static void setup_signals(void)
{
	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return;
	struct sigaction sa = { 0 };
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void drain_sig_pipe(void)
{
	unsigned char buf[16];
	while (read(sig_pipe[0], buf, sizeof(buf)) > 0)
		;
}


static void env_set(strv_t *env, const char *key, const char *val)
{
	size_t kl = strlen(key);
	char *kv = xasprintf("%s=%s", key, val);
	for (uint32_t i = 0; i < env->n; i++) {
		if (!strncmp(env->v[i], key, kl) && env->v[i][kl] == '=') {
			free(env->v[i]);
			env->v[i] = kv;
			return;
		}
	}
	strv_push(env, kv);
	free(kv);
}

static void env_setu(strv_t *env, const char *key, unsigned v)
{
	char buf[16];
	snprintf(buf, sizeof(buf), "%u", v);
	env_set(env, key, buf);
}

/* Wait on fd or a signal. 1 readable, 0 signal, -1 error. */
static int wait_readable(int fd)
{
	struct pollfd p[2] = { { .fd = fd, .events = POLLIN }, { .fd = sig_pipe[0], .events = POLLIN } };
	for (;;) {
		int n = poll(p, sig_pipe[0] >= 0 ? 2 : 1, -1);
		if (n < 0 && errno == EINTR) {
			if (sig_count)
				return 0;
			continue;
		}
		if (n < 0)
			return -1;
		if (p[1].revents)
			return 0;
		return 1;
	}
}

static void cancel_job(uint32_t job_id)
{
	msg_cancel_t req = { .njob_ids = 1, .job_ids = &job_id };
	void *reply = NULL;
	if (!cmd_call(MSG_CANCEL, &req, MSG_CANCEL_REPLY, &reply, NULL))
		proto_msg_destroy(MSG_CANCEL_REPLY, reply);
}

/* Standalone: get an allocation. Returns 0, or an exit status. */
static int allocate(jobopts_t *o, uint32_t *job_id_out)
{
	void *reply = NULL;
	enum msg_type rtype = MSG_NONE;
	int err = cmd_submit(&o->desc, &rtype, &reply);
	uint32_t job_id = 0;
	if (!err && rtype == MSG_SUBMIT_REPLY) {
		msg_submit_reply_t *sr = reply;
		if (sr->rc && sr->msg && *sr->msg)
			error("%s", sr->msg);
		err = sr->rc;
		job_id = sr->job_id;
	} else if (!err && rtype == MSG_RC) {
		err = ((msg_rc_t *)reply)->rc ? ((msg_rc_t *)reply)->rc : SLUICE_E_PROTOCOL;
	} else if (!err) {
		err = SLUICE_E_PROTOCOL;
	}
	if (reply)
		proto_msg_destroy(rtype, reply);
	if (err) {
		error("Unable to allocate resources: %s", slurm_strerror(err));
		return 1;
	}
	*job_id_out = job_id;

	msg_info_req_t ir = { .job_id = job_id };
	err = cmd_call(MSG_JOB_INFO_REQ, &ir, MSG_JOB_INFO, &reply, NULL);
	if (err) {
		error("Unable to allocate resources: %s", slurm_strerror(err));
		return 1;
	}
	msg_job_info_t *ji = reply;
	uint32_t state = ji->njobs ? ji->jobs[0].state : JOB_PENDING;
	proto_msg_destroy(MSG_JOB_INFO, reply);
	if ((state & JOB_STATE_BASE) == JOB_RUNNING && !(state & JOB_CONFIGURING))
		return 0;
	if (JOB_IS_FINISHED(state)) {
		error("Unable to allocate resources: Job allocation %u has been revoked", job_id);
		return 1;
	}

	info("job %u queued and waiting for resources", job_id);
	int cerr = 0;
	rpc_t *r = rpc_connect_ctld(cmd_conf(), &cerr);
	msg_job_wait_t wr = { .job_id = job_id, .until = WAIT_UNTIL_STARTED };
	if (!r || (cerr = rpc_send(r, MSG_JOB_WAIT, &wr))) {
		rpc_close(r);
		error("Unable to allocate resources: %s", slurm_strerror(cerr));
		cancel_job(job_id);
		return 1;
	}
	int w = wait_readable(rpc_fd(r));
	if (w <= 0) {
		rpc_close(r);
		cancel_job(job_id);
		info("Job allocation %u has been revoked.", job_id);
		return 1;
	}
	void *msg = NULL;
	enum msg_type t = MSG_NONE;
	err = rpc_recv(r, &t, &msg, -1);
	rpc_close(r);
	if (err) {
		error("Unable to allocate resources: %s", slurm_strerror(err));
		cancel_job(job_id);
		return 1;
	}
	if (t == MSG_RC) {
		int rc = ((msg_rc_t *)msg)->rc;
		proto_msg_destroy(t, msg);
		error("Job allocation %u has been revoked: %s", job_id,
		      slurm_strerror(rc ? rc : ESLURM_ALREADY_DONE));
		return 1;
	}
	proto_msg_destroy(t, msg);
	info("job %u has been allocated resources", job_id);
	return 0;
}

struct node_conn {
	rpc_t *r;
	int done;                  /* closed by the node; r is freed only after
	                            * the stdin thread, which may still use it */
	char *name;
	uint32_t first, ntasks;
	strbuf_t partial[3];       /* unfinished line per stream (for -l) */
	uint32_t partial_task[3];
};

struct step_state {
	uint32_t total_tasks;
	uint32_t *status;          /* raw wait status per task */
	uint8_t *exited;
	int label, width;
	int out_fd;                /* -o file or 1 */
};

static void write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		p += n;
		len -= (size_t)n;
	}
}

static void relay_io(struct step_state *st, const msg_step_io_t *io)
{
	int fd = io->stream == STEP_IO_STDERR ? 2 : st->out_fd;
	if (!st->label) {
		write_all(fd, io->data, io->len);
		return;
	}
	/* Label each line; a line split across frames keeps one label. */
	strbuf_t sb = STRBUF_INIT;
	static int at_line_start[3] = { 1, 1, 1 };
	int s = io->stream == STEP_IO_STDERR ? 2 : 1;
	for (uint32_t i = 0; i < io->len; i++) {
		if (at_line_start[s]) {
			strbuf_addf(&sb, "%*u: ", st->width, io->task);
			at_line_start[s] = 0;
		}
		strbuf_addch(&sb, (char)io->data[i]);
		if (io->data[i] == '\n')
			at_line_start[s] = 1;
	}
	write_all(fd, sb.buf, sb.len);
	strbuf_release(&sb);
}

/* Stdin forwarding (a thread: its sends may wait on a node that is not
 * reading, while the main thread keeps relaying output). */
struct stdin_fwd {
	int fd;                    /* srun's stdin, or the -i file */
	int stop[2];               /* main -> thread: the step is over */
	rpc_t **to;                /* node connections to feed (NULL: gone) */
	uint32_t nto;
	uint32_t task;             /* target rank, NO_VAL32 = every task */
	pthread_t th;
	int running;
};

static void *stdin_main(void *arg)
{
	struct stdin_fwd *f = arg;
	char *buf = xmalloc(65536);
	for (;;) {
		struct pollfd p[2] = { { f->fd, POLLIN, 0 }, { f->stop[0], POLLIN, 0 } };
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		ssize_t n = read(f->fd, buf, 65536);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		/* n <= 0: EOF (or an error, the same for the tasks). */
		msg_step_io_t io = { .task = f->task, .stream = STEP_IO_STDIN,
				     .len = n > 0 ? (uint32_t)n : 0, .data = (uint8_t *)buf };
		for (uint32_t k = 0; k < f->nto; k++)
			if (f->to[k] && rpc_send(f->to[k], MSG_STEP_IO, &io))
				f->to[k] = NULL;
		if (n <= 0)
			break;
	}
	free(buf);
	return NULL;
}

/* -i: where the tasks' stdin comes from. Returns the fd to forward (-1:
 * none) and sets *task (NO_VAL32: every task). */
static int stdin_source(const char *in, uint32_t total, uint32_t *task)
{
	*task = NO_VAL32;
	if (!in || !*in)
		return 0;
	if (!strcasecmp(in, "none"))
		return -1;
	if (!strcasecmp(in, "all"))
		return 0;
	char *e;
	unsigned long v = strtoul(in, &e, 10);
	if (!*e && e != in) {
		if (v >= total) {
			error("--input=%s: the step has no task %lu (tasks 0-%u): stdin not forwarded",
			      in, v, total ? total - 1 : 0);
			return -1;
		}
		*task = (uint32_t)v;
		return 0;
	}
	int fd = open(in, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		error("Could not open stdin file %s: %s", in, strerror(errno));
	return fd;
}

static void stdin_stop(struct stdin_fwd *f)
{
	if (!f->running)
		return;
	(void)!write(f->stop[1], "x", 1);
	pthread_join(f->th, NULL);
	f->running = 0;
	close(f->stop[0]);
	close(f->stop[1]);
	if (f->fd > 0)
		close(f->fd);
	free(f->to);
}

static int digits(uint32_t n)
{
	int w = 1;
	if (n)
		n--;
	while (n /= 10)
		w++;
	return w;
}

/* Run one step. Returns the exit status for srun. */
/* SrunProlog / SrunEpilog: run by srun as its user with the step's
 * environment and the step's command as arguments; its wait status. */
static int srun_script(const char *path, const strv_t *env, char **cmd, int ncmd)
{
	pid_t pid = fork();
	if (pid < 0)
		return 1 << 8;
	if (pid == 0) {
		for (int s = 1; s < NSIG; s++)
			if (s != SIGKILL && s != SIGSTOP)
				signal(s, SIG_DFL);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		char **argv = xcalloc((size_t)ncmd + 2, sizeof(char *));
		argv[0] = (char *)path;
		for (int i = 0; i < ncmd; i++)
			argv[i + 1] = cmd[i];
		char **envp = xcalloc(env->n + 1, sizeof(char *));
		for (uint32_t i = 0; i < env->n; i++)
			envp[i] = env->v[i];
		execve(path, argv, envp);
		_exit(127);
	}
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return st;
}

static int run_step(jobopts_t *o, uint32_t job_id, char **cmd, int ncmd,
		    int standalone, uint32_t *worst_status)
{
	const conf_t *conf = cmd_conf();
	char cwd[PATH_MAX];
	const char *dir = o->desc.work_dir;
	if (!dir)
		dir = getcwd(cwd, sizeof(cwd)) ? cwd : "/";

	/* The environment every task starts from. What depends on the step
	 * (its id, tasks and nodes) the node daemons set from the launch and
	 * its credential: the launch srun sends is then known before the
	 * step exists, and the controller signs its digest into the
	 * credential (cred.h), so the credential runs this and nothing else. */
	jobopts_build_env(o, environ);
	strv_t *env = &o->desc.env;
	env_setu(env, "SLURM_JOB_ID", job_id);
	env_setu(env, "SLURM_JOBID", job_id);
	if (standalone) {
		if (o->desc.name)
			env_set(env, "SLURM_JOB_NAME", o->desc.name);
		env_set(env, "SLURM_SUBMIT_DIR", dir);
		if (o->desc.alloc_node)
			env_set(env, "SLURM_SUBMIT_HOST", o->desc.alloc_node);
		if (conf->cluster_name)
			env_set(env, "SLURM_CLUSTER_NAME", conf->cluster_name);
	}
	msg_launch_step_t tmpl = {
		.job_id = job_id,
		.user_id = (uint32_t)getuid(), .group_id = (uint32_t)getgid(),
		.env = *env, .cwd = (char *)dir,
		.flags = (o->unbuffered ? STEP_F_UNBUFFERED : 0u) |
			 (standalone ? STEP_F_STANDALONE : 0u),
		/* -t inside an allocation limits the step (standalone it is
		 * the job's, which the controller enforces) */
		.time_limit = !standalone && o->desc.time_limit != TIME_NO_VAL &&
			      o->desc.time_limit != TIME_INFINITE ? o->desc.time_limit : 0,
	};
	for (int k = 0; k < ncmd; k++)
		strv_push(&tmpl.argv, cmd[k]);
	char digest[CRED_DIGEST_HEX + 1];
	cred_launch_digest(&tmpl, digest);

	/* The step's name (sacct JobName): -J, else the command's; inside
	 * an allocation SLURM_JOB_NAME (the job's name, which every step
	 * inherits) is ignored, as Slurm does. */
	const char *step_name = o->desc.name, *env_name = getenv("SLURM_JOB_NAME");
	if (!standalone && ncmd > 0 &&
	    (!step_name || (env_name && !strcmp(env_name, step_name)))) {
		const char *slash = strrchr(cmd[0], '/');
		step_name = slash ? slash + 1 : cmd[0];
	}
	msg_step_create_t sc = {
		.job_id = job_id,
		.ntasks = o->desc.ntasks,
		.min_nodes = o->desc.min_nodes,
		.name = (char *)step_name,
		.digest = digest,
	};
	/* SrunProlog: before the step exists; a failure aborts it */
	const char *sp = conf_get(conf, "SrunProlog");
	if (sp && *sp) {
		int ps = srun_script(sp, env, cmd, ncmd);
		if (ps) {
			error("srun prolog failed rc = %d. Aborting step.",
			      WIFEXITED(ps) ? WEXITSTATUS(ps) : 128 + WTERMSIG(ps));
			strv_free(&tmpl.argv);
			*worst_status = 1 << 8;
			return 1;
		}
	}
	void *reply = NULL;
	int err = cmd_call(MSG_STEP_CREATE, &sc, MSG_STEP_CREATE_REPLY, &reply, NULL);
	msg_step_create_reply_t *sr = reply;
	if (!err && sr->rc)
		err = sr->rc;
	if (err) {
		error("Unable to create step for job %u: %s", job_id, slurm_strerror(err));
		if (reply)
			proto_msg_destroy(MSG_STEP_CREATE_REPLY, reply);
		strv_free(&tmpl.argv);
		*worst_status = 1 << 8;
		return 1;
	}

	uint32_t nnodes = sr->node_names.n;
	uint32_t total = 0;
	for (uint32_t i = 0; i < nnodes && i < sr->ntasks_per_node_n; i++)
		total += sr->ntasks_per_node[i];

	struct step_state st = { .total_tasks = total, .label = o->label,
				 .width = digits(total), .out_fd = 1 };
	st.status = xcalloc(total + 1, sizeof(*st.status));
	st.exited = xcalloc(total + 1, 1);
	if (o->desc.std_out) {
		int fd = open(o->desc.std_out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			error("Could not open stdout file %s: %s", o->desc.std_out, strerror(errno));
		else
			st.out_fd = fd;
	}

	uint32_t in_task = NO_VAL32;
	int in_fd = stdin_source(o->desc.std_in, total, &in_task);
	struct node_conn *nc = xcalloc(nnodes + 1, sizeof(*nc));
	uint32_t first = 0;
	int live = 0;
	for (uint32_t i = 0; i < nnodes; i++) {
		nc[i].name = sr->node_names.v[i];
		nc[i].first = first;
		nc[i].ntasks = i < sr->ntasks_per_node_n ? sr->ntasks_per_node[i] : 0;
		first += nc[i].ntasks;
		const char *addr = i < sr->node_addrs.n ? sr->node_addrs.v[i] : nc[i].name;
		uint16_t port = (uint16_t)(i < sr->nports ? sr->ports[i] : conf->slurmd_port);
		msg_launch_step_t ls = tmpl;
		ls.step_id = sr->step_id;
		ls.cred = sr->cred;
		ls.ntasks = nc[i].ntasks;
		ls.first_task = nc[i].first;
		ls.total_tasks = total;
		ls.node_id = i;
		ls.nnodes = nnodes;
		ls.flags |= in_fd >= 0 ? STEP_F_STDIN : 0u;
		ls.stdin_task = in_task;
		int cerr = 0;
		rpc_t *r = rpc_connect_addr(conf, addr, port, &cerr);
		if (r && !(cerr = rpc_send(r, MSG_LAUNCH_STEP, &ls))) {
			enum msg_type t = MSG_NONE;
			void *m = NULL;
			int timeout = (int)(conf->message_timeout ? conf->message_timeout : 10) * 1000;
			cerr = rpc_recv(r, &t, &m, timeout);
			if (!cerr && t == MSG_RC && ((msg_rc_t *)m)->rc) {
				msg_rc_t *rm = m;
				error("Task launch for StepId=%u.%u failed on node %s: %s", job_id,
				      sr->step_id, nc[i].name,
				      rm->msg && *rm->msg ? rm->msg : slurm_strerror(rm->rc));
				cerr = rm->rc;
			} else if (!cerr && t != MSG_RC) {
				cerr = SLUICE_E_PROTOCOL;
			}
			if (m)
				proto_msg_destroy(t, m);
		} else {
			error("Task launch for StepId=%u.%u failed on node %s: %s", job_id,
			      sr->step_id, nc[i].name, slurm_strerror(cerr));
			cerr = cerr ? cerr : SLUICE_E_CONNECT;
		}
		if (cerr) {
			rpc_close(r);
			for (uint32_t k = 0; k < nc[i].ntasks; k++) {
				st.status[nc[i].first + k] = 1 << 8;
				st.exited[nc[i].first + k] = 1;
			}
			continue;
		}
		nc[i].r = r;
		live++;
	}

	struct stdin_fwd fwd = { .fd = in_fd, .task = in_task, .stop = { -1, -1 } };
	if (in_fd >= 0 && live > 0 && pipe2(fwd.stop, O_CLOEXEC) == 0) {
		fwd.to = xcalloc(nnodes, sizeof(*fwd.to));
		for (uint32_t i = 0; i < nnodes; i++)
			if (nc[i].r && (in_task == NO_VAL32 ||
					(in_task >= nc[i].first && in_task < nc[i].first + nc[i].ntasks)))
				fwd.to[fwd.nto++] = nc[i].r;
		fwd.running = pthread_create(&fwd.th, NULL, stdin_main, &fwd) == 0;
		if (!fwd.running) {
			close(fwd.stop[0]);
			close(fwd.stop[1]);
			free(fwd.to);
		}
	}
	if (in_fd > 0 && !fwd.running)
		close(in_fd);

	/* Relay output until every connection is closed. */
	struct pollfd *pf = xcalloc(nnodes + 2, sizeof(*pf));
	int interrupted = 0;
	while (live > 0) {
		nfds_t n = 0;
		uint32_t *map = xcalloc(nnodes + 1, sizeof(*map));
		for (uint32_t i = 0; i < nnodes; i++) {
			if (!nc[i].r || nc[i].done)
				continue;
			pf[n].fd = rpc_fd(nc[i].r);
			pf[n].events = POLLIN;
			pf[n].revents = 0;
			map[n++] = i;
		}
		pf[n].fd = sig_pipe[0];
		pf[n].events = POLLIN;
		pf[n].revents = 0;
		int pr = poll(pf, n + 1, -1);
		if (pr < 0 && errno != EINTR) {
			free(map);
			break;
		}
		if (pr > 0 && pf[n].revents) {
			drain_sig_pipe();
			interrupted++;
			if (interrupted == 1 && standalone) {
				error("Job step aborted");
				cancel_job(job_id);
			} else {
				free(map);
				break;
			}
		}
		for (nfds_t k = 0; pr > 0 && k < n; k++) {
			if (!pf[k].revents)
				continue;
			struct node_conn *c = &nc[map[k]];
			enum msg_type t = MSG_NONE;
			void *m = NULL;
			int e = rpc_recv(c->r, &t, &m, 30000);
			if (e) {
				c->done = 1;
				live--;
				continue;
			}
			if (t == MSG_STEP_IO) {
				relay_io(&st, m);
			} else if (t == MSG_STEP_TASK_EXIT) {
				msg_step_task_exit_t *te = m;
				if (te->task < total) {
					st.status[te->task] = te->status;
					st.exited[te->task] = 1;
				}
			}
			proto_msg_destroy(t, m);
		}
		free(map);
	}
	stdin_stop(&fwd);          /* before the connections it uses go */
	for (uint32_t i = 0; i < nnodes; i++)
		rpc_close(nc[i].r);
	free(pf);

	/* Report failed tasks per node as Slurm does, and compute the exit. */
	int rc = 0;
	uint32_t worst = 0;
	for (uint32_t i = 0; i < nnodes; i++) {
		for (uint32_t k = 0; k < nc[i].ntasks; k++) {
			uint32_t t = nc[i].first + k;
			uint32_t s = st.exited[t] ? st.status[t] : (9u);  /* lost: as killed */
			int ec;
			if (WIFSIGNALED(s)) {
				ec = 128 + WTERMSIG(s);
				if (!interrupted)
					error("%s: task %u: %s", nc[i].name, t, strsignal(WTERMSIG(s)));
			} else {
				ec = WEXITSTATUS(s);
				if (ec)
					error("%s: task %u: Exited with exit code %d", nc[i].name, t, ec);
			}
			if (ec > rc) {
				rc = ec;
				worst = s;
			}
		}
	}
	if (st.out_fd != 1)
		close(st.out_fd);
	free(st.status);
	free(st.exited);
	free(nc);
	proto_msg_destroy(MSG_STEP_CREATE_REPLY, reply);
	strv_free(&tmpl.argv);
	*worst_status = worst;
	/* SrunEpilog: after the step; its failure is only said */
	const char *se = conf_get(conf, "SrunEpilog");
	if (se && *se) {
		int es = srun_script(se, env, cmd, ncmd);
		if (es)
			error("srun epilog failed status=%d",
			      WIFEXITED(es) ? WEXITSTATUS(es) : 128 + WTERMSIG(es));
	}
	return rc;
}

int cmd_srun(int argc, char **argv)
{
	jobopts_t o;
	int rc;

	log_init("srun", 0, LOG_LVL_INFO, NULL);
	jobopts_init(&o, JOBOPTS_SRUN);
	jobopts_t cli;
	jobopts_init(&cli, JOBOPTS_SRUN);
	if ((rc = jobopts_parse_argv(&cli, argc, argv, 0))) {
		jobopts_release(&cli);
		jobopts_release(&o);
		return rc;
	}
	if (cli.help || cli.usage || cli.version) {
		if (cli.help)
			cmd_help_print(stdout, &cmd_help_srun);
		else if (cli.usage)
			cmd_usage_print(stdout, &cmd_help_srun);
		else
			printf("slurm %s\n", SLURM_COMPAT_VERSION);
		jobopts_release(&cli);
		jobopts_release(&o);
		return 0;
	}
	int cli_counts = cli.cli_ntasks || cli.cli_nodes;
	jobopts_release(&cli);

	/* Environment (SLURM_NTASKS, ...) first, then the command line. The
	 * job's own counts only apply when the user gave none. */
	if ((rc = jobopts_parse_env(&o, environ))) {
		jobopts_release(&o);
		return rc;
	}
	if (cli_counts) {
		o.desc.ntasks = 0;
		o.desc.min_nodes = o.desc.max_nodes = 0;
		o.ntasks_set = o.nodes_set = 0;
	}
	if ((rc = jobopts_parse_argv(&o, argc, argv, 0))) {
		jobopts_release(&o);
		return rc;
	}
	if (o.quiet)
		log_set_level(LOG_LVL_ERROR);
	else if (o.verbose)
		log_set_level((enum log_level)(LOG_LVL_INFO + o.verbose));
	jobopts_print_defined(&o, stderr);
	if (o.pty) {
		error("--pty is not supported yet");
		jobopts_release(&o);
		return 1;
	}
	if (o.argi >= argc) {
		fprintf(stderr, "srun: fatal: No command given to execute.\n");
		jobopts_release(&o);
		return 1;
	}
	char **cmd = argv + o.argi;
	int ncmd = argc - o.argi;

	/* Tasks: one per node when only -N is given (Slurm's default). */
	job_desc_t *d = &o.desc;
	if (!d->ntasks && d->min_nodes && d->ntasks_per_node)
		d->ntasks = d->min_nodes * d->ntasks_per_node;
	else if (!d->ntasks && d->min_nodes)
		d->ntasks = d->min_nodes;

	const char *jid = o.jobid ? o.jobid : getenv("SLURM_JOB_ID");
	if (!jid)
		jid = getenv("SLURM_JOBID");
	uint32_t job_id = 0;
	int standalone = 1;
	if (jid && *jid) {
		char *end;
		unsigned long v = strtoul(jid, &end, 10);
		if (*end || !v) {
			error("Invalid job id %s", jid);
			jobopts_release(&o);
			return 1;
		}
		job_id = (uint32_t)v;
		standalone = 0;
	}

	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), "/");
	if (d->work_dir && d->work_dir[0] != '/') {
		char *w = xasprintf("%s/%s", cwd, d->work_dir);
		free(d->work_dir);
		d->work_dir = w;
	} else if (!d->work_dir) {
		d->work_dir = xstrdup(cwd);
	}
	if (!d->name) {
		const char *b = strrchr(cmd[0], '/');
		d->name = xstrdup(b ? b + 1 : cmd[0]);
	}
	d->alloc_node = cmd_short_hostname();
	d->alloc_sid = (uint32_t)getsid(0);

	setup_signals();
	if (standalone) {
		d->flags |= JOB_F_INTERACTIVE;
		if (!d->ntasks)
			d->ntasks = 1;
		for (int k = 0; k < ncmd; k++)
			strv_push(&d->argv, cmd[k]);
		jobopts_build_env(&o, environ);
		if ((rc = allocate(&o, &job_id))) {
			jobopts_release(&o);
			return rc;
		}
	}

	uint32_t worst = 0;
	rc = run_step(&o, job_id, cmd, ncmd, standalone, &worst);

	if (standalone) {
		msg_job_complete_t jc = {
			.job_id = job_id, .step_id = NO_VAL32, .launch_seq = 0,
			.exit_status = worst,
			.end_state = rc ? JOB_FAILED : JOB_COMPLETE,
		};
		int e = rpc_call_ctld_rc(cmd_conf(), MSG_JOB_COMPLETE, &jc, NULL);
		if (e && e != ESLURM_ALREADY_DONE && e != ESLURM_INVALID_JOB_ID)
			verbose("could not report the end of job %u: %s", job_id, slurm_strerror(e));
	}
	jobopts_release(&o);
	return rc;
}
