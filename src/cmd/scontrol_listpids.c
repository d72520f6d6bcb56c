/*
 * scontrol listpids [JOB[.STEP]|*] [NODENAME]: the processes of a job's
 * steps (or of one step, or of every job) on one node, asked from that
 * node's daemon (MSG_LIST_PIDS_REQ on its port; noded/listpids.c). Without
 * NODENAME the node is this host's: the first node whose NodeHostname is
 * this host's name, as Slurm finds it. Output and messages as Slurm
 * 22.05's: the header always, then one line per process; when nothing
 * matches, Slurm's sentence on stderr and exit 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "cmd/print.h"
#include "conf.h"
#include "errors.h"
#include "net.h"
#include "strbuf.h"
#include "xalloc.h"

static const conf_node_t *local_node(const conf_t *conf)
{
	char host[256] = "";
	if (gethostname(host, sizeof(host) - 1) < 0)
		return NULL;
	char *shortname = cmd_short_hostname();
	const conf_node_t *hit = NULL;
	for (size_t i = 0; i < conf->nnodes && !hit; i++) {
		const char *h = conf->nodes[i].hostname ? conf->nodes[i].hostname : conf->nodes[i].name;
		if (!strcmp(h, host) || !strcmp(h, shortname))
			hit = &conf->nodes[i];
	}
	free(shortname);
	return hit;
}

static int listpids_on(const conf_t *conf, const msg_list_pids_req_t *rq, const char *id,
		       const char *name);

/* What Slurm says when nothing matched. */
static void none_found(const msg_list_pids_req_t *req, const char *id, const char *node)
{
	if (!req->job_id)
		fprintf(stderr, "No job steps exist on this node.\n");
	else if (req->step_id != NO_VAL32)
		fprintf(stderr, "StepId=%s does not exist on node %s.\n", id, node);
	else if (node)
		fprintf(stderr, "There are no steps for job %u on node %s.\n", req->job_id, node);
}

int scontrol_listpids(int nargs, char **args)
{
	if (nargs > 2) {
		fprintf(stderr, "too many arguments for keyword:listpids\n");
		return 1;
	}
	msg_list_pids_req_t req = { 0, NO_VAL32 };
	const char *id = nargs > 0 ? args[0] : NULL;
	if (id && strcmp(id, "*")) {
		if (step_id_parse(id, &req.job_id, &req.step_id)) {
			fprintf(stderr, "\"%s\" does not look like a %s\n", id,
				strchr(id, '.') ? "stepid" : "jobid");
			return 1;
		}
	}
	/* the node lines too (commands' usual CONF_CLIENT skips them) */
	conf_t *conf = conf_load(NULL, CONF_FULL);
	if (conf->nerrors) {
		for (size_t i = 0; i < conf->nerrors; i++)
			fprintf(stderr, "scontrol: error: %s\n", conf->errors[i]);
		conf_destroy(conf);
		return 1;
	}
	int rc = listpids_on(conf, &req, id, nargs > 1 ? args[1] : NULL);
	conf_destroy(conf);
	return rc;
}

static int listpids_on(const conf_t *conf, const msg_list_pids_req_t *rq, const char *id,
		       const char *name)
{
	msg_list_pids_req_t req = *rq;
	const conf_node_t *n = NULL;
	strbuf_t sb = STRBUF_INIT;
	print_listpids_header(&sb);
	fwrite(sb.buf, 1, sb.len, stdout);
	fflush(stdout);
	strbuf_setlen(&sb, 0);
	if (name) {
		for (size_t i = 0; i < conf->nnodes && !n; i++)
			if (!strcmp(conf->nodes[i].name, name))
				n = &conf->nodes[i];
		if (!n) {
			fprintf(stderr, "scontrol: error: node %s is not in the configuration\n", name);
			if (req.job_id)
				fprintf(stderr, "JobId=%u does not exist on node %s.\n", req.job_id, name);
			else
				none_found(&req, id, name);
			strbuf_release(&sb);
			return 1;
		}
	} else if (!(n = local_node(conf))) {
		fprintf(stderr, "scontrol: error: stepd_available: Couldn't find nodename\n");
		if (req.job_id)
			fprintf(stderr, "JobId=%u does not exist on node (null).\n", req.job_id);
		else
			none_found(&req, id, NULL);
		strbuf_release(&sb);
		return 1;
	}
	int err = 0;
	rpc_t *r = rpc_connect_addr(conf, n->addr ? n->addr : n->name, n->port, &err);
	enum msg_type ty = MSG_NONE;
	void *reply = NULL;
	if (r && !(err = rpc_send(r, MSG_LIST_PIDS_REQ, &req)))
		err = rpc_recv(r, &ty, &reply, 10000);
	rpc_close(r);
	if (!err && ty != MSG_LIST_PIDS) {
		err = ty == MSG_RC ? ((msg_rc_t *)reply)->rc : SLUICE_E_PROTOCOL;
		proto_msg_destroy(ty, reply);
		reply = NULL;
	}
	if (err) {
		fprintf(stderr, "scontrol: error: node %s: %s\n", n->name, slurm_strerror(err));
		strbuf_release(&sb);
		return 1;
	}
	msg_list_pids_t *lp = reply;
	for (uint32_t i = 0; i < lp->npids; i++)
		print_listpids_row(&sb, &lp->pids[i]);
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
	int rc = 0;
	if (lp->rc) {
		none_found(&req, id, n->name);
		rc = 1;
	}
	proto_msg_destroy(MSG_LIST_PIDS, lp);
	return rc;
}
