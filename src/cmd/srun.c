/*
 * srun: run a parallel command, as a job step.
 *
 * Inside an allocation (SLURM_JOB_ID set, or --jobid) srun only creates a
 * step. Standalone it first asks for an allocation (MSG_SUBMIT with
 * JOB_F_INTERACTIVE), waits for it to start (printing Slurm's "queued and
 * waiting" / "has been allocated" lines), runs one step, and reports the
 * allocation's end itself (MSG_JOB_COMPLETE). This file: options, the
 * allocation, signals; the step is srun_step.c, its stdio srun_io.c,
 * srun's own options srun_opts.c.
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
#include "cmd/srun_int.h"
#include "cred.h"
#include "errors.h"
#include "log.h"
#include "net.h"
#include "states.h"
#include "strbuf.h"
#include "timefmt.h"
#include "xalloc.h"

extern char **environ;

int srun_sig_pipe[2] = { -1, -1 };
static volatile sig_atomic_t sig_count;

static void on_signal(int sig)
{
	int saved = errno;
	unsigned char b = (unsigned char)sig;
	sig_count++;
	if (write(srun_sig_pipe[1], &b, 1) < 0) {
		/* pipe full: the loop is already awake */
	}
	errno = saved;
}

void srun_setup_signals(void)
{
	if (pipe2(srun_sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return;
	struct sigaction sa = { 0 };
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* SIGINT/SIGTERM/SIGHUP end the step (srun_step.c); the others
	 * are forwarded to the tasks, as Slurm's srun does */
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void srun_catch_signal(int sig)
{
	struct sigaction sa = { 0 };
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(sig, &sa, NULL);
}


void srun_env_set(strv_t *env, const char *key, const char *val)
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

void srun_env_seti(strv_t *env, const char *key, uint32_t v)
{
	char buf[16];
	snprintf(buf, sizeof(buf), "%u", v);
	srun_env_set(env, key, buf);
}

void srun_alloc_env(strv_t *env, const jobopts_t *o, const job_info_t *ji, const char *dir)
{
	const conf_t *conf = cmd_conf();
	const char *name = o->desc.name ? o->desc.name : ji ? ji->name : NULL;
	if (name)
		srun_env_set(env, "SLURM_JOB_NAME", name);
	srun_env_set(env, "SLURM_SUBMIT_DIR", dir);
	if (o->desc.alloc_node)
		srun_env_set(env, "SLURM_SUBMIT_HOST", o->desc.alloc_node);
	if (conf->cluster_name)
		srun_env_set(env, "SLURM_CLUSTER_NAME", conf->cluster_name);
	if (conf->path)
		srun_env_set(env, "SLURM_CONF", conf->path);
	if (ji && ji->account && *ji->account)
		srun_env_set(env, "SLURM_JOB_ACCOUNT", ji->account);
	if (ji && ji->partition && *ji->partition)
		srun_env_set(env, "SLURM_JOB_PARTITION", ji->partition);
	if (ji && ji->qos && *ji->qos)
		srun_env_set(env, "SLURM_JOB_QOS", ji->qos);
}

/* Wait on fd or a signal. 1 readable, 0 signal, -1 error. */
static int wait_readable(int fd)
{
	struct pollfd p[2] = { { .fd = fd, .events = POLLIN }, { .fd = srun_sig_pipe[0], .events = POLLIN } };
	for (;;) {
		int n = poll(p, srun_sig_pipe[0] >= 0 ? 2 : 1, -1);
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

void srun_cancel_job(uint32_t job_id)
{
	msg_cancel_t req = { .njob_ids = 1, .job_ids = &job_id };
	void *reply = NULL;
	if (!cmd_call(MSG_CANCEL, &req, MSG_CANCEL_REPLY, &reply, NULL))
		proto_msg_destroy(MSG_CANCEL_REPLY, reply);
}

void srun_desc_defaults(job_desc_t *d, const char *cmd0)
{
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
		const char *b = strrchr(cmd0, '/');
		d->name = xstrdup(b ? b + 1 : cmd0);
	}
	d->alloc_node = cmd_short_hostname();
	d->alloc_sid = (uint32_t)getsid(0);
}

int srun_allocate(jobopts_t *o, uint32_t *job_id_out, int salloc)
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
		/* a refused request: salloc words it as Slurm 22.05's does */
		error("%s: %s", salloc ? "Job submit/allocate failed" : "Unable to allocate resources",
		      slurm_strerror(err));
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
	if ((state & JOB_STATE_BASE) == JOB_RUNNING && !(state & JOB_CONFIGURING)) {
		if (salloc)
			info("Granted job allocation %u", job_id);
		return 0;
	}
	if (JOB_IS_FINISHED(state)) {
		error("Unable to allocate resources: Job allocation %u has been revoked", job_id);
		return 1;
	}

	/* Allocated but CONFIGURING: its nodes' Prolog (PrologFlags=Alloc)
	 * or the PrologSlurmctld still runs; salloc says so as Slurm's does
	 * (srun only with -v) */
	int configuring = (state & JOB_STATE_BASE) == JOB_RUNNING;
	if (configuring && salloc) {
		info("Granted job allocation %u", job_id);
		info("Waiting for resource configuration");
	} else if (configuring) {
		verbose("Waiting for resource configuration");
	} else {
		if (salloc)
			info("Pending job allocation %u", job_id);
		info("job %u queued and waiting for resources", job_id);
	}
	int cerr = 0;
	rpc_t *r = rpc_connect_ctld(cmd_conf(), &cerr);
	msg_job_wait_t wr = { .job_id = job_id, .until = WAIT_UNTIL_STARTED };
	if (!r || (cerr = rpc_send(r, MSG_JOB_WAIT, &wr))) {
		rpc_close(r);
		error("Unable to allocate resources: %s", slurm_strerror(cerr));
		srun_cancel_job(job_id);
		return 1;
	}
	int w = wait_readable(rpc_fd(r));
	if (w <= 0) {
		rpc_close(r);
		srun_cancel_job(job_id);
		info("Job allocation %u has been revoked.", job_id);
		return 1;
	}
	void *msg = NULL;
	enum msg_type t = MSG_NONE;
	err = rpc_recv(r, &t, &msg, -1);
	rpc_close(r);
	if (err) {
		error("Unable to allocate resources: %s", slurm_strerror(err));
		srun_cancel_job(job_id);
		return 1;
	}
	if (t == MSG_RC) {
		int rc = ((msg_rc_t *)msg)->rc;
		proto_msg_destroy(t, msg);
		error("Job allocation %u has been revoked: %s", job_id,
		      slurm_strerror(rc ? rc : ESLURM_ALREADY_DONE));
		return 1;
	}
	msg_job_info_t *wi = msg;
	if (configuring) {
		const char *nl = wi->njobs && wi->jobs[0].nodes ? wi->jobs[0].nodes : "";
		if (salloc)
			info("Nodes %s are ready for job", nl);
		else
			verbose("Nodes %s are ready for job", nl);
	} else {
		info("job %u has been allocated resources", job_id);
		if (salloc)
			info("Granted job allocation %u", job_id);
	}
	proto_msg_destroy(t, msg);
	return 0;
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
	if ((rc = jobopts_parse_argv(&o, argc, argv, 0)) ||
	    (rc = jobopts_step_gres(&o, getenv("SLURM_STEP_GRES"))) || (rc = jobopts_check(&o))) {
		jobopts_release(&o);
		return rc;
	}
	/* no --mpi nor SLURM_MPI_TYPE: slurm.conf's MpiDefault, checked
	 * before anything is allocated */
	const char *mpi_default = conf_get(cmd_conf(), "MpiDefault");
	if (!o.mpi && mpi_default && *mpi_default) {
		if (jobopts_mpi_check("srun", mpi_default) < 0) {
			jobopts_release(&o);
			return 1;
		}
		o.mpi = xstrdup(mpi_default);
	}
	if (o.quiet)
		log_set_level(LOG_LVL_ERROR);
	else if (o.verbose)
		log_set_level((enum log_level)(LOG_LVL_INFO + o.verbose));
	jobopts_print_defined(&o, stderr);
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

	srun_desc_defaults(d, cmd[0]);

	if (d->flags & JOB_F_TEST_ONLY) {
		/* a job's will_run, inside an allocation too (as Slurm) */
		d->flags |= JOB_F_INTERACTIVE;
		if (!d->ntasks)
			d->ntasks = 1;
		for (int k = 0; k < ncmd; k++)
			strv_push(&d->argv, cmd[k]);
		jobopts_build_env(&o, environ);
		rc = jobopts_test_only(&o);
		jobopts_release(&o);
		return rc;
	}
	srun_setup_signals();
	if (standalone) {
		d->flags |= JOB_F_INTERACTIVE;
		if (!d->ntasks)
			d->ntasks = 1;
		for (int k = 0; k < ncmd; k++)
			strv_push(&d->argv, cmd[k]);
		jobopts_build_env(&o, environ);
		if ((rc = srun_allocate(&o, &job_id, 0))) {
			jobopts_release(&o);
			return rc;
		}
	}

	/* standalone: the job's record, for the variables of its only step */
	void *jinfo = NULL;
	const job_info_t *ji = NULL;
	if (standalone) {
		msg_info_req_t ir = { .job_id = job_id };
		if (!cmd_call(MSG_JOB_INFO_REQ, &ir, MSG_JOB_INFO, &jinfo, NULL) &&
		    ((msg_job_info_t *)jinfo)->njobs)
			ji = &((msg_job_info_t *)jinfo)->jobs[0];
	}
	uint32_t worst = 0;
	rc = srun_run_step(&o, job_id, cmd, ncmd, standalone, ji, &worst);
	if (jinfo)
		proto_msg_destroy(MSG_JOB_INFO, jinfo);

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
