/*
 * health: the node daemon's built-in health checks (health.conf, parsed by
 * src/lib/health_conf.c) and HealthCheckProgram. A round reads NVML, sysfs
 * and /proc in the daemon's loop (no external tool, no blocking call but
 * the filesystem probes) and leaves the failing checks as "check: evidence"
 * lines, which every registration and heartbeat carries to the controller;
 * the controller drains and resumes the node from them (ctld/health.c).
 */
#ifndef SLUICE_NODED_HEALTH_H
#define SLUICE_NODED_HEALTH_H

#include <stdint.h>

#include "health_conf.h"

struct noded;
struct msg_launch_job;

typedef struct health health_t;

/* Where a round looks; NULL fields take the defaults (tests point them at
 * fake trees): sysfs $SLUICE_SYSFS_ROOT or "/sys", proc $SLUICE_PROC_ROOT
 * or "/proc", nvml_lib nvml_lib_path(). */
typedef struct health_paths {
	const char *sysfs, *proc, *nvml_lib;
} health_paths_t;

/* Checks from hc (taken over; NULL: load health_conf_path(nd->conf),
 * logging its errors). nd may be NULL (tests, benchmarks): the GPU count
 * and type then come only from health.conf, and there are no jobs and no
 * spool. NVML is opened at the first round that needs it. */
health_t *health_create(struct noded *nd, health_conf_t *hc, const health_paths_t *paths);
void health_destroy(health_t *h);

/* Start the periodic rounds (HealthCheckInterval, HealthCheckNodeState)
 * and HealthCheckProgram on nd's loop; a first round runs now. */
void health_start(health_t *h);

/* Run one round now. Returns the number of failing checks. When the
 * result changed, a heartbeat carries it to the controller at once
 * (health_round_quiet: not; for a message about to be sent anyway). */
int health_round(health_t *h);
int health_round_quiet(health_t *h);
/* The last round's failing checks, "check: evidence" lines joined by
 * '\n' (NULL: all passed, or no round yet). */
const char *health_failing(const health_t *h);
/* Rounds run so far (counted also without built-in checks, so that an
 * answer to `sluice preflight` shows), and the checks configured. */
uint32_t health_rounds(const health_t *h);
uint32_t health_nchecks(const health_t *h);
/* Digest of the auth key (health_key_digest), refreshed each round and at
 * each call of health_key_refresh. */
const char *health_key(const health_t *h);
void health_key_refresh(health_t *h);

/* The controller's clock, from a heartbeat's answer: sent_boot_ms when
 * the heartbeat left (CLOCK_BOOTTIME), now_boot_ms when the answer came,
 * ctld_ms the controller's CLOCK_REALTIME when it answered. */
void health_clock_sample(health_t *h, uint64_t sent_boot_ms, uint64_t now_boot_ms,
			 int64_t ctld_ms);

/* The gate before a job starts (health.conf's `gate`): run the gated
 * checks now. 0 when they pass (or no gate is set), else -1 with *why
 * (malloc'd) the failing checks. */
int health_gate(health_t *h, char **why);

/* SIGHUP: re-read health.conf; one with errors changes nothing (logged). */
void health_reload(health_t *h);

/* The launch hook (supervisor_launch, before the supervisor starts):
 * 0 when the job may start. Else the gate failed: a round has run (its
 * heartbeat drains the node with the evidence), and a detached reporter
 * tells the controller the launch failed as a failed Prolog does
 * (msg_job_complete_t.rc ESLURMD_PROLOG_FAILED: the job is requeued
 * held) and removes dir; returns 1. */
int health_launch_gate(struct noded *nd, const struct msg_launch_job *m, const char *dir);

/* The jobs live on this node as the caller sees them (procs check): set
 * by the node daemon before a round (ids copied). */
void health_set_live_jobs(health_t *h, const uint32_t *ids, uint32_t n);

#endif
