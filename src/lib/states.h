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
	/* Accounting limits (AccountingStorageEnforce=limits): Slurm's names. */
	WAIT_ASSOC_GRP_JOB,                /* "AssocGrpJobsLimit" */
	WAIT_ASSOC_GRP_SUB_JOB,            /* "AssocGrpSubmitJobsLimit" */
	WAIT_ASSOC_GRP_WALL,               /* "AssocGrpWallLimit" */
	WAIT_ASSOC_MAX_WALL_PER_JOB,       /* "AssocMaxWallDurationPerJobLimit" */
	WAIT_ASSOC_MAX_SUB_JOB,            /* "AssocMaxSubmitJobLimit" */
	WAIT_ASSOC_GRP_CPU,                /* "AssocGrpCpuLimit" */
	WAIT_ASSOC_GRP_MEM,                /* "AssocGrpMemLimit" */
	WAIT_ASSOC_GRP_NODE,               /* "AssocGrpNodeLimit" */
	WAIT_ASSOC_GRP_GRES,               /* "AssocGrpGRES" */
	WAIT_ASSOC_GRP_BILLING,            /* "AssocGrpBilling" */
	WAIT_ASSOC_GRP_CPU_MIN,            /* "AssocGrpCPUMinutesLimit" */
	WAIT_ASSOC_GRP_MEM_MIN,            /* "AssocGrpMemMinutes" */
	WAIT_ASSOC_GRP_NODE_MIN,           /* "AssocGrpNodeMinutes" */
	WAIT_ASSOC_GRP_GRES_MIN,           /* "AssocGrpGRESMinutes" */
	WAIT_ASSOC_GRP_BILLING_MIN,        /* "AssocGrpBillingMinutes" */
	WAIT_ASSOC_GRP_CPU_RUN_MIN,        /* "AssocGrpCPURunMinutesLimit" */
	WAIT_ASSOC_GRP_MEM_RUN_MIN,        /* "AssocGrpMemRunMinutes" */
	WAIT_ASSOC_GRP_NODE_RUN_MIN,       /* "AssocGrpNodeRunMinutes" */
	WAIT_ASSOC_GRP_GRES_RUN_MIN,       /* "AssocGrpGRESRunMinutes" */
	WAIT_ASSOC_GRP_BILLING_RUN_MIN,    /* "AssocGrpBillingRunMinutes" */
	WAIT_ASSOC_MAX_CPU_PER_JOB,        /* "AssocMaxCpuPerJobLimit" */
	WAIT_ASSOC_MAX_MEM_PER_JOB,        /* "AssocMaxMemPerJob" */
	WAIT_ASSOC_MAX_NODE_PER_JOB,       /* "AssocMaxNodePerJobLimit" */
	WAIT_ASSOC_MAX_GRES_PER_JOB,       /* "AssocMaxGRESPerJob" */
	WAIT_ASSOC_MAX_BILLING_PER_JOB,    /* "AssocMaxBillingPerJob" */
	WAIT_ASSOC_MAX_CPU_PER_NODE,       /* "AssocMaxCpuPerNode" */
	WAIT_ASSOC_MAX_MEM_PER_NODE,       /* "AssocMaxMemPerNode" */
	WAIT_ASSOC_MAX_GRES_PER_NODE,      /* "AssocMaxGRESPerNode" */
	WAIT_ASSOC_MAX_BILLING_PER_NODE,   /* "AssocMaxBillingPerNode" */
	WAIT_ASSOC_MAX_CPU_MINS_PER_JOB,   /* "AssocMaxCpuMinutesPerJobLimit" */
	WAIT_ASSOC_MAX_MEM_MINS_PER_JOB,   /* "AssocMaxMemMinutesPerJob" */
	WAIT_ASSOC_MAX_NODE_MINS_PER_JOB,  /* "AssocMaxNodeMinutesPerJob" */
	WAIT_ASSOC_MAX_GRES_MINS_PER_JOB,  /* "AssocMaxGRESMinutesPerJob" */
	WAIT_ASSOC_MAX_BILLING_MINS_PER_JOB, /* "AssocMaxBillingMinutesPerJob" */
	WAIT_QOS_GRP_JOB,                  /* "QOSGrpJobsLimit" */
	WAIT_QOS_GRP_SUB_JOB,              /* "QOSGrpSubmitJobsLimit" */
	WAIT_QOS_GRP_WALL,                 /* "QOSGrpWallLimit" */
	WAIT_QOS_MAX_WALL_PER_JOB,         /* "QOSMaxWallDurationPerJobLimit" */
	WAIT_QOS_MAX_JOB_PER_USER,         /* "QOSMaxJobsPerUserLimit" */
	WAIT_QOS_MAX_SUB_JOB,              /* "QOSMaxSubmitJobPerUserLimit" */
	WAIT_QOS_MAX_JOB_PER_ACCT,         /* "MaxJobsPerAccount" */
	WAIT_QOS_MAX_SUB_JOB_PER_ACCT,     /* "MaxSubmitJobsPerAccount" */
	WAIT_QOS_GRP_CPU,                  /* "QOSGrpCpuLimit" */
	WAIT_QOS_GRP_MEM,                  /* "QOSGrpMemLimit" */
	WAIT_QOS_GRP_NODE,                 /* "QOSGrpNodeLimit" */
	WAIT_QOS_GRP_GRES,                 /* "QOSGrpGRES" */
	WAIT_QOS_GRP_BILLING,              /* "QOSGrpBilling" */
	WAIT_QOS_GRP_CPU_MIN,              /* "QOSGrpCPUMinutesLimit" */
	WAIT_QOS_GRP_MEM_MIN,              /* "QOSGrpMemoryMinutes" */
	WAIT_QOS_GRP_NODE_MIN,             /* "QOSGrpNodeMinutes" */
	WAIT_QOS_GRP_GRES_MIN,             /* "QOSGrpGRESMinutes" */
	WAIT_QOS_GRP_BILLING_MIN,          /* "QOSGrpBillingMinutes" */
	WAIT_QOS_GRP_CPU_RUN_MIN,          /* "QOSGrpCPURunMinutesLimit" */
	WAIT_QOS_GRP_MEM_RUN_MIN,          /* "QOSGrpMemoryRunMinutes" */
	WAIT_QOS_GRP_NODE_RUN_MIN,         /* "QOSGrpNodeRunMinutes" */
	WAIT_QOS_GRP_GRES_RUN_MIN,         /* "QOSGrpGRESRunMinutes" */
	WAIT_QOS_GRP_BILLING_RUN_MIN,      /* "QOSGrpBillingRunMinutes" */
	WAIT_QOS_MAX_CPU_PER_JOB,          /* "QOSMaxCpuPerJobLimit" */
	WAIT_QOS_MAX_MEM_PER_JOB,          /* "QOSMaxMemoryPerJob" */
	WAIT_QOS_MAX_NODE_PER_JOB,         /* "QOSMaxNodePerJobLimit" */
	WAIT_QOS_MAX_GRES_PER_JOB,         /* "QOSMaxGRESPerJob" */
	WAIT_QOS_MAX_BILLING_PER_JOB,      /* "QOSMaxBillingPerJob" */
	WAIT_QOS_MAX_CPU_PER_NODE,         /* "QOSMaxCpuPerNode" */
	WAIT_QOS_MAX_MEM_PER_NODE,         /* "QOSMaxMemoryPerNode" */
	WAIT_QOS_MAX_GRES_PER_NODE,        /* "QOSMaxGRESPerNode" */
	WAIT_QOS_MAX_BILLING_PER_NODE,     /* "QOSMaxBillingPerNode" */
	WAIT_QOS_MAX_CPU_MINS_PER_JOB,     /* "QOSMaxCpuMinutesPerJobLimit" */
	WAIT_QOS_MAX_MEM_MINS_PER_JOB,     /* "QOSMaxMemoryMinutesPerJob" */
	WAIT_QOS_MAX_NODE_MINS_PER_JOB,    /* "QOSMaxNodeMinutesPerJob" */
	WAIT_QOS_MAX_GRES_MINS_PER_JOB,    /* "QOSMaxGRESMinutesPerJob" */
	WAIT_QOS_MAX_BILLING_MINS_PER_JOB, /* "QOSMaxBillingMinutesPerJob" */
	WAIT_QOS_MAX_CPU_PER_USER,         /* "QOSMaxCpuPerUserLimit" */
	WAIT_QOS_MAX_MEM_PER_USER,         /* "QOSMaxMemoryPerUser" */
	WAIT_QOS_MAX_NODE_PER_USER,        /* "QOSMaxNodePerUserLimit" */
	WAIT_QOS_MAX_GRES_PER_USER,        /* "QOSMaxGRESPerUser" */
	WAIT_QOS_MAX_BILLING_PER_USER,     /* "QOSMaxBillingPerUser" */
	WAIT_QOS_MAX_CPU_PER_ACCT,         /* "MaxCpuPerAccount" */
	WAIT_QOS_MAX_MEM_PER_ACCT,         /* "MaxMemoryPerAccount" */
	WAIT_QOS_MAX_NODE_PER_ACCT,        /* "MaxNodePerAccount" */
	WAIT_QOS_MAX_GRES_PER_ACCT,        /* "MaxGRESPerAccount" */
	WAIT_QOS_MAX_BILLING_PER_ACCT,     /* "MaxBillingPerAccount" */
	WAIT_QOS_MIN_CPU,                  /* "QOSMinCpuNotSatisfied" */
	WAIT_QOS_MIN_MEM,                  /* "QOSMinMemory" */
	WAIT_QOS_MIN_NODE,                 /* "QOSMinNode" */
	WAIT_QOS_MIN_GRES,                 /* "QOSMinGRES" */
	WAIT_QOS_MIN_BILLING,              /* "QOSMinBilling" */
	WAIT_HELD_REQUEUE,      /* scontrol requeuehold: Slurm's state_desc
	                         * "job requeued in held state" */
	WAIT_ARRAY_TASK_LIMIT,             /* "JobArrayTaskLimit" */
	FAIL_OOM,               /* "OutOfMemory": ended OUT_OF_MEMORY */
	FAIL_DEADLINE,                     /* "DeadLine": --deadline passed */
	WAIT_PROLOG,            /* "Prolog": CONFIGURING while the nodes' Prolog
	                         * runs (PrologFlags=Alloc) */
	WAIT_RESERVATION,       /* "Reservation": its --reservation has not
	                         * started yet */
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
/* The controller's own: the DRAIN was set by a health check (ctld/
 * node_health.c), so passing checks lift it. Never sent to clients. */
#define NODE_FLAG_HEALTH_DRAIN 0x00400000u

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

/* Parse --mail-type (BEGIN,END,FAIL,REQUEUE,ALL,NONE,TIME_LIMIT[_90|_80|_50],
 * ARRAY_TASKS,INVALID_DEPEND,STAGE_OUT; case-insensitive, unknown items
 * ignored as Slurm does) into MAIL_* bits | MAIL_SET. -1 if no item is
 * known. */
int mail_type_parse(const char *s, uint32_t *bits);

#endif
