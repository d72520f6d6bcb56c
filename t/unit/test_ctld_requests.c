/*
 * test_ctld_requests: odd and forged requests against a live controller.
 *
 * Run without arguments (as `make test-unit` does) it skips: it needs a
 * cluster, which t/integration/0170-requests.t starts and then runs it
 * with $SLURM_CONF pointing there:
 *   test_ctld_requests robust          every request type with empty,
 *                                      NULL, zero and huge fields; the
 *                                      controller must answer each and
 *                                      still answer a ping after (TAP)
 *   test_ctld_requests complete ID SEQ send MSG_JOB_COMPLETE for job ID
 *                                      (launch_seq SEQ) as the caller and
 *                                      print the rc
 *   test_ctld_requests credttl ID      create a step of job ID and print
 *                                      its credential's lifetime (s)
 *   test_ctld_requests stepcred ID F [N] create a step of job ID (over its
 *                                first N+1 nodes, N's address) for the
 *                                      launch of `true` in /tmp and save
 *                                      what launching it needs in file F
 *   test_ctld_requests waiters ID N    hold N MSG_JOB_WAITs on job ID open,
 *                                      then one more; print each refused
 *                                      one's "index rc message"
 *   test_ctld_requests launch F [CMD]  send F's step launch (the saved
 *                                      credential) to its node and print
 *                                      the rc and message; CMD instead of
 *                                      `true` is not what it was issued for
 * Requests go out as the calling user, as the commands send them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "cred.h"
#include "errors.h"
#include "net.h"
#include "proto.h"
#include "states.h"
#include "tap.h"
#include "xalloc.h"

static conf_t *conf;

/* Send one request and read one reply. Returns the reply's rc (MSG_RC,
 * MSG_SUBMIT_REPLY), 0 for any other reply, or -1 when the connection
 * broke or nothing came back in time. *rtype gets the reply type. */
static int call(enum msg_type type, const void *req, enum msg_type *rtype, uint32_t *job_id)
{
	int err = 0;
	rpc_t *r = rpc_connect_ctld(conf, &err);
	if (!r)
		return -1;
	enum msg_type t = MSG_NONE;
	void *reply = NULL;
	int rc = rpc_send(r, type, req) ? -1 : rpc_recv(r, &t, &reply, 5000) ? -1 : 0;
	if (!rc && t == MSG_RC)
		rc = ((msg_rc_t *)reply)->rc;
	if (!rc && t == MSG_SUBMIT_REPLY) {
		rc = ((msg_submit_reply_t *)reply)->rc;
		if (job_id)
			*job_id = ((msg_submit_reply_t *)reply)->job_id;
	}
	if (reply)
		proto_msg_destroy(t, reply);
	rpc_close(r);
	if (rtype)
		*rtype = t;
	return rc;
}

static int alive(void)
{
	msg_empty_t e = { 0 };
	return call(MSG_PING, &e, NULL, NULL) == 0;
}

/* One odd request: it gets an answer (any) and the controller lives on. */
static void odd(const char *what, enum msg_type type, const void *req)
{
	enum msg_type t = MSG_NONE;
	int rc = call(type, req, &t, NULL);
	ok(rc != -1 && t != MSG_NONE, "%s: answered (%s rc %d)", what, proto_name(t), rc);
	ok(alive(), "%s: controller still answers", what);
}

static uint32_t submit_held(job_desc_t *d)
{
	uint32_t id = 0;
	call(MSG_SUBMIT, d, NULL, &id);
	return id;
}

static void cancel_one(uint32_t id)
{
	if (!id)
		return;
	msg_cancel_t c = { .job_ids = &id, .njob_ids = 1 };
	call(MSG_CANCEL, &c, NULL, NULL);
}

static int robust(void)
{
	ok(alive(), "controller answers a ping");
	msg_empty_t e = { 0 };
	char *one[] = { (char *)"Bogus" }, *two[] = { (char *)"Partition", (char *)"Nice" };
	char *empty[] = { (char *)"" };

	/* info requests */
	msg_info_req_t ir = { 0 };
	odd("job info, all", MSG_JOB_INFO_REQ, &ir);
	odd("node info, all", MSG_NODE_INFO_REQ, &ir);
	odd("partition info, all", MSG_PART_INFO_REQ, &ir);
	ir.job_id = UINT32_MAX;
	ir.name = (char *)"no[such";
	ir.fields = UINT32_MAX;
	ir.changed_since = INT64_MIN;
	odd("job info, unknown id", MSG_JOB_INFO_REQ, &ir);
	odd("node info, bad name", MSG_NODE_INFO_REQ, &ir);
	odd("partition info, bad name", MSG_PART_INFO_REQ, &ir);
	odd("config", MSG_CONFIG_REQ, &e);

	/* submissions with odd fields (held, cancelled at the end) */
	job_desc_t d = { 0 };
	odd("submit, empty description", MSG_SUBMIT, &d);
	d.flags = JOB_F_INTERACTIVE | JOB_F_HOLD;
	odd("submit, interactive without argv", MSG_SUBMIT, &d);
	d.flags = JOB_F_HOLD;
	d.script = (char *)"#!/bin/sh\ntrue\n";
	d.partition = (char *)",";
	odd("submit, partition ','", MSG_SUBMIT, &d);
	d.partition = NULL;
	d.req_nodes = (char *)"n[0-4000000000]";
	odd("submit, huge node list", MSG_SUBMIT, &d);
	d.req_nodes = (char *)"[";
	odd("submit, bad node list", MSG_SUBMIT, &d);
	d.req_nodes = NULL;
	d.tres_per_node = (char *)"gpu:";
	odd("submit, gres 'gpu:'", MSG_SUBMIT, &d);
	d.tres_per_node = (char *)"gres:gpu:x:99999999999999999999";
	odd("submit, huge gres count", MSG_SUBMIT, &d);
	d.tres_per_node = NULL;
	d.dependency = (char *)"afterok:";
	odd("submit, empty dependency", MSG_SUBMIT, &d);
	d.dependency = (char *)"afterok:4294967295:+:";
	odd("submit, odd dependency", MSG_SUBMIT, &d);
	d.dependency = NULL;
	d.min_nodes = UINT32_MAX;
	d.ntasks = UINT32_MAX;
	d.cpus_per_task = UINT32_MAX;
	d.ntasks_per_node = UINT32_MAX;
	d.mem_per_cpu = UINT64_MAX;
	odd("submit, huge counts", MSG_SUBMIT, &d);
	d.min_nodes = d.ntasks = d.cpus_per_task = d.ntasks_per_node = 0;
	d.mem_per_cpu = 0;
	d.begin_time = INT64_MIN;
	d.time_limit = UINT32_MAX - 7;
	d.nice = INT32_MIN;
	odd("submit, odd times and nice", MSG_SUBMIT, &d);
	d.begin_time = 0;
	d.time_limit = 0;
	d.nice = 0;
	uint32_t held = submit_held(&d);
	ok(held != 0, "a held job to work on");

	/* cancel */
	msg_cancel_t c = { 0 };
	odd("cancel, no ids", MSG_CANCEL, &c);
	c.njob_ids = 100000;
	c.job_ids = xcalloc(c.njob_ids, sizeof(uint32_t));
	for (uint32_t i = 0; i < c.njob_ids; i++)
		c.job_ids[i] = 1000000 + i;
	odd("cancel, 100,000 unknown ids", MSG_CANCEL, &c);
	free(c.job_ids);
	c.job_ids = &held;
	c.njob_ids = 1;
	c.signal = 999;
	odd("cancel, bad signal, pending job", MSG_CANCEL, &c);

	/* job updates */
	msg_update_job_t uj = { 0 };
	odd("update job 0", MSG_UPDATE_JOB, &uj);
	uj.job_id = held;
	odd("update job, nothing", MSG_UPDATE_JOB, &uj);
	uj.action = (char *)"bogus";
	odd("update job, unknown action", MSG_UPDATE_JOB, &uj);
	uj.action = NULL;
	uj.keys = (strv_t){ one, 1 };
	odd("update job, unknown key without value", MSG_UPDATE_JOB, &uj);
	uj.keys = (strv_t){ two, 2 };
	uj.values = (strv_t){ empty, 1 };
	odd("update job, more keys than values", MSG_UPDATE_JOB, &uj);
	uj.keys = (strv_t){ one, 1 };
	odd("update job, unknown key", MSG_UPDATE_JOB, &uj);

	/* steps, waits, completions */
	msg_step_create_t sc = { .job_id = held, .ntasks = UINT32_MAX, .min_nodes = UINT32_MAX };
	odd("step create, pending job", MSG_STEP_CREATE, &sc);
	sc.job_id = 0;
	odd("step create, job 0", MSG_STEP_CREATE, &sc);
	msg_job_wait_t w = { .job_id = 0, .until = WAIT_UNTIL_STARTED };
	odd("wait, job 0", MSG_JOB_WAIT, &w);
	w.job_id = held;
	w.until = 77;
	odd("wait, unknown condition", MSG_JOB_WAIT, &w);
	msg_job_complete_t jc = { 0 };
	odd("complete, all zero", MSG_JOB_COMPLETE, &jc);
	jc.job_id = held;
	jc.step_id = NO_VAL32;
	jc.end_state = UINT32_MAX;
	jc.end_time = INT64_MIN;
	odd("complete, pending job, odd state", MSG_JOB_COMPLETE, &jc);

	/* node and partition administration, registration */
	msg_update_node_t un = { 0 };
	odd("update node, no names", MSG_UPDATE_NODE, &un);
	un.names = (char *)"";
	un.state = (char *)"";
	un.reason = (char *)"";
	odd("update node, empty names", MSG_UPDATE_NODE, &un);
	un.names = (char *)"no[such";
	un.state = (char *)"bogus";
	odd("update node, bad names and state", MSG_UPDATE_NODE, &un);
	msg_update_part_t up = { 0 };
	odd("update partition, no name", MSG_UPDATE_PART, &up);
	up.keys = (strv_t){ one, 1 };
	up.values = (strv_t){ empty, 1 };
	odd("update partition, no name, unknown key", MSG_UPDATE_PART, &up);
	msg_node_register_t nr = { 0 };
	odd("register, no name", MSG_NODE_REGISTER, &nr);
	nr.name = (char *)"nosuchnode";
	odd("register, unknown node", MSG_NODE_REGISTER, &nr);
	nr.name = NULL;
	odd("heartbeat, no name", MSG_NODE_HEARTBEAT, &nr);

	/* sprio, sdiag */
	msg_prio_req_t pr = { 0 };
	odd("sprio, empty", MSG_PRIO_INFO_REQ, &pr);
	pr.partitions = (char *)",,,";
	pr.job_ids = &held;
	pr.njob_ids = 1;
	odd("sprio, odd partitions", MSG_PRIO_INFO_REQ, &pr);
	msg_stats_req_t sr = { .flags = UINT32_MAX & ~STATS_F_RESET };
	odd("sdiag, odd flags", MSG_STATS_REQ, &sr);

	/* messages the controller never expects from a client */
	msg_rc_t rcm = { 0, NULL };
	odd("a stray MSG_RC", MSG_RC, &rcm);
	msg_signal_job_t sj = { 0 };
	odd("a stray MSG_SIGNAL_JOB", MSG_SIGNAL_JOB, &sj);
	msg_step_io_t io = { 0 };
	odd("a stray MSG_STEP_IO", MSG_STEP_IO, &io);

	cancel_one(held);
	ok(alive(), "controller alive at the end");
	return done_testing();
}

/* The step launch `stepcred` gets a credential for and `launch` sends:
 * CMD in /tmp as the caller, one task. */
static void test_launch(msg_launch_step_t *ls, uint32_t job, uint32_t step, char *cred,
			const char *cmd)
{
	*ls = (msg_launch_step_t){ .job_id = job, .step_id = step, .user_id = getuid(),
				   .group_id = getgid(), .cred = cred, .cwd = (char *)"/tmp",
				   .ntasks = 1, .total_tasks = 1, .nnodes = 1 };
	strv_push(&ls->argv, cmd);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		printf("1..0 # SKIP needs a live cluster (run by t/integration/0170-requests.t)\n");
		return 0;
	}
	conf = conf_load(NULL, CONF_CLIENT);
	if (!strcmp(argv[1], "robust"))
		return robust();
	if (!strcmp(argv[1], "complete") && argc >= 3) {
		msg_job_complete_t jc = {
			.job_id = (uint32_t)strtoul(argv[2], NULL, 10), .step_id = NO_VAL32,
			.launch_seq = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 1,
			.end_state = JOB_COMPLETE,
		};
		printf("%d\n", call(MSG_JOB_COMPLETE, &jc, NULL, NULL));
		return 0;
	}
	if (!strcmp(argv[1], "credttl") && argc >= 3) {
		/* Create a step and print how long its credential is valid. */
		char digest[CRED_DIGEST_HEX + 1];
		msg_launch_step_t ls;
		test_launch(&ls, 0, 0, NULL, "true");
		cred_launch_digest(&ls, digest);
		strv_free(&ls.argv);
		msg_step_create_t sc = { .job_id = (uint32_t)strtoul(argv[2], NULL, 10),
					 .digest = digest };
		int err = 0;
		rpc_t *r = rpc_connect_ctld(conf, &err);
		enum msg_type t = MSG_NONE;
		void *reply = NULL;
		if (!r || rpc_send(r, MSG_STEP_CREATE, &sc) || rpc_recv(r, &t, &reply, 5000) ||
		    t != MSG_STEP_CREATE_REPLY) {
			printf("no step: %s\n", t == MSG_RC ? slurm_strerror(((msg_rc_t *)reply)->rc) : "?");
			if (reply)
				proto_msg_destroy(t, reply);
			rpc_close(r);
			fflush(stdout);  /* before LeakSanitizer's exit, whatever it finds */
			return 1;
		}
		const char *cred = ((msg_step_create_reply_t *)reply)->cred;
		const char *e = cred ? strstr(cred, " expires=") : NULL;
		printf("%lld\n", e ? atoll(e + 9) - (long long)time(NULL) : -1LL);
		proto_msg_destroy(t, reply);
		rpc_close(r);
		return 0;
	}
	if (!strcmp(argv[1], "stepcred") && argc >= 4) {
		char digest[CRED_DIGEST_HEX + 1];
		msg_launch_step_t ls;
		test_launch(&ls, 0, 0, NULL, "true");
		cred_launch_digest(&ls, digest);
		strv_free(&ls.argv);
		/* F: "JOB STEP ADDR PORT\n" then the credential (two lines).
		 * With NODE (argv[4]): a step over the job's first NODE+1 nodes,
		 * and that node's address. */
		uint32_t ni = argc >= 5 ? (uint32_t)strtoul(argv[4], NULL, 10) : 0;
		msg_step_create_t sc = { .job_id = (uint32_t)strtoul(argv[2], NULL, 10),
					 .ntasks = ni + 1, .min_nodes = argc >= 5 ? ni + 1 : 0,
					 .digest = digest,
					 /* a credential, not CPUs: several may be asked
					  * while none launches (steps queue for CPUs) */
					 .flags = STEP_CREATE_OVERLAP };
		int err = 0;
		rpc_t *r = rpc_connect_ctld(conf, &err);
		enum msg_type t = MSG_NONE;
		void *reply = NULL;
		if (!r || rpc_send(r, MSG_STEP_CREATE, &sc) || rpc_recv(r, &t, &reply, 5000) ||
		    t != MSG_STEP_CREATE_REPLY || !((msg_step_create_reply_t *)reply)->cred) {
			printf("no step: %s\n", t == MSG_RC ? slurm_strerror(((msg_rc_t *)reply)->rc) : "?");
			if (reply)
				proto_msg_destroy(t, reply);
			rpc_close(r);
			fflush(stdout);  /* before LeakSanitizer's exit, whatever it finds */
			return 1;
		}
		msg_step_create_reply_t *sr = reply;
		FILE *f = fopen(argv[3], "w");
		if (!f || ni >= sr->node_addrs.n || ni >= sr->nports)
			return 1;
		fprintf(f, "%u %u %s %u %u %u\n%s\n", sr->job_id, sr->step_id, sr->node_addrs.v[ni],
			sr->ports[ni], ni, ni + 1, sr->cred);
		fclose(f);
		proto_msg_destroy(t, reply);
		rpc_close(r);
		return 0;
	}
	if (!strcmp(argv[1], "waiters") && argc >= 4) {
		msg_job_wait_t w = { .job_id = (uint32_t)strtoul(argv[2], NULL, 10),
				     .until = WAIT_UNTIL_STARTED };
		int n = atoi(argv[3]) + 1;
		rpc_t **rs = xcalloc((size_t)n, sizeof(*rs));
		for (int i = 0; i < n; i++) {
			int err = 0;
			rs[i] = rpc_connect_ctld(conf, &err);
			enum msg_type t = MSG_NONE;
			void *reply = NULL;
			if (!rs[i] || rpc_send(rs[i], MSG_JOB_WAIT, &w)) {
				printf("%d no connection\n", i);
				continue;
			}
			/* a held waiter answers nothing: a short wait tells */
			if (rpc_recv(rs[i], &t, &reply, i < n - 1 ? 50 : 2000) == 0 && t == MSG_RC) {
				msg_rc_t *rc = reply;
				printf("%d %d %s\n", i, rc->rc, rc->msg ? rc->msg : "");
			}
			if (reply)
				proto_msg_destroy(t, reply);
		}
		for (int i = 0; i < n; i++)
			rpc_close(rs[i]);
		free(rs);
		return 0;
	}
	if (!strcmp(argv[1], "launch") && argc >= 3) {
		FILE *f = fopen(argv[2], "r");
		char addr[256], line1[4096] = "", line2[4096] = "";
		unsigned job, step, port, node, nnodes;
		if (!f || fscanf(f, "%u %u %255s %u %u %u\n", &job, &step, addr, &port, &node,
				 &nnodes) != 6 ||
		    !fgets(line1, sizeof(line1), f) || !fgets(line2, sizeof(line2), f))
			return 1;
		fclose(f);
		line2[strcspn(line2, "\n")] = '\0';
		char *cred = xasprintf("%s%s", line1, line2);
		msg_launch_step_t ls;
		test_launch(&ls, job, step, cred, argc > 3 ? argv[3] : "true");
		/* the step's one task per node, on node `node` of nnodes */
		ls.node_id = node;
		ls.nnodes = nnodes;
		ls.first_task = node;
		ls.total_tasks = nnodes;
		/* as srun run by a key holder: the MAC under the step's
		 * launch key, derived here (auth/slurm) */
		char key[CRED_DIGEST_HEX + 1], mac[CRED_DIGEST_HEX + 1];
		char *aerr = NULL;
		auth_t *a = auth_create(conf, &aerr);
		free(aerr);
		if (cred_launch_key(a, cred, key) == 0 && cred_launch_mac(key, &ls, mac) == 0)
			ls.launch_mac = mac;
		auth_destroy(a);
		int err = 0;
		rpc_t *r = rpc_connect_addr(conf, addr, (uint16_t)port, &err);
		enum msg_type t = MSG_NONE;
		void *reply = NULL;
		if (!r || rpc_send(r, MSG_LAUNCH_STEP, &ls) || rpc_recv(r, &t, &reply, 5000) ||
		    t != MSG_RC) {
			printf("no answer\n");
			return 1;
		}
		msg_rc_t *rc = reply;
		printf("%d %s\n", rc->rc, rc->msg ? rc->msg : slurm_strerror(rc->rc));
		proto_msg_destroy(t, reply);
		rpc_close(r);
		strv_free(&ls.argv);
		free(cred);
		return 0;
	}
	fprintf(stderr, "usage: test_ctld_requests robust | complete JOBID [LAUNCH_SEQ] | credttl JOBID"
		" | stepcred JOBID FILE [NODE] | launch FILE | waiters JOBID N\n");
	return 2;
}
