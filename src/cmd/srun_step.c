/*
 * srun_step: one job step, from its creation to srun's exit status.
 *
 * MSG_STEP_CREATE gives the nodes, the task layout and a launch
 * credential; srun sends MSG_LAUNCH_STEP to each node daemon and relays
 * the MSG_STEP_IO frames that come back (srun_io.c) until every node has
 * closed its connection. Ending the step early goes to the step
 * supervisors on those connections (STEP_IO_SIGNAL): -K when a task
 * exits non-zero, -W seconds after the first task ended, Ctrl-C twice
 * within a second (once: the tasks' states, as Slurm), SIGTERM/SIGHUP,
 * --quit-on-interrupt. Other signals srun catches (SIGUSR1/2, SIGQUIT,
 * SIGCONT) are forwarded to the tasks.
 *
 * Exit status (man srun): the largest task exit code, or 128+signal for
 * a task killed by a signal; failed tasks are reported per node, tasks
 * with the same result grouped ("tasks 0-1: Killed").
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmdutil.h"
#include "cmd/srun_int.h"
#include "cred.h"
#include "errors.h"
#include "log.h"
#include "mpi_type.h"
#include "multiprog.h"
#include "strbuf.h"
#include "timefmt.h"
#include "xalloc.h"

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* "2,1(x3)": Slurm's compressed count list (SLURM_TASKS_PER_NODE). */
char *srun_counts_str(const uint32_t *v, uint32_t n)
{
	return cred_layout_string(v, n);   /* the credential's layout is one */
}

/* "task 3" / "tasks 0-2,5" for the ranks set in sel (n tasks). */
static void add_tasks(strbuf_t *sb, const uint8_t *sel, uint32_t from, uint32_t to)
{
	uint32_t cnt = 0;
	for (uint32_t t = from; t < to; t++)
		cnt += sel[t];
	strbuf_addstr(sb, cnt == 1 ? "task " : "tasks ");
	int first = 1;
	for (uint32_t t = from; t < to; t++) {
		if (!sel[t])
			continue;
		uint32_t e = t;
		while (e + 1 < to && sel[e + 1])
			e++;
		strbuf_addf(sb, "%s%u", first ? "" : ",", t);
		if (e > t)
			strbuf_addf(sb, "-%u", e);
		first = 0;
		t = e;
	}
}

typedef struct step_run {
	srun_layout_t lay;
	rpc_t **conns;              /* per node; NULL: failed or closed */
	int *open;                  /* per node: still reading from it */
	uint32_t *status;           /* per task: raw wait status */
	uint8_t *exited;
	int terminating;            /* we asked the nodes to end the step */
} step_run_t;

/* Tell every node's supervisor: sig 0 = terminate the step (SIGTERM,
 * SIGKILL after KillWait), SIGKILL = at once, else that signal. */
static void step_signal(step_run_t *sr, uint32_t sig)
{
	msg_step_io_t io = { .task = sig, .stream = STEP_IO_SIGNAL };
	for (uint32_t i = 0; i < sr->lay.nnodes; i++)
		if (sr->conns[i] && sr->open[i])
			srun_send(sr->conns[i], MSG_STEP_IO, &io);
	if (sig == 0 || sig == SIGKILL)
		sr->terminating = 1;
}

/* "srun: StepId=J.S tasks 0-1: running" and the exited ones. */
static void print_task_states(step_run_t *sr)
{
	uint32_t n = sr->lay.ntasks;
	uint8_t *sel = xcalloc(n + 1, 1);
	for (int pass = 0; pass < 2; pass++) {
		int any = 0;
		for (uint32_t t = 0; t < n; t++)
			any |= sel[t] = pass == 0 ? !sr->exited[t] : sr->exited[t];
		if (!any)
			continue;
		strbuf_t sb = STRBUF_INIT;
		strbuf_addf(&sb, "StepId=%u.%u ", sr->lay.job_id, sr->lay.step_id);
		add_tasks(&sb, sel, 0, n);
		info("%s: %s", sb.buf, pass == 0 ? "running" : "exited");
		strbuf_release(&sb);
	}
	free(sel);
}

/* What a task's end says in "srun: error: NODE: task N: ..." (NULL: say
 * nothing). malloc'd. */
static char *end_text(uint32_t s)
{
	if (WIFSIGNALED(s))
		return xstrdup(strsignal(WTERMSIG(s)));
	if (WEXITSTATUS(s))
		return xasprintf("Exited with exit code %d", WEXITSTATUS(s));
	return NULL;
}

/* sbcast's copy: a node whose writer failed says why as Slurm's sbcast
 * does (its exit code is the errno); the exit status is the last one. */
static int report_sbcast(step_run_t *sr, uint32_t *worst_out)
{
	int rc = 0;
	*worst_out = 0;
	for (uint32_t i = 0; i < sr->lay.nnodes; i++) {
		uint32_t t = sr->lay.first[i];
		if (!sr->lay.count[i])
			continue;
		uint32_t s = sr->exited[t] ? sr->status[t] : SIGKILL;
		int e = WIFSIGNALED(s) ? EINTR : WEXITSTATUS(s);
		if (!e)
			continue;
		error("REQUEST_FILE_BCAST(%s): %s", sr->lay.node_names[i], strerror(e));
		rc = e;
		*worst_out = s;
	}
	return rc;
}

/* Per node, the failed tasks grouped by what ended them; the exit code. */
static int report_ends(step_run_t *sr, int quiet_signals, uint32_t *worst_out)
{
	int rc = 0;
	uint32_t worst = 0, n = sr->lay.ntasks;
	uint8_t *sel = xcalloc(n + 1, 1), *done = xcalloc(n + 1, 1);
	for (uint32_t t = 0; t < n; t++)
		done[t] = sr->exited[t] >> 1;     /* already reported (-K) */
	for (uint32_t i = 0; i < sr->lay.nnodes; i++) {
		uint32_t a = sr->lay.first[i], b = a + sr->lay.count[i];
		for (uint32_t t = a; t < b; t++) {
			uint32_t s = sr->exited[t] ? sr->status[t] : SIGKILL;  /* lost: killed */
			int ec = WIFSIGNALED(s) ? 128 + WTERMSIG(s) : WEXITSTATUS(s);
			if (ec > rc) {
				rc = ec;
				worst = s;
			}
		}
		for (uint32_t t = a; t < b; t++) {
			uint32_t s = sr->exited[t] ? sr->status[t] : SIGKILL;
			char *txt = done[t] ? NULL : end_text(s);
			if (!txt || (quiet_signals && WIFSIGNALED(s))) {
				free(txt);
				continue;
			}
			memset(sel + a, 0, b - a);
			for (uint32_t k = t; k < b; k++) {
				uint32_t s2 = sr->exited[k] ? sr->status[k] : SIGKILL;
				char *t2 = done[k] ? NULL : end_text(s2);
				if (t2 && !strcmp(t2, txt))
					sel[k] = done[k] = 1;
				free(t2);
			}
			strbuf_t sb = STRBUF_INIT;
			add_tasks(&sb, sel, a, b);
			error("%s: %s: %s", sr->lay.node_names[i], sb.buf, txt);
			strbuf_release(&sb);
			free(txt);
		}
	}
	free(sel);
	free(done);
	*worst_out = worst;
	return rc;
}

/* --pty: srun's window size now, to task 0's terminal (its node). */
static void pty_send_winsize(rpc_t *r)
{
	uint32_t rows, cols;
	if (srun_pty_winsize(&rows, &cols) < 0)
		return;
	uint8_t d[4] = { (uint8_t)(rows >> 8), (uint8_t)rows, (uint8_t)(cols >> 8), (uint8_t)cols };
	msg_step_io_t io = { .task = 0, .stream = STEP_IO_WINSIZE, .len = 4, .data = d };
	srun_send(r, MSG_STEP_IO, &io);
}

/* Launch on node i. Returns the connection, or NULL after the error. */
/* The step's launch key (cred_launch_key) into key: the controller's,
 * given over the Unix socket to a srun that cannot read the cluster key,
 * else derived here by a key holder (root, SlurmUser). 0, or -1 where
 * there is none (auth/munge: the launch frames are signed instead). */
static int step_launch_key(const conf_t *conf, const msg_step_create_reply_t *cr,
			   char key[CRED_DIGEST_HEX + 1])
{
	if (cr->launch_key && strlen(cr->launch_key) == CRED_DIGEST_HEX) {
		memcpy(key, cr->launch_key, CRED_DIGEST_HEX + 1);
		return 0;
	}
	char *err = NULL;
	auth_t *a = auth_create(conf, &err);
	free(err);
	int rc = cred_launch_key(a, cr->cred, key);
	auth_destroy(a);
	return rc;
}

/* The step's --gpu-bind: as given, or with --gpus-per-task=N and none
 * given, per_task:N (Slurm 22.05 srun binds so implicitly). malloc'd or
 * NULL. */
static char *step_gpu_bind(const jobopts_t *o)
{
	if (o->sr.gpu_bind)
		return xstrdup(o->sr.gpu_bind);
	const char *t = o->desc.tres_per_task;
	const char *g = t ? strstr(t, "gpu") : NULL;
	if (!g)
		return NULL;
	/* "gres:gpu[:type]:N": its count is the last field of the item */
	size_t len = strcspn(g, ",");
	const char *c = g + len;
	while (c > g && c[-1] != ':')
		c--;
	char *end = NULL;
	unsigned long n = strtoul(c, &end, 10);
	return n && end == g + len ? xasprintf("per_task:%lu", n) : NULL;
}

static rpc_t *launch_node(const conf_t *conf, const msg_step_create_reply_t *cr,
			  const msg_launch_step_t *ls, uint32_t i)
{
	const char *name = cr->node_names.v[i];
	const char *addr = i < cr->node_addrs.n ? cr->node_addrs.v[i] : name;
	uint16_t port = (uint16_t)(i < cr->nports ? cr->ports[i] : conf->slurmd_port);
	int cerr = 0;
	rpc_t *r = rpc_connect_addr(conf, addr, port, &cerr);
	if (r && !(cerr = rpc_send(r, MSG_LAUNCH_STEP, ls))) {
		enum msg_type t = MSG_NONE;
		void *m = NULL;
		int timeout = (int)(conf->message_timeout ? conf->message_timeout : 10) * 1000;
		/* the node answers once its Prolog ran (the job's first step
		 * there): that long more, PrologEpilogTimeout or 5 minutes */
		if (conf->prolog && *conf->prolog) {
			const char *pt = conf_get(conf, "PrologEpilogTimeout");
			long t = pt ? atol(pt) : 0;
			timeout += (int)(t > 0 && t < 65534 ? t : 300) * 1000;
		}
		cerr = rpc_recv(r, &t, &m, timeout);
		if (!cerr && t == MSG_RC && ((msg_rc_t *)m)->rc) {
			msg_rc_t *rm = m;
			error("Task launch for StepId=%u.%u failed on node %s: %s", cr->job_id,
			      cr->step_id, name, rm->msg && *rm->msg ? rm->msg : slurm_strerror(rm->rc));
			cerr = rm->rc;
		} else if (!cerr && t != MSG_RC) {
			cerr = SLUICE_E_PROTOCOL;
		}
		if (m)
			proto_msg_destroy(t, m);
	} else {
		error("Task launch for StepId=%u.%u failed on node %s: %s", cr->job_id,
		      cr->step_id, name, slurm_strerror(cerr));
		cerr = cerr ? cerr : SLUICE_E_CONNECT;
	}
	if (cerr) {
		rpc_close(r);
		return NULL;
	}
	return r;
}

/* Read a --multi-prog file (the command's first word). NULL after the
 * error. */
static char *read_multi_prog(const char *path)
{
	FILE *fp = fopen(path, "r");
	if (!fp) {
		error("Could not open multi_prog config file %s", path);
		return NULL;
	}
	strbuf_t sb = STRBUF_INIT;
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0 && sb.len < (1u << 20))
		strbuf_add(&sb, buf, n);
	fclose(fp);
	return strbuf_detach(&sb);
}

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
/* srun -v, as Slurm 22.05 prints it (captured on realslurm):
 *   srun: jobid 80: nodes(2):`comp[017-018]', cpu counts: 1(x2)
 *   srun: launching StepId=80.0 on host comp017, 1 tasks: 0
 *   srun: launching StepId=81.0 on host comp001, 4 tasks: [0-3]
 * (the counts always with their repeat; tasks of a node are a block
 * here: Sluice lays them out by node). */
static void verbose_launch(uint32_t job_id, const msg_step_create_reply_t *cr,
			   const srun_layout_t *lay)
{
	strbuf_t c = STRBUF_INIT;
	uint32_t n = cr->ncpus_per_node < lay->nnodes ? cr->ncpus_per_node : lay->nnodes;
	for (uint32_t i = 0; i < n; ) {
		uint32_t k = i;
		while (k < n && cr->cpus_per_node[k] == cr->cpus_per_node[i])
			k++;
		strbuf_addf(&c, "%s%u(x%u)", c.len ? "," : "", cr->cpus_per_node[i], k - i);
		i = k;
	}
	verbose("jobid %u: nodes(%u):`%s', cpu counts: %s", job_id, lay->nnodes,
		cr->nodes ? cr->nodes : "", c.buf);
	strbuf_release(&c);
	for (uint32_t i = 0; i < lay->nnodes; i++) {
		char t[48];
		if (lay->count[i] == 1)
			snprintf(t, sizeof(t), "%u", lay->first[i]);
		else
			snprintf(t, sizeof(t), "[%u-%u]", lay->first[i], lay->first[i] + lay->count[i] - 1);
		verbose("launching StepId=%u.%u on host %s, %u tasks: %s", job_id, cr->step_id,
			lay->node_names[i], lay->count[i], t);
	}
}


int srun_run_step(jobopts_t *o, uint32_t job_id, char **cmd, int ncmd, int standalone,
		  const job_info_t *ji, uint32_t *worst_status)
{
	const conf_t *conf = cmd_conf();
	char cwd[PATH_MAX];
	const char *dir = o->desc.work_dir;
	if (!dir)
		dir = getcwd(cwd, sizeof(cwd)) ? cwd : "/";
	*worst_status = 1 << 8;
	int rc = 1;

	char *mp = NULL;
	if (o->sr.multi_prog) {
		if (ncmd != 1) {
			error("--multi-prog takes one argument, the configuration file");
			return 1;
		}
		if (!(mp = read_multi_prog(cmd[0])))
			return 1;
	}

	/* --pty: only where srun's stdout is a terminal (Slurm's lines
	 * otherwise, and the step runs without one) */
	uint32_t pty_rows = 0, pty_cols = 0;
	if (o->pty && !srun_pty_check(&pty_rows, &pty_cols))
		o->pty = 0;

	/* The environment every task starts from. What depends on the step
	 * (its id, tasks and nodes) the node daemons set from the launch and
	 * its credential: the launch srun sends is then known before the
	 * step exists, and the controller signs its digest into the
	 * credential (cred.h), so the credential runs this and nothing else. */
	jobopts_build_env(o, environ);
	strv_t *env = &o->desc.env;
	srun_env_seti(env, "SLURM_JOB_ID", job_id);
	srun_env_seti(env, "SLURM_JOBID", job_id);
	srun_env_seti(env, "SLURM_PRIO_PROCESS", (uint32_t)o->desc.nice);
	/* srun's log level as Slurm numbers it (3 = info, -v 4, -Q 2) */
	srun_env_seti(env, "SRUN_DEBUG", o->quiet ? 2u : 3u + (uint32_t)o->verbose);
	if (o->desc.flags & JOB_F_OVERCOMMIT)
		srun_env_set(env, "SLURM_OVERCOMMIT", "1");
	if (standalone)
		srun_alloc_env(env, o, ji, dir);
	/* --mpi, SLURM_MPI_TYPE or MpiDefault (srun.c checked it): the
	 * tasks get it as SLURM_MPI_TYPE, as Slurm's do, and the node side
	 * serves PMI when it says pmi2 (noded/pmi2.c), PMIx when pmix
	 * (noded/pmix_srv.c); the digest covers it.
	 * none is only said to override an inherited one. */
	if (o->mpi && (mpi_type_parse(o->mpi) != MPI_TYPE_NONE || getenv("SLURM_MPI_TYPE")))
		srun_env_set(env, "SLURM_MPI_TYPE", o->mpi);
	msg_launch_step_t tmpl = {
		.job_id = job_id,
		.user_id = (uint32_t)getuid(), .group_id = (uint32_t)getgid(),
		.env = *env, .cwd = (char *)dir,
		.flags = (o->unbuffered ? STEP_F_UNBUFFERED : 0u) |
			 (standalone ? STEP_F_STANDALONE : 0u) |
			 (o->pty ? STEP_F_PTY | STEP_F_UNBUFFERED : 0u),
		.pty_rows = pty_rows, .pty_cols = pty_cols,
		/* -t inside an allocation limits the step (standalone it is
		 * the job's, which the controller enforces) */
		.time_limit = !standalone && o->desc.time_limit != TIME_NO_VAL &&
			      o->desc.time_limit != TIME_INFINITE ? o->desc.time_limit : 0,
		.multi_prog = mp,
		.task_prolog = o->sr.task_prolog, .task_epilog = o->sr.task_epilog,
	};
	for (int k = 0; k < ncmd; k++)
		strv_push(&tmpl.argv, cmd[k]);
	uint32_t in_flags;
	srun_stdin_mode(o, &in_flags, &tmpl.stdin_task);
	tmpl.flags |= in_flags;
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
		.flags = (o->sr.exact ? STEP_CREATE_EXACT : 0u) |
			 (o->sr.overlap ? STEP_CREATE_OVERLAP : 0u),
		.cpus_per_task = o->desc.cpus_per_task,
		.tres_per_node = o->desc.tres_per_node, .tres_per_task = o->desc.tres_per_task,
		.tres_per_job = o->desc.tres_per_job, .cpus_per_gpu = o->desc.cpus_per_gpu,
		.time_limit = tmpl.time_limit,
		.srun_pid = (uint32_t)getpid(),
	};
	/* scontrol show step SrunHost (kept for the process's life) */
	static char *srun_host;
	if (!srun_host)
		srun_host = cmd_short_hostname();
	sc.srun_host = srun_host;
	/* SrunProlog: before the step exists; a failure aborts it */
	const char *sp = conf_get(conf, "SrunProlog");
	if (sp && *sp) {
		int ps = srun_script(sp, env, cmd, ncmd);
		if (ps) {
			error("srun prolog failed rc = %d. Aborting step.",
			      WIFEXITED(ps) ? WEXITSTATUS(ps) : 128 + WTERMSIG(ps));
			strv_free(&tmpl.argv);
			free(mp);
			*worst_status = 1 << 8;
			return 1;
		}
	}
	void *reply = NULL;
	msg_step_create_reply_t *cr = NULL;
	int err, waited = 0, delay = 100;
	for (;;) {
		reply = NULL;
		err = cmd_call(MSG_STEP_CREATE, &sc, MSG_STEP_CREATE_REPLY, &reply, NULL);
		cr = reply;
		if (!err && cr->rc)
			err = cr->rc;
		/* the job's CPUs are held by its other steps: wait for them,
		 * as Slurm's srun does */
		if (err != ESLURM_NODES_BUSY || standalone)
			break;
		if (reply)
			proto_msg_destroy(MSG_STEP_CREATE_REPLY, reply);
		reply = NULL;
		if (!waited++)
			info("Job %u step creation temporarily disabled, retrying (%s)", job_id,
			     slurm_strerror(err));
		struct pollfd p = { srun_sig_pipe[0], POLLIN, 0 };
		if (poll(&p, 1, delay) > 0) {
			info("Job step creation aborted");   /* a signal */
			strv_free(&tmpl.argv);
			free(mp);
			return 1;
		}
		delay = delay < 1000 ? delay * 2 : 1000;
	}
	if (!err && waited)
		info("Step created for job %u", job_id);
	if (err) {
		error("Unable to create step for job %u: %s", job_id, slurm_strerror(err));
		if (reply)
			proto_msg_destroy(MSG_STEP_CREATE_REPLY, reply);
		strv_free(&tmpl.argv);
		free(mp);
		return 1;
	}

	/* the layout */
	step_run_t sr = { 0 };
	srun_layout_t *lay = &sr.lay;
	uint32_t nnodes = cr->node_names.n;
	if (cr->ntasks_per_node_n < nnodes)
		nnodes = cr->ntasks_per_node_n;
	lay->job_id = job_id;
	lay->step_id = cr->step_id;
	lay->nnodes = nnodes;
	lay->node_names = cr->node_names.v;
	lay->first = xcalloc(nnodes + 1, sizeof(uint32_t));
	lay->count = xcalloc(nnodes + 1, sizeof(uint32_t));
	for (uint32_t i = 0; i < nnodes; i++) {
		lay->first[i] = lay->ntasks;
		lay->count[i] = cr->ntasks_per_node[i];
		lay->ntasks += lay->count[i];
	}
	lay->task_node = xcalloc(lay->ntasks + 1, sizeof(uint32_t));
	for (uint32_t i = 0; i < nnodes; i++)
		for (uint32_t k = 0; k < lay->count[i]; k++)
			lay->task_node[lay->first[i] + k] = i;
	lay->job_name = o->desc.name ? o->desc.name : (ji && ji->name ? ji->name : "");
	lay->user = ji && ji->user_name ? ji->user_name : getenv("USER");
	lay->work_dir = dir;
	lay->array_task_id = NO_VAL32;
	const char *aj = getenv("SLURM_ARRAY_JOB_ID"), *at = getenv("SLURM_ARRAY_TASK_ID");
	if (!standalone && aj && at) {
		lay->array_job_id = (uint32_t)strtoul(aj, NULL, 10);
		lay->array_task_id = (uint32_t)strtoul(at, NULL, 10);
	}
	uint32_t total = lay->ntasks;

	char *mperr = NULL;
	if (mp && multiprog_check(mp, cmd[0], total, &mperr) < 0) {
		for (char *line = mperr, *nl; line && *line; line = nl) {
			if ((nl = strchr(line, '\n')))
				*nl++ = '\0';
			error("%s", line);
		}
		free(mperr);
		goto out_early;
	}

	srun_io_t *io = srun_io_open(o, lay);
	int in_failed = 0;
	srun_stdin_t *in = io ? srun_stdin_plan(o, lay, &in_failed) : NULL;
	if (!io || in_failed) {
		srun_io_close(io);
		goto out_early;
	}

	sr.conns = xcalloc(nnodes + 1, sizeof(rpc_t *));
	sr.open = xcalloc(nnodes + 1, sizeof(int));
	sr.status = xcalloc(total + 1, sizeof(uint32_t));
	sr.exited = xcalloc(total + 1, 1);
	char *tpn = srun_counts_str(lay->count, nnodes);
	char *jcpn = srun_counts_str(cr->cpus_per_node,
				     cr->ncpus_per_node < nnodes ? cr->ncpus_per_node : nnodes);
	int live = 0;
	if (o->pty) {
		/* from here on every key goes to task 0's terminal */
		srun_catch_signal(SIGWINCH);
		srun_pty_raw();
	}
	char lkey[CRED_DIGEST_HEX + 1], mac[CRED_DIGEST_HEX + 1];
	int have_lkey = step_launch_key(conf, cr, lkey) == 0;
	char *gpu_bind = step_gpu_bind(o);
	for (uint32_t i = 0; i < nnodes; i++) {
		msg_launch_step_t ls = tmpl;
		ls.step_id = cr->step_id;
		ls.cred = cr->cred;
		ls.ntasks = lay->count[i];
		ls.first_task = lay->first[i];
		ls.total_tasks = total;
		ls.node_id = i;
		ls.nnodes = nnodes;
		ls.tasks_per_node = tpn;
		ls.topo_addr = i < cr->topo_addrs.n ? cr->topo_addrs.v[i] : NULL;
		ls.topo_pattern = cr->topo_pattern;
		ls.cpus_on_node = i < cr->ncpus_per_node ? cr->cpus_per_node[i] : 0;
		ls.job_cpus_per_node = standalone ? jcpn : NULL;
		ls.cpu_bind = o->sr.cpu_bind;
		ls.gpu_bind = gpu_bind;
		ls.cpu_ids = i < cr->cpu_ids.n ? cr->cpu_ids.v[i] : NULL;
		ls.cpus_per_task = o->desc.cpus_per_task;
		/* last: it covers every field above (the node refuses a
		 * launch without it in auth/slurm) */
		ls.launch_mac = have_lkey && cred_launch_mac(lkey, &ls, mac) == 0 ? mac : NULL;
		sr.conns[i] = launch_node(conf, cr, &ls, i);
		if (!sr.conns[i]) {
			for (uint32_t k = 0; k < lay->count[i]; k++) {
				sr.status[lay->first[i] + k] = 1 << 8;
				sr.exited[lay->first[i] + k] = 1;
			}
			continue;
		}
		sr.open[i] = 1;
		live++;
	}
	explicit_bzero(lkey, sizeof(lkey));
	free(gpu_bind);
	free(tpn);
	free(jcpn);
	if (log_get_level() >= LOG_LVL_VERBOSE)
		verbose_launch(job_id, cr, lay);
	srun_stdin_start(in, sr.conns);

	/* --mpi=pmi2 or pmix: the nodes' fences meet here (srun_pmi.c) */
	int mpi_t = o->mpi ? mpi_type_parse(o->mpi) : MPI_TYPE_NONE;
	srun_pmi_t *pmi = mpi_t == MPI_TYPE_PMI2 || mpi_t == MPI_TYPE_PMIX ?
			  srun_pmi_new(nnodes) : NULL;
	/* Relay output until every connection is closed. */
	struct pollfd *pf = xcalloc(nnodes + 2, sizeof(*pf));
	uint32_t *map = xcalloc(nnodes + 1, sizeof(*map));
	int64_t first_exit = -1, last_int = -1;
	int interrupted = 0, bad_exit = 0, forced = 0;
	int kill_wait = (int)(conf->kill_wait ? conf->kill_wait : 30);
	/* -K unset: slurm.conf's KillOnBadExit */
	const char *kobe = conf_get(conf, "KillOnBadExit");
	int kill_bad = o->sr.kill_bad_exit >= 0 ? o->sr.kill_bad_exit : kobe && atoi(kobe) == 1;
	while (live > 0) {
		nfds_t n = 0;
		for (uint32_t i = 0; i < nnodes; i++) {
			if (!sr.open[i])
				continue;
			pf[n] = (struct pollfd){ rpc_fd(sr.conns[i]), POLLIN, 0 };
			map[n++] = i;
		}
		pf[n] = (struct pollfd){ srun_sig_pipe[0], POLLIN, 0 };
		int tmo = -1;
		if (o->sr.wait_secs > 0 && first_exit >= 0 && !sr.terminating) {
			int64_t left = first_exit + (int64_t)o->sr.wait_secs * 1000 - now_ms();
			tmo = left < 0 ? 0 : (int)left;
		}
		int pr = poll(pf, n + 1, tmo);
		if (pr < 0 && errno != EINTR)
			break;
		if (pr == 0 && tmo >= 0) {
			/* -W: the first task ended W seconds ago */
			info("First task exited %ds ago", o->sr.wait_secs);
			print_task_states(&sr);
			info("launch/slurm: _step_signal: Terminating StepId=%u.%u", job_id, cr->step_id);
			step_signal(&sr, SIGKILL);
			info("Job step aborted: Waiting up to %d seconds for job step to finish.",
			     kill_wait + 2);
			continue;
		}
		if (pr > 0 && pf[n].revents) {
			unsigned char sigs[16];
			ssize_t got = read(srun_sig_pipe[0], sigs, sizeof(sigs));
			for (ssize_t k = 0; k < got; k++) {
				int sig = sigs[k];
				if (sig == SIGWINCH) {
					if (o->pty && total && sr.conns[lay->task_node[0]] &&
					    sr.open[lay->task_node[0]])
						pty_send_winsize(sr.conns[lay->task_node[0]]);
					continue;
				}
				if (sig == SIGINT && !o->sr.quit_on_interrupt) {
					int64_t t = now_ms();
					if (last_int < 0 || t - last_int > 1000) {
						last_int = t;
						info("interrupt (one more within 1 sec to abort)");
						print_task_states(&sr);
						continue;
					}
				}
				if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
					/* --pty: the terminal is srun's again from here,
					 * as Slurm's srun gives it back */
					srun_pty_end();
					interrupted++;
					if (sig == SIGINT) {
						info("sending Ctrl-C to StepId=%u.%u", job_id, cr->step_id);
						step_signal(&sr, SIGINT);
					}
					if (interrupted > 1 && forced) {
						/* a third: stop waiting for the nodes */
						live = 0;
						break;
					}
					info("forcing job termination");
					step_signal(&sr, SIGKILL);
					info("Job step aborted: Waiting up to %d seconds for job step to finish.",
					     kill_wait + 2);
					forced = 1;
				} else {
					step_signal(&sr, (uint32_t)sig);   /* forwarded */
				}
			}
		}
		for (nfds_t k = 0; pr > 0 && k < n; k++) {
			if (!pf[k].revents)
				continue;
			uint32_t i = map[k];
			/* every frame already buffered: poll() does not see them */
			do {
				enum msg_type t = MSG_NONE;
				void *m = NULL;
				if (rpc_recv(sr.conns[i], &t, &m, 30000)) {
					sr.open[i] = 0;
					live--;
					break;
				}
				const msg_step_io_t *sio = m;
				const strbuf_t *all = NULL;
				if (t == MSG_STEP_IO && sio->stream == STEP_IO_PMI_ABORT) {
					/* MPI_Abort: the whole step ends, as Slurm's */
					if (!sr.terminating) {
						info("launch/slurm: _step_signal: Terminating StepId=%u.%u",
						     job_id, cr->step_id);
						step_signal(&sr, 0);
					}
				} else if (t == MSG_STEP_IO && sio->stream == STEP_IO_PMI) {
					int in = pmi ? srun_pmi_add(pmi, i, sio->data, sio->len, &all) : -1;
					if (in < 0)
						error("%s: PMI fence data out of turn", lay->node_names[i]);
					for (uint32_t k2 = 0; in > 0 && k2 < nnodes; k2++) {
						msg_step_io_t back = { .stream = STEP_IO_PMI,
								       .len = (uint32_t)all->len,
								       .data = (uint8_t *)all->buf };
						if (sr.open[k2])
							srun_send(sr.conns[k2], MSG_STEP_IO, &back);
					}
				} else if (t == MSG_STEP_IO) {
					srun_io_relay(io, m);
				} else if (t == MSG_STEP_TASK_EXIT) {
					msg_step_task_exit_t *te = m;
					if (te->task < total) {
						sr.status[te->task] = te->status;
						sr.exited[te->task] = 1;
						if (first_exit < 0)
							first_exit = now_ms();
						int bad = WIFSIGNALED(te->status) || WEXITSTATUS(te->status);
						if (bad && kill_bad && !sr.terminating) {
							uint32_t node = lay->task_node[te->task];
							char *txt = end_text(te->status);
							error("%s: task %u: %s", lay->node_names[node], te->task, txt);
							free(txt);
							info("launch/slurm: _step_signal: Terminating StepId=%u.%u",
							     job_id, cr->step_id);
							step_signal(&sr, 0);
							bad_exit = 1;
						}
					}
				}
				proto_msg_destroy(t, m);
			} while (rpc_has_frame(sr.conns[i]));
		}
	}
	srun_pmi_free(pmi);
	free(map);
	free(pf);
	srun_pty_end();
	srun_stdin_stop(in);          /* before the connections it uses go */
	for (uint32_t i = 0; i < nnodes; i++)
		rpc_close(sr.conns[i]);

	/* -K already reported the task that triggered it. */
	if (bad_exit) {
		for (uint32_t t = 0; t < total; t++)
			if (sr.exited[t] && !WIFSIGNALED(sr.status[t]) && WEXITSTATUS(sr.status[t]))
				sr.exited[t] |= 2;
	}
	rc = o->sr.sbcast ? report_sbcast(&sr, worst_status) :
			    report_ends(&sr, interrupted > 0, worst_status);
	if (bad_exit)
		info("Force Terminated StepId=%u.%u", job_id, cr->step_id);
	/* SrunEpilog: after the step; its failure is only said */
	const char *se = conf_get(conf, "SrunEpilog");
	if (se && *se) {
		int es = srun_script(se, env, cmd, ncmd);
		if (es)
			error("srun epilog failed status=%d",
			      WIFEXITED(es) ? WEXITSTATUS(es) : 128 + WTERMSIG(es));
	}
	srun_io_close(io);
	free(sr.conns);
	free(sr.open);
	free(sr.status);
	free(sr.exited);
	goto out;

out_early:
out:
	free(lay->first);
	free(lay->count);
	free(lay->task_node);
	proto_msg_destroy(MSG_STEP_CREATE_REPLY, reply);
	strv_free(&tmpl.argv);
	free(mp);
	return rc;
}
