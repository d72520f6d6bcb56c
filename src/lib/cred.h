/*
 * cred: the launch credential for a job step.
 *
 * The controller signs one per step (MSG_STEP_CREATE_REPLY.cred); srun hands
 * it to each node daemon in MSG_LAUNCH_STEP; the node daemon checks it: the
 * signature (auth_verify, signer must be root or SlurmUser), that it has not
 * expired, that its job/step/uid/gid match the request, and that the node is
 * in its node list. A credential is a printable string:
 *   "<payload>\n<hex of the auth_sign credential over payload>"
 * with payload
 *   "sluice-cred 1 job=<id> step=<id> uid=<n> gid=<n> user=<name> nodes=<ranged> expires=<epoch>"
 */
#ifndef SLUICE_CRED_H
#define SLUICE_CRED_H

#include <stdint.h>
#include <time.h>

#include "auth.h"
#include "conf.h"

typedef struct cred {
	uint32_t job_id, step_id, uid, gid;
	char *user;              /* malloc'd */
	char *nodes;             /* malloc'd ranged hostlist */
	int64_t expires;
} cred_t;

/* Sign c; returns the malloc'd credential string or NULL with *err. */
char *cred_create(auth_t *a, const cred_t *c, char **err);
/* Verify s: 0 and *out filled (free with cred_release), or -1 with *err
 * naming the problem ("credential expired", "credential not signed by the
 * controller", ...). signer_ok_uid: the SlurmUser uid (root always ok). */
int cred_verify(auth_t *a, const char *s, uint32_t signer_ok_uid, time_t now,
		cred_t *out, char **err);
void cred_release(cred_t *c);

#endif
