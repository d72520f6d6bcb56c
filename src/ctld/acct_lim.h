/*
 * acct_lim.h: limits of associations and QOS by their sacctmgr names
 * (acct_lim.c): parse a value onto a lim_set_t, print one as sacctmgr
 * shows it, and the text form the state DB keeps a lim_set_t in.
 */
#ifndef SLUICE_CTLD_ACCT_LIM_H
#define SLUICE_CTLD_ACCT_LIM_H

#include <stddef.h>
#include <stdint.h>

#include "sched/sched_limits.h"
#include "strbuf.h"

enum { LK_COUNT, LK_WALL, LK_TRES, LK_TRES_MINS };

typedef struct acct_lim_key {
	const char *name;         /* sacctmgr's option name (MaxJobs) */
	const char *alias;        /* another accepted name, or NULL */
	uint8_t kind;             /* LK_* */
	uint8_t qos_only;         /* per-user/per-account limits: QOS only */
	int tres;                 /* >= 0: a one-TRES legacy option (GrpCPUs) */
	size_t off;               /* offset of the field in lim_set_t */
} acct_lim_key_t;

/* The option of that name or alias (case-insensitive), or NULL. */
const acct_lim_key_t *acct_lim_key(const char *name);
/* The i-th option (iteration), NULL past the end. */
const acct_lim_key_t *acct_lim_key_at(size_t i);

/* Set the limit k of l from a sacctmgr value: a count, a time
 * ("1:00:00", "2-00:00:00", minutes), a TRES list "cpu=8,gres/gpu=4"
 * (mem with a unit: "mem=4G"; only the TRES named change); "-1" clears.
 * 0, or -1 with *err (l unchanged). */
int acct_lim_set(lim_set_t *l, const acct_lim_key_t *k, const char *v, char **err);
/* Append the value as sacctmgr prints it (nothing when unset). */
void acct_lim_fmt(strbuf_t *sb, const lim_set_t *l, const acct_lim_key_t *k);

/* The TRES index of a Slurm TRES name ("cpu", "gres/gpu"), or -1. */
int acct_tres_index(const char *name);
/* Parse "name=value,..." onto t (mins: TRES-minutes, mem without unit). */
int acct_tres_parse(lim_tres_t *t, const char *v, int mins, char **err);
/* "cpu=8,mem=4G,gres/gpu=4" in Slurm's TRES order; nothing if all unset. */
void acct_tres_fmt(strbuf_t *sb, const lim_tres_t *t, int mins);

/* The DB text of l ("MaxJobs=2 GrpTRES=cpu=8"; "" if nothing is set),
 * malloc'd, and back. */
char *acct_lim_encode(const lim_set_t *l);
int acct_lim_decode(lim_set_t *l, const char *s, char **err);

#endif
