/*
 * jobid: job and step ids as the accounting commands take them
 * ("1234", "1234.batch", "1234.extern", "1234.0", "1234_7" for an array
 * task), and the step ids Slurm gives its special steps.
 */
#ifndef SLUICE_JOBID_H
#define SLUICE_JOBID_H

#include <stdint.h>

#define STEP_INTERACTIVE 4294967290u  /* 0xfffffffa: srun's allocation */
#define STEP_BATCH       4294967291u  /* 0xfffffffb: the batch script */
#define STEP_EXTERN      4294967292u  /* 0xfffffffc: PrologFlags=Contain */
#define STEP_ALL         0xffffffffu  /* a selector naming the job itself */

/* One selector: "N" or "N_M" (array task), optionally followed by
 * ".batch", ".extern", ".interactive" or ".S". *task is 0xfffffffe (NO_VAL)
 * when not an array task, *step STEP_ALL when no step is named. 0, or -1
 * on anything else (a zero or too large id, trailing text). */
int jobid_parse_selector(const char *s, uint32_t *job, uint32_t *task, uint32_t *step);

#endif
