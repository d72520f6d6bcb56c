/*
 * array_range: job array task id sets ("1-10000", "0-15:4", "1,3,5-7",
 * with an optional "%N" throttle), parsed and formatted as Slurm does.
 * Shared by sbatch (checks), the controller (the pending tasks of an
 * array record) and the commands (squeue -r, scancel 11_[1-3]).
 *
 * A set is a bitmap over ids 0..nbits-1: 100,000 tasks cost 12.5 KB, and
 * the usual forms (one range, a few ranges) format in time proportional
 * to the words, not the ids.
 */
#ifndef SLUICE_ARRAY_RANGE_H
#define SLUICE_ARRAY_RANGE_H

#include <stdint.h>

typedef struct array_set {
	uint64_t *w;              /* bit i set: task id i is in the set */
	uint32_t nbits;           /* ids 0..nbits-1 can be held */
	uint32_t count;           /* ids set */
} array_set_t;

#define ARRAY_NONE 0xfffffffeu   /* NO_VAL: no task / not an array */

/* Parse an array spec "1-4,7,0-15:4%3" into *set (allocated; free with
 * array_set_free) and *throttle (the %N, 0 when absent or "%0"). Every
 * id must be below max_ids (MaxArraySize; 0 = no bound). Ranges need
 * lo <= hi and a step >= 1; tokens are separated by ','; brackets are not
 * part of a spec. 0, or -1 (*set untouched) for anything else: empty
 * spec or token, a non-number, a negative id, an id too large. */
int array_spec_parse(const char *spec, uint32_t max_ids, array_set_t *set, uint32_t *throttle);

/* The set as Slurm prints it: ranges and single ids in increasing order,
 * "1-4,7,9" (a stepped range prints each id: "0,4,8,12"). malloc'd; ""
 * for an empty set. */
char *array_set_fmt(const array_set_t *set);

void array_set_init(array_set_t *set, uint32_t nbits);
void array_set_free(array_set_t *set);
void array_set_add(array_set_t *set, uint32_t id);    /* grows as needed */
void array_set_del(array_set_t *set, uint32_t id);
int array_set_has(const array_set_t *set, uint32_t id);
/* The smallest id >= from in the set, or ARRAY_NONE. */
uint32_t array_set_next(const array_set_t *set, uint32_t from);
/* The largest id in the set, or ARRAY_NONE. */
uint32_t array_set_last(const array_set_t *set);

#endif
