/*
 * sprio.h: sprio's pure formatter, shared with its unit test.
 */
#ifndef SLUICE_CMD_SPRIO_H
#define SLUICE_CMD_SPRIO_H

#include "proto.h"
#include "strbuf.h"

#define SPRIO_F_NOHEADER 0x1
#define SPRIO_F_WEIGHTS  0x2   /* -w: the weights row instead of jobs */

/* The format sprio uses by default for a reply (which factors have a
 * weight decides the columns). malloc'd. */
char *sprio_default_format(const msg_prio_info_t *m, int normalized, int long_list, int users);
/* Append the report for m (jobs in their current order) to out. An unknown
 * letter in fmt is reported through bad (may be NULL). */
void sprio_format(strbuf_t *out, const msg_prio_info_t *m, const char *fmt, int flags,
		  const char *cluster, void (*bad)(int c, void *arg));
/* Sort m->jobs by a -S list ("i", "-y", "u,r,-y"); default "i". */
void sprio_sort(msg_prio_info_t *m, const char *sort);

#endif
