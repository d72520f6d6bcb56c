/* Unit tests for the end reasons the controller records (job_end in
 * src/ctld/jobs.c), as Slurm 22.05 records them (docs/reasons.md): a
 * non-zero exit is NonZeroExitCode, a signal JobLaunchFailure, a time limit
 * TimeLimit, out of memory OutOfMemory, a cancel while pending keeps the
 * reason it waited for, a cancel while running or a completion None. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "ctld_fixture.h"
#include "errors.h"
#include "tap.h"
#include "timefmt.h"

static char dir[] = "/tmp/test_job_end_reasons.XXXXXX";

static job_t *submit(ctld_t *cd)
{
	job_desc_t *d = xcalloc(1, sizeof(*d));
	d->script = xstrdup("#!/bin/sh\ntrue\n");
	d->work_dir = xstrdup("/tmp");
	d->time_limit = TIME_NO_VAL;
	uint32_t id = 0;
	char *msg = NULL;
	int rc = job_submit(cd, d, 0, 0, &id, &msg);
	free(msg);
	if (rc) {
		proto_free(MSG_SUBMIT, d);
		free(d);
		return NULL;
	}
	return job_find(cd, id);
}

/* End a job (pending, or marked running) and return its reason. */
static uint32_t end_as(ctld_t *cd, int running, uint32_t reason, uint32_t state, uint32_t code)
{
	job_t *j = submit(cd);
	if (!j)
		return UINT32_MAX;
	j->reason = reason;
	if (running)
		j->state = JOB_RUNNING;
	job_end(cd, j, state, code, ctld_now());
	return j->reason;
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	(void)fixture_job;
	ctld_t *cd = fixture_ctld(dir, 2, "");
	char *err = NULL;
	char *dbp = xasprintf("%s/sluice.db", dir);
	if (db_open(cd, dbp, &err)) {
		printf("Bail out! %s\n", err);
		return 1;
	}
	is_int(end_as(cd, 1, 0, JOB_FAILED, 3 << 8), FAIL_EXIT_CODE, "exit 3: NonZeroExitCode");
	is_int(end_as(cd, 1, 0, JOB_FAILED, SIGKILL), FAIL_LAUNCH, "killed by signal 9: JobLaunchFailure");
	is_int(end_as(cd, 1, 0, JOB_TIMEOUT, SIGTERM), FAIL_TIMEOUT, "TIMEOUT: TimeLimit");
	is_int(end_as(cd, 1, 0, JOB_OOM, 125), FAIL_OOM, "OUT_OF_MEMORY: OutOfMemory");
	is_str(job_reason_string(FAIL_OOM), "OutOfMemory", "named as Slurm names it");
	is_int(end_as(cd, 1, 0, JOB_COMPLETE, 0), WAIT_NO_REASON, "completed: None");
	is_int(end_as(cd, 1, 0, JOB_CANCELLED, SIGTERM), WAIT_NO_REASON, "cancelled while running: None");
	is_int(end_as(cd, 0, WAIT_HELD_USER, JOB_CANCELLED, 0), WAIT_HELD_USER,
	       "cancelled while held: keeps JobHeldUser");
	is_int(end_as(cd, 0, WAIT_PRIORITY, JOB_CANCELLED, 0), WAIT_PRIORITY,
	       "cancelled while waiting: keeps Priority");
	db_close(cd);
	free(dbp);
	free(err);
	return done_testing();
}
