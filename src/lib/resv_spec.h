/*
 * resv_spec: the reservation specification of scontrol create|update
 * reservation (Key=Value words, as Slurm 22.05's scontrol parses them)
 * and the names of reservation flags. Pure: no I/O, times resolved
 * against the caller's clock. The controller checks the result again.
 */
#ifndef SLUICE_RESV_SPEC_H
#define SLUICE_RESV_SPEC_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "proto.h"

/* Parse argv[0..argc) into *m (zeroed first; m->op is set to op; strings
 * malloc'd, free with proto_free(MSG_RESV_UPDATE, m)). Returns 0, or -1
 * with *err (malloc'd) the text Slurm's scontrol prints after
 * "scontrol: error: " and before ".  No reservation created." (e.g.
 * "Error parsing flags FOO", "Unknown parameter Foo=bar"); for a bad
 * StartTime/EndTime *timerr also gets the line Slurm prints before it
 * ("Invalid time specification (pos=0): garbage"), else NULL. Create
 * also checks what Slurm's scontrol does before sending: Users or
 * Accounts given, start before end. */
int resv_spec_parse(msg_resv_update_t *m, uint32_t op, int argc, char **argv, time_t now,
		    char **err, char **timerr);

/* Flags=MAINT,IGNORE_JOBS (a '-' before a name clears it: update), the
 * names as Slurm's scontrol reads them (any case, a name begun with
 * enough letters). 0 and the bits, or -1 (a name Slurm does not know).
 * *purge (NULL: refused) gets the seconds of PURGE_COMP=<timespec>, 0
 * if none was given. */
int resv_flags_parse(const char *s, uint32_t *set, uint32_t *clear, uint32_t *purge);

/* The flags as scontrol prints Flags= ("MAINT,IGNORE_JOBS,SPEC_NODES",
 * "" for none; PURGE_COMP with purge, "PURGE_COMP=00:05:00") into buf. */
void resv_flags_fmt(uint32_t flags, uint32_t purge, char *buf, size_t len);

/* The next start of a repeating reservation (DAILY, WEEKLY, WEEKDAY,
 * WEEKEND) that starts at start: one day later, one week later, or the
 * next day that is a weekday / weekend day (local time, keeping the time
 * of day). Without a repeat flag: start. */
int64_t resv_next_start(int64_t start, uint32_t flags);

#endif
