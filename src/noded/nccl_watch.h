/*
 * nccl_watch: the NCCL transport check in a batch job's supervisor (issue
 * 11 item 5). For a job with GPUs on more than one node, or with
 * NCCL_DEBUG in its environment, it reads what is new in the job's
 * stdout/stderr files every `interval` seconds (bounded per look) for
 * NCCL's network lines (lib/nccl_log.h), and, for a multi-node GPU job on
 * a node with active fabric ports, compares the ports' data counters
 * with the job's run time as a second signal. A verdict that changes is
 * reported to the controller (MSG_JOB_NCCL). Settings: health.conf's
 * `nccl` line (health_conf.h).
 */
#ifndef SLUICE_NODED_NCCL_WATCH_H
#define SLUICE_NODED_NCCL_WATCH_H

#include <stdint.h>

#include "noded.h"

typedef struct nccl_watch nccl_watch_t;

/* Start watching job m: out_fd/err_fd are the job's own stdout/stderr
 * (opened by the job as its user; -1 unknown), reopened here read-only
 * when they are regular files. NULL when the job is not watched. */
nccl_watch_t *nccl_watch_start(noded_t *nd, const msg_launch_job_t *m, int out_fd, int err_fd);
/* Look when due; returns ms until the next look (-1 when NULL). */
int64_t nccl_watch_tick(nccl_watch_t *w);
/* The job ended: a last look at the rest of its output, the last report,
 * and free. Accepts NULL. */
void nccl_watch_end(nccl_watch_t *w);

#endif
