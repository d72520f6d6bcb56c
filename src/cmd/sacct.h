/*
 * sacct.h: sacct's field table and formatting (sacct_fmt.c), kept apart
 * from its options and its query (sacct.c) so unit tests drive them.
 *
 * A record row arrives as cells of raw columns (the acct_job/acct_step
 * names of ctld/acct.h's tables: "state", "exit_code", "max_rss_kb", ...);
 * each field of --format knows which columns it needs and how Slurm
 * 22.05 prints it from them.
 */
#ifndef SLUICE_CMD_SACCT_H
#define SLUICE_CMD_SACCT_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

/* The raw columns (reply column names). */
enum sacct_col {
	SC_JOB_ID, SC_STEP_ID, SC_ARRAY_JOB_ID, SC_ARRAY_TASK_ID, SC_CLUSTER, SC_PARTITION,
	SC_ACCOUNT, SC_QOS, SC_ASSOC_ID, SC_QOS_ID, SC_UID, SC_GID, SC_USER, SC_GRP, SC_NAME,
	SC_STATE, SC_REASON, SC_EXIT_CODE, SC_DERIVED_EC, SC_SUBMIT, SC_ELIGIBLE, SC_START,
	SC_END, SC_SUSPENDED, SC_TIMELIMIT, SC_PRIORITY, SC_NICE, SC_REQ_CPUS, SC_REQ_MEM,
	SC_REQ_MEM_PER_CPU, SC_REQ_NODES, SC_ALLOC_CPUS, SC_ALLOC_NODES, SC_NODELIST,
	SC_REQ_TRES, SC_ALLOC_TRES, SC_WORKDIR, SC_COMMENT, SC_CONSTRAINTS, SC_FLAGS,
	SC_REQUID, SC_RESERVATION, SC_ARRAY_TASK_STR, SC_RESV_ID,
	/* step only */
	SC_NTASKS, SC_REQ_CPUFREQ, SC_USER_CPU_US, SC_SYS_CPU_US,
	SC_MAX_RSS_KB, SC_MAX_RSS_NODE, SC_MAX_RSS_TASK, SC_AVE_RSS_KB,
	SC_MAX_VMSIZE_KB, SC_MAX_VMSIZE_NODE, SC_MAX_VMSIZE_TASK, SC_AVE_VMSIZE_KB,
	SC_MAX_PAGES, SC_MAX_PAGES_NODE, SC_MAX_PAGES_TASK, SC_AVE_PAGES,
	SC_MIN_CPU_S, SC_MIN_CPU_NODE, SC_MIN_CPU_TASK, SC_AVE_CPU_S,
	SC_MAX_DISK_READ, SC_MAX_DISK_READ_NODE, SC_MAX_DISK_READ_TASK, SC_AVE_DISK_READ,
	SC_MAX_DISK_WRITE, SC_MAX_DISK_WRITE_NODE, SC_MAX_DISK_WRITE_TASK, SC_AVE_DISK_WRITE,
	SC_TRES_IN_MAX, SC_TRES_IN_AVE, SC_TRES_OUT_MAX, SC_TRES_OUT_AVE,
	SC_N
};
extern const char *const sacct_col_names[SC_N];

/* One row: cells indexed by enum sacct_col (NULL: not fetched, or SQL
 * NULL; printed as nothing). */
typedef struct sacct_row {
	const char *c[SC_N];
	int step;                 /* a step row */
	int64_t now;              /* for the elapsed time of running jobs */
} sacct_row_t;

typedef struct sacct_field_def {
	const char *name;         /* as --helpformat lists it */
	int width;                /* default width */
	int left;                 /* left-justified (JobID, JobIDRaw, DBIndex) */
	int kind;                 /* the formatter (sacct_fmt.c) */
	int col;                  /* the column it shows, where one */
} sacct_field_def_t;

extern const sacct_field_def_t sacct_fields[];
extern const size_t sacct_nfields;
/* A field by name, case-insensitive (Slurm also takes unique
 * abbreviations); NULL if none. */
const sacct_field_def_t *sacct_field_find(const char *name);

/* Mark the columns field d needs in need[]. */
void sacct_field_need(const sacct_field_def_t *d, unsigned char need[SC_N]);

/* A field of the output: a definition and its width (%N). */
typedef struct sacct_out {
	const sacct_field_def_t *def;
	int width;
	int left;
} sacct_out_t;

/* Parse a --format list ("JobID,JobName%30,State%-12"), appending to
 * *out. 0, or -1 with *bad pointing at the unknown name (malloc'd). */
int sacct_format_parse(const char *spec, sacct_out_t **out, size_t *n, char **bad);

/* Printing options that change values. */
typedef struct sacct_opts {
	int units;                /* -1 none, else 0 K, 1 M, 2 G, 3 T, 4 P */
	int noconvert;
} sacct_opts_t;

/* The value of field d in row r, as Slurm prints it (unpadded). */
void sacct_value(strbuf_t *sb, const sacct_field_def_t *d, const sacct_row_t *r,
		 const sacct_opts_t *o);

/* Append v padded (or cut with a '+') to width, then a space, as sacct's
 * table prints each field. */
void sacct_pad(strbuf_t *sb, const char *v, int width, int left);

/* Helpers shared with --json. */
/* "rc:sig" of a raw wait status. */
void sacct_exit_fmt(uint32_t status, char *buf, size_t len);
/* "CANCELLED by 0" etc.: the state of a row. */
void sacct_state_fmt(const sacct_row_t *r, char *buf, size_t len);
/* A memory amount of base unit (0 K, 1 M) as sacct prints it. */
void sacct_mem_fmt(double v, int base, const sacct_opts_t *o, char *buf, size_t len);
/* -s names: "PD", "pending", "CA", ...; base state or -1. */
int sacct_state_parse(const char *s);

#endif
