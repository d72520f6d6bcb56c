/*
 * errors: Slurm's error numbers and texts.
 *
 * RPC replies carry these numbers; commands print slurm_strerror() and exit
 * with the number as Slurm's commands do (scancel exits 2002 & 0xff = 210 on
 * ESLURM_ACCESS_DENIED). Values are Slurm 22.05's, so exit statuses match.
 */
#ifndef SLUICE_ERRORS_H
#define SLUICE_ERRORS_H

#define SLURM_SUCCESS 0
#define SLURM_ERROR   (-1)

enum {
	ESLURM_INVALID_PARTITION_NAME = 2000,
	ESLURM_DEFAULT_PARTITION_NOT_SET = 2001,
	ESLURM_ACCESS_DENIED = 2002,
	ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP = 2003,
	ESLURM_REQUESTED_NODES_NOT_IN_PARTITION = 2004,
	ESLURM_TOO_MANY_REQUESTED_CPUS = 2005,
	ESLURM_INVALID_NODE_COUNT = 2006,
	ESLURM_JOB_SCRIPT_MISSING = 2009,
	ESLURM_USER_ID_MISSING = 2010,
	ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE = 2014,
	ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE = 2015,
	ESLURM_NODES_BUSY = 2016,
	ESLURM_INVALID_JOB_ID = 2017,
	ESLURM_INVALID_NODE_NAME = 2018,
	ESLURM_TRANSITION_STATE_NO_UPDATE = 2020,
	ESLURM_ALREADY_DONE = 2021,
	ESLURM_JOB_PENDING = 2024,
	ESLURM_INVALID_NODE_STATE = 2028,
	ESLURM_INVALID_FEATURE = 2029,
	ESLURM_NOT_SUPPORTED = 2036,
	ESLURM_DEPENDENCY = 2038,
	ESLURM_JOB_HELD = 2042,
	ESLURM_INVALID_ACCOUNT = 2045,
	ESLURM_INVALID_TIME_LIMIT = 2051,
	/* The helper that owns errors.c verifies and extends this list
	 * (ESLURM_INVALID_GRES, ESLURM_INVALID_QOS, ...) from Slurm 22.05's
	 * slurm_errno.h values. */
	SLUICE_E_PROTOCOL = 1000,        /* malformed or unknown message */
	SLUICE_E_AUTH = 1001,            /* authentication failed */
	SLUICE_E_CONNECT = 1002,         /* cannot reach the controller */
	SLUICE_E_TIMEOUT = 1003,         /* socket timed out */
};

/* Slurm's text for an error number ("Invalid job id specified"); also
 * strerror() for errno values < 1000. Static storage. */
const char *slurm_strerror(int err);

#endif
