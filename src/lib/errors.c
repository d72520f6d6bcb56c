/*
 * errors: the text for each error number, as Slurm 22.05's slurm_strerror()
 * gives it, so "sbatch: error: Batch job submission failed: <text>" and
 * "scancel: error: Kill job error on job id 4: <text>" read the same.
 *
 * Numbers below 1000 (and any number without a Slurm text) are errno values
 * and go to strerror(), as Slurm does.
 */
#include "errors.h"

#include <stdlib.h>
#include <string.h>

static const struct {
	int num;
	const char *text;
} errtab[] = {
	{ SLURM_SUCCESS, "No error" },
	{ SLURM_ERROR, "Unspecified error" },

	{ SLURM_UNEXPECTED_MSG_ERROR, "Unexpected message received" },
	{ SLURM_COMMUNICATIONS_CONNECTION_ERROR, "Communication connection failure" },
	{ SLURM_COMMUNICATIONS_SEND_ERROR, "Message send failure" },
	{ SLURM_COMMUNICATIONS_RECEIVE_ERROR, "Message receive failure" },
	{ SLURM_COMMUNICATIONS_SHUTDOWN_ERROR, "Communication shutdown failure" },
	{ SLURM_PROTOCOL_VERSION_ERROR, "Incompatible versions of client and server code" },
	{ SLURM_PROTOCOL_IO_STREAM_VERSION_ERROR, "I/O stream version number error" },
	{ SLURM_PROTOCOL_AUTHENTICATION_ERROR, "Protocol authentication error" },
	{ SLURM_PROTOCOL_INSANE_MSG_LENGTH, "Insane message length" },
	{ SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR, "Unable to contact slurm controller (connect failure)" },
	{ SLURMCTLD_COMMUNICATIONS_SEND_ERROR, "Unable to contact slurm controller (send failure)" },
	{ SLURMCTLD_COMMUNICATIONS_RECEIVE_ERROR, "Unable to contact slurm controller (receive failure)" },
	{ SLURMCTLD_COMMUNICATIONS_SHUTDOWN_ERROR, "Unable to contact slurm controller (shutdown failure)" },
	{ SLURM_NO_CHANGE_IN_DATA, "Data has not changed since time specified" },

	{ ESLURM_INVALID_PARTITION_NAME, "Invalid partition name specified" },
	{ ESLURM_DEFAULT_PARTITION_NOT_SET, "No partition specified or system default partition" },
	{ ESLURM_ACCESS_DENIED, "Access/permission denied" },
	{ ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP, "User's group not permitted to use this partition" },
	{ ESLURM_REQUESTED_NODES_NOT_IN_PARTITION, "Requested nodes not in this partition" },
	{ ESLURM_TOO_MANY_REQUESTED_CPUS, "More processors requested than permitted" },
	{ ESLURM_INVALID_NODE_COUNT, "Node count specification invalid" },
	{ ESLURM_MAX_JOB_COUNT, "MaxJobCount limit reached" },
	{ ESLURM_JOB_MISSING_SIZE_SPECIFICATION, "Job size specification needs to be provided" },
	{ ESLURM_JOB_SCRIPT_MISSING, "Job script not specified" },
	{ ESLURM_USER_ID_MISSING, "Invalid user id" },
	{ ESLURM_DUPLICATE_JOB_ID, "Duplicate job id" },
	{ ESLURM_PATHNAME_TOO_LONG, "Pathname of a file, directory or other parameter too long" },
	{ ESLURM_NOT_TOP_PRIORITY, "Immediate execution impossible, insufficient priority" },
	{ ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE, "Requested node configuration is not available" },
	{ ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE, "Requested partition configuration not available now" },
	{ ESLURM_NODES_BUSY, "Requested nodes are busy" },
	{ ESLURM_INVALID_JOB_ID, "Invalid job id specified" },
	{ ESLURM_INVALID_NODE_NAME, "Invalid node name specified" },
	{ ESLURM_WRITING_TO_FILE, "I/O error writing script/environment to file" },
	{ ESLURM_TRANSITION_STATE_NO_UPDATE, "Job can not be altered now, try again later" },
	{ ESLURM_ALREADY_DONE, "Job/step already completing or completed" },
	{ ESLURM_INTERCONNECT_FAILURE, "Error configuring interconnect" },
	{ ESLURM_BAD_DIST, "Task distribution specification invalid" },
	{ ESLURM_JOB_PENDING, "Job is pending execution" },
	{ ESLURM_BAD_TASK_COUNT, "Task count specification invalid" },
	{ ESLURM_INVALID_JOB_CREDENTIAL, "Error generating job credential" },
	{ ESLURM_IN_STANDBY_MODE, "Slurm backup controller in standby mode" },
	{ ESLURM_INVALID_NODE_STATE, "Invalid node state specified" },
	{ ESLURM_INVALID_FEATURE, "Invalid feature specification" },
	{ ESLURM_NOT_SUPPORTED, "Requested operation not supported on this system" },
	{ ESLURM_DISABLED, "Requested operation is presently disabled" },
	{ ESLURM_DEPENDENCY, "Job dependency problem" },
	{ ESLURM_BATCH_ONLY, "Only batch jobs are accepted or processed" },
	{ ESLURM_LICENSES_UNAVAILABLE, "Licenses currently unavailable" },
	{ ESLURM_JOB_HELD, "Job is in held state, pending scheduler release" },
	{ ESLURM_INVALID_TASK_MEMORY, "Memory required by task is not available" },
	{ ESLURM_INVALID_ACCOUNT, "Invalid account or account/partition combination specified" },
	{ ESLURM_INVALID_PARENT_ACCOUNT, "Invalid parent account specified" },
	{ ESLURM_SAME_PARENT_ACCOUNT, "Account already child of parent account specified" },
	{ ESLURM_INVALID_LICENSES, "Invalid license specification" },
	{ ESLURM_NEED_RESTART, "The node configuration changes that were made require restart "
	  "of the slurmctld daemon to take effect" },
	{ ESLURM_ACCOUNTING_POLICY, "Job violates accounting/QOS policy (job submit limit, user's "
	  "size and/or time limits)" },
	{ ESLURM_INVALID_TIME_LIMIT, "Requested time limit is invalid (missing or exceeds some limit)" },
	{ ESLURM_RESERVATION_ACCESS, "Access denied to requested reservation" },
	{ ESLURM_RESERVATION_INVALID, "Requested reservation is invalid" },
	{ ESLURM_INVALID_TIME_VALUE, "Invalid time specified" },
	{ ESLURM_RESERVATION_BUSY, "Requested reservation is in use" },
	{ ESLURM_RESERVATION_NOT_USABLE, "Requested reservation not usable now" },
	{ ESLURM_INVALID_WCKEY, "Invalid wckey specification" },
	{ ESLURM_RESERVATION_OVERLAP, "Requested reservation overlaps with another reservation" },
	{ ESLURM_PORTS_BUSY, "Required ports are in use" },
	{ ESLURM_PORTS_INVALID, "Requires more ports than can be reserved" },
	{ ESLURM_PROLOG_RUNNING, "PrologSlurmctld is still running" },
	{ ESLURM_NO_STEPS, "Job steps can not be run on this cluster" },
	{ ESLURM_MISSING_WORK_DIR, "Job cannot be submitted without the current working directory specified." },
	{ ESLURM_STEPS_DRAINED, "No running or pending steps in the job" },
	{ ESLURM_INVALID_QOS, "Invalid qos specification" },
	{ ESLURM_QOS_PREEMPTION_LOOP, "QOS Preemption loop detected" },
	{ ESLURM_NODE_NOT_AVAIL, "Required node not available (down, drained or reserved)" },
	{ ESLURM_INVALID_CPU_COUNT, "CPU count specification invalid" },
	{ ESLURM_PARTITION_NOT_AVAIL, "Required partition not available (inactive or drain)" },
	{ ESLURM_CIRCULAR_DEPENDENCY, "Circular job dependency" },
	{ ESLURM_INVALID_GRES, "Invalid generic resource (gres) specification" },
	{ ESLURM_JOB_NOT_PENDING, "Job is no longer pending execution" },
	{ ESLURM_QOS_THRES, "Requested account has breached requested QOS usage threshold" },
	{ ESLURM_PARTITION_IN_USE, "Partition is in use" },
	{ ESLURM_STEP_LIMIT, "Step limit reached for this job" },
	{ ESLURM_JOB_SUSPENDED, "Job is current suspended, requested operation disabled" },
	{ ESLURM_CAN_NOT_START_IMMEDIATELY, "Job can not start immediately" },
	{ ESLURM_RESERVATION_EMPTY, "Reservation request lacks users, groups or accounts" },
	{ ESLURM_INVALID_ARRAY, "Invalid job array specification" },
	{ ESLURM_RESERVATION_NAME_DUP, "Duplicate reservation name" },
	{ ESLURM_JOB_STARTED, "Job has already started" },
	{ ESLURM_JOB_FINISHED, "Job has already finished" },
	{ ESLURM_JOB_NOT_RUNNING, "Job is not running" },
	{ ESLURM_JOB_NOT_PENDING_NOR_RUNNING, "Job is not pending nor running" },
	{ ESLURM_JOB_NOT_SUSPENDED, "Job is not suspended" },
	{ ESLURM_JOB_NOT_FINISHED, "Job is not finished" },
	{ ESLURM_TRIGGER_DUP, "Duplicate event trigger" },
	{ ESLURM_INTERNAL, "Slurm internal error, contact system administrator" },
	{ ESLURM_PARTITION_DOWN, "Partition in DOWN state" },
	{ ESLURM_DUPLICATE_GRES, "Duplicate generic resource (gres) specification" },
	{ ESLURM_SUBMISSIONS_DISABLED, "System submissions disabled" },
	{ ESLURM_GROUP_ID_MISSING, "Invalid group id" },
	{ ESLURM_INVALID_TRES, "Invalid Trackable RESource (TRES) specification" },
	{ ESLURM_INVALID_GRES_TYPE, "Invalid GRES specification (with and without type identification)" },
	{ ESLURM_REBOOT_IN_PROGRESS, "Reboot already in progress" },
	{ ESLURM_INVALID_NICE, "Invalid --nice value" },
	{ ESLURM_INVALID_TIME_MIN_LIMIT, "Invalid time-min specification (exceeds job's time or other limits)" },

	{ ESLURMD_KILL_TASK_FAILED, "Kill task failed" },
	{ ESLURMD_KILL_JOB_ALREADY_COMPLETE, "Job/step already completing or completed" },
	{ ESLURMD_INVALID_JOB_CREDENTIAL, "Invalid job credential" },
	{ ESLURMD_CREDENTIAL_EXPIRED, "Job credential expired" },
	{ ESLURMD_CREDENTIAL_REVOKED, "Job credential revoked" },
	{ ESLURMD_CREDENTIAL_REPLAYED, "Job credential replayed" },
	{ ESLURMD_CREATE_BATCH_DIR_ERROR, "Slurmd could not create a batch directory or file" },
	{ ESLURMD_SETUP_ENVIRONMENT_ERROR, "Slurmd could not set up environment for batch job" },
	{ ESLURMD_SET_UID_OR_GID_ERROR, "Slurmd could not set UID or GID" },
	{ ESLURMD_EXECVE_FAILED, "Slurmd could not execve job" },
	{ ESLURMD_IO_ERROR, "Slurmd could not connect IO" },
	{ ESLURMD_PROLOG_FAILED, "Job prolog failed" },
	{ ESLURMD_EPILOG_FAILED, "Job epilog failed" },
	{ ESLURMD_STEP_EXISTS, "Job step already exists" },
	{ ESLURMD_STEP_NOTRUNNING, "Job step not running" },

	{ ESLURM_PROTOCOL_INCOMPLETE_PACKET, "Header lengths are longer than data received" },
	{ SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT, "Socket timed out on send/recv operation" },
	{ SLURM_PROTOCOL_SOCKET_ZERO_BYTES_SENT, "Zero Bytes were transmitted or received" },

	{ ESLURM_AUTH_CRED_INVALID, "Invalid authentication credential" },

	{ ESLURM_DB_CONNECTION, "Unable to connect to database" },
	{ ESLURM_JOBS_RUNNING_ON_ASSOC, "Job(s) active, cancel job(s) before remove" },
	{ ESLURM_ONE_CHANGE, "Can only change one at a time" },
	{ ESLURM_BAD_NAME, "Unacceptable name given. (No '.' in name allowed)" },
	{ ESLURM_NO_REMOVE_DEFAULT_ACCOUNT, "You can not remove the default account of a user" },
	{ ESLURM_JOB_NOT_FEDERATED, "Not a valid federated job" },
};

const char *slurm_strerror(int err)
{
	/* the table is small and errors are rare: a linear scan is enough */
	for (size_t i = 0; i < sizeof(errtab) / sizeof(errtab[0]); i++)
		if (errtab[i].num == err)
			return errtab[i].text;
	if (err > 0)
		return strerror(err);
	return "Unknown negative error number";
}
