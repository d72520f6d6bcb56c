/*
 * states: job states, job pending reasons and node states, with the names
 * Slurm prints for them (long, short/compact), and parsers for user input.
 */
#ifndef SLUICE_STATES_H
#define SLUICE_STATES_H

#include <stdint.h>

/* Job base states (low byte), in Slurm's order. */
enum job_state_base {
	JOB_PENDING = 0, JOB_RUNNING, JOB_SUSPENDED, JOB_COMPLETE, JOB_CANCELLED,
	JOB_FAILED, JOB_TIMEOUT, JOB_NODE_FAIL, JOB_PREEMPTED, JOB_BOOT_FAIL,
	JOB_DEADLINE, JOB_OOM, JOB_END
};
#define JOB_STATE_BASE   0x000000ffu
#define JOB_COMPLETING   0x00008000u  /* flag: epilog/cleanup running */
#define JOB_CONFIGURING  0x00004000u
#define JOB_REQUEUE      0x00000400u
#define JOB_IS_FINISHED(s) (((s) & JOB_STATE_BASE) >= JOB_COMPLETE)

/* "PENDING", "RUNNING", "COMPLETED", "CANCELLED", ..., "COMPLETING" when
 * the completing flag is set (as squeue %T / scontrol JobState). */
const char *job_state_string(uint32_t state);
/* "PD", "R", "CD", "CA", "F", "TO", "NF", "CG", ... (squeue %t). */
const char *job_state_string_compact(uint32_t state);
/* Parse a state name for squeue -t / scancel -t: long or compact form,
 * case-insensitive; returns base state (or JOB_COMPLETING flag) or -1. */
int job_state_parse(const char *s);

/* Pending reasons (JobState=PENDING Reason=...). */
enum job_reason {
	WAIT_NO_REASON = 0,     /* "None" */
	WAIT_PRIORITY,          /* "Priority" */
	WAIT_DEPENDENCY,        /* "Dependency" */
	WAIT_RESOURCES,         /* "Resources" */
	WAIT_PART_NODE_LIMIT,   /* "PartitionNodeLimit" */
	WAIT_PART_TIME_LIMIT,   /* "PartitionTimeLimit" */
	WAIT_PART_DOWN,         /* "PartitionDown" */
	WAIT_PART_INACTIVE,     /* "PartitionInactive" */
	WAIT_HELD,              /* "JobHeldAdmin" */
	WAIT_HELD_USER,         /* "JobHeldUser" */
	WAIT_TIME,              /* "BeginTime" */
	WAIT_NODE_NOT_AVAIL,    /* "ReqNodeNotAvail" */
	WAIT_PART_CONFIG,       /* "PartitionConfig" */
	WAIT_DEP_INVALID,       /* "DependencyNeverSatisfied" */
	WAIT_ASSOC_MAX_JOBS,    /* "AssocMaxJobsLimit" */
	FAIL_LAUNCH,            /* "JobLaunchFailure" */
	FAIL_EXIT_CODE,         /* "NonZeroExitCode" */
	FAIL_TIMEOUT,           /* "TimeLimit" */
	FAIL_DOWN_NODE,         /* "NodeDown" */
	FAIL_SIGNAL,            /* "RaisedSignal" */
	WAIT_CLEANING,          /* "Cleaning" */
	WAIT_REASON_END
};
const char *job_reason_string(uint32_t reason);

/* Node base states (low 4 bits) and flags. */
enum node_state_base {
	NODE_UNKNOWN = 0, NODE_DOWN, NODE_IDLE, NODE_ALLOCATED, NODE_ERROR,
	NODE_MIXED, NODE_FUTURE, NODE_BASE_END
};
#define NODE_STATE_BASE      0x0000000fu
#define NODE_FLAG_DRAIN      0x00000200u
#define NODE_FLAG_COMPLETING 0x00000400u
#define NODE_FLAG_NO_RESPOND 0x00000800u
#define NODE_FLAG_FAIL       0x00002000u
#define NODE_FLAG_POWERED_DOWN 0x00004000u
#define NODE_FLAG_POWERING_UP  0x00008000u
#define NODE_FLAG_MAINT      0x00010000u
#define NODE_FLAG_REBOOT     0x00020000u
#define NODE_FLAG_PLANNED    0x00040000u
#define NODE_FLAG_RESERVED   0x00080000u
#define NODE_FLAG_INVALID_REG 0x00100000u  /* registered with less than configured */
#define NODE_FLAG_POWER_DOWN  0x00200000u  /* power down requested, not done yet */

/* Long lower-case name as sinfo %T prints ("idle", "mixed", "allocated",
 * "draining", "drained", "down", "planned", "completing", "unknown", ...)
 * with "*" appended when NO_RESPOND. */
const char *node_state_string(uint32_t state, char *buf, int len);
/* Short name as sinfo %t prints ("idle", "mix", "alloc", "drng", "drain",
 * "down*", "plnd", "comp", "unk", ...). */
const char *node_state_string_compact(uint32_t state, char *buf, int len);
/* Upper-case form as scontrol show node State= prints
 * ("IDLE", "MIXED", "IDLE+DRAIN", "DOWN+NOT_RESPONDING", "ALLOCATED+DRAIN"). */
const char *node_state_string_scontrol(uint32_t state, char *buf, int len);

/* Parse a State= value of `scontrol update node` as scontrol does: a
 * case-insensitive prefix of at least 3 letters of a keyword (NoResp,
 * DRAIN, FAIL, FUTURE, RESUME, POWER_DOWN[_ASAP|_FORCE], POWER_UP, UNDRAIN,
 * CANCEL_REBOOT) or of a base state name (DOWN, IDLE, ...). Returns one of
 * enum node_update_state, or -1 when nothing matches. */
enum node_update_state {
	NODE_UPD_NORESP = 1, NODE_UPD_CANCEL_REBOOT, NODE_UPD_DRAIN, NODE_UPD_FAIL,
	NODE_UPD_FUTURE, NODE_UPD_RESUME, NODE_UPD_POWER_DOWN_ASAP,
	NODE_UPD_POWER_DOWN_FORCE, NODE_UPD_POWER_DOWN, NODE_UPD_POWER_UP,
	NODE_UPD_UNDRAIN, NODE_UPD_UNKNOWN, NODE_UPD_DOWN, NODE_UPD_IDLE,
	NODE_UPD_ALLOCATED, NODE_UPD_ERROR, NODE_UPD_MIXED,
};
int node_update_state_parse(const char *s);

#endif
