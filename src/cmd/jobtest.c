/*
 * jobtest: sbatch/srun --test-only. The description goes to the
 * controller flagged JOB_F_TEST_ONLY; it answers from the backfill plan
 * (sched_will_run) and keeps nothing. Printed as Slurm 22.05 prints it
 * (captured on realslurm): on stderr,
 *   sbatch: Job 8 to start at 2026-12-01T18:33:54 using 1 processors on
 *   nodes comp001 in partition defq
 * or, when the job could never run, "allocation failure: REASON" (no
 * program prefix, printed even with -Q) and exit status 1.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cmd/cmdutil.h"
#include "cmd/jobopts.h"
#include "errors.h"
#include "log.h"
#include "net.h"
#include "timefmt.h"

int jobopts_test_only(jobopts_t *o)
{
	enum msg_type rtype = MSG_NONE;
	void *reply = NULL;
	o->desc.flags |= JOB_F_TEST_ONLY;
	int err = cmd_submit(&o->desc, &rtype, &reply);
	if (!err && rtype == MSG_SUBMIT_REPLY) {
		msg_submit_reply_t *sr = reply;
		/* the invalid partition line comes first, as Slurm's */
		if (sr->rc && sr->msg && *sr->msg && strcmp(sr->msg, slurm_strerror(sr->rc)))
			error("%s", sr->msg);
		err = sr->rc;
		if (!err) {
			char when[32];
			time_fmt_iso((time_t)sr->start_time, when, sizeof(when));
			info("Job %u to start at %s using %u processors on nodes %s in partition %s",
			     sr->job_id, when, sr->test_cpus, sr->test_nodes ? sr->test_nodes : "",
			     sr->test_partition ? sr->test_partition : "");
		}
	} else if (!err && rtype == MSG_RC) {
		err = ((msg_rc_t *)reply)->rc ? ((msg_rc_t *)reply)->rc : SLUICE_E_PROTOCOL;
	} else if (!err) {
		err = SLUICE_E_PROTOCOL;
	}
	if (reply)
		proto_msg_destroy(rtype, reply);
	if (err) {
		fprintf(stderr, "allocation failure: %s\n", slurm_strerror(err));
		return 1;
	}
	return 0;
}
