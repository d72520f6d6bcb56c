/*
 * rlimits: the resource limits Slurm propagates from the submitting shell
 * to the job's tasks (--propagate, PropagateResourceLimits[Except]), by
 * the names Slurm uses for them (CPU FSIZE DATA STACK CORE RSS NPROC
 * NOFILE MEMLOCK AS), and how they travel: the client puts
 * SLURM_RLIMIT_<NAME>=[U]<soft limit> in the job's environment ('U' when
 * the user named the limit in --propagate, which applies it whatever the
 * node's configuration says), and the node daemon applies them to the
 * task before exec and removes the variables.
 */
#ifndef SLUICE_RLIMITS_H
#define SLUICE_RLIMITS_H

#include <stddef.h>

typedef struct rlim_name {
	const char *name;        /* "NOFILE" */
	int resource;            /* RLIMIT_NOFILE */
} rlim_name_t;

/* The propagated limits, in Slurm's order. */
extern const rlim_name_t rlim_names[];
extern const size_t rlim_count;

/* Parse a list as --propagate and PropagateResourceLimits take it: "ALL",
 * "NONE", or comma-separated names (upper case as Slurm wants them,
 * "RLIMIT_" prefix allowed). Sets *mask (bit i = rlim_names[i]). Returns 0, or -1 naming
 * the first bad item in *bad (a pointer into a static buffer). */
int rlim_list_parse(const char *list, unsigned *mask, const char **bad);

#endif
