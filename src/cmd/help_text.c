/*
 * help_text.c: the --help and --usage tables of the getopt-style commands
 * (sbatch, srun, squeue, sinfo, scancel, sprio, sdiag), printed by
 * cmd_help_print/cmd_usage_print (cmdutil.c).
 *
 * Each table lists the options that command's parser takes, under the
 * group headings and in the order Slurm 22.05's --help uses, so that a
 * reader (or a script grepping for "--mem=") finds them where Slurm has
 * them. The descriptions are our own words. An option added to a parser
 * gets its line here too (t/integration/0682-help.t checks that every
 * option listed is one the command accepts).
 */
#include <stddef.h>

#include "cmd/cmdutil.h"

#define NOCOL CMD_HELP_NOCOL
#define HEAD(t) { 0, NULL, t }
#define END { 0, NULL, NULL }

/* ---- sbatch ---- */

static const cmd_opt_help_t sbatch_opts[] = {
	HEAD("Parallel run options:"),
	{ 'A', "account=name", "charge the job to this account" },
	{ 'b', "begin=time", "do not start the job before this time" },
	{ 0, "comment=name", "free text kept with the job" },
	{ 'c', "cpus-per-task=ncpus", "CPUs each task needs" },
	{ 'd', "dependency=type:jobid[:time]", "start only once the condition on jobid holds" },
	{ 0, "deadline=time", "end the job if it cannot end before this time\n"
	  "(start > (deadline - time limit))" },
	{ 'D', "chdir=directory", "working directory of the batch script" },
	{ 'e', "error=err", "file for the batch script's standard error" },
	{ 0, "export[=names]", "environment variables passed to the job\n"
	  "(ALL, NONE, or a list of names and NAME=value)" },
	{ 0, "get-user-env", "load the user's login environment on the node" },
	{ 0, "gid=group_id", "run the job as this group (root only)" },
	{ 0, "gres=list", "generic resources needed on each node" },
	{ 'H', "hold", "submit the job held" },
	{ 'i', "input=in", "file for the batch script's standard input" },
	{ 'J', "job-name=jobname", "the job's name" },
	{ 'm', "distribution=type", "accepted: how tasks are laid out on nodes" },
	{ 0, "mail-type=type", "when to send mail: BEGIN, END, FAIL, ALL, ..." },
	{ 0, "mail-user=user", "who gets the mail (default: the submitting user)" },
	{ 'n', "ntasks=ntasks", "number of tasks" },
	{ 0, "nice[=value]", "lower the job's priority by value" },
	{ 0, "no-requeue", "never requeue the job" },
	{ 0, "ntasks-per-node=n", "tasks on each node" },
	{ 'N', "nodes=N", "node count, N = min[-max]" },
	{ 'o', "output=out", "file for the batch script's standard output" },
	{ 'O', "overcommit", "one CPU per node holds any number of tasks" },
	{ 0, "open-mode=append|truncate", "how the output and error files are opened" },
	{ 'p', "partition=partition", "partition to run in" },
	{ 0, "parsable", "print only the job id (and cluster), nothing else,\n"
	  "on success" },
	{ 0, "priority=value", "accepted: a fixed priority for the job" },
	{ 'q', "qos=qos", "quality of service" },
	{ 'Q', "quiet", "print no informational messages" },
	{ 0, "requeue", "allow the job to be requeued" },
	{ 's', "oversubscribe", "share nodes with other jobs" },
	{ 0, "signal=[[R][B]:]num[@time]", "send a signal time seconds before the time limit" },
	{ 0, "switches=max-switches{@max-time-to-wait}",
	  "\nthe most leaf switches, and how long to wait for them" },
	{ 't', "time=minutes", "time limit" },
	{ 0, "uid=user_id", "run the job as this user (root only)" },
	{ 'v', "verbose", "more messages (repeat for more)" },
	{ 'W', "wait", "wait for the job to end and exit with its status" },
	{ 0, "wckey=wckey", "workload characterization key" },
	{ 0, "wrap[=command string]", "submit the command wrapped in a sh script" },
	HEAD("Constraint options:"),
	{ 0, "contiguous", "nodes must be contiguous" },
	{ 'C', "constraint=list", "node features the job needs" },
	{ 0, "mem=MB", "memory per node" },
	{ 0, "mincpus=n", "at least n CPUs on each node" },
	{ 0, "reservation=name", "run in this reservation" },
	{ 0, "tmp=MB", "at least this much TmpDisk on each node" },
	{ 'w', "nodelist=hosts...", "nodes the job must have" },
	{ 'x', "exclude=hosts...", "nodes the job must not have" },
	HEAD("Consumable resources related options:"),
	{ 0, "exclusive[=user]", "whole nodes (or nodes shared with your jobs only)" },
	{ 0, "exclusive[=mcs]", "whole nodes (no MCS labels here: as --exclusive)" },
	{ 0, "mem-per-cpu=MB", "memory per allocated CPU\n"
	  "(--mem and --mem-per-cpu exclude each other)" },
	HEAD("GPU scheduling options:"),
	{ 0, "cpus-per-gpu=n", "CPUs for each allocated GPU" },
	{ 'G', "gpus=n", "GPUs for the whole job" },
	{ 0, "gpus-per-node=n", "GPUs on each allocated node" },
	{ 0, "gpus-per-task=n", "GPUs for each task" },
	{ 0, "mem-per-gpu=n", "memory for each allocated GPU" },
	HEAD("Help options:"),
	{ 'h', "help", "show this help message" },
	{ 0, "usage", "show a short usage message" },
	HEAD("Other options:"),
	{ 'V', "version", "print the version and exit" },
	END,
};

const cmd_help_t cmd_help_sbatch = {
	.prog = "sbatch",
	.synopsis = "[OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]",
	.usage = "[-N nnodes] [-n ntasks]\n"
		 "[-c ncpus] [-p partition] [--hold] [--parsable] [-t minutes]\n"
		 "[-D path]\n"
		 "[--input file] [--output file] [--error file] [--open-mode=mode]\n"
		 "[--chdir=directory] [--oversubscribe] [-m dist] [-J jobname]\n"
		 "[--verbose] [--gid=group] [--uid=user]\n"
		 "[--contiguous] [--mem=MB] [-C list]\n"
		 "[--account=name] [--dependency=type:jobid[+time]] [--comment=name]\n"
		 "[--mail-type=type] [--mail-user=user] [--nice[=value]] [--wait]\n"
		 "[--requeue] [--no-requeue] [--ntasks-per-node=n]\n"
		 "[--nodelist=hosts] [--exclude=hosts] [--signal=[[R][B]:]num[@time]]\n"
		 "[--mem-per-cpu=MB] [--qos=qos] [--gres=list]\n"
		 "[--reservation=name] [--switches=max-switches{@max-time-to-wait}]\n"
		 "[--export[=names]] [--wckey=wckey] [--wrap=command]\n"
		 "[--cpus-per-gpu=n] [--gpus=n] [--gpus-per-node=n] [--gpus-per-task=n]\n"
		 "[--mem-per-gpu=MB]\n"
		 "executable [args...]",
	.col = 30,
	.blank_after_synopsis = 1,
	.opts = sbatch_opts,
};

/* ---- srun ---- */

static const cmd_opt_help_t srun_opts[] = {
	HEAD("Parallel run options:"),
	{ 'A', "account=name", "charge the job to this account" },
	{ 'b', "begin=time", "do not start the job before this time" },
	{ 'c', "cpus-per-task=ncpus", "CPUs each task needs" },
	{ 0, "comment=name", "free text kept with the job" },
	{ 0, "cpu-bind=type", "bind each task to CPUs (cores, rank, map_cpu:...)" },
	{ 'd', "dependency=type:jobid[:time]", "start only once the condition on jobid holds" },
	{ 0, "deadline=time", "end the job if it cannot end before this time\n"
	  "(start > (deadline - time limit))" },
	{ 'D', "chdir=path", "working directory of the tasks" },
	{ 0, "exact", "the step takes only the CPUs its tasks need" },
	{ 0, "export=env_vars|NONE", "environment variables passed to the tasks\n"
	  "(ALL, NONE, or a list of names and NAME=value)" },
	{ 'e', "error=err", "where the tasks' standard error goes" },
	{ 0, "gres=list", "generic resources needed on each node" },
	{ 'H', "hold", "submit the job held" },
	{ 'i', "input=in", "where the tasks' standard input comes from" },
	{ 0, "jobid=id", "run inside this existing allocation" },
	{ 'J', "job-name=jobname", "the job's name" },
	{ 'K', "kill-on-bad-exit", "end the step when a task exits non-zero" },
	{ 'l', "label", "prefix each output line with the task number" },
	{ 'm', "distribution=type", "accepted: how tasks are laid out on nodes" },
	{ 0, "mail-type=type", "when to send mail: BEGIN, END, FAIL, ALL, ..." },
	{ 0, "mail-user=user", "who gets the mail (default: the submitting user)" },
	{ 0, "mem-bind=type", "accepted: how tasks are bound to memory" },
	{ 0, "mpi=type", "type of MPI being used" },
	{ 0, "multi-prog", "the command is a file naming a program per task" },
	{ 'n', "ntasks=ntasks", "number of tasks" },
	{ 0, "nice[=value]", "lower the job's priority by value" },
	{ 0, "ntasks-per-node=n", "tasks on each node" },
	{ 'N', "nodes=N", "node count, N = min[-max]" },
	{ 'o', "output=out", "where the tasks' standard output goes" },
	{ 'O', "overcommit", "one CPU per node holds any number of tasks" },
	{ 0, "open-mode=append|truncate", "how the output and error files are opened" },
	{ 0, "overlap", "share the job's CPUs with its other steps" },
	{ 'p', "partition=partition", "partition to run in" },
	{ 0, "priority=value", "accepted: a fixed priority for the job" },
	{ 0, "pty", "run task zero in a pseudo terminal" },
	{ 'q', "qos=qos", "quality of service" },
	{ 'Q', "quiet", "print no informational messages" },
	{ 0, "quit-on-interrupt", "end the step at the first Ctrl-C" },
	{ 's', "oversubscribe", "share nodes with other jobs" },
	{ 0, "signal=[R:]num[@time]", "send a signal time seconds before the time limit" },
	{ 0, "switches=max-switches{@max-time-to-wait}",
	  "\nthe most leaf switches, and how long to wait for them" },
	{ 't', "time=minutes", "time limit" },
	{ 0, "task-epilog=program", "run program after each task, as the task" },
	{ 0, "task-prolog=program", "run program before each task, as the task" },
	{ 'u', "unbuffered", "pass output on as it comes, not line by line" },
	{ 'v', "verbose", "more messages (repeat for more)" },
	{ 'W', "wait=sec", "end the step sec seconds after its first task ended" },
	{ 0, "wckey=wckey", "workload characterization key" },
	HEAD("Constraint options:"),
	{ 0, "contiguous", "nodes must be contiguous" },
	{ 'C', "constraint=list", "node features the job needs" },
	{ 0, "mem=MB", "memory per node" },
	{ 0, "mincpus=n", "at least n CPUs on each node" },
	{ 0, "reservation=name", "run in this reservation" },
	{ 0, "tmp=MB", "at least this much TmpDisk on each node" },
	{ 'w', "nodelist=hosts...", "nodes the job must have" },
	{ 'x', "exclude=hosts...", "nodes the job must not have" },
	HEAD("Consumable resources related options:"),
	{ 0, "exclusive[=user]", "whole nodes (or nodes shared with your jobs only)" },
	{ 0, "mem-per-cpu=MB", "memory per allocated CPU\n"
	  "(--mem and --mem-per-cpu exclude each other)" },
	HEAD("GPU scheduling options:"),
	{ 0, "cpus-per-gpu=n", "CPUs for each allocated GPU" },
	{ 'G', "gpus=n", "GPUs for the whole job" },
	{ 0, "gpus-per-node=n", "GPUs on each allocated node" },
	{ 0, "gpus-per-task=n", "GPUs for each task" },
	{ 0, "mem-per-gpu=n", "memory for each allocated GPU" },
	HEAD("Help options:"),
	{ 'h', "help", "show this help message" },
	{ 0, "usage", "show a short usage message" },
	HEAD("Other options:"),
	{ 'V', "version", "print the version and exit" },
	END,
};

const cmd_help_t cmd_help_srun = {
	.prog = "srun",
	.synopsis = "[OPTIONS(0)... [executable(0) [args(0)...]]] [ : [OPTIONS(N)...]] "
		    "executable(N) [args(N)...]",
	.usage = "[-N nnodes] [-n ntasks] [-i in] [-o out] [-e err]\n"
		 "[-c ncpus] [-p partition] [--hold] [-t minutes]\n"
		 "[-D path] [--oversubscribe] [--label] [--unbuffered] [-m dist]\n"
		 "[-J jobname] [--jobid=id] [--verbose] [--gres=list]\n"
		 "[--contiguous] [--mem=MB] [-C list] [--account=name]\n"
		 "[--dependency=type:jobid[+time]] [--comment=name]\n"
		 "[--mail-type=type] [--mail-user=user] [--nice[=value]]\n"
		 "[--ntasks-per-node=n] [--nodelist=hosts] [--exclude=hosts]\n"
		 "[--mem-per-cpu=MB] [--qos=qos] [--reservation=name]\n"
		 "[--export=[ALL|NONE|vars]] [--pty] [--mpi=type] [--wckey=wckey]\n"
		 "[--cpus-per-gpu=n] [--gpus=n] [--gpus-per-node=n] [--gpus-per-task=n]\n"
		 "[--mem-per-gpu=MB]\n"
		 "executable [args...]",
	.col = 30,
	.blank_after_synopsis = 1,
	.opts = srun_opts,
};

/* ---- squeue ---- */

static const cmd_opt_help_t squeue_opts[] = {
	{ 'A', "account=account(s)", "comma separated list of accounts\n"
	  "to view, default is all accounts" },
	{ 'a', "all", "show jobs in hidden partitions too" },
	{ 0, "federation", "accepted (no federations here)" },
	{ 'h', "noheader", "print no header line" },
	{ 0, "hide", "leave out jobs in hidden partitions" },
	{ 'i', "iterate=seconds", "print the report again every seconds" },
	{ 'j', "job=job(s)", "comma separated list of job ids\n"
	  "to view, default is all" },
	{ 0, "json", "print JSON" },
	{ 0, "local", "accepted (one cluster)" },
	{ 'l', "long", "long report" },
	{ 'L', "licenses=(license names)", "comma separated list of licenses to view" },
	{ 'M', "clusters=cluster_name", "accepted: the cluster to ask (this one)" },
	{ 0, "me", "as --user=<your user name>" },
	{ 'n', "name=job_name(s)", "comma separated list of job names to view" },
	{ 0, "noconvert", "print memory in its own unit (2048M stays 2048M)" },
	{ 0, "only-job-state", "ask the controller for job states only" },
	{ 'o', "format=format", "format specification" },
	{ 'O', "Format=format", "format specification by field name" },
	{ 'p', "partition=partition(s)", "comma separated list of partitions\n"
	  "to view, default is all partitions" },
	{ 'q', "qos=qos(s)", "comma separated list of qos's\n"
	  "to view, default is all qos's" },
	{ 'R', "reservation=name", "reservation to view, default is all" },
	{ 'r', "array", "one line per job array element" },
	{ 0, "sibling", "accepted (no federations here)" },
	{ 's', "steps=step(s)", "comma separated list of job steps\n"
	  "to view, default is all" },
	{ 'S', "sort=fields", "comma separated list of fields to sort on" },
	{ 0, "start", "expected start times of pending jobs" },
	{ 't', "states=state(s)", "comma separated list of states to view,\n"
	  "default is pending and running,\n"
	  "'--states=all' reports all states" },
	{ 'u', "user=user_name(s)", "comma separated list of users to view" },
	{ 'v', "verbose", "verbosity level" },
	{ 'V', "version", "print the version and exit" },
	{ 'w', "nodelist=hostlist", "list of nodes to view, default is\n"
	  "all nodes" },
	{ 0, "yaml", "accepted: JSON is printed" },
	HEAD("Help options:"),
	{ NOCOL, "help", "show this help message" },
	{ NOCOL, "usage", "show a short summary of squeue's options" },
	END,
};

const cmd_help_t cmd_help_squeue = {
	.prog = "squeue",
	.synopsis = "[OPTIONS]",
	.usage = "[-A account] [--clusters names] [-i seconds] [--job jobid]\n"
		 "[-n name] [-o format] [-p partitions] [--qos qos]\n"
		 "[--reservation reservation] [--sort fields] [--start]\n"
		 "[--step step_id] [-t states] [-u user_name] [--usage]\n"
		 "[-L licenses] [-w nodes] [--federation] [--local] [--sibling]\n"
		 "[--json] [--only-job-state] [-ahjlrsv]",
	.col = 34,
	.opts = squeue_opts,
};

/* ---- sinfo ---- */

static const cmd_opt_help_t sinfo_opts[] = {
	{ 'a', "all", "show every partition (hidden ones and those\n"
	  "you may not use too)" },
	{ 'd', "dead", "only nodes that do not respond" },
	{ 'e', "exact", "group nodes only when their configuration is the same" },
	{ 0, "federation", "accepted (no federations here)" },
	{ 'h', "noheader", "print no header line" },
	{ NOCOL, "hide", "leave out hidden partitions and those you may not use" },
	{ 'i', "iterate=seconds", "print the report again every seconds" },
	{ 0, "json", "print JSON" },
	{ 0, "local", "accepted (one cluster)" },
	{ 'l', "long", "long report, with more fields" },
	{ 'M', "clusters=names", "accepted: the cluster to ask (this one)" },
	{ 'n', "nodes=NODES", "report on these nodes" },
	{ NOCOL, "noconvert", "print memory in its own unit\n"
	  "(2048M stays 2048M)" },
	{ 'N', "Node", "one line per node" },
	{ 'o', "format=format", "format specification" },
	{ 'O', "Format=format", "format specification by field name" },
	{ 'p', "partition=PARTITION", "report on this partition" },
	{ 'r', "responding", "only nodes that respond" },
	{ 'R', "list-reasons", "why nodes are down, drained or failing" },
	{ 's', "summarize", "partition state summary only" },
	{ 'S', "sort=fields", "comma separated list of fields to sort on" },
	{ 't', "states=node_state", "only nodes in these states" },
	{ 'T', "reservation", "reservations instead of partitions" },
	{ 'v', "verbose", "verbosity level" },
	{ 'V', "version", "print the version and exit" },
	{ 0, "yaml", "accepted: JSON is printed" },
	HEAD("Help options:"),
	{ NOCOL, "help", "show this help message" },
	{ NOCOL, "usage", "show a short usage message" },
	END,
};

const cmd_help_t cmd_help_sinfo = {
	.prog = "sinfo",
	.synopsis = "[OPTIONS]",
	.usage = "[-abdelNRrsTv] [-i seconds] [-t states] [-p partition] [-n nodes]\n"
		 "[-S fields] [-o format] [-O Format] [--federation] [--local]\n"
		 "[--json]",
	.col = 29,
	.opts = sinfo_opts,
};

/* ---- scancel ---- */

static const cmd_opt_help_t scancel_opts[] = {
	{ 'A', "account=account", "only jobs charged to this account" },
	{ 'b', "batch", "signal the batch shell of the job" },
	{ 'f', "full", "signal the batch shell and every step of the job" },
	{ 'H', "hurry", "accepted (no burst buffers here)" },
	{ 'i', "interactive", "ask before each job" },
	{ 'M', "clusters", "accepted: the cluster to ask (this one)" },
	{ 0, "me", "only your own jobs" },
	{ 'n', "name=job_name", "only jobs with this name" },
	{ 'p', "partition=partition", "only jobs in this partition" },
	{ 'Q', "quiet", "no warnings" },
	{ 'q', "qos=qos", "only jobs with this quality of service" },
	{ 'R', "reservation=reservation", "only jobs in this reservation" },
	{ 's', "signal=name | integer", "send this signal instead of cancelling" },
	{ 't', "state=states", "only jobs in these states: PENDING,\n"
	  "RUNNING or SUSPENDED" },
	{ 'u', "user=user_name", "only jobs of this user" },
	{ 'V', "version", "print the version and exit" },
	{ 'v', "verbose", "say what is done" },
	{ 'w', "nodelist", "only jobs running on these nodes" },
	{ 0, "wckey=wckey", "only jobs with this workload\n"
	  "characterization key" },
	HEAD("Help options:"),
	{ NOCOL, "help", "show this help message" },
	{ NOCOL, "usage", "show a short usage message" },
	END,
};

const cmd_help_t cmd_help_scancel = {
	.prog = "scancel",
	.synopsis = "[OPTIONS] [job_id[_array_id][.step_id]]",
	.usage = "[-A account] [--batch] [--full] [--interactive] [-n job_name]\n"
		 "[-p partition] [-Q] [-q qos] [-R reservation] [-s signal | integer]\n"
		 "[-t PENDING | RUNNING | SUSPENDED] [--usage] [-u user_name]\n"
		 "[--hurry] [-V] [-v] [-w hosts...] [--wckey=wckey]\n"
		 "[job_id[_array_id][.step_id]]",
	.col = 34,
	.opts = scancel_opts,
};

/* ---- sdiag ---- */

static const cmd_opt_help_t sdiag_opts[] = {
	{ 'a', "all", "every statistic (the default)" },
	{ 'r', "reset", "reset the statistics (operators and admins)" },
	{ 'M', "cluster", "accepted: the cluster to ask (this one)" },
	{ 'i', "sort-by-id", "sort RPCs by message type id and user id" },
	{ 't', "sort-by-time", "sort RPCs by total run time" },
	{ 'T', "sort-by-time2", "sort RPCs by average run time" },
	{ 'V', "version", "print the version and exit" },
	HEAD("Help options:"),
	{ NOCOL, "help", "show this help message" },
	{ NOCOL, "usage", "show a short usage message" },
	END,
};

const cmd_help_t cmd_help_sdiag = {
	.prog = "sdiag",
	.synopsis = "[OPTIONS]",
	.usage = "[-M cluster] [-aritT]",
	.col = 22,
	.opts = sdiag_opts,
};
