/*
 * sstat.h: sstat's aggregation of the nodes' answers and its field table
 * (sstat_fmt.c), kept apart from its options and RPCs (sstat.c) so unit
 * tests drive them with no cluster.
 *
 * Each node answers with its tasks of each step (stat_task_t, proto.h);
 * a step's figures over all its nodes are the minimum, maximum (each with
 * the node and task where it occurred), total and average over its tasks,
 * for CPU time, RSS, virtual memory, major page faults and bytes read and
 * written, as Slurm's sstat shows them.
 */
#ifndef SLUICE_CMD_SSTAT_H
#define SLUICE_CMD_SSTAT_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"
#include "strbuf.h"

/* The measures (TRES order of Slurm's strings: cpu, fs/disk, mem, pages,
 * vmem; the disk write only in the "out" strings). */
enum { SM_CPU, SM_READ, SM_MEM, SM_PAGES, SM_VMEM, SM_WRITE, SM_N };

typedef struct sstat_measure {
	uint64_t max, min, tot;       /* cpu in microseconds, memory and disk in
	                               * bytes, pages a count */
	uint32_t max_node, min_node;  /* index into the step's nodes */
	uint32_t max_task, min_task;  /* global task rank */
} sstat_measure_t;

typedef struct sstat_step {
	uint32_t job_id, step_id;
	uint32_t ntasks;
	sstat_measure_t m[SM_N];
	strv_t nodes;                 /* nodes that reported it, in job order */
	strv_t pids;                  /* the pids on each of those nodes */
} sstat_step_t;

/* Add node's share of a step (its tasks of it, and its pids there).
 * Call in the job's node order and the tasks in rank order: a tie keeps
 * the first node and task. */
void sstat_step_add(sstat_step_t *s, const char *node, const char *pids,
		    const stat_task_t *tasks, uint32_t ntasks);
/* tot / ntasks (0 without tasks). */
uint64_t sstat_ave(const sstat_step_t *s, int m);
void sstat_step_release(sstat_step_t *s);

/* Output options. */
typedef struct sstat_opts {
	int noconvert;                /* --noconvert */
} sstat_opts_t;

/* A number as Slurm's sstat prints a memory or disk amount (bytes, or a
 * count of pages): moved up a unit (K, M, G, T, P) while that keeps it
 * exact to half a unit ("64740K", "1.00M", "66233685"); raw with
 * --noconvert. */
void sstat_num_fmt(uint64_t v, const sstat_opts_t *o, char *buf, size_t len);

typedef struct sstat_field {
	const char *name;             /* as -e lists it */
	int width;                    /* default width */
	int left;                     /* left-justified by default (JobID) */
	int kind;                     /* the formatter (sstat_fmt.c) */
	int m;                        /* its measure, where one */
} sstat_field_t;

extern const sstat_field_t sstat_fields[];
extern const size_t sstat_nfields;
/* By name, case-insensitive; NULL if none. */
const sstat_field_t *sstat_field_find(const char *name);

/* A field of the output with its width. */
typedef struct sstat_out {
	const sstat_field_t *def;
	int width, left;
} sstat_out_t;
/* Parse a --format list ("JobID,MaxRSS%20,MaxRSSNode%-12"), appending
 * to *out. 0, or -1 with *bad the unknown name (malloc'd). */
int sstat_format_parse(const char *spec, sstat_out_t **out, size_t *n, char **bad);

/* The value of field f for step s (node: the -i row's node index, or -1
 * for the whole step), unpadded. */
void sstat_value(strbuf_t *sb, const sstat_field_t *f, const sstat_step_t *s, int node,
		 const sstat_opts_t *o);

/* The default field list, and -i's. */
#define SSTAT_DEFAULT_FORMAT "JobID,MaxVMSize,MaxVMSizeNode,MaxVMSizeTask,AveVMSize," \
	"MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,MaxPages,MaxPagesNode,MaxPagesTask,AvePages," \
	"MinCPU,MinCPUNode,MinCPUTask,AveCPU,NTasks,AveCPUFreq,ReqCPUFreqMin,ReqCPUFreqMax," \
	"ReqCPUFreqGov,ConsumedEnergy,MaxDiskRead,MaxDiskReadNode,MaxDiskReadTask,AveDiskRead," \
	"MaxDiskWrite,MaxDiskWriteNode,MaxDiskWriteTask,AveDiskWrite,TRESUsageInAve," \
	"TRESUsageInMax,TRESUsageInMaxNode,TRESUsageInMaxTask,TRESUsageInMin," \
	"TRESUsageInMinNode,TRESUsageInMinTask,TRESUsageInTot,TRESUsageOutAve,TRESUsageOutMax," \
	"TRESUsageOutMaxNode,TRESUsageOutMaxTask,TRESUsageOutMin,TRESUsageOutMinNode," \
	"TRESUsageOutMinTask,TRESUsageOutTot"
#define SSTAT_PID_FORMAT "JobID,Nodelist,Pids"

#endif
