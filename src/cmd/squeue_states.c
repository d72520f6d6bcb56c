/*
 * squeue_states: the job state names and codes squeue -t accepts, as
 * Slurm 22.05 accepts them (every base state and every state flag, long
 * name or compact code, any case), and the test of a job against them.
 *
 * Flags keep Slurm's bit values (JOB_COMPLETING, JOB_CONFIGURING and
 * JOB_REQUEUE in states.h already do), so a flag the controller sets later
 * is matched here without a change.
 */
#include <string.h>
#include <strings.h>

#include "cmd/print.h"
#include "states.h"

static const struct {
	const char *name, *code;
	uint32_t base, flag;     /* flag != 0: matches jobs with that flag */
} names[] = {
	{ "PENDING", "PD", JOB_PENDING, 0 },
	{ "RUNNING", "R", JOB_RUNNING, 0 },
	{ "SUSPENDED", "S", JOB_SUSPENDED, 0 },
	{ "COMPLETED", "CD", JOB_COMPLETE, 0 },
	{ "CANCELLED", "CA", JOB_CANCELLED, 0 },
	{ "FAILED", "F", JOB_FAILED, 0 },
	{ "TIMEOUT", "TO", JOB_TIMEOUT, 0 },
	{ "NODE_FAIL", "NF", JOB_NODE_FAIL, 0 },
	{ "PREEMPTED", "PR", JOB_PREEMPTED, 0 },
	{ "BOOT_FAIL", "BF", JOB_BOOT_FAIL, 0 },
	{ "DEADLINE", "DL", JOB_DEADLINE, 0 },
	{ "OUT_OF_MEMORY", "OOM", JOB_OOM, 0 },
	{ "REQUEUED", "RQ", 0, JOB_REQUEUE },
	{ "REQUEUE_HOLD", "RH", 0, 0x00000800u },
	{ "SPECIAL_EXIT", "SE", 0, 0x00001000u },
	{ "RESIZING", "RS", 0, 0x00002000u },
	{ "CONFIGURING", "CF", 0, JOB_CONFIGURING },
	{ "COMPLETING", "CG", 0, JOB_COMPLETING },
	{ "STOPPED", "ST", 0, 0x00010000u },
	{ "REVOKED", "RV", 0, 0x00080000u },
	{ "REQUEUE_FED", "RF", 0, 0x00100000u },
	{ "RESV_DEL_HOLD", "RD", 0, 0x00200000u },
	{ "SIGNALING", "SI", 0, 0x00400000u },
	{ "STAGE_OUT", "SO", 0, 0x00800000u },
};

const char squeue_valid_states[] =
	"PENDING,RUNNING,SUSPENDED,COMPLETED,CANCELLED,FAILED,TIMEOUT,NODE_FAIL,"
	"PREEMPTED,BOOT_FAIL,DEADLINE,OUT_OF_MEMORY,COMPLETING,CONFIGURING,RESIZING,"
	"RESV_DEL_HOLD,REQUEUED,REQUEUE_FED,REQUEUE_HOLD,REVOKED,SIGNALING,"
	"SPECIAL_EXIT,STAGE_OUT,STOPPED";

int job_state_sel_parse(const char *s, job_state_sel_t *out)
{
	for (size_t i = 0; s && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(s, names[i].name) || !strcasecmp(s, names[i].code)) {
			out->base = names[i].base;
			out->flag = names[i].flag;
			return 0;
		}
	return -1;
}

int job_state_sel_match(const job_state_sel_t *sel, size_t n, uint32_t state)
{
	for (size_t i = 0; i < n; i++) {
		if (sel[i].flag ? (state & sel[i].flag) != 0 :
				  (state & JOB_STATE_BASE) == sel[i].base)
			return 1;
	}
	return 0;
}

const char *job_state_sel_name(const job_state_sel_t *sel)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].flag == sel->flag && (sel->flag || names[i].base == sel->base))
			return names[i].name;
	return "UNKNOWN";
}
