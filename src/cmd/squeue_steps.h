/*
 * squeue_steps: squeue -s / --steps[=LIST] (squeue_steps.c): the running
 * steps from the controller's live step view (MSG_STEP_INFO_REQ), filtered,
 * sorted and printed as Slurm 22.05's squeue prints them.
 */
#ifndef SLUICE_CMD_SQUEUE_STEPS_H
#define SLUICE_CMD_SQUEUE_STEPS_H

#include <stdint.h>

#include "hostlist.h"
#include "proto.h"

typedef struct squeue_steps_opts {
	const char *steps;        /* -s's list ("5.0,6.batch"), NULL = all */
	const char *format;       /* -o, NULL = SQUEUE_FMT_STEPS */
	const char *format_long;  /* -O */
	const char *sort;         /* -S */
	const uint32_t *job_ids;  /* -j (0 entries: all) */
	size_t njob_ids;
	const uint32_t *uids;     /* -u */
	size_t nuids;
	const strv_t *parts;      /* -p */
	hostlist_t *nodes;        /* -w, NULL = all */
	int no_header, long_fmt, iterate;
} squeue_steps_opts_t;

/* Print once (or every iterate s); the exit code. */
int squeue_steps_run(const squeue_steps_opts_t *o);

#endif
