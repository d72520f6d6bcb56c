/*
 * multiprog: srun --multi-prog configuration files (man srun, "MULTIPLE
 * PROGRAM CONFIGURATION"). One line per set of tasks: a rank list
 * ("0", "1-3,5" or "*"), the program and its arguments; '#' starts a
 * comment, a backslash at the end of a line continues it, single quotes
 * group words, %t in an argument is the task's rank and %o its offset
 * within the line's ranks. srun checks the file against the step's task
 * count; each node daemon builds its tasks' argv from the same text.
 */
#ifndef SLUICE_MULTIPROG_H
#define SLUICE_MULTIPROG_H

#include <stdint.h>

#include "proto.h"

/* Check text (the file name fname only names it in errors) for a step
 * of ntasks tasks: every task has exactly one line. Returns 0, or -1 with
 * *err the lines srun prints (without "srun: error: ", '\n' between
 * them; malloc'd). */
int multiprog_check(const char *text, const char *fname, uint32_t ntasks, char **err);

/* The argv of task rank (appended to argv). 0, or -1 when no line
 * names it. */
int multiprog_argv(const char *text, uint32_t rank, strv_t *argv);

#endif
