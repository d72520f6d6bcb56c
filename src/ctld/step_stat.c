/*
 * step_stat: the controller's part of sstat. sstat asks whether the
 * caller may see a job's live usage and where the job runs
 * (MSG_STEP_STAT_AUTH); the answer holds the job's nodes (name, address,
 * port) and a stat credential signed here (cred.h with cred_stat_digest)
 * that the node daemons accept for reading the job's steps' usage and
 * nothing else. The usage itself never passes through the controller:
 * sstat asks the nodes (noded/step_stat.c), so a big sstat costs the
 * loop one job lookup and one signature.
 *
 * Who may: the job's owner, operators and administrators (Slurm's
 * slurmd lets the owner, root and SlurmUser read a step's usage).
 */
#include <string.h>

#include "ctld/ctld.h"
#include "cred.h"
#include "errors.h"
#include "hostlist.h"
#include "log.h"
#include "states.h"
#include "xalloc.h"

/* How long a stat credential is good for: sstat uses it at once. */
#define STAT_CRED_LIFE 60

void do_step_stat_auth(ctld_t *cd, conn_t *c, const msg_step_stat_t *m, uint32_t uid)
{
	msg_step_stat_auth_t r = { .job_id = m->job_id };
	job_t *j = job_find(cd, m->job_id);
	if (!j) {
		r.rc = ESLURM_INVALID_JOB_ID;
		conn_send(c, MSG_STEP_STAT_AUTH_REPLY, &r);
		return;
	}
	r.job_state = j->state & JOB_STATE_BASE;
	if (j->user_id != uid && !is_operator(cd, uid)) {
		/* what Slurm's node daemons answer another user */
		r.rc = ESLURM_USER_ID_MISSING;
		conn_send(c, MSG_STEP_STAT_AUTH_REPLY, &r);
		return;
	}
	if (r.job_state != JOB_RUNNING && r.job_state != JOB_SUSPENDED) {
		conn_send(c, MSG_STEP_STAT_AUTH_REPLY, &r);    /* no steps run */
		return;
	}
	uint32_t nn = j->alloc.nnodes;
	r.nports = nn;
	r.ports = xcalloc(nn ? nn : 1, sizeof(uint32_t));
	const char **names = xmalloc((nn ? nn : 1) * sizeof(char *));
	for (uint32_t i = 0; i < nn; i++) {
		node_t *n = &cd->nodes[j->alloc.nodes[i]];
		names[i] = n->cf->name;
		strv_push(&r.node_names, n->cf->name);
		strv_push(&r.node_addrs, n->cf->addr ? n->cf->addr : n->cf->name);
		r.ports[i] = n->port;
	}
	char *nodes = hostlist_compress(names, nn);
	free(names);
	char digest[CRED_DIGEST_HEX + 1];
	cred_stat_digest(digest);
	cred_t cr = { .job_id = j->job_id, .step_id = m->step_id, .uid = j->user_id,
		      .gid = j->group_id, .user = j->desc->user_name, .nodes = nodes,
		      .digest = digest, .expires = ctld_now() + STAT_CRED_LIFE };
	char *err = NULL;
	r.cred = cred_create(cd->auth, &cr, &err);
	if (!r.cred) {
		error("sstat of job %u: cannot sign credential: %s", j->job_id, err ? err : "?");
		r.rc = SLUICE_E_AUTH;
		free(err);
	}
	free(nodes);
	conn_send(c, MSG_STEP_STAT_AUTH_REPLY, &r);
	proto_free(MSG_STEP_STAT_AUTH_REPLY, &r);
}
