/*
 * salloc: get an allocation, run a command (default: the user's shell)
 * on this host inside it, and give it back when the command ends.
 *
 * The allocation is an interactive job, as srun makes one (the options
 * are srun's: jobopts with JOBOPTS_SRUN), so the steps the command starts
 * with srun run on its nodes. The command gets the allocation's variables
 * (SLURM_JOB_ID, SLURM_JOB_NODELIST, SLURM_JOB_CPUS_PER_NODE, ...) and
 * salloc prints Slurm's lines on stderr: "Granted job allocation N" (with
 * "Pending job allocation N" and the queue lines first when it waited),
 * "Relinquishing job allocation N" at the end, "Job allocation N has been
 * revoked." when it ended under the command (which then gets SIGHUP).
 * salloc's exit status is the command's exit code (0 when a signal ended
 * it, as Slurm 22.05's salloc). --no-shell: allocate, print the grant and
 * exit, leaving the allocation for srun --jobid until it is cancelled or
 * reaches its time limit.
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
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "cmd/jobopts.h"
#include "cmd/srun_int.h"
#include "errors.h"
#include "log.h"
#include "net.h"
#include "states.h"
#include "xalloc.h"

extern char **environ;

static void salloc_usage(FILE *fp)
{
	fprintf(fp,
"Usage: salloc [-N numnodes|[min nodes]-[max nodes]] [-n num-processors]\n"
"              [-c cpus-per-task] [-p partition] [-t minutes] [-J jobname]\n"
"              [-A account] [--qos=qos] [--mem=MB] [--gres=list] [--gpus=n]\n"
"              [-w hosts] [-x hosts] [-C list] [--exclusive] [-D path]\n"
"              [--no-shell] [-v] [-Q] [executable [args...]]\n");
}

static void salloc_help(void)
{
	salloc_usage(stdout);
	printf(
"\nGet a job allocation, run a command in it (by default your shell), and\n"
"release the allocation when the command exits. Steps started with srun\n"
"from the command run on the allocated nodes.\n"
"\n"
"      --no-shell              allocate, print the job id and exit, leaving\n"
"                              the allocation for srun --jobid\n"
"  (other options as srun: see srun --help)\n"
"\n"
"Help options:\n"
"  -h, --help                  show this help message\n"
"      --usage                 display brief usage message\n");
}

/* Count the CPU ids of one node's list "0-3,6" (show -d's CPU_IDs). */
static uint32_t count_ids(const char *s, size_t len)
{
	uint32_t n = 0;
	char *copy = xstrndup(s, len), *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *d = strchr(t, '-');
		unsigned long a = strtoul(t, NULL, 10), b = d ? strtoul(d + 1, NULL, 10) : a;
		n += b >= a ? (uint32_t)(b - a + 1) : 1;
	}
	free(copy);
	return n;
}

/* SLURM_JOB_CPUS_PER_NODE of a job: from its per-node CPU ids. */
static char *cpus_per_node(const job_info_t *j)
{
	uint32_t nn = j->num_nodes ? j->num_nodes : 1, k = 0;
	uint32_t *v = xcalloc(nn, sizeof(uint32_t));
	const char *p = j->cpu_ids;
	while (p && *p && k < nn) {
		size_t len = strcspn(p, " ");
		v[k++] = count_ids(p, len);
		p += len;
		p += *p == ' ';
	}
	for (; k < nn; k++)
		v[k] = j->num_cpus / nn;
	char *s = srun_counts_str(v, nn);
	free(v);
	return s;
}

/* The command's environment: ours plus the allocation's variables. */
static void alloc_env(strv_t *env, const jobopts_t *o, const job_info_t *j, const char *dir)
{
	for (char **e = environ; *e; e++)
		strv_push(env, *e);
	srun_env_seti(env, "SLURM_JOB_ID", j->job_id);
	srun_env_seti(env, "SLURM_JOBID", j->job_id);
	srun_alloc_env(env, o, j, dir);
	const char *nodes = j->nodes ? j->nodes : "";
	srun_env_set(env, "SLURM_JOB_NODELIST", nodes);
	srun_env_set(env, "SLURM_NODELIST", nodes);
	srun_env_seti(env, "SLURM_JOB_NUM_NODES", j->num_nodes);
	srun_env_seti(env, "SLURM_NNODES", j->num_nodes);
	char *cpn = cpus_per_node(j);
	srun_env_set(env, "SLURM_JOB_CPUS_PER_NODE", cpn);
	free(cpn);
	/* tasks per node as Slurm's salloc reports them: the requested
	 * tasks spread over the nodes, else one per node */
	uint32_t nn = j->num_nodes ? j->num_nodes : 1;
	uint32_t nt = o->desc.ntasks ? o->desc.ntasks : nn;
	uint32_t *tpn = xcalloc(nn, sizeof(uint32_t));
	for (uint32_t i = 0; i < nn; i++)
		tpn[i] = nt / nn + (i < nt % nn);
	char *t = srun_counts_str(tpn, nn);
	srun_env_set(env, "SLURM_TASKS_PER_NODE", t);
	free(t);
	free(tpn);
	if (o->desc.ntasks) {
		srun_env_seti(env, "SLURM_NTASKS", o->desc.ntasks);
		srun_env_seti(env, "SLURM_NPROCS", o->desc.ntasks);
	}
	if (o->desc.cpus_per_task)
		srun_env_seti(env, "SLURM_CPUS_PER_TASK", o->desc.cpus_per_task);
	if (o->desc.flags & JOB_F_OVERCOMMIT)
		srun_env_set(env, "SLURM_OVERCOMMIT", "1");
	srun_env_set(env, "SLURM_NODE_ALIASES", "(null)");
}

/* Run cmd with env; wait for it or the job's end. Returns salloc's exit
 * status; *revoked when the job ended first. */
static int run_command(char **cmd, strv_t *env, uint32_t job_id, int *revoked)
{
	*revoked = 0;
	/* a connection that answers when the job ends */
	int cerr = 0;
	rpc_t *w = rpc_connect_ctld(cmd_conf(), &cerr);
	msg_job_wait_t wr = { .job_id = job_id, .until = WAIT_UNTIL_FINISHED };
	if (w && rpc_send(w, MSG_JOB_WAIT, &wr)) {
		rpc_close(w);
		w = NULL;
	}
	char **envp = xcalloc(env->n + 1, sizeof(char *));
	for (uint32_t i = 0; i < env->n; i++)
		envp[i] = env->v[i];
	int ep[2];
	if (pipe2(ep, O_CLOEXEC) < 0)
		ep[0] = ep[1] = -1;
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		signal(SIGUSR1, SIG_DFL);
		signal(SIGUSR2, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		environ = envp;
		execvp(cmd[0], cmd);
		int en = errno;
		if (ep[1] >= 0)
			(void)!write(ep[1], &en, sizeof(en));
		_exit(127);
	}
	free(envp);
	if (ep[1] >= 0)
		close(ep[1]);
	if (pid < 0) {
		error("fork: %s", strerror(errno));
		rpc_close(w);
		return 1;
	}
	int en = 0;
	if (ep[0] >= 0) {
		if (read(ep[0], &en, sizeof(en)) != (ssize_t)sizeof(en))
			en = 0;
		close(ep[0]);
	}
	if (en) {
		error("_fork_command: Unable to find command \"%s\"", cmd[0]);
		waitpid(pid, NULL, 0);
		rpc_close(w);
		return 1;
	}
	int st = 0;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			break;
		struct pollfd p[2] = { { srun_sig_pipe[0], POLLIN, 0 },
				       { w ? rpc_fd(w) : -1, POLLIN, 0 } };
		/* SIGCHLD is not caught: look at the child every 100 ms */
		int n = poll(p, 2, 100);
		if (n > 0 && p[0].revents) {
			unsigned char b[16];
			(void)!read(srun_sig_pipe[0], b, sizeof(b));   /* the shell handles them */
		}
		if (n > 0 && p[1].revents && !*revoked) {
			*revoked = 1;
			info("Job allocation %u has been revoked.", job_id);
			kill(pid, SIGHUP);
			rpc_close(w);
			w = NULL;
		}
	}
	rpc_close(w);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 0;
}

int cmd_salloc(int argc, char **argv)
{
	log_init("salloc", 0, LOG_LVL_INFO, NULL);
	/* salloc's own flags (srun has none of them), up to a "--" */
	int no_shell = 0;
	char **av = xcalloc((size_t)argc + 1, sizeof(char *));
	int ac = 0, rest = 0;
	for (int i = 0; i < argc; i++) {
		rest |= i > 0 && !strcmp(argv[i], "--");
		if (i > 0 && !rest && !strcmp(argv[i], "--no-shell")) {
			no_shell = 1;
			continue;
		}
		if (i > 0 && !rest && (!strcmp(argv[i], "--bell") || !strcmp(argv[i], "--no-bell")))
			continue;
		av[ac++] = argv[i];
	}

	jobopts_t o;
	jobopts_init(&o, JOBOPTS_SRUN);
	o.prog = "salloc";
	int rc = jobopts_parse_argv(&o, ac, av, 0);
	if (rc)
		goto out;
	if (o.desc.flags & JOB_F_TEST_ONLY) {
		/* srun's and sbatch's option; Slurm 22.05's salloc has none */
		fprintf(stderr, "salloc: unrecognized option '--test-only'\n"
			"Try \"salloc --help\" for more information\n");
		rc = 255;
		goto out;
	}
	if ((rc = jobopts_check(&o)))
		goto out;
	if (o.help || o.usage || o.version) {
		if (o.help)
			salloc_help();
		else if (o.usage)
			salloc_usage(stdout);
		else
			printf("slurm %s\n", SLURM_COMPAT_VERSION);
		goto out;
	}
	if (o.quiet)
		log_set_level(LOG_LVL_ERROR);
	else if (o.verbose)
		log_set_level((enum log_level)(LOG_LVL_INFO + o.verbose));

	char **cmd = av + o.argi;
	int ncmd = ac - o.argi;
	const char *shell = getenv("SHELL");
	char *dflt[] = { (char *)(shell && *shell ? shell : "/bin/sh"), NULL };
	if (ncmd <= 0) {
		cmd = dflt;
		ncmd = 1;
	}

	job_desc_t *d = &o.desc;
	srun_desc_defaults(d, cmd[0]);
	d->flags |= JOB_F_INTERACTIVE;
	for (int k = 0; k < ncmd; k++)
		strv_push(&d->argv, cmd[k]);
	jobopts_build_env(&o, environ);

	srun_setup_signals();
	uint32_t job_id = 0;
	if ((rc = srun_allocate(&o, &job_id, 1)))   /* says "Granted job allocation" */
		goto out;
	if (no_shell)
		goto out;

	void *reply = NULL;
	msg_info_req_t ir = { .job_id = job_id };
	int err = cmd_call(MSG_JOB_INFO_REQ, &ir, MSG_JOB_INFO, &reply, NULL);
	if (err || !((msg_job_info_t *)reply)->njobs) {
		error("Unable to read job allocation %u: %s", job_id,
		      slurm_strerror(err ? err : ESLURM_INVALID_JOB_ID));
		if (reply)
			proto_msg_destroy(MSG_JOB_INFO, reply);
		srun_cancel_job(job_id);
		rc = 1;
		goto out;
	}
	strv_t env = { 0 };
	alloc_env(&env, &o, &((msg_job_info_t *)reply)->jobs[0], d->work_dir);
	proto_msg_destroy(MSG_JOB_INFO, reply);

	int revoked = 0;
	rc = run_command(cmd, &env, job_id, &revoked);
	strv_free(&env);
	info("Relinquishing job allocation %u", job_id);
	msg_job_complete_t jc = {
		.job_id = job_id, .step_id = NO_VAL32,
		.exit_status = (uint32_t)rc << 8,
		.end_state = rc ? JOB_FAILED : JOB_COMPLETE,
	};
	err = rpc_call_ctld_rc(cmd_conf(), MSG_JOB_COMPLETE, &jc, NULL);
	if (err && err != ESLURM_ALREADY_DONE && err != ESLURM_INVALID_JOB_ID)
		verbose("could not report the end of job %u: %s", job_id, slurm_strerror(err));
out:
	jobopts_release(&o);
	free(av);
	return rc;
}
