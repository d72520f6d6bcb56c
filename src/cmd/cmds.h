/*
 * cmds: the command table of the multi-call binary. Each command lives in
 * its own file as cmd_<name>(argc, argv) and returns the exit status.
 */
#ifndef SLUICE_CMDS_H
#define SLUICE_CMDS_H

int cmd_sbatch(int argc, char **argv);
int cmd_srun(int argc, char **argv);
int cmd_salloc(int argc, char **argv);
int cmd_sbcast(int argc, char **argv);
int cmd_squeue(int argc, char **argv);
int cmd_sinfo(int argc, char **argv);
int cmd_scontrol(int argc, char **argv);
/* scontrol listpids (scontrol_listpids.c): its arguments after the word. */
int scontrol_listpids(int nargs, char **args);
int cmd_scancel(int argc, char **argv);
int cmd_sprio(int argc, char **argv);
int cmd_sdiag(int argc, char **argv);
int cmd_sacct(int argc, char **argv);
int cmd_sstat(int argc, char **argv);
int cmd_sacctmgr(int argc, char **argv);
int cmd_sshare(int argc, char **argv);
int cmd_sreport(int argc, char **argv);
/* sluice subcommands (argv[0] is the subcommand name) */
int cmd_up(int argc, char **argv);
int cmd_ctld(int argc, char **argv);
int cmd_noded(int argc, char **argv);
int cmd_check_config(int argc, char **argv);
int cmd_check_keys(int argc, char **argv);
int cmd_preflight(int argc, char **argv);
int cmd_monitoring(int argc, char **argv);
int cmd_why(int argc, char **argv);
int cmd_sim(int argc, char **argv);

/* sreport job SizesByAccount's buckets: Grouping= parsed into its sorted,
 * distinct positive edges (at most max; -1 when not a list of numbers);
 * the bucket of a job of `cpus` CPUs (the number of edges <= cpus: 0 to
 * n); a bucket's column name ("0-49 CPUs", ">= 1000 CPUs"), xmalloc'd. */
#include <stdint.h>
int sreport_grouping(const char *s, uint32_t *edges, int max);
int sreport_size_bucket(const uint32_t *edges, int n, uint32_t cpus);
char *sreport_size_label(const uint32_t *edges, int n, int bucket);

/* Slurm's version string printed by -V/--version ("slurm 22.05.8"). */
#define SLURM_COMPAT_VERSION "22.05.8"
#define SLUICE_VERSION "0.1.0"

#endif
