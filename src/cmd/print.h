/*
 * print: pure formatting of jobs, nodes and partitions as squeue, sinfo and
 * scontrol print them. No I/O, no clock: callers pass `now`, records come
 * from proto.h messages, output is appended to a strbuf. The unit tests
 * feed fixed records and compare with Slurm's captured output.
 */
#ifndef SLUICE_CMD_PRINT_H
#define SLUICE_CMD_PRINT_H

#include <stdint.h>
#include <time.h>

#include "cmd/cmdutil.h"
#include "hostlist.h"
#include "proto.h"
#include "strbuf.h"

/* ---- jobs (squeue, scontrol show job) ---- */

#define SQUEUE_FMT_DEFAULT "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"
#define SQUEUE_FMT_LONG    "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R"
#define SQUEUE_FMT_START   "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R"

int job_fmt_valid(int c);                 /* a known -o letter */
int job_fmt_lookup(const char *name);     /* -O name -> code, -1 unknown */
/* One row per job. array_task: NO_VAL32 normally; with squeue -r, the
 * task id this row stands for (a pending array record split in tasks). */
void print_job_header(strbuf_t *sb, const fmt_t *f);
void print_job_row(strbuf_t *sb, const fmt_t *f, const job_info_t *j,
		   uint32_t array_task, time_t now);
/* The JINFO_* groups (proto.h) of the fields a format code prints; 0
 * when JINFO_BASIC has them all. */
uint32_t job_fmt_fields(int code);
/* The dependency as Slurm shows it ("afterok:4(unfulfilled)"); NULL when
 * none. The caller frees. */
char *job_dep_fmt(const job_info_t *j);
/* squeue --json: Slurm 22.05's openapi v0.0.38 document {"meta", "errors",
 * "jobs"} with its pretty printing, every one of its 111 job fields. nodes
 * (may be NULL) gives the socket/core layout of job_resources. */
void print_jobs_json(strbuf_t *sb, const job_info_t *const *jobs, size_t n,
		     const msg_node_info_t *nodes);
/* ClusterName for the -O Cluster field (NULL: empty). */
void print_job_set_cluster(const char *name);
const char *print_job_cluster(void);
/* Seconds a job has run (squeue TIME, scontrol RunTime). */
long job_time_used(const job_info_t *j, time_t now);
/* "(Reason)" / "(Reason, detail)" for pending jobs, the node list else. */
void job_reason_list(strbuf_t *sb, const job_info_t *j);
/* squeue -t: one state name or code ("PD", "pending", "CG", "RS", ...). */
typedef struct job_state_sel {
	uint32_t base;          /* base state, when flag is 0 */
	uint32_t flag;          /* a state flag (Slurm's bit value) */
} job_state_sel_t;
extern const char squeue_valid_states[];   /* for the error message */
/* 0, or -1 when s is no state Slurm knows. */
int job_state_sel_parse(const char *s, job_state_sel_t *out);
/* The long name of a selector ("PENDING"), as scancel -v prints it. */
const char *job_state_sel_name(const job_state_sel_t *sel);
/* Whether a job state matches any of n selectors (base equal, or flag set). */
int job_state_sel_match(const job_state_sel_t *sel, size_t n, uint32_t state);
/* scontrol show job: one record (ends with the blank line, or one line
 * when one_liner). detail: -d. */
void print_job_scontrol(strbuf_t *sb, const job_info_t *j, int detail,
			int one_liner, time_t now);

/* ---- steps (squeue -s, scontrol show step; print_step.c) ---- */

#define SQUEUE_FMT_STEPS "%.15i %.8j %.9P %.8u %.9M %N"
int step_fmt_valid(int c);               /* a -o letter valid for steps */
int step_fmt_lookup(const char *name);   /* -O name -> code, -1 unknown */
void print_step_header(strbuf_t *sb, const fmt_t *f);
void print_step_row(strbuf_t *sb, const fmt_t *f, const step_info_t *s, time_t now);
/* scontrol show step: one record (a blank line after it, or one line). */
void print_step_scontrol(strbuf_t *sb, const step_info_t *s, int one_liner);
/* "7.0", "7.batch", "7.extern"; array_form: "7_3.0" for an array task. */
void step_id_fmt(char *buf, size_t len, const step_info_t *s, int array_form);
/* "JOB" (*step_id = NO_VAL32), "JOB.STEP", "JOB.batch", "JOB.extern":
 * 0, or -1 when s is none of those. */
int step_id_parse(const char *s, uint32_t *job_id, uint32_t *step_id);
long step_time_used(const step_info_t *s, time_t now);
/* Stable sort by squeue -S keys (NULL: Slurm's "P,i" for steps). */
void steps_sort(const step_info_t **v, size_t n, const char *keys);
/* scontrol listpids: the header line and one process's line. */
void print_listpids_header(strbuf_t *sb);
void print_listpids_row(strbuf_t *sb, const list_pid_t *p);

/* ---- nodes and partitions (sinfo, scontrol show node/partition) ---- */

/* One sinfo output line: nodes of one partition grouped because they agree
 * on every field of the format. */
typedef struct sinfo_row {
	const part_info_t *part;      /* NULL if the node is in no partition */
	const node_info_t *node;      /* first node (for per-node fields) */
	hostlist_t *nodes;
	uint32_t nnodes;
	uint32_t state;               /* state of the first node */
	uint32_t cpus_min, cpus_max;
	uint64_t mem_min, mem_max, disk_min, disk_max, free_min, free_max;
	uint32_t load_min, load_max, weight_min, weight_max;
	uint32_t nodes_alloc, nodes_idle, nodes_other, nodes_total;
	uint32_t cpus_alloc, cpus_idle, cpus_other, cpus_total;
	int default_part;             /* print "*" after %P */
} sinfo_row_t;

typedef struct sinfo_opts {
	int node_flag;                /* -N: one row per node and partition */
	int summarize;                /* -s */
	int list_reasons;             /* -R */
	int exact;                    /* -e */
	int responding, dead;         /* -r, -d */
	const char *sort;             /* -S, NULL for the default */
	const strv_t *states;         /* -t, lower-case names, may be NULL */
	int states_and;               /* -t a&b: all of them, not any */
} sinfo_opts_t;

int node_fmt_valid(int c);
int node_fmt_lookup(const char *name);
/* Group nodes into rows. parts/nodes as received; part_filter (NULL = all)
 * and node_filter (NULL = all) select. Rows in *out (free with
 * sinfo_rows_free). A partition that matches no node still gets a row with
 * zero nodes when node_filter is set (Slurm's "n/a" row). */
size_t sinfo_build(const msg_part_info_t *pi, const msg_node_info_t *ni,
		   const fmt_t *f, const sinfo_opts_t *o,
		   const strv_t *part_filter, hostlist_t *node_filter,
		   sinfo_row_t **out);
void sinfo_rows_free(sinfo_row_t *rows, size_t n);
/* Resolve the "#" (computed) widths: fields with width -1 get the longest
 * value (at least 9, as Slurm's P and N columns). */
void sinfo_fix_widths(fmt_t *f, const sinfo_row_t *rows, size_t n);
void print_sinfo_header(strbuf_t *sb, const fmt_t *f);
void print_sinfo_row(strbuf_t *sb, const fmt_t *f, const sinfo_row_t *r);
/* "Sun Nov 29 22:40:25 2026\n" (sinfo -l / squeue -l first line). */
void print_date_line(strbuf_t *sb, time_t now);

/* sinfo -v: the dump of the parsed options Slurm prints (stdout) before
 * the output. format is shown as given; its fields set the *_flag lines,
 * read as a -O list when format_long, else as a -o spec. NULL strings
 * print as Slurm's "n/a" (nodes, partition) or "(null)" (states, sort). */
typedef struct sinfo_vopts {
	int dead, exact, filtering, iterate, long_fmt, no_header;
	int node_field, node_flag, part_field, responding, summarize, verbose;
	int all_flag, reservation;
	const char *format;
	int format_long;
	const char *nodes, *partition, *states, *sort;
} sinfo_vopts_t;
void print_sinfo_options(strbuf_t *sb, const sinfo_vopts_t *v);

void print_node_scontrol(strbuf_t *sb, const node_info_t *n, int one_liner);
/* The config's SlurmdPort: scontrol show node omits Port= when equal. */
void print_node_set_slurmd_port(uint32_t port);
/* scontrol show node -d: adds GresDrain/GresUsed after Gres. */
void print_node_scontrol_detail(strbuf_t *sb, const node_info_t *n, int one_liner, int detail);
/* sinfo --json / scontrol show node --json: Slurm 22.05's openapi v0.0.38
 * document {"meta", "errors", "nodes"} with its own pretty printing (empty
 * arrays as "[\n  ]", "/" escaped, no final newline). */
void print_nodes_json(strbuf_t *sb, const node_info_t *nodes, size_t n);
void print_part_scontrol(strbuf_t *sb, const part_info_t *p, int one_liner);
/* print_resv.c: scontrol show reservation (one reservation, its blank
 * line after unless one_liner) and sinfo -T (all of m). State is ACTIVE
 * when now is inside [start, end). */
void print_resv_scontrol(strbuf_t *sb, const resv_info_t *r, int one_liner, time_t now);
void print_resv_sinfo(strbuf_t *sb, const msg_resv_info_t *m, int no_header, time_t now);

#endif
