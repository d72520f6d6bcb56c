/*
 * pattern.h: stdio file name patterns (src/lib/pattern.c).
 */
#ifndef SLUICE_PATTERN_H
#define SLUICE_PATTERN_H

#include <stdint.h>

/* The batch script's step id (Slurm's SLURM_BATCH_SCRIPT). */
#define PATTERN_BATCH_STEP 0xfffffffbu

/* What the stdio file name patterns expand to (man sbatch, "filename
 * pattern"). */
typedef struct pattern_ctx {
	uint32_t job_id;
	uint32_t step_id;          /* PATTERN_BATCH_STEP for the batch script */
	uint32_t array_job_id;     /* 0 when not an array */
	uint32_t array_task_id;    /* NO_VAL32 when not an array */
	const char *job_name, *user, *node;
	uint32_t node_id, task_id;
} pattern_ctx_t;

/* Expand %j %J %x %u %N %n %t %s %A %a %% (with optional zero-pad width,
 * "%4j"); a name containing '\\' is taken literally (backslashes dropped).
 * Unknown %X is kept as is. Returns malloc'd. */
char *pattern_expand(const char *pat, const pattern_ctx_t *ctx);
/* Full path of a stdio file: pattern pat (or dflt when pat is NULL/""),
 * expanded, relative names put under work_dir. malloc'd. */
char *pattern_path(const char *pat, const char *dflt, const char *work_dir,
		   const pattern_ctx_t *ctx);
/* Does pat name a different file per task (%t), per node (%N %n)? A
 * pattern with '\\' expands nothing. (srun: one file per task, per node
 * or one for all.) */
int fpattern_per_task(const char *pat);
int fpattern_per_node(const char *pat);

#endif
