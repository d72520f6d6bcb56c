/*
 * conf: the Slurm config files (slurm.conf with Include, gres.conf,
 * topology.conf, cgroup.conf), read as Slurm 22.05 reads them.
 *
 * Keys are case-insensitive. Every key Slurm 22.05 documents is accepted;
 * keys Sluice does not act on are kept (for `scontrol show config`) and
 * listed in conf->unsupported so the daemons can report them once. Unknown
 * keys and bad values are errors "file:line: message" with a suggestion for
 * near-miss spellings ("did you mean 'MaxNodes'?"). Parsing collects all
 * errors instead of stopping at the first (for `sluice check-config`).
 *
 * Mode CONF_CLIENT parses only what the commands need (controller address,
 * port, auth, state dir, cluster name) and skips node/partition expansion,
 * so that a command on a 10,000-node cluster starts fast.
 */
#ifndef SLUICE_CONF_H
#define SLUICE_CONF_H

#include <stddef.h>
#include <stdint.h>

#define CONF_DEFAULT_PATH "/etc/slurm/slurm.conf"

enum conf_mode { CONF_FULL = 0, CONF_CLIENT = 1 };

/* One GRES kind declared on a node: gpu:h100:8 -> name "gpu", type "h100". */
typedef struct conf_gres {
	char *name;          /* "gpu" */
	char *type;          /* "h100" or NULL when untyped */
	uint32_t count;
	char *file;          /* gres.conf File= expression or NULL */
	char *cores;         /* gres.conf Cores= or NULL */
	/* Per gres.conf line for this node and kind, in file order: how many
	 * devices the line declared and its Cores= (NULL where absent), so
	 * device i keeps its own core affinity (GPU selection). */
	size_t nlines;
	uint32_t *line_count;
	char **line_cores;
} conf_gres_t;

typedef struct conf_node {
	char *name;          /* NodeName, one per node (ranges expanded) */
	char *addr;          /* NodeAddr, defaults to name */
	char *hostname;      /* NodeHostname, defaults to name */
	uint16_t port;       /* Port (slurmd port), defaults to SlurmdPort */
	uint32_t cpus;       /* CPUs (defaults to boards*sockets*cores*threads) */
	uint16_t boards, sockets, cores_per_socket, threads_per_core;
	uint64_t real_memory;   /* MB, default 1 */
	uint64_t tmp_disk;      /* MB */
	uint32_t weight;        /* default 1 */
	char *features;         /* Feature= "h100,ib" or NULL */
	char *state;            /* State= as written (UNKNOWN, FUTURE, ...) */
	conf_gres_t *gres;      /* from Gres= plus gres.conf details */
	size_t ngres;
	const char *file; int line; /* where declared */
	char *reason;           /* Reason= (node line or DownNodes) or NULL */
} conf_node_t;

typedef struct conf_part {
	char *name;
	char *nodes;            /* hostlist expression as written ("ALL" expanded) */
	size_t *node_idx;       /* indexes into conf->nodes */
	size_t nnodes;
	int is_default;
	int state;              /* CONF_PART_UP/DOWN/DRAIN/INACTIVE */
	uint32_t max_time;      /* minutes, TIME_INFINITE default */
	uint32_t default_time;  /* minutes, TIME_NO_VAL when unset */
	uint32_t max_nodes;     /* UINT32_MAX = UNLIMITED */
	uint32_t min_nodes;
	uint16_t priority_job_factor, priority_tier;
	char *oversubscribe;    /* "NO" default, "EXCLUSIVE", "YES", "FORCE" (with :N) */
	char *allow_groups, *allow_accounts, *allow_qos; /* "ALL" default */
	int hidden, root_only, exclusive_user, lln, req_resv, disable_root_jobs;
	uint64_t def_mem_per_cpu, max_mem_per_cpu;   /* MB, 0 = unset */
	uint64_t def_mem_per_node, max_mem_per_node; /* MB, 0 = UNLIMITED */
	uint32_t max_cpus_per_node;                  /* UINT32_MAX = UNLIMITED */
	uint32_t grace_time;
	const char *file; int line;
} conf_part_t;

enum { CONF_PART_UP = 0, CONF_PART_DOWN, CONF_PART_DRAIN, CONF_PART_INACTIVE };

typedef struct conf_switch {
	char *name;
	char *nodes;            /* expression as written or NULL */
	char *switches;         /* child switch names or NULL */
	uint32_t link_speed;    /* default 1 */
	int level;              /* 0 for leaves, computed */
	size_t *node_idx; size_t nnodes;     /* all nodes below (computed) */
	size_t *child_idx; size_t nchildren; /* indexes into conf->switches */
	long parent;            /* index or -1 */
} conf_switch_t;

/* A key=value from slurm.conf kept verbatim (canonical key spelling). */
typedef struct conf_kv {
	const char *key;        /* canonical spelling from the key table (static) */
	char *value;
	const char *file; int line;
} conf_kv_t;

typedef struct conf {
	char *path;             /* slurm.conf path */
	char *dir;              /* its directory (gres.conf etc. live here) */

	/* Typed values Sluice acts on (defaults as Slurm's). */
	char *cluster_name;
	char **ctld_hosts;      /* SlurmctldHost names (first is primary) */
	char **ctld_addrs;      /* address for each (from "host(addr)"), or host */
	size_t nctld_hosts;
	uint16_t ctld_port;     /* SlurmctldPort, default 6817 (first of a range) */
	uint16_t slurmd_port;   /* SlurmdPort, default 6818 */
	char *auth_type;        /* "auth/munge" default; "auth/slurm" = shared key */
	char *auth_info;        /* AuthInfo (socket=... for munge) */
	char *slurm_user;       /* SlurmUser, default "root" */
	char *state_save_location; /* default /var/spool/slurmctld */
	char *slurmd_spool_dir;    /* default /var/spool/slurmd, may contain %n %h */
	char *slurmctld_log_file, *slurmd_log_file;  /* may contain %n %h */
	char *slurmctld_pid_file, *slurmd_pid_file;
	int slurmctld_debug, slurmd_debug;  /* enum log_level */
	uint32_t slurmd_timeout;    /* s, default 300 */
	uint32_t slurmctld_timeout; /* s, default 120 */
	uint32_t kill_wait;         /* s, default 30 */
	uint32_t min_job_age;       /* s, default 300 */
	uint32_t max_job_count;     /* default 10000 */
	uint32_t first_job_id;      /* default 1 */
	uint32_t max_job_id;        /* default 0x03ff0000 */
	uint32_t message_timeout;   /* s, default 10 */
	uint32_t return_to_service; /* default 0 */
	uint32_t inactive_limit, wait_time, over_time_limit;
	uint64_t def_mem_per_cpu, max_mem_per_cpu;   /* MB, 0 = unset */
	uint64_t def_mem_per_node, max_mem_per_node; /* MB, 0 = unset */
	char *select_type_parameters; /* "CR_Core_Memory" etc. */
	char *gres_types;           /* GresTypes */
	char *proctrack_type, *task_plugin, *scheduler_type, *select_type;
	char *priority_type, *topology_plugin;
	char *prolog, *epilog;
	int enforce_part_limits;    /* 0 NO, 1 ALL/YES, 2 ANY */
	char *scheduler_parameters;

	conf_kv_t *kv; size_t nkv;  /* every slurm.conf key=value, in order */
	char **unsupported; size_t nunsupported; /* keys accepted but not acted on */

	conf_node_t *nodes; size_t nnodes;
	conf_part_t *parts; size_t nparts;
	long default_part;          /* index or -1 */
	conf_switch_t *switches; size_t nswitches;
	char *cgroup_plugin;        /* cgroup.conf CgroupPlugin, NULL if no file */
	int constrain_cores, constrain_ram, constrain_devices;
	/* more of cgroup.conf, for the node daemon's cgroups (defaults as
	 * Slurm's when the file or the key is absent) */
	char *cgroup_mountpoint;    /* CgroupMountpoint or NULL */
	int constrain_swap;         /* ConstrainSwapSpace */
	uint32_t allowed_ram_pct, allowed_swap_pct; /* AllowedRAMSpace 100, AllowedSwapSpace 0 */
	uint32_t max_ram_pct, max_swap_pct;         /* MaxRAMPercent, MaxSwapPercent: 100 */
	uint64_t min_ram_mb;        /* MinRAMSpace: 30 */
	uint32_t pids_limit;        /* PidsLimit (Sluice): 0, no limit */
#define CONF_PIDS_LIMIT_MAX 4194304u /* the kernel's PID_MAX_LIMIT */
	char *gres_autodetect;      /* gres.conf AutoDetect or NULL */

	char **errors; size_t nerrors; /* "file:line: message" */
} conf_t;

/* Read slurm.conf at path (NULL: $SLURM_CONF, else CONF_DEFAULT_PATH) and,
 * in CONF_FULL mode, gres.conf/topology.conf/cgroup.conf from its directory
 * when present. Always returns a conf; check conf->nerrors. */
conf_t *conf_load(const char *path, enum conf_mode mode);
void conf_destroy(conf_t *conf);   /* accepts NULL */
/* A config of defaults with only AuthType and AuthInfo set (auth_info may
 * be NULL), read from no file: what a configless node daemon signs its
 * first request with, before it has slurm.conf. */
conf_t *conf_bootstrap(const char *auth_type, const char *auth_info);
/* Path conf_load(NULL) would read. Static storage. */
const char *conf_default_path(void);

/* Value of a slurm.conf key as written, or NULL (case-insensitive). */
const char *conf_get(const conf_t *conf, const char *key);
/* 1 if slurm.conf's PrologFlags lists flag (case-insensitive, whole
 * words: "Contain", "Alloc", "Serial", ...). */
int conf_prolog_flag(const conf_t *conf, const char *flag);
/* PrologFlags=Contain, or X11 which implies it: jobs get an extern step. */
int conf_prolog_contain(const conf_t *conf);
/* Index of a node by name or -1 (hash lookup, O(1)). */
long conf_node_find(const conf_t *conf, const char *name);
long conf_part_find(const conf_t *conf, const char *name);
/* Expand %n (node name) and %h (host name) in a path template; malloc'd. */
char *conf_expand_path(const char *tmpl, const char *node, const char *host);
/* The controller's run directory: the directory of SlurmctldPidFile
 * (Slurm's default /var/run/slurmctld.pid: /var/run). It holds what users
 * must reach, apart from the private StateSaveLocation: the pid file and
 * the controller's Unix socket, conf_ctld_socket(): <run dir>/
 * sluice-ctld.sock. The controller and the commands both find it from
 * slurm.conf alone. malloc'd. */
char *conf_ctld_run_dir(const conf_t *conf);
char *conf_ctld_socket(const conf_t *conf);
/* Total GPUs (gres name "gpu") on a node. */
uint32_t conf_node_gpus(const conf_node_t *n);
/* The node lease in seconds (fencing, docs/architecture.md): how long a
 * node daemon's jobs run on once the controller no longer hears it.
 * 2 x SlurmdTimeout, so a controller pause of up to about that long
 * leaves jobs alone; 0 (no lease) with SlurmdTimeout=0. */
uint32_t conf_node_lease(const conf_t *conf);
/* The port node n's daemon serves /metrics on (SlurmdMetricsPort "N", or
 * "+N": the node's Port plus N), 0 when node metrics are not configured. */
uint16_t conf_node_metrics_port(const conf_t *conf, const conf_node_t *n);

/* `scontrol show config` lines: every documented key in Slurm's order and
 * spelling with Slurm's defaults, current values substituted. Returns the
 * number of pairs; *keys and *vals: malloc'd arrays of malloc'd strings. */
size_t conf_show_lines(const conf_t *conf, char ***keys, char ***vals);

#endif
