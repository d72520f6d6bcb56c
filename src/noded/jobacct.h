/*
 * jobacct: the resource use of a step's tasks, gathered by its supervisor
 * on the node (JobAcctGatherType, JobAcctGatherFrequency). See jobacct.c.
 */
#ifndef SLUICE_NODED_JOBACCT_H
#define SLUICE_NODED_JOBACCT_H

#include <stdint.h>
#include <sys/resource.h>

#include "conf.h"
#include "proto.h"
#include "step_usage.h"
#include "strbuf.h"

enum { JAG_NONE = 0, JAG_LINUX, JAG_CGROUP };

typedef struct jobacct_conf {
	int type;                 /* JAG_* */
	uint32_t freq_s;          /* task sampling period, 0 = only at the end */
} jobacct_conf_t;

/* JobAcctGatherType and JobAcctGatherFrequency as slurm.conf has them
 * (NULL: the defaults, none and 30). 0, or -1 with *err (malloc'd). */
int jobacct_conf_parse(const char *type, const char *freq, jobacct_conf_t *out, char **err);
/* The same from a loaded config; a bad value is logged and what could be
 * read is kept. */
void jobacct_conf_from(const conf_t *conf, jobacct_conf_t *out);

/* The fields of /proc/PID/stat we use (times in clock ticks, vsize in
 * bytes, rss in pages). */
typedef struct proc_stat {
	int pid, ppid, pgrp, session;
	uint64_t num_threads;
	char state;
	uint64_t majflt, cmajflt, utime, stime, cutime, cstime, vsize, rss;
} proc_stat_t;
/* Parse /proc/PID/stat text: 0 or -1. */
int jobacct_parse_stat(const char *text, proc_stat_t *ps);
/* rchar and wchar of /proc/PID/io text: 0 or -1 when either is missing. */
int jobacct_parse_io(const char *text, uint64_t *rchar, uint64_t *wchar);

typedef struct jag_task {
	int sid;                  /* the task's pid: it leads its session */
	uint32_t rank;            /* global task id */
	int done;                 /* reaped: figures are final */
	task_usage_t u;           /* the highest of each over the samples */
	task_usage_t cur;         /* the last sample's sums */
} jag_task_t;

typedef struct jobacct {
	jobacct_conf_t conf;
	char *proc_root;          /* "/proc" (tests: a fixture tree) */
	jag_task_t *t;
	uint32_t n;
	uint64_t tick_hz, page_kb;
	int64_t next_ms;          /* next periodic sample, 0 = none planned */
	uint64_t samples, sample_ns;   /* how many, and their total cost */
	int full_scan;            /* no children files: scan all of /proc */
	strbuf_t *pids;           /* when set, each sample appends the pids it
	                           * counted ("12,13,"): sstat -i */
	int64_t *visit_budget;    /* when set, the processes a tree walk may
	                           * still visit, shared by every walk using it
	                           * (a node daemon's sstat answer stays cheap
	                           * whatever a job's tree) */
} jobacct_t;

/* A gatherer for ntasks tasks of this node (proc_root NULL: /proc). */
jobacct_t *jobacct_new(const jobacct_conf_t *conf, uint32_t ntasks, const char *proc_root);
void jobacct_free(jobacct_t *ja);
/* Task idx started as pid (its session) with global rank; now_ms plans
 * the first periodic sample. */
void jobacct_task_start(jobacct_t *ja, uint32_t idx, int pid, uint32_t rank, int64_t now_ms);
/* ms until the next periodic sample is due (0: now), -1 when none is. */
int64_t jobacct_due_ms(const jobacct_t *ja, int64_t now_ms);
/* Take a sample of every task not yet reaped (no-op with JAG_NONE). */
void jobacct_sample(jobacct_t *ja, int64_t now_ms);
/* The task led by pid was reaped with ru (NULL: unknown): its figures are
 * final. */
void jobacct_task_end(jobacct_t *ja, int pid, const struct rusage *ru);
/* The node's share of the step, from every task. */
void jobacct_usage(const jobacct_t *ja, step_usage_t *out);

/* The supervisor's figures so far, for sstat (noded/step_stat.c): every
 * task's rank, session, whether it was reaped and its highest figures,
 * in dir/usage (replaced whole by a rename: a reader sees one version or
 * the other). Written when the tasks start, after each sample and when a
 * task ends. 0, or -1 with errno. */
int jobacct_save(const jobacct_t *ja, const char *dir);
/* A gatherer rebuilt from dir/usage (proc_root NULL: /proc), so that one
 * more jobacct_sample adds what the tasks use right now. NULL with errno
 * when there is no such file or it is malformed. */
jobacct_t *jobacct_load(const jobacct_conf_t *conf, const char *dir, const char *proc_root);

#endif
