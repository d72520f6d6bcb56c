/*
 * sluice: the multi-call binary. `sinfo`, `squeue`, ... are links to it and
 * dispatch on argv[0] (as git and busybox do); `sluice <cmd> ...` works for
 * every command too, so `sluice sinfo` and `sinfo` are the same thing.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmds.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	int slurm;          /* a Slurm command name (gets a link) */
	const char *help;
};

static const struct command commands[] = {
	{ "sbatch", cmd_sbatch, 1, "submit a batch script" },
	{ "srun", cmd_srun, 1, "run a parallel job or job step" },
	{ "salloc", cmd_salloc, 1, "get a job allocation and run a command in it" },
	{ "sbcast", cmd_sbcast, 1, "copy a file to the nodes of a job" },
	{ "squeue", cmd_squeue, 1, "view the job queue" },
	{ "sinfo", cmd_sinfo, 1, "view nodes and partitions" },
	{ "scontrol", cmd_scontrol, 1, "view and modify state" },
	{ "scancel", cmd_scancel, 1, "cancel or signal jobs" },
	{ "sprio", cmd_sprio, 1, "view the factors of pending jobs' priority" },
	{ "sdiag", cmd_sdiag, 1, "view scheduling and RPC statistics" },
	{ "sacct", cmd_sacct, 1, "view job and step accounting records" },
	{ "sstat", cmd_sstat, 1, "view the live resource use of running job steps" },
	{ "sacctmgr", cmd_sacctmgr, 1, "view and change accounts, users, associations and QOS" },
	{ "sshare", cmd_sshare, 1, "view fair-share usage and factors" },
	{ "sreport", cmd_sreport, 1, "reports from the usage rollups" },
	{ "up", cmd_up, 0, "set up and run a local cluster in the foreground" },
	{ "ctld", cmd_ctld, 0, "run the controller" },
	{ "noded", cmd_noded, 0, "run a node daemon" },
	{ "check-config", cmd_check_config, 0, "validate a config directory" },
	{ "check-keys", cmd_check_keys, 0, "compare the nodes' auth keys with the controller's" },
	{ "preflight", cmd_preflight, 0, "staged health, GPU, fabric and all-reduce tests of nodes" },
	{ "monitoring", cmd_monitoring, 0, "write Prometheus, alert rules and Grafana files for the cluster" },
	{ "why", cmd_why, 0, "explain why a job is pending or how it ended, or a node's state" },
	{ "sim", cmd_sim, 0, "replay a workload trace (SWF) on the scheduler in virtual time" },
};

static void usage(FILE *fp)
{
	fprintf(fp, "usage: sluice <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(fp, "  %-13s %s\n", commands[i].name, commands[i].help);
	fprintf(fp, "\nSlurm commands are also available as links named after them.\n");
}

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	const struct command *c = find(base);
	if (c && c->slurm)
		return c->fn(argc, argv);
	if (argc < 2) {
		usage(stderr);
		return 1;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("sluice %s (slurm %s compatible)\n", SLUICE_VERSION, SLURM_COMPAT_VERSION);
		return 0;
	}
	c = find(argv[1]);
	if (!c) {
		fprintf(stderr, "sluice: unknown command '%s'\n", argv[1]);
		usage(stderr);
		return 1;
	}
	return c->fn(argc - 1, argv + 1);
}
