/* Unit tests for states: job/node state names as Slurm 22.05 prints them. */
#include "errors.h"
#include "states.h"
#include "tap.h"

#include <errno.h>

static char buf[64];

static void node(uint32_t s, const char *lng, const char *cmp, const char *sctl)
{
	is_str(node_state_string(s, buf, sizeof(buf)), lng, "sinfo %%T of 0x%x", s);
	is_str(node_state_string_compact(s, buf, sizeof(buf)), cmp, "sinfo %%t of 0x%x", s);
	is_str(node_state_string_scontrol(s, buf, sizeof(buf)), sctl, "scontrol of 0x%x", s);
}

int main(void)
{
	static const char *const lng[] = { "PENDING", "RUNNING", "SUSPENDED",
		"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL",
		"PREEMPTED", "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY" };
	static const char *const cmp[] = { "PD", "R", "S", "CD", "CA", "F",
		"TO", "NF", "PR", "BF", "DL", "OOM" };
	for (int i = 0; i < JOB_END; i++) {
		is_str(job_state_string(i), lng[i], "job state %d", i);
		is_str(job_state_string_compact(i), cmp[i], "job state compact %d", i);
		is_int(job_state_parse(lng[i]), i, "parse %s", lng[i]);
		is_int(job_state_parse(cmp[i]), i, "parse %s", cmp[i]);
	}
	is_str(job_state_string(JOB_RUNNING | JOB_COMPLETING), "COMPLETING", "completing");
	is_str(job_state_string_compact(JOB_COMPLETE | JOB_COMPLETING), "CG", "completing compact");
	is_str(job_state_string(JOB_PENDING | JOB_CONFIGURING), "CONFIGURING", "configuring");
	is_str(job_state_string_compact(JOB_PENDING | JOB_REQUEUE), "RQ", "requeued");
	is_str(job_state_string(99), "?", "unknown job state");
	is_int(job_state_parse("pending"), JOB_PENDING, "lower case");
	is_int(job_state_parse("pd"), JOB_PENDING, "lower case compact");
	is_int(job_state_parse("Running"), JOB_RUNNING, "mixed case");
	is_int(job_state_parse("cg"), JOB_COMPLETING, "CG is the completing flag");
	is_int(job_state_parse("COMPLETING"), JOB_COMPLETING, "COMPLETING");
	is_int(job_state_parse("oom"), JOB_OOM, "oom");
	is_int(job_state_parse("BOGUS"), -1, "bogus");
	is_int(job_state_parse(""), -1, "empty");
	is_int(job_state_parse(NULL), -1, "NULL");

	is_str(job_reason_string(WAIT_NO_REASON), "None", "reason none");
	is_str(job_reason_string(WAIT_RESOURCES), "Resources", "reason resources");
	is_str(job_reason_string(WAIT_PRIORITY), "Priority", "reason priority");
	is_str(job_reason_string(WAIT_HELD_USER), "JobHeldUser", "reason held user");
	is_str(job_reason_string(WAIT_HELD), "JobHeldAdmin", "reason held admin");
	is_str(job_reason_string(WAIT_NODE_NOT_AVAIL), "ReqNodeNotAvail", "reason reqnode");
	is_str(job_reason_string(WAIT_ASSOC_MAX_JOBS), "AssocMaxJobsLimit", "reason assoc");
	is_str(job_reason_string(WAIT_DEP_INVALID), "DependencyNeverSatisfied", "reason dep");
	is_str(job_reason_string(WAIT_CLEANING), "Cleaning", "reason cleaning");
	is_str(job_reason_string(FAIL_EXIT_CODE), "NonZeroExitCode", "reason exit code");
	is_str(job_reason_string(WAIT_REASON_END), "?", "reason out of range");

	node(NODE_IDLE, "idle", "idle", "IDLE");
	node(NODE_MIXED, "mixed", "mix", "MIXED");
	node(NODE_ALLOCATED, "allocated", "alloc", "ALLOCATED");
	node(NODE_DOWN, "down", "down", "DOWN");
	node(NODE_UNKNOWN, "unknown", "unk", "UNKNOWN");
	node(NODE_FUTURE, "future", "futr", "FUTURE");
	node(NODE_IDLE | NODE_FLAG_DRAIN, "drained", "drain", "IDLE+DRAIN");
	node(NODE_DOWN | NODE_FLAG_DRAIN, "drained", "drain", "DOWN+DRAIN");
	node(NODE_ALLOCATED | NODE_FLAG_DRAIN, "draining", "drng", "ALLOCATED+DRAIN");
	node(NODE_MIXED | NODE_FLAG_DRAIN, "draining", "drng", "MIXED+DRAIN");
	node(NODE_IDLE | NODE_FLAG_DRAIN | NODE_FLAG_COMPLETING, "draining", "drng",
	     "IDLE+COMPLETING+DRAIN");
	node(NODE_IDLE | NODE_FLAG_DRAIN | NODE_FLAG_NO_RESPOND, "drained*", "drain*",
	     "IDLE+DRAIN+NOT_RESPONDING");
	node(NODE_DOWN | NODE_FLAG_NO_RESPOND, "down*", "down*", "DOWN+NOT_RESPONDING");
	node(NODE_IDLE | NODE_FLAG_NO_RESPOND, "idle*", "idle*", "IDLE+NOT_RESPONDING");
	node(NODE_IDLE | NODE_FLAG_PLANNED, "planned", "plnd", "IDLE+PLANNED");
	node(NODE_MIXED | NODE_FLAG_PLANNED, "mixed-", "mix-", "MIXED+PLANNED");
	node(NODE_IDLE | NODE_FLAG_COMPLETING, "completing", "comp", "IDLE+COMPLETING");
	node(NODE_ALLOCATED | NODE_FLAG_COMPLETING, "allocated+", "alloc+", "ALLOCATED+COMPLETING");
	node(NODE_IDLE | NODE_FLAG_FAIL, "fail", "fail", "IDLE+FAIL");
	node(NODE_ALLOCATED | NODE_FLAG_FAIL, "failing", "failg", "ALLOCATED+FAIL");
	node(NODE_IDLE | NODE_FLAG_FAIL | NODE_FLAG_NO_RESPOND, "fail*", "fail*",
	     "IDLE+FAIL+NOT_RESPONDING");
	node(NODE_IDLE | NODE_FLAG_POWERED_DOWN, "idle~", "idle~", "IDLE+POWERED_DOWN");
	node(NODE_IDLE | NODE_FLAG_POWERING_UP, "idle#", "idle#", "IDLE+POWERING_UP");
	node(NODE_IDLE | NODE_FLAG_REBOOT, "reboot", "boot", "IDLE+REBOOT_REQUESTED");
	node(NODE_ALLOCATED | NODE_FLAG_REBOOT, "allocated@", "alloc@",
	     "ALLOCATED+REBOOT_REQUESTED");
	node(NODE_IDLE | NODE_FLAG_MAINT, "maint", "maint", "IDLE+MAINTENANCE");
	node(NODE_IDLE | NODE_FLAG_MAINT | NODE_FLAG_DRAIN, "drained$", "drain$",
	     "IDLE+DRAIN+MAINTENANCE");
	node(NODE_IDLE | NODE_FLAG_RESERVED, "reserved", "resv", "IDLE+RESERVED");
	node(NODE_UNKNOWN | NODE_FLAG_NO_RESPOND, "unknown*", "unk*", "UNKNOWN+NOT_RESPONDING");
	node(NODE_ERROR, "?", "?", "ERROR");
	node(NODE_IDLE | NODE_FLAG_DRAIN | NODE_FLAG_INVALID_REG, "inval", "inval",
	     "IDLE+DRAIN+INVALID_REG");
	node(NODE_IDLE | NODE_FLAG_POWER_DOWN, "idle!", "idle!", "IDLE+POWER_DOWN");
	node(NODE_MIXED | NODE_FLAG_DRAIN | NODE_FLAG_POWER_DOWN, "draining!", "drng!",
	     "MIXED+DRAIN+POWER_DOWN");
	node(NODE_DOWN | NODE_FLAG_DRAIN | NODE_FLAG_NO_RESPOND, "drained*", "drain*",
	     "DOWN+DRAIN+NOT_RESPONDING");

	/* scontrol update State= values: keyword prefixes of 3+ letters */
	is_int(node_update_state_parse("drain"), NODE_UPD_DRAIN, "parse drain");
	is_int(node_update_state_parse("DRA"), NODE_UPD_DRAIN, "parse DRA");
	is_int(node_update_state_parse("dr"), -1, "parse dr (too short)");
	is_int(node_update_state_parse("drainx"), -1, "parse drainx (longer than keyword)");
	is_int(node_update_state_parse("resume"), NODE_UPD_RESUME, "parse resume");
	is_int(node_update_state_parse("res"), NODE_UPD_RESUME, "parse res");
	is_int(node_update_state_parse("undrain"), NODE_UPD_UNDRAIN, "parse undrain");
	is_int(node_update_state_parse("unk"), NODE_UPD_UNKNOWN, "parse unk");
	is_int(node_update_state_parse("NoResp"), NODE_UPD_NORESP, "parse NoResp");
	is_int(node_update_state_parse("down"), NODE_UPD_DOWN, "parse down");
	is_int(node_update_state_parse("idle"), NODE_UPD_IDLE, "parse idle");
	is_int(node_update_state_parse("fut"), NODE_UPD_FUTURE, "parse fut");
	is_int(node_update_state_parse("fail"), NODE_UPD_FAIL, "parse fail");
	is_int(node_update_state_parse("power_down"), NODE_UPD_POWER_DOWN, "parse power_down");
	is_int(node_update_state_parse("power_down_asap"), NODE_UPD_POWER_DOWN_ASAP, "parse asap");
	is_int(node_update_state_parse("power_down_force"), NODE_UPD_POWER_DOWN_FORCE, "parse force");
	is_int(node_update_state_parse("power_up"), NODE_UPD_POWER_UP, "parse power_up");
	is_int(node_update_state_parse("alloc"), NODE_UPD_ALLOCATED, "parse alloc");
	is_int(node_update_state_parse("bogus"), -1, "parse bogus");
	is_int(node_update_state_parse(NULL), -1, "parse NULL");

	/* a short buffer truncates safely */
	char small[4];
	is_str(node_state_string(NODE_ALLOCATED, small, sizeof(small)), "all", "truncated");
	is_str(node_state_string_scontrol(NODE_IDLE | NODE_FLAG_DRAIN, small, sizeof(small)),
	       "IDL", "scontrol truncated");

	/* error texts (errors.c) */
	is_str(slurm_strerror(ESLURM_INVALID_JOB_ID), "Invalid job id specified", "err job id");
	is_str(slurm_strerror(ESLURM_ACCESS_DENIED), "Access/permission denied", "err access");
	is_str(slurm_strerror(ESLURM_INVALID_PARTITION_NAME), "Invalid partition name specified", "err part");
	is_str(slurm_strerror(ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE),
	       "Requested node configuration is not available", "err node config");
	is_str(slurm_strerror(ESLURM_ALREADY_DONE), "Job/step already completing or completed", "err done");
	is_str(slurm_strerror(ESLURM_INVALID_NODE_NAME), "Invalid node name specified", "err node name");
	is_str(slurm_strerror(ESLURM_INVALID_TIME_LIMIT),
	       "Requested time limit is invalid (missing or exceeds some limit)", "err time limit");
	is_str(slurm_strerror(ESLURM_INVALID_NODE_COUNT), "Node count specification invalid", "err node count");
	is_str(slurm_strerror(ESLURM_INVALID_GRES), "Invalid generic resource (gres) specification", "err gres");
	is_str(slurm_strerror(ESLURM_INVALID_QOS), "Invalid qos specification", "err qos");
	is_str(slurm_strerror(SLUICE_E_TIMEOUT), "Socket timed out on send/recv operation", "err timeout");
	is_str(slurm_strerror(SLUICE_E_CONNECT),
	       "Unable to contact slurm controller (connect failure)", "err connect");
	is_str(slurm_strerror(SLUICE_E_AUTH), "Protocol authentication error", "err auth");
	is_str(slurm_strerror(SLUICE_E_PROTOCOL), "Unexpected message received", "err protocol");
	is_str(slurm_strerror(0), "No error", "err 0");
	is_str(slurm_strerror(-1), "Unspecified error", "err -1");
	is_str(slurm_strerror(ENOENT), strerror(ENOENT), "errno via strerror");
	is_int(ESLURM_ACCESS_DENIED & 0xff, 210, "scancel exit status for access denied");
	is_int(SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT, 5004, "timeout value");
	is_int(ESLURM_INVALID_GRES, 2072, "gres value");
	is_int(ESLURM_INVALID_QOS, 2066, "qos value");
	is_int(ESLURM_INVALID_TASK_MEMORY, 2044, "task memory value");
	is_int(ESLURM_INVALID_CPU_COUNT, 2069, "cpu count value");
	return done_testing();
}
