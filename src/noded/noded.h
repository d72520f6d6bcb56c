/*
 * noded: internals of the node daemon shared by its files (not a public
 * contract). noded_main.c owns the daemon context; ctld_link.c keeps the
 * persistent connection to the controller; supervisor.c runs batch jobs;
 * step.c serves srun step launches; spool.c keeps the on-disk records that
 * let a restarted noded find the supervisors still running; environ.c builds
 * environments and expands output file patterns; resources.c finds what the
 * node reports at registration.
 */
#ifndef SLUICE_NODED_H
#define SLUICE_NODED_H

#include <stdint.h>
#include <sys/types.h>

#include "auth.h"
#include "conf.h"
#include "log.h"
#include "loop.h"
#include "net.h"
#include "pattern.h"
#include "proto.h"
#include "strbuf.h"

/* Slurm's step id of a batch script (SLURM_BATCH_SCRIPT). */
#define NODED_BATCH_STEP PATTERN_BATCH_STEP   /* 0xfffffffb */
/* The wait status Slurm reports for a step the OOM killer hit (SIG_OOM,
 * shown as ExitCode 0:125). */
#define NODED_SIG_OOM 253u

typedef struct ctld_link ctld_link_t;

typedef struct noded {
	conf_t *conf;              /* in force: replaced by a reconfigure */
	const conf_node_t *node;   /* this node's entry in conf */
	/* The config read at start, kept to the end: what is bound at start
	 * (ports, the spool, the hardware the node reports: boot_node) is
	 * read there, and may be pointed into. */
	conf_t *boot_conf;
	const conf_node_t *boot_node;
	char *name;                /* NodeName */
	char *spool;               /* SlurmdSpoolDir with %n/%h expanded */
	char *log_file;            /* NULL: stderr */
	enum log_level log_level;
	const char *conf_path;     /* -f, NULL: SLURM_CONF or the default;
	                            * configless: <conf_cache>/slurm.conf */
	/* configless (configless.c): --conf-server, NULL when not */
	char *conf_server;
	uint16_t conf_port;
	char *conf_cache;          /* --conf-cache */
	conf_t *auth_conf;         /* AuthType/AuthInfo it signs with */
	int verbose_n, foreground; /* -v count, -D (for a re-read config) */
	auth_t *auth;
	loop_t *loop;
	uint32_t slurm_uid;        /* SlurmUser's uid (0 when root/unknown) */
	int64_t start_time;
	int listen_fd;
	ctld_link_t *link;
	struct node_metrics *metrics; /* /metrics collector, NULL when not served */
	struct cgroup *cgroup;     /* cgroup.c; NULL: process groups only */
	struct health *health;     /* built-in health checks (health.c) */
	char *title;               /* argv area, for the supervisors' titles */
	size_t title_len;
	/* noded_reconfigure, set by noded_main: the link calls it for a
	 * controller's reconfigure without calling back into noded_main. */
	void (*reconfigure)(struct noded *nd);
} noded_t;

/* ---- noded_main.c ---- */

/* scontrol reconfigure (a ping with PING_F_RECONFIG) and SIGHUP: re-read
 * the config files and apply what a running node daemon can change; the
 * log says what changed and what needs a restart. A config with errors
 * changes nothing. */
void noded_reconfigure(noded_t *nd);

/* ---- configless.c ---- */

/* The AuthType/AuthInfo to sign with before slurm.conf is known, from
 * --authinfo (NULL: /etc/slurm/slurm.key when present, else MUNGE). */
conf_t *configless_boot_auth(const char *authinfo);
/* Fetch the controller's config files into nd->conf_cache. 0; -1 when
 * the controller could not be reached or did not answer (the cache is
 * left as it was); -2 when it refused or its answer could not be cached.
 * *err (malloc'd) says why. */
int configless_fetch(const noded_t *nd, char **err);
/* A config read from the cache: same AuthType as nd->auth_conf (else -1
 * with *err), and its AuthInfo replaced with nd->auth_conf's (the node's
 * own key). */
int configless_auth_fix(const noded_t *nd, conf_t *conf, char **err);

/* ---- environ.c ---- */

/* Value of NAME in an environment array ("NAME=value"), or NULL. */
const char *env_get(const strv_t *env, const char *name);
/* Set NAME=value, replacing an existing entry. */
void env_set(strv_t *env, const char *name, const char *value);
void env_setf(strv_t *env, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Set only when NAME is absent. */
void env_set_default(strv_t *env, const char *name, const char *value);
/* A NULL-terminated copy for execve (pointers into env; free the array only). */
char **env_to_envp(const strv_t *env);
/* The umask a job runs with: its SLURM_UMASK (the submitter's, an octal
 * string such as "0077", as sbatch/srun send it), or 0022 when absent or
 * not octal. */
mode_t env_umask(const strv_t *env);
/* In the task child, before exec: apply the submitter's resource limits
 * carried as SLURM_RLIMIT_<NAME>=[U]value (rlimits.h): those the user
 * named (U) and those conf's PropagateResourceLimits (default ALL) less
 * PropagateResourceLimitsExcept allow, soft limit only, at most the hard
 * limit; then drop the variables from env. Returns how many were set. */
int env_apply_rlimits(strv_t *env, const conf_t *conf);
/* --get-user-env (flags GUE_*): as the job's user (call after
 * become_user), run the user's shell as a login shell (GUE_SHORT: a plain
 * one) printing its environment, for at most GUE_TIMEOUT(flags) seconds,
 * and put what it printed under env: env's own entries win. Returns 0, or
 * -1 with *err (malloc'd) when the environment could not be loaded (env
 * is then unchanged). */
int env_load_user(strv_t *env, uint32_t flags, char **err);

/* ---- cpubind.c ---- */

/* Bind the calling task (global rank, local rank on this node) as srun
 * --cpu-bind=spec asks, within ids (the job's CPU ids on the node, "0-3")
 * and cpt CPUs per task. 0 (nothing to do counts), or -1 with errno.
 * *msg: the verbose line for the task's stderr, or NULL (malloc'd). */
int cpubind_apply(const char *spec, const char *ids, uint32_t rank, uint32_t local,
		  uint32_t cpt, const char *node, char **msg);

/* Fill the array ids of ctx from SLURM_ARRAY_JOB_ID/SLURM_ARRAY_TASK_ID. */
void pattern_ctx_array_from_env(pattern_ctx_t *ctx, const strv_t *env);

/* ---- step_stat.c ---- */
/* sstat's MSG_STEP_STAT on the step port: checks its credential and
 * answers MSG_STEP_STAT_REPLY (or MSG_RC with the error). */
void step_stat_handle(noded_t *nd, conn_t *c, const msg_step_stat_t *m, uint32_t uid);

/* ---- spool.c ---- */

/* One supervisor's record: <spool>/job<ID>/state (batch) or
 * <spool>/step<ID>.<STEP>/state (srun step). */
typedef struct spool_rec {
	uint32_t job_id, step_id, launch_seq;
	int64_t pid;               /* the supervisor */
	uint64_t pid_start;        /* its /proc/PID/stat start time (ticks) */
	int done;                  /* the result below is final */
	uint32_t exit_status, end_state;
	int64_t end_time;
} spool_rec_t;

char *spool_job_dir(const char *spool, uint32_t job_id);
char *spool_step_dir(const char *spool, uint32_t job_id, uint32_t step_id);
void spool_rec_format(const spool_rec_t *r, strbuf_t *out);
/* 0, or -1 on a malformed record. */
int spool_rec_parse(const char *text, spool_rec_t *r);
/* Replace dir/state atomically (write, fsync, rename). 0 or -1 with errno. */
int spool_rec_write(const char *dir, const spool_rec_t *r);
int spool_rec_read(const char *dir, spool_rec_t *r);
/* Start time of pid from /proc/PID/stat (field 22), 0 if it is gone. */
uint64_t proc_start_time(pid_t pid);
/* Process group (field 5) and session (field 6) of pid from /proc; 0, or
 * -1 if it is gone. */
int proc_pgrp_sid(pid_t pid, pid_t *pgrp, pid_t *sid);
/* The recorded supervisor is alive and is the same process. */
int spool_rec_alive(const spool_rec_t *r);

/* Control requests to a supervisor: files dir/req.<seq> holding one
 * msg_signal_job_t as text. spool_request_take() returns 1 and removes the
 * oldest, 0 when none is left; the caller frees m->message (notify). */
int spool_request_write(const char *dir, const msg_signal_job_t *m);
int spool_request_take(const char *dir, msg_signal_job_t *m);

/* Call fn for every supervisor dir under spool (full path, parsed record
 * or NULL when unreadable). */
typedef void (*spool_scan_f)(const char *dir, const spool_rec_t *r, void *arg);
void spool_scan(const char *spool, spool_scan_f fn, void *arg);
/* Remove a directory tree; 0 or -1. */
int rm_rf(const char *path);
/* Write a whole file atomically with mode; 0 or -1 with errno. */
int write_file_atomic(const char *path, const void *data, size_t len, mode_t mode);

/* The process groups of a supervisor's tasks (dir/tasks), written once
 * they are started; 0 or -1 with errno. spool_tasks_kill() SIGKILLs what
 * is left of them (groups and sessions; pid reuse is checked with the
 * recorded start times) and returns how many were signalled. */
int spool_tasks_write(const char *dir, const pid_t *pgids, uint32_t n);
/* Same, recording each task's global rank (first + i) and local id i
 * (scontrol listpids). */
int spool_tasks_write_ranks(const char *dir, const pid_t *pgids, uint32_t n, uint32_t first);

/* scontrol listpids (listpids.c): answer MSG_LIST_PIDS_REQ on c with the
 * processes of the matching steps' supervisors on this node. */
void listpids_answer(noded_t *nd, conn_t *c, const msg_list_pids_req_t *m);
int spool_tasks_kill(const char *dir);

/* The node's lease on its jobs (<spool>/lease, see spool.c): CLOCK_BOOTTIME
 * in ms; write/read 0 or -1; expired: 1 once boottime_ms() is past
 * renewed + lease (never without a lease file or with lease_ms 0). */
uint64_t boottime_ms(void);
int spool_lease_write(const char *spool, uint64_t renewed_ms, uint64_t lease_ms);
int spool_lease_read(const char *spool, uint64_t *renewed_ms, uint64_t *lease_ms);
int spool_lease_expired(const char *spool);

/* Revoked launch credentials: a job that ended on this node (its batch
 * supervisor finished, or the controller killed it) leaves
 * <spool>/revoked.<ID> holding the time, for NODED_REVOKE_KEEP seconds, so
 * that a step credential issued before then (they live NODED_CRED_LIFE s)
 * cannot start tasks for the finished job. Files survive a noded restart. */
#define NODED_CRED_LIFE 120
#define NODED_REVOKE_KEEP (2 * NODED_CRED_LIFE)
void spool_revoke(const char *spool, uint32_t job_id, int64_t now);
/* Mark the step credential of (job, step), valid until expires, used on
 * this node: 0 the first time, -1 if it already was (or the mark cannot be
 * made: refused then too). The mark, <spool>/cred.<job>.<step>, lives
 * until the credential expires (marks past that are dropped here). */
int spool_cred_use(const char *spool, uint32_t job_id, uint32_t step_id, int64_t expires,
		   int64_t now);
/* When job_id was revoked (within NODED_REVOKE_KEEP of now), else 0. */
int64_t spool_revoked_at(const char *spool, uint32_t job_id, int64_t now);
/* ---- resources.c ---- */

/* Fill a registration from the config entry and the host. */
void resources_fill(const noded_t *nd, msg_node_register_t *reg);
/* Look the hardware up again at the next resources_fill (registrations;
 * heartbeats reuse the last answer). */
void resources_rescan(void);
/* Parsers for /proc text (exposed for tests). */
uint64_t meminfo_avail_mb(const char *meminfo);
uint32_t loadavg_x100(const char *loadavg);
int64_t stat_btime(const char *stat);
char *gres_string(const conf_node_t *n);
/* The GRES string for GPUs found by NVML (other GRES as configured). */
struct nvml_gpu;
char *gres_string_detected(const conf_node_t *n, const struct nvml_gpu *gpus, size_t ngpus);

/* ---- supervisor.c ---- */

/* Start a detached supervisor for a batch job. Returns after the
 * supervisor wrote its spool record. */
void supervisor_launch(noded_t *nd, const msg_launch_job_t *m);
/* Deliver a signal request to every supervisor (batch and steps) of the
 * job. Returns the number reached. */
int supervisor_signal(noded_t *nd, const msg_signal_job_t *m);
/* Find supervisors that died before their job ended (spool record not
 * done, process gone): kill what is left of their tasks, record the end
 * as NODE_FAIL and, for a batch job, report it on report (the registered
 * link to the controller; NULL: keep the record and report later). */
void supervisor_watch(noded_t *nd, conn_t *report);

/* ---- step.c ---- */

/* Start listening on the node's port for srun. 0 or -1. */
int step_server_start(noded_t *nd);

/* ---- gpu_env.c: the GPUs of a step's task ---- */

/* The step's GPUs (index mask) a task sees after --gpu-bind (bind as
 * typed, NULL none; local: the task's index on the node of ntasks there;
 * close: the GPUs near the task's CPUs, for closest). */
uint64_t gpu_bind_task(const char *bind, uint64_t step, uint32_t local, uint32_t ntasks,
		       uint64_t close);
/* SLURM_STEP_GPUS, SLURM_JOB_GPUS (job 0: unset), SLURM_GPUS_ON_NODE,
 * CUDA_VISIBLE_DEVICES and GPU_DEVICE_ORDINAL of a task given task of
 * the step's GPUs; visible: the GPUs the task's device cgroup lets it
 * open, whose order CUDA numbers (0: every GPU, the node's indexes). */
void gpu_env_set(strv_t *env, uint64_t job, uint64_t step, uint64_t task, uint64_t visible);
/* CUDA_VISIBLE_DEVICES and GPU_DEVICE_ORDINAL of gpus (a task's, or a
 * batch script's: the job's), numbered as gpu_env_set does. */
void gpu_env_cuda(strv_t *env, uint64_t gpus, uint64_t visible);
/* --gpu-bind=verbose: the line Slurm's task prints on its stderr for
 * task's GPUs of step's (visible as for gpu_env_set). malloc'd. */
char *gpu_bind_verbose(uint64_t step, uint64_t task, uint64_t visible);
/* The node's GPUs whose gres.conf Cores= hold a CPU the calling task may
 * run on (closest). */
uint64_t gpu_close_to_task(const conf_node_t *n);
/* Node node_id's mask in a credential's gpus ("3,c"): 0 or -1. */
int gpu_cred_mask(const char *gpus, uint32_t node_id, uint64_t *out);

/* ---- cgroup_job.c: the hooks into cgroup.c ---- */

/* Open the node's cgroups (ProctrackType=proctrack/cgroup or
 * TaskPlugin=task/cgroup) into nd->cgroup, or log once why not. */
void noded_cgroup_init(noded_t *nd);
/* After a reconfigure (nd->conf is the new config): new jobs get the
 * cgroup.conf limits of nc (running jobs keep theirs). What cannot change
 * live (CgroupPlugin, CgroupMountpoint, cgroups on or off) is said and
 * kept. */
void noded_cgroup_reload(noded_t *nd, const conf_t *old);
/* Create the cgroup of (job, step), with the job's limits on the node
 * (they apply when this creates job_J): from launch m (a batch job) or
 * from alloc (an srun step: its credential's alloc, cred.h), neither: none;
 * step_gpus: an srun step's credential gpus, node_id its node there (its
 * step_S may open only those of the job's GPUs).
 * 1 when the step is in a cgroup, 0 when not (none, or it failed: logged). */
int noded_cgroup_create(noded_t *nd, uint32_t uid, uint32_t job, uint32_t step,
			const msg_launch_job_t *m, const char *alloc, const char *step_gpus,
			uint32_t node_id);
/* The GPUs of step_mask the step's cgroup lets it open (ConstrainDevices
 * applied: step_mask), 0 when devices are not constrained here. */
uint64_t noded_cgroup_gpus_visible(const noded_t *nd, uint64_t step_mask);
/* The job's GPUs on this node from a credential's alloc, 0 none. */
uint64_t noded_alloc_gpus(const noded_t *nd, const char *alloc);
/* In the job's child before exec: join the step's cgroup. 0 or -1. */
int noded_cgroup_attach(noded_t *nd, uint32_t uid, uint32_t job, uint32_t step);
/* Signal every process of the step; returns how many. */
int noded_cgroup_signal(noded_t *nd, uint32_t uid, uint32_t job, uint32_t step, int sig);
/* What the cgroup knew at the step's end. */
typedef struct noded_cg_end {
	uint64_t oom_kills;
	int have_usage;
	uint64_t user_us, sys_us, peak_kb;
} noded_cg_end_t;
/* At the step's end: kill what is left, read the OOM kills and the usage,
 * remove the cgroup. */
void noded_cgroup_end(noded_t *nd, uint32_t uid, uint32_t job, uint32_t step,
		      noded_cg_end_t *out);
/* Put the cgroup's figures into the step's usage (CPU always; the memory
 * peak with jobacct_gather/cgroup). */
void noded_cgroup_usage(const noded_cg_end_t *e, int gathered_cgroup, step_usage_t *u);
/* A dead supervisor's step (or CG_STEP_ALL): kill its processes by the
 * cgroup's path and remove it. Returns the processes killed. */
int noded_cgroup_cleanup(noded_t *nd, uint32_t job, uint32_t step);

/* ---- ctld_link.c ---- */

ctld_link_t *ctld_link_start(noded_t *nd);
void ctld_link_destroy(ctld_link_t *lk);
/* Send a heartbeat now (when registered): news the controller acts on,
 * as a health check that started or stopped failing. */
void ctld_link_poke(ctld_link_t *lk);
/* 1 while registered on an open connection (metrics). */
int ctld_link_registered(const ctld_link_t *lk);

/* ---- shared helpers (supervisor.c) ---- */

/* Double-fork a detached child (setsid, parent is init). In the returned
 * child (0) all fds but keep[] are closed and logging reopened; the caller
 * (-1 on failure, else 1) gets control back after the intermediate child
 * exits. */
int detach_fork(noded_t *nd, const int *keep, int nkeep);
/* CLOCK_MONOTONIC in ms. */
int64_t mono_ms(void);
/* Send a supervisor's end report (type, msg) to the controller until it
 * answers (backing off to 10 s); gives up once dir is removed. what names
 * it in the log ("step 12.0"). */
void sup_report(noded_t *nd, const char *dir, enum msg_type type, const void *msg,
		const char *what);
/* Rename this process (comm and cmdline) to "slurmstepd: [what]", so that
 * `pkill -f 'sluice noded'` aimed at noded leaves supervisors alone. */
void set_proctitle(noded_t *nd, const char *what);
/* Run fn's process as the user: initgroups/setgid/setuid when root, or
 * check the uid when not. 0 or -1 with *err (malloc'd). */
int become_user(const char *user, uint32_t uid, uint32_t gid, char **err);

/* Signal handling shared by the batch and step supervisors: the job's
 * process groups (one per task; each task leads its own session so its
 * descendants are killed with it), and the cancel sequence state. */
typedef struct job_ctl {
	pid_t *pgids;              /* one per task; 0 once reaped */
	uint32_t npgids;
	uint32_t kill_wait;        /* default from the launch, seconds */
	int killing;               /* cancel/timeout sequence started */
	int64_t kill_at;           /* when to escalate to SIGKILL (epoch s) */
	uint32_t end_state;        /* requested end state (0 = none) */
	noded_t *cg_nd;            /* set: the step has a cgroup, signals */
	uint32_t cg_uid, cg_job, cg_step; /* reach all of its processes */
} job_ctl_t;
/* Act on a control request: cancel sequence or a plain signal (only the
 * first task with SIGNAL_F_BATCH). */
void job_ctl_request(job_ctl_t *c, const msg_signal_job_t *m);
/* Start the cancel sequence (SIGCONT+SIGTERM now, SIGKILL later). */
void job_ctl_terminate(job_ctl_t *c, uint32_t kill_wait);
/* SIGKILL escalation when due; returns ms until the next deadline or -1. */
int64_t job_ctl_tick(job_ctl_t *c);
void job_ctl_killall(job_ctl_t *c, int sig);
/* Block SIGCHLD, SIGUSR1, SIGTERM, SIGINT, SIGHUP and return a signalfd
 * for them (supervisors). */
int sup_signalfd(void);
/* In a job/task child before exec: default dispositions, empty mask. */
void child_reset_signals(void);
/* In a job/task child right before exec, after its stdio is in place:
 * close every descriptor above stderr but keep (-1: none; a close-on-exec
 * one that reports an exec failure), so a job inherits nothing from the
 * daemons whatever they have open (a log file, sockets, ...). Never fails:
 * a descriptor it cannot close is closed at exec or not there. */
void child_close_fds(int keep);

/* ---- step_pty.c: srun --pty ---- */

/* A pseudo terminal for a step's task 0: the master and a descriptor of
 * the slave (both close-on-exec; keep the slave open until the task is
 * reaped), the slave owned by uid:gid mode 0600, window rows x cols (0:
 * left as it is). 0, or -1 with *err (malloc'd). */
int step_pty_open(uint32_t uid, uint32_t gid, uint32_t rows, uint32_t cols, int *master,
		  int *slave, char **err);
/* In the task child, after setsid: the slave as its controlling terminal
 * and its stdin, stdout and stderr. 0 or -1 (errno). */
int step_pty_attach(int slave);
/* A STEP_IO_WINSIZE frame's size (rows, cols: 2 bytes each, big-endian)
 * to the terminal; anything else is ignored. */
void step_pty_winsize(int master, const uint8_t *d, uint32_t len);

#endif
