/*
 * states: the names Slurm 22.05 prints for job states, pending reasons and
 * node states, and the parser squeue -t / scancel -t use.
 *
 * Job states print the most significant flag instead of the base state
 * (a completing job shows "COMPLETING"/"CG"). Node states have three forms:
 * sinfo %T (long, lower case, one word with a one-character suffix for the
 * most important flag: "drained*", "idle~", "mixed-"), sinfo %t (compact:
 * "drng", "plnd") and scontrol's "BASE+FLAG+FLAG" ("IDLE+DRAIN"). Whether a
 * drained node reads "draining" or "drained" depends on whether it still
 * runs something: ALLOCATED or MIXED base, or completing.
 */
#include "states.h"

#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <strings.h>

#include "proto.h"
#include "xalloc.h"

/* ---- jobs ---- */

static const char *const job_long[JOB_END] = {
	"PENDING", "RUNNING", "SUSPENDED", "COMPLETED", "CANCELLED", "FAILED",
	"TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE",
	"OUT_OF_MEMORY",
};
static const char *const job_compact[JOB_END] = {
	"PD", "R", "S", "CD", "CA", "F", "TO", "NF", "PR", "BF", "DL", "OOM",
};

/* Flags that replace the base name, most significant first (Slurm order). */
static const struct {
	uint32_t flag;
	const char *name, *compact;
} job_flags[] = {
	{ JOB_COMPLETING, "COMPLETING", "CG" },
	{ JOB_CONFIGURING, "CONFIGURING", "CF" },
	{ JOB_REQUEUE, "REQUEUED", "RQ" },
};

const char *job_state_string(uint32_t state)
{
	for (size_t i = 0; i < sizeof(job_flags) / sizeof(job_flags[0]); i++)
		if (state & job_flags[i].flag)
			return job_flags[i].name;
	uint32_t b = state & JOB_STATE_BASE;
	return b < JOB_END ? job_long[b] : "?";
}

const char *job_state_string_compact(uint32_t state)
{
	for (size_t i = 0; i < sizeof(job_flags) / sizeof(job_flags[0]); i++)
		if (state & job_flags[i].flag)
			return job_flags[i].compact;
	uint32_t b = state & JOB_STATE_BASE;
	return b < JOB_END ? job_compact[b] : "?";
}

int job_state_parse(const char *s)
{
	if (!s)
		return -1;
	for (int i = 0; i < JOB_END; i++)
		if (!strcasecmp(s, job_long[i]) || !strcasecmp(s, job_compact[i]))
			return i;
	for (size_t i = 0; i < sizeof(job_flags) / sizeof(job_flags[0]); i++)
		if (!strcasecmp(s, job_flags[i].name) || !strcasecmp(s, job_flags[i].compact))
			return (int)job_flags[i].flag;
	return -1;
}

static const char *const reasons[WAIT_REASON_END] = {
	[WAIT_NO_REASON] = "None",
	[WAIT_PRIORITY] = "Priority",
	[WAIT_DEPENDENCY] = "Dependency",
	[WAIT_RESOURCES] = "Resources",
	[WAIT_PART_NODE_LIMIT] = "PartitionNodeLimit",
	[WAIT_PART_TIME_LIMIT] = "PartitionTimeLimit",
	[WAIT_PART_DOWN] = "PartitionDown",
	[WAIT_PART_INACTIVE] = "PartitionInactive",
	[WAIT_HELD] = "JobHeldAdmin",
	[WAIT_HELD_USER] = "JobHeldUser",
	[WAIT_TIME] = "BeginTime",
	[WAIT_NODE_NOT_AVAIL] = "ReqNodeNotAvail",
	[WAIT_PART_CONFIG] = "PartitionConfig",
	[WAIT_DEP_INVALID] = "DependencyNeverSatisfied",
	[WAIT_ASSOC_MAX_JOBS] = "AssocMaxJobsLimit",
	[FAIL_LAUNCH] = "JobLaunchFailure",
	[FAIL_EXIT_CODE] = "NonZeroExitCode",
	[FAIL_TIMEOUT] = "TimeLimit",
	[FAIL_DOWN_NODE] = "NodeDown",
	[FAIL_SIGNAL] = "RaisedSignal",
	[WAIT_CLEANING] = "Cleaning",
	[WAIT_HELD_REQUEUE] = "job requeued in held state",
	[WAIT_ASSOC_GRP_JOB] = "AssocGrpJobsLimit",
	[WAIT_ASSOC_GRP_SUB_JOB] = "AssocGrpSubmitJobsLimit",
	[WAIT_ASSOC_GRP_WALL] = "AssocGrpWallLimit",
	[WAIT_ASSOC_MAX_WALL_PER_JOB] = "AssocMaxWallDurationPerJobLimit",
	[WAIT_ASSOC_MAX_SUB_JOB] = "AssocMaxSubmitJobLimit",
	[WAIT_ASSOC_GRP_CPU] = "AssocGrpCpuLimit",
	[WAIT_ASSOC_GRP_MEM] = "AssocGrpMemLimit",
	[WAIT_ASSOC_GRP_NODE] = "AssocGrpNodeLimit",
	[WAIT_ASSOC_GRP_GRES] = "AssocGrpGRES",
	[WAIT_ASSOC_GRP_BILLING] = "AssocGrpBilling",
	[WAIT_ASSOC_GRP_CPU_MIN] = "AssocGrpCPUMinutesLimit",
	[WAIT_ASSOC_GRP_MEM_MIN] = "AssocGrpMemMinutes",
	[WAIT_ASSOC_GRP_NODE_MIN] = "AssocGrpNodeMinutes",
	[WAIT_ASSOC_GRP_GRES_MIN] = "AssocGrpGRESMinutes",
	[WAIT_ASSOC_GRP_BILLING_MIN] = "AssocGrpBillingMinutes",
	[WAIT_ASSOC_GRP_CPU_RUN_MIN] = "AssocGrpCPURunMinutesLimit",
	[WAIT_ASSOC_GRP_MEM_RUN_MIN] = "AssocGrpMemRunMinutes",
	[WAIT_ASSOC_GRP_NODE_RUN_MIN] = "AssocGrpNodeRunMinutes",
	[WAIT_ASSOC_GRP_GRES_RUN_MIN] = "AssocGrpGRESRunMinutes",
	[WAIT_ASSOC_GRP_BILLING_RUN_MIN] = "AssocGrpBillingRunMinutes",
	[WAIT_ASSOC_MAX_CPU_PER_JOB] = "AssocMaxCpuPerJobLimit",
	[WAIT_ASSOC_MAX_MEM_PER_JOB] = "AssocMaxMemPerJob",
	[WAIT_ASSOC_MAX_NODE_PER_JOB] = "AssocMaxNodePerJobLimit",
	[WAIT_ASSOC_MAX_GRES_PER_JOB] = "AssocMaxGRESPerJob",
	[WAIT_ASSOC_MAX_BILLING_PER_JOB] = "AssocMaxBillingPerJob",
	[WAIT_ASSOC_MAX_CPU_PER_NODE] = "AssocMaxCpuPerNode",
	[WAIT_ASSOC_MAX_MEM_PER_NODE] = "AssocMaxMemPerNode",
	[WAIT_ASSOC_MAX_GRES_PER_NODE] = "AssocMaxGRESPerNode",
	[WAIT_ASSOC_MAX_BILLING_PER_NODE] = "AssocMaxBillingPerNode",
	[WAIT_ASSOC_MAX_CPU_MINS_PER_JOB] = "AssocMaxCpuMinutesPerJobLimit",
	[WAIT_ASSOC_MAX_MEM_MINS_PER_JOB] = "AssocMaxMemMinutesPerJob",
	[WAIT_ASSOC_MAX_NODE_MINS_PER_JOB] = "AssocMaxNodeMinutesPerJob",
	[WAIT_ASSOC_MAX_GRES_MINS_PER_JOB] = "AssocMaxGRESMinutesPerJob",
	[WAIT_ASSOC_MAX_BILLING_MINS_PER_JOB] = "AssocMaxBillingMinutesPerJob",
	[WAIT_QOS_GRP_JOB] = "QOSGrpJobsLimit",
	[WAIT_QOS_GRP_SUB_JOB] = "QOSGrpSubmitJobsLimit",
	[WAIT_QOS_GRP_WALL] = "QOSGrpWallLimit",
	[WAIT_QOS_MAX_WALL_PER_JOB] = "QOSMaxWallDurationPerJobLimit",
	[WAIT_QOS_MAX_JOB_PER_USER] = "QOSMaxJobsPerUserLimit",
	[WAIT_QOS_MAX_SUB_JOB] = "QOSMaxSubmitJobPerUserLimit",
	[WAIT_QOS_MAX_JOB_PER_ACCT] = "MaxJobsPerAccount",
	[WAIT_QOS_MAX_SUB_JOB_PER_ACCT] = "MaxSubmitJobsPerAccount",
	[WAIT_QOS_GRP_CPU] = "QOSGrpCpuLimit",
	[WAIT_QOS_GRP_MEM] = "QOSGrpMemLimit",
	[WAIT_QOS_GRP_NODE] = "QOSGrpNodeLimit",
	[WAIT_QOS_GRP_GRES] = "QOSGrpGRES",
	[WAIT_QOS_GRP_BILLING] = "QOSGrpBilling",
	[WAIT_QOS_GRP_CPU_MIN] = "QOSGrpCPUMinutesLimit",
	[WAIT_QOS_GRP_MEM_MIN] = "QOSGrpMemoryMinutes",
	[WAIT_QOS_GRP_NODE_MIN] = "QOSGrpNodeMinutes",
	[WAIT_QOS_GRP_GRES_MIN] = "QOSGrpGRESMinutes",
	[WAIT_QOS_GRP_BILLING_MIN] = "QOSGrpBillingMinutes",
	[WAIT_QOS_GRP_CPU_RUN_MIN] = "QOSGrpCPURunMinutesLimit",
	[WAIT_QOS_GRP_MEM_RUN_MIN] = "QOSGrpMemoryRunMinutes",
	[WAIT_QOS_GRP_NODE_RUN_MIN] = "QOSGrpNodeRunMinutes",
	[WAIT_QOS_GRP_GRES_RUN_MIN] = "QOSGrpGRESRunMinutes",
	[WAIT_QOS_GRP_BILLING_RUN_MIN] = "QOSGrpBillingRunMinutes",
	[WAIT_QOS_MAX_CPU_PER_JOB] = "QOSMaxCpuPerJobLimit",
	[WAIT_QOS_MAX_MEM_PER_JOB] = "QOSMaxMemoryPerJob",
	[WAIT_QOS_MAX_NODE_PER_JOB] = "QOSMaxNodePerJobLimit",
	[WAIT_QOS_MAX_GRES_PER_JOB] = "QOSMaxGRESPerJob",
	[WAIT_QOS_MAX_BILLING_PER_JOB] = "QOSMaxBillingPerJob",
	[WAIT_QOS_MAX_CPU_PER_NODE] = "QOSMaxCpuPerNode",
	[WAIT_QOS_MAX_MEM_PER_NODE] = "QOSMaxMemoryPerNode",
	[WAIT_QOS_MAX_GRES_PER_NODE] = "QOSMaxGRESPerNode",
	[WAIT_QOS_MAX_BILLING_PER_NODE] = "QOSMaxBillingPerNode",
	[WAIT_QOS_MAX_CPU_MINS_PER_JOB] = "QOSMaxCpuMinutesPerJobLimit",
	[WAIT_QOS_MAX_MEM_MINS_PER_JOB] = "QOSMaxMemoryMinutesPerJob",
	[WAIT_QOS_MAX_NODE_MINS_PER_JOB] = "QOSMaxNodeMinutesPerJob",
	[WAIT_QOS_MAX_GRES_MINS_PER_JOB] = "QOSMaxGRESMinutesPerJob",
	[WAIT_QOS_MAX_BILLING_MINS_PER_JOB] = "QOSMaxBillingMinutesPerJob",
	[WAIT_QOS_MAX_CPU_PER_USER] = "QOSMaxCpuPerUserLimit",
	[WAIT_QOS_MAX_MEM_PER_USER] = "QOSMaxMemoryPerUser",
	[WAIT_QOS_MAX_NODE_PER_USER] = "QOSMaxNodePerUserLimit",
	[WAIT_QOS_MAX_GRES_PER_USER] = "QOSMaxGRESPerUser",
	[WAIT_QOS_MAX_BILLING_PER_USER] = "QOSMaxBillingPerUser",
	[WAIT_QOS_MAX_CPU_PER_ACCT] = "MaxCpuPerAccount",
	[WAIT_QOS_MAX_MEM_PER_ACCT] = "MaxMemoryPerAccount",
	[WAIT_QOS_MAX_NODE_PER_ACCT] = "MaxNodePerAccount",
	[WAIT_QOS_MAX_GRES_PER_ACCT] = "MaxGRESPerAccount",
	[WAIT_QOS_MAX_BILLING_PER_ACCT] = "MaxBillingPerAccount",
	[WAIT_QOS_MIN_CPU] = "QOSMinCpuNotSatisfied",
	[WAIT_QOS_MIN_MEM] = "QOSMinMemory",
	[WAIT_QOS_MIN_NODE] = "QOSMinNode",
	[WAIT_QOS_MIN_GRES] = "QOSMinGRES",
	[WAIT_QOS_MIN_BILLING] = "QOSMinBilling",
	[WAIT_ARRAY_TASK_LIMIT] = "JobArrayTaskLimit",
	[FAIL_OOM] = "OutOfMemory",
	[FAIL_DEADLINE] = "DeadLine",
	[WAIT_PROLOG] = "Prolog",
	[WAIT_RESERVATION] = "Reservation",
};

const char *job_reason_string(uint32_t reason)
{
	if (reason < WAIT_REASON_END && reasons[reason])
		return reasons[reason];
	return "?";
}

/* ---- nodes ---- */

/* One printable node state: a long and a compact stem plus the suffix
 * character, chosen as Slurm's node_state_string() chooses them. */
struct node_name {
	const char *lng, *cmp;
	char suffix;             /* 0 for none */
};

/* The one-character suffix for the most important secondary flag. */
static char node_suffix(uint32_t s)
{
	if (s & NODE_FLAG_MAINT)
		return '$';
	if (s & NODE_FLAG_REBOOT)
		return '@';
	if (s & NODE_FLAG_POWERING_UP)
		return '#';
	if (s & NODE_FLAG_POWERED_DOWN)
		return '~';
	if (s & NODE_FLAG_POWER_DOWN)
		return '!';
	if (s & NODE_FLAG_NO_RESPOND)
		return '*';
	return 0;
}

static struct node_name node_name(uint32_t s)
{
	uint32_t base = s & NODE_STATE_BASE;
	int busy = base == NODE_ALLOCATED || base == NODE_MIXED;
	int comp = (s & NODE_FLAG_COMPLETING) != 0;
	int no_resp = (s & NODE_FLAG_NO_RESPOND) != 0;
	char suf = node_suffix(s);
	struct node_name n = { NULL, NULL, 0 };

	/* A node that registered with less than configured shows INVAL
	 * whatever else it is (it is drained as well). */
	if (s & NODE_FLAG_INVALID_REG)
		return (struct node_name){ "INVAL", "INVAL", no_resp ? '*' : 0 };
	if ((s & NODE_FLAG_MAINT) && !(s & NODE_FLAG_DRAIN) && !busy && base != NODE_DOWN)
		return (struct node_name){ "MAINT", "MAINT", no_resp ? '*' : 0 };
	if ((s & NODE_FLAG_REBOOT) && !busy)
		return (struct node_name){ "REBOOT", "BOOT", no_resp ? '*' : 0 };
	if (s & NODE_FLAG_DRAIN) {
		if (comp || busy)
			return (struct node_name){ "DRAINING", "DRNG", suf };
		return (struct node_name){ "DRAINED", "DRAIN", suf };
	}
	if (s & NODE_FLAG_FAIL) {
		if (comp || base == NODE_ALLOCATED)
			return (struct node_name){ "FAILING", "FAILG", no_resp ? '*' : 0 };
		return (struct node_name){ "FAIL", "FAIL", no_resp ? '*' : 0 };
	}
	switch (base) {
	case NODE_DOWN:
		return (struct node_name){ "DOWN", "DOWN", suf };
	case NODE_ALLOCATED:
		return (struct node_name){ "ALLOCATED", "ALLOC", suf ? suf : comp ? '+' : 0 };
	default:
		break;
	}
	if (comp)
		return (struct node_name){ "COMPLETING", "COMP", suf };
	switch (base) {
	case NODE_IDLE:
		if (!suf && (s & NODE_FLAG_RESERVED))
			return (struct node_name){ "RESERVED", "RESV", 0 };
		if (!suf && (s & NODE_FLAG_PLANNED))
			return (struct node_name){ "PLANNED", "PLND", 0 };
		return (struct node_name){ "IDLE", "IDLE", suf };
	case NODE_MIXED:
		return (struct node_name){ "MIXED", "MIX",
			suf ? suf : (s & NODE_FLAG_PLANNED) ? '-' : 0 };
	case NODE_FUTURE:
		return (struct node_name){ "FUTURE", "FUTR", suf };
	case NODE_UNKNOWN:
		return (struct node_name){ "UNKNOWN", "UNK", no_resp ? '*' : 0 };
	default:
		break;
	}
	n.lng = n.cmp = "?";
	return n;
}

static const char *lower_into(const char *stem, char suffix, char *buf, int len)
{
	if (len <= 0)
		return "";
	int i = 0;
	for (; stem[i] && i < len - 1; i++)
		buf[i] = (char)(stem[i] >= 'A' && stem[i] <= 'Z' ? stem[i] - 'A' + 'a' : stem[i]);
	if (suffix && i < len - 1)
		buf[i++] = suffix;
	buf[i] = '\0';
	return buf;
}

const char *node_state_string(uint32_t state, char *buf, int len)
{
	struct node_name n = node_name(state);
	return lower_into(n.lng, n.suffix, buf, len);
}

const char *node_state_string_compact(uint32_t state, char *buf, int len)
{
	struct node_name n = node_name(state);
	return lower_into(n.cmp, n.suffix, buf, len);
}

const char *node_state_string_scontrol(uint32_t state, char *buf, int len)
{
	static const char *const base_names[NODE_BASE_END] = {
		"UNKNOWN", "DOWN", "IDLE", "ALLOCATED", "ERROR", "MIXED", "FUTURE",
	};
	/* Slurm's order for "+FLAG" parts */
	static const struct { uint32_t flag; const char *name; } flags[] = {
		{ NODE_FLAG_COMPLETING, "COMPLETING" },
		{ NODE_FLAG_DRAIN, "DRAIN" },
		{ NODE_FLAG_INVALID_REG, "INVALID_REG" },
		{ NODE_FLAG_FAIL, "FAIL" },
		{ NODE_FLAG_MAINT, "MAINTENANCE" },
		{ NODE_FLAG_POWER_DOWN, "POWER_DOWN" },
		{ NODE_FLAG_POWERED_DOWN, "POWERED_DOWN" },
		{ NODE_FLAG_REBOOT, "REBOOT_REQUESTED" },
		{ NODE_FLAG_RESERVED, "RESERVED" },
		{ NODE_FLAG_NO_RESPOND, "NOT_RESPONDING" },
		{ NODE_FLAG_PLANNED, "PLANNED" },
		{ NODE_FLAG_POWERING_UP, "POWERING_UP" },
	};
	if (len <= 0)
		return "";
	uint32_t b = state & NODE_STATE_BASE;
	int n = snprintf(buf, (size_t)len, "%s", b < NODE_BASE_END ? base_names[b] : "INVALID");
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		if (!(state & flags[i].flag))
			continue;
		if (n < 0 || n >= len)
			break;
		n += snprintf(buf + n, (size_t)(len - n), "+%s", flags[i].name);
	}
	return buf;
}

/* scontrol's rule: the value may abbreviate the keyword down to 3 letters
 * but may not be longer than it. */
static int kw_prefix(const char *val, const char *kw, size_t min)
{
	size_t len = strlen(val);
	if (len < min)
		len = min;
	return !strncasecmp(val, kw, len);
}

int node_update_state_parse(const char *s)
{
	static const struct { const char *kw; size_t min; int st; } kws[] = {
		{ "NoResp", 3, NODE_UPD_NORESP },
		{ "CANCEL_REBOOT", 3, NODE_UPD_CANCEL_REBOOT },
		{ "DRAIN", 3, NODE_UPD_DRAIN },
		{ "FAIL", 3, NODE_UPD_FAIL },
		{ "FUTURE", 3, NODE_UPD_FUTURE },
		{ "RESUME", 3, NODE_UPD_RESUME },
		{ "POWER_DOWN_ASAP", 12, NODE_UPD_POWER_DOWN_ASAP },
		{ "POWER_DOWN_FORCE", 12, NODE_UPD_POWER_DOWN_FORCE },
		{ "POWER_DOWN", 7, NODE_UPD_POWER_DOWN },
		{ "POWER_UP", 7, NODE_UPD_POWER_UP },
		{ "UNDRAIN", 3, NODE_UPD_UNDRAIN },
		/* then the base state names, in Slurm's order */
		{ "UNKNOWN", 3, NODE_UPD_UNKNOWN },
		{ "DOWN", 3, NODE_UPD_DOWN },
		{ "IDLE", 3, NODE_UPD_IDLE },
		{ "ALLOCATED", 3, NODE_UPD_ALLOCATED },
		/* no "ERROR": 22.05.8 names that state "?", so scontrol
		 * refuses state=error as invalid input (checked) */
		{ "MIXED", 3, NODE_UPD_MIXED },
		{ "FUTURE", 3, NODE_UPD_FUTURE },
	};
	if (!s)
		return -1;
	for (size_t i = 0; i < sizeof(kws) / sizeof(kws[0]); i++)
		if (kw_prefix(s, kws[i].kw, kws[i].min))
			return kws[i].st;
	return -1;
}

/* ---- --mail-type ---- */

static const struct { const char *name; uint32_t bits; } mail_names[] = {
	{ "NONE", 0 }, { "BEGIN", MAIL_BEGIN }, { "END", MAIL_END }, { "FAIL", MAIL_FAIL },
	{ "REQUEUE", MAIL_REQUEUE }, { "INVALID_DEPEND", MAIL_INVALID_DEPEND },
	{ "STAGE_OUT", MAIL_STAGE_OUT }, { "TIME_LIMIT", MAIL_TIME_LIMIT },
	{ "TIME_LIMIT_90", MAIL_TIME_LIMIT_90 }, { "TIME_LIMIT_80", MAIL_TIME_LIMIT_80 },
	{ "TIME_LIMIT_50", MAIL_TIME_LIMIT_50 }, { "ARRAY_TASKS", MAIL_ARRAY_TASKS },
	{ "ALL", MAIL_BEGIN | MAIL_END | MAIL_FAIL | MAIL_REQUEUE | MAIL_INVALID_DEPEND |
		 MAIL_STAGE_OUT },
};

int mail_type_parse(const char *s, uint32_t *bits)
{
	char *copy = xstrdup(s ? s : ""), *save = NULL;
	int known = 0;
	uint32_t b = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		for (size_t i = 0; i < sizeof(mail_names) / sizeof(mail_names[0]); i++) {
			if (!strcasecmp(t, mail_names[i].name)) {
				b |= mail_names[i].bits;
				known = 1;
				break;
			}
		}
	}
	free(copy);
	if (!known)
		return -1;
	*bits = b | MAIL_SET;
	return 0;
}

