/*
 * job_deadline.c: --deadline, as Slurm 22.05's controller applies it.
 *
 * A job must be able to end by its deadline: whenever the scheduler looks
 * at a pending job (not held: a held job waits for its release, as in
 * Slurm) and now + its time limit is past the deadline, the job ends at
 * once with state DEADLINE, reason DeadLine, exit code 0:1, StartTime and
 * EndTime now. A job without a time limit gets TimeMin 1 minute for the
 * check (Slurm shows TimeMin=00:01:00 for it) and, when it starts, a time
 * limit of the whole minutes left until the deadline. A deadline already
 * past at submission is refused (Requested time limit is invalid).
 * (Observed on realslurm: see t/integration/0822-deadline.t.)
 */
#include "ctld/ctld.h"

#include "errors.h"
#include "log.h"
#include "states.h"
#include "timefmt.h"

static int no_limit(uint32_t tl)
{
	return tl == TIME_INFINITE || tl == TIME_NO_VAL || tl == 0;
}

uint32_t job_deadline_time_min(const job_t *j)
{
	/* the limit asked for (a started job's may have been fitted) */
	return j->desc && j->desc->deadline && no_limit(j->desc->time_limit) ? 1 : 0;
}

int job_deadline_submit_check(const job_desc_t *d, int64_t now)
{
	if (d->deadline && d->deadline < now)
		return ESLURM_INVALID_TIME_LIMIT;
	return 0;
}

int job_deadline_missed(const job_t *j, int64_t now)
{
	const job_desc_t *d = j->desc;
	if (!d || !d->deadline)
		return 0;
	uint32_t mins = no_limit(j->time_limit) ? 1 : j->time_limit;
	return now + (int64_t)mins * 60 > d->deadline;
}

int job_deadline_check(ctld_t *cd, job_t *j, int64_t now)
{
	if (!job_deadline_missed(j, now))
		return 0;
	char when[32];
	time_fmt_iso((time_t)j->desc->deadline, when, sizeof(when));
	info("job %u: cannot end before its deadline %s: cancelled", j->job_id, when);
	job_end(cd, j, JOB_DEADLINE, 1, now);
	return 1;
}

void job_deadline_fit(job_t *j, int64_t now)
{
	const job_desc_t *d = j->desc;
	if (!d || !d->deadline || !no_limit(j->time_limit) || d->deadline <= now)
		return;
	j->time_limit = (uint32_t)((d->deadline - now) / 60);
	if (!j->time_limit)
		j->time_limit = 1;
}
