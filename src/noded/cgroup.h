/*
 * cgroup: each job and step of the node in a cgroup of its own
 * (cgroup.conf; ProctrackType=proctrack/cgroup, TaskPlugin=task/cgroup).
 *
 * Layout (one subtree per node, so the virtual nodes of `sluice up` on one
 * host never share one; N is "slurm_<node>", or "<prefix>_<node>" with
 * $SLUICE_CGROUP_PREFIX, which tests use to keep concurrent clusters apart):
 *   v1: <root>/<ctrl>/N/uid_U/job_J/step_S for each controller used
 *       (freezer always; cpuset, memory, devices when constrained; pids
 *       with PidsLimit; memory and cpuacct with jobacct_gather/cgroup), as
 *       Slurm's cgroup/v1. Each hierarchy a process joins costs the kernel
 *       a migration (an RCU grace period on v1): only those needed are used.
 *   v2: <root>/system.slice/N_slurmstepd.scope/job_J/step_S, as Slurm's
 *       cgroup/v2 with several slurmd on one host; controllers are enabled
 *       down to job_J, whose children hold the processes.
 * S is the step number or "batch". Limits (cpuset, memory, devices, pids)
 * are set on job_J, so every step shares them; processes go into step_S.
 *
 * Every function takes the root through cgroup_t, so tests point it at a
 * fake tree (plain directories and files). Where the root is not a cgroup
 * file system, not writable, or the wanted version is not there,
 * cgroup_open() says why and the node daemon falls back to process groups.
 * The functions here never die: they return -1 and log.
 */
#ifndef SLUICE_NODED_CGROUP_H
#define SLUICE_NODED_CGROUP_H

#include <stdint.h>
#include <sys/types.h>

#include "conf.h"

enum cg_version { CG_NONE = 0, CG_V1 = 1, CG_V2 = 2 };

/* A uid not known (a noded restart looking for a job by id): the v1
 * functions then look under every uid_* directory of the node. */
#define CG_UID_ANY 0xffffffffu
/* The batch script's step (NODED_BATCH_STEP), "step_batch". */
#define CG_STEP_BATCH 0xfffffffbu
/* The whole job: every step_* below job_J (cgroup_signal, ...). */
#define CG_STEP_ALL 0xffffffffu

typedef struct cg_settings {
	const char *plugin;        /* CgroupPlugin: autodetect, cgroup/v1, cgroup/v2 */
	const char *root;          /* CgroupMountpoint (default /sys/fs/cgroup) */
	const char *node;          /* NodeName */
	const char *prefix;        /* NULL: "slurm" */
	int constrain_cores, constrain_ram, constrain_swap, constrain_devices;
	uint32_t allowed_ram_pct, allowed_swap_pct, max_ram_pct, max_swap_pct;
	uint64_t min_ram_mb;       /* MinRAMSpace */
	uint32_t pids_limit;       /* PidsLimit (Sluice): pids.max of job_J, 0 none */
	uint64_t node_mem_mb;      /* RealMemory, for MaxRAMPercent */
	uint32_t threads_per_core; /* core ids to CPU ids (cpuset) */
	int account;               /* jobacct_gather/cgroup: memory and cpuacct too */
} cg_settings_t;

typedef struct cgroup cgroup_t;

/* What task/cgroup gives a job (all optional). */
typedef struct cg_limits {
	const char *cores;         /* allocated core ids ("0-3,6"), NULL: all */
	uint64_t mem_mb;           /* the job's memory on the node, 0: none */
	const dev_t *deny;         /* char devices the job may not use */
	size_t ndeny;
	const dev_t *step_deny;    /* and the step (its step_S), of the job's */
	size_t nstep_deny;
} cg_limits_t;

/* Settings from a loaded config for node (its RealMemory, ...); root from
 * $SLUICE_CGROUP_ROOT, else CgroupMountpoint, else /sys/fs/cgroup. The
 * strings point into conf and node. */
void cgroup_settings_from(const conf_t *conf, const conf_node_t *node, const char *name,
			  cg_settings_t *s);
/* Find the cgroup version to use and create the node's subtree. NULL with
 * *why (malloc'd, one line for the log) when cgroups cannot be used. */
cgroup_t *cgroup_open(const cg_settings_t *s, char **why);
void cgroup_close(cgroup_t *cg);
int cgroup_version(const cgroup_t *cg);
/* A line for the log when a constraint is configured that cannot be
 * applied here (ConstrainDevices on v2 without BPF, PidsLimit on v2
 * without the pids controller), else NULL. Owned by cg. */
const char *cgroup_unsupported(const cgroup_t *cg);

/* Path of job_J (step CG_STEP_ALL) or of its step_S in the hierarchy of
 * controller ctrl (v1; ignored on v2). malloc'd. With uid CG_UID_ANY the
 * uid_* directory holding job_J (the first found), NULL when none. */
char *cgroup_path(const cgroup_t *cg, const char *ctrl, uint32_t uid, uint32_t job,
		  uint32_t step);

/* Whether ConstrainDevices takes effect here: a step's processes can
 * open only the devices its cgroup allows. */
int cgroup_hides_devices(const cgroup_t *cg);
/* Create job_J (with the limits, the first time) and its step_S (with
 * the step's device limits, step_deny). 0, or
 * -1 with *err (malloc'd). */
int cgroup_step_create(cgroup_t *cg, uint32_t uid, uint32_t job, uint32_t step,
		       const cg_limits_t *lim, char **err);
/* Move pid (0: the caller) into step_S of every hierarchy. 0 or -1 with
 * errno. Async-signal-safe enough for a forked child: no allocation. */
int cgroup_step_attach(const cgroup_t *cg, uint32_t uid, uint32_t job, uint32_t step, pid_t pid);
/* Signal every process of the step (CG_STEP_ALL: of the job). SIGKILL
 * freezes the cgroup first so nothing forks past it (v2: cgroup.kill
 * where the kernel has it). Returns the number of processes signalled. */
int cgroup_signal(const cgroup_t *cg, uint32_t uid, uint32_t job, uint32_t step, int sig);
/* Processes left in the step (CG_STEP_ALL: the job), -1 when no cgroup. */
int cgroup_nprocs(const cgroup_t *cg, uint32_t uid, uint32_t job, uint32_t step);
/* OOM kills counted in the step's memory cgroup (v1 memory.oom_control,
 * v2 memory.events oom_kill); CG_STEP_ALL: the job's. */
uint64_t cgroup_oom_kills(const cgroup_t *cg, uint32_t uid, uint32_t job, uint32_t step);
/* CPU time (user, system: microseconds) and peak memory (KiB) of the step;
 * 0, or -1 when the cgroup cannot tell. A field it cannot tell is 0. */
int cgroup_usage(const cgroup_t *cg, uint32_t uid, uint32_t job, uint32_t step,
		 uint64_t *user_us, uint64_t *sys_us, uint64_t *peak_kb);
/* The job's CPU time so far (microseconds) and memory now (bytes) from
 * its cgroup (any uid), for the node's /metrics: v1 cpuacct.usage and
 * memory.usage_in_bytes (only with both hierarchies in use), v2 cpu.stat
 * usage_usec and memory.current. 0, or -1 when the cgroup cannot give
 * both. */
int cgroup_job_now(const cgroup_t *cg, uint32_t job, uint64_t *cpu_us, uint64_t *mem_bytes);
/* Remove step_S (CG_STEP_ALL: every step) and then job_J and uid_U once
 * nothing is left below them. Processes still inside are killed first.
 * 0, or -1 when something could not be removed. */
int cgroup_remove(const cgroup_t *cg, uint32_t uid, uint32_t job, uint32_t step);

/* This node's entry of a step credential's alloc (cred.h: "n1=0-3:1024:3;
 * n2=..."): 0 and the fields (*cores malloc'd, NULL when the entry has
 * none), or -1 when node has no entry or it is malformed. */
int cgroup_alloc_entry(const char *alloc, const char *node, char **cores, uint64_t *mem_mb,
		       uint64_t *gpus);

/* ---- cgroup_bpf.c: ConstrainDevices on v2 ---- */
#define CG_BPF_MAX_DENY 256
struct bpf_insn;
/* The device program denying the char devices deny[] (n at most
 * CG_BPF_MAX_DENY) into out (room for 7 + 4 n instructions); returns the
 * instruction count. */
size_t cgroup_bpf_prog(const dev_t *deny, size_t n, struct bpf_insn *out);
/* Load it and attach it to the cgroup dir (BPF_F_ALLOW_MULTI). n 0: does
 * nothing. 0, or -1 with *err (malloc'd). */
int cgroup_bpf_deny(const char *dir, const dev_t *deny, size_t n, char **err);
/* Whether this process may load such a program (root, a kernel with
 * cgroup BPF): 0, or -1 with *err. */
int cgroup_bpf_probe(char **err);

/* Parsers exposed for tests. */
/* "0-3,6" core ids to CPU ids with tpc threads per core ("0-7,12-13"). */
char *cgroup_cores_to_cpus(const char *cores, uint32_t tpc);
/* The memory limit in bytes for a job with mem_mb (AllowedRAMSpace,
 * MaxRAMPercent, MinRAMSpace), and the swap on top of it. */
uint64_t cgroup_mem_limit(const cg_settings_t *s, uint64_t mem_mb);
uint64_t cgroup_swap_limit(const cg_settings_t *s, uint64_t mem_mb);
/* The value of "key N" in a flat keyed file (memory.events, ...). */
uint64_t cgroup_keyed(const char *text, const char *key);

#endif
