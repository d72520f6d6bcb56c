/*
 * scancel: cancel or signal jobs.
 *
 * Job ids go to the controller as they are. Filters (-u -p -n -t -w -A
 * -q --me) are resolved here: one MSG_JOB_INFO fetch, the matching jobs
 * that have not finished (restricted to the given ids, if any), then one
 * MSG_CANCEL with all of them. The controller answers one rc per id.
 *
 * Reporting follows Slurm 22.05: an unknown or finished job is silent
 * (shown only with -v) and does not change the exit status; other errors
 * print "Kill job error on job id N: <text>" and the exit status is the
 * error number & 0xff (Access/permission denied -> 210).
 */
#include <ctype.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array_range.h"
#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "cmd/jobopts.h"
#include "cmd/print.h"
#include "errors.h"
#include "hostlist.h"
#include "log.h"
#include "net.h"
#include "states.h"
#include "xalloc.h"

struct scancel_opts {
	int verbose, quiet, batch, full, interactive, signal;  /* signal 0 = cancel */
	char *user, *partition, *name, *account, *qos, *nodes, *reservation, *wckey;
	char *sibling;          /* --sibling: Sluice is no federation */
	int state;              /* -1 = any, else 0 and state_sel holds it */
	job_state_sel_t state_sel;
	int me;
	uint32_t *ids;
	size_t nids;
};

/* An array selector "N_M" or "N_[1-3,7]": the array id in *id and the
 * task ids in *tasks (malloc'd, *ntasks). 0, or -1 (invalid). */
static int parse_array_tasks(const char *s, uint32_t *id, uint32_t **tasks, size_t *ntasks)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (v == 0 || v > 0xfffffff0ul || *end != '_')
		return -1;
	const char *t = end + 1;
	size_t len = strlen(t);
	char *spec = (*t == '[' && len > 2 && t[len - 1] == ']') ? xstrndup(t + 1, len - 2)
		: xstrdup(t);
	array_set_t set;
	uint32_t thr;
	int rc = array_spec_parse(spec, 0, &set, &thr);
	free(spec);
	if (rc || thr)
		return -1;
	*tasks = xcalloc(set.count + 1, sizeof(uint32_t));
	*ntasks = 0;
	for (uint32_t x = array_set_next(&set, 0); x != ARRAY_NONE; x = array_set_next(&set, x + 1))
		(*tasks)[(*ntasks)++] = x;
	array_set_free(&set);
	*id = (uint32_t)v;
	return 0;
}

/* A job id as typed: "N" works; "N.S" (step) is not supported yet
 * ("N_M" goes to parse_array_tasks). Returns 0, -1 (invalid), -2
 * (unsupported form), -3 (an array task selector). */
static int parse_job_id(const char *s, uint32_t *id)
{
	char *end;
	if (!isdigit((unsigned char)*s))
		return -1;
	unsigned long v = strtoul(s, &end, 10);
	if (v == 0 || v > 0xfffffff0ul)
		return -1;
	if (*end == '_' || *end == '.') {
		const char *q = end + 1;
		if (!*q)
			return -1;
		if (*end == '_' && !strchr(q, '.'))
			return -3;
		for (; *q; q++)
			if (!isdigit((unsigned char)*q) && *q != '.' && *q != '_' &&
			    strcmp(q, "batch") && strcmp(q, "extern"))
				return -1;
		return -2;
	}
	if (*end)
		return -1;
	*id = (uint32_t)v;
	return 0;
}

static int job_on_nodes(const job_info_t *j, hostlist_t *want)
{
	if (!j->nodes || !*j->nodes)
		return 0;
	hostlist_t *hl = hostlist_create(j->nodes, NULL);
	int hit = 0;
	for (size_t i = 0; hl && i < hostlist_count(hl) && !hit; i++)
		if (hostlist_find(want, hostlist_nth(hl, i)) >= 0)
			hit = 1;
	hostlist_destroy(hl);
	return hit;
}

static void strv_push_fmt(strv_t *sv, const job_info_t *j)
{
	char *s = xasprintf("name=%s partition=%s", j->name ? j->name : "",
			    j->partition ? j->partition : "");
	strv_push(sv, s);
	free(s);
}

/* Slurm's -v line when filters match nothing: every filter given, in
 * its order, each followed by a blank. */
static void no_match(const struct scancel_opts *o)
{
	strbuf_t sb = STRBUF_INIT;
	if (o->account)
		strbuf_addf(&sb, "account=%s ", o->account);
	if (o->name)
		strbuf_addf(&sb, "job_name=%s ", o->name);
	if (o->nodes)
		strbuf_addf(&sb, "nodelist=%s ", o->nodes);
	if (o->partition)
		strbuf_addf(&sb, "partition=%s ", o->partition);
	if (o->qos)
		strbuf_addf(&sb, "qos=%s ", o->qos);
	if (o->reservation)
		strbuf_addf(&sb, "reservation=%s ", o->reservation);
	if (o->state >= 0)
		strbuf_addf(&sb, "state=%s ", job_state_sel_name(&o->state_sel));
	if (o->user)
		strbuf_addf(&sb, "user_name=%s ", o->user);
	else if (o->me)
		strbuf_addf(&sb, "user_name=%u ", (unsigned)getuid());
	if (o->wckey)
		strbuf_addf(&sb, "wckey=%s ", o->wckey);
	error("No active jobs match ALL job filters, including: %s", sb.buf ? sb.buf : "");
	strbuf_release(&sb);
}

static int in_ids(const struct scancel_opts *o, uint32_t id)
{
	for (size_t i = 0; i < o->nids; i++)
		if (o->ids[i] == id)
			return 1;
	return 0;
}

/* "name=N partition=P" of each selected job, for -i's question. */
static strv_t labels;

/* Resolve filters to ids (all_ids: every active job, for -i on plain
 * ids). Returns 0 or an exit status. */
static int select_jobs(struct scancel_opts *o, int all_ids, uint32_t **out, size_t *nout)
{
	uint32_t uid_filter = 0;
	int have_uid = 0;
	hostlist_t *nodes = NULL;

	if (o->me) {
		uid_filter = (uint32_t)getuid();
		have_uid = 1;
	}
	if (o->user && !all_ids) {
		if (cmd_user_id(o->user, &uid_filter) < 0) {
			error("Invalid user name: %s", o->user);
			return 1;
		}
		have_uid = 1;
	}
	if (o->nodes) {
		char *err = NULL;
		nodes = hostlist_create(o->nodes, &err);
		if (!nodes) {
			error("Invalid node list: %s", err ? err : o->nodes);
			free(err);
			return 1;
		}
	}
	msg_info_req_t req = { 0 };
	void *reply = NULL;
	int rc = cmd_call(MSG_JOB_INFO_REQ, &req, MSG_JOB_INFO, &reply, NULL);
	if (rc) {
		error("slurm_load_jobs error: %s", slurm_strerror(rc));
		hostlist_destroy(nodes);
		return 1;
	}
	msg_job_info_t *ji = reply;
	uint32_t *ids = xcalloc(ji->njobs + o->nids + 1, sizeof(*ids));
	size_t n = 0;
	for (uint32_t i = 0; i < ji->njobs; i++) {
		const job_info_t *j = &ji->jobs[i];
		if (JOB_IS_FINISHED(j->state))
			continue;
		if (o->nids && !in_ids(o, j->job_id))
			continue;
		if (all_ids) {
			ids[n++] = j->job_id;
			strv_push_fmt(&labels, j);
			continue;
		}
		if (have_uid && j->user_id != uid_filter)
			continue;
		if (o->partition && (!j->partition || strcmp(o->partition, j->partition)))
			continue;
		if (o->name && (!j->name || strcmp(o->name, j->name)))
			continue;
		if (o->account && (!j->account || strcmp(o->account, j->account)))
			continue;
		if (o->qos && (!j->qos || strcmp(o->qos, j->qos)))
			continue;
		if (o->state >= 0 && !job_state_sel_match(&o->state_sel, 1, j->state))
			continue;
		if (o->reservation && (!j->reservation || strcmp(o->reservation, j->reservation)))
			continue;
		/* Sluice has no WCKeys: a job has none, so it matches no such
		 * filter (as a Slurm job without one). */
		if (o->wckey)
			continue;
		if (nodes && !job_on_nodes(j, nodes))
			continue;
		ids[n++] = j->job_id;
		strv_push_fmt(&labels, j);
	}
	proto_msg_destroy(MSG_JOB_INFO, reply);
	hostlist_destroy(nodes);
	*out = ids;
	*nout = n;
	return 0;
}

static void verbose_err(const struct scancel_opts *o, uint32_t id, int err)
{
	if (o->verbose)
		error("Kill job error on job id %u: %s", id, slurm_strerror(err));
}

enum { ID_ME = 256, ID_USAGE, ID_HURRY, ID_WCKEY, ID_SIBLING, ID_CTLD };

int cmd_scancel(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "account", required_argument, NULL, 'A' },
		{ "batch", no_argument, NULL, 'b' },
		{ "ctld", no_argument, NULL, ID_CTLD },
		{ "full", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "hurry", no_argument, NULL, 'H' },
		{ "interactive", no_argument, NULL, 'i' },
		{ "cluster", required_argument, NULL, 'M' },
		{ "clusters", required_argument, NULL, 'M' },
		{ "me", no_argument, NULL, ID_ME },
		{ "name", required_argument, NULL, 'n' },
		{ "jobname", required_argument, NULL, 'n' },
		{ "nodelist", required_argument, NULL, 'w' },
		{ "partition", required_argument, NULL, 'p' },
		{ "qos", required_argument, NULL, 'q' },
		{ "quiet", no_argument, NULL, 'Q' },
		{ "reservation", required_argument, NULL, 'R' },
		{ "signal", required_argument, NULL, 's' },
		{ "sibling", required_argument, NULL, ID_SIBLING },
		{ "state", required_argument, NULL, 't' },
		{ "usage", no_argument, NULL, ID_USAGE },
		{ "user", required_argument, NULL, 'u' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "wckey", required_argument, NULL, ID_WCKEY },
		{ NULL, 0, NULL, 0 },
	};
	struct scancel_opts o = { .state = -1 };
	int c, rc = 0;

	log_init("scancel", 0, LOG_LVL_INFO, NULL);
	argv[0] = (char *)"scancel";
	optind = 0;
	while ((c = getopt_long(argc, argv, "A:bfhHiM:n:p:q:QR:s:t:u:vVw:", lopts, NULL)) != -1) {
		switch (c) {
		case 'A': o.account = optarg; break;
		case 'b': o.batch = 1; break;
		case 'f': o.full = 1; break;
		case 'h': cmd_help_print(stdout, &cmd_help_scancel); return 0;
		/* --hurry: Sluice has no burst buffer stage-out to skip. */
		case 'H': case 'M': case ID_CTLD: break;
		case ID_WCKEY: o.wckey = optarg; break;
		case ID_SIBLING: o.sibling = optarg; break;
		case 'i': o.interactive = 1; break;
		case ID_ME: o.me = 1; break;
		case 'n': o.name = optarg; break;
		case 'p': o.partition = optarg; break;
		case 'q': o.qos = optarg; break;
		case 'Q': o.quiet = 1; break;
		case 'R': o.reservation = optarg; break;
		case 's':
			o.signal = jobopts_signal_parse(optarg);
			if (o.signal < 0) {
				fprintf(stderr, "Unknown job signal: %s\n", optarg);
				return 1;
			}
			break;
		case 't':
			/* Any state name Slurm knows (a finished one then
			 * matches nothing), as Slurm's scancel. */
			if (job_state_sel_parse(optarg, &o.state_sel)) {
				fprintf(stderr, "Invalid job state specified: %s\n", optarg);
				fprintf(stderr, "Valid job states are PENDING, RUNNING, and SUSPENDED\n");
				return 1;
			}
			o.state = 0;
			break;
		case 'u': o.user = optarg; break;
		case 'v': o.verbose++; break;
		case 'V': printf("slurm %s\n", SLURM_COMPAT_VERSION); return 0;
		case 'w': o.nodes = optarg; break;
		case ID_USAGE: cmd_usage_print(stdout, &cmd_help_scancel); return 0;
		default:
			cmd_bad_option("scancel");
			return 1;
		}
	}
	if (o.quiet)
		log_set_level(LOG_LVL_QUIET);
	else if (o.verbose)
		log_set_level((enum log_level)(LOG_LVL_INFO + o.verbose));

	o.ids = xcalloc((size_t)(argc - optind) + 1, sizeof(*o.ids));
	size_t aids = (size_t)(argc - optind) + 1;
	uint32_t *tasks = xcalloc(aids, sizeof(*tasks));   /* parallel to o.ids */
	int any_task = 0;
	for (int i = optind; i < argc; i++) {
		uint32_t id;
		int r = parse_job_id(argv[i], &id);
		if (r == -3) {
			uint32_t *tv = NULL;
			size_t nt = 0;
			if (parse_array_tasks(argv[i], &id, &tv, &nt)) {
				error("Invalid job id %s", argv[i]);
				free(o.ids);
				free(tasks);
				return 1;
			}
			o.ids = xrealloc(o.ids, (o.nids + nt + (size_t)argc) * sizeof(*o.ids));
			tasks = xrealloc(tasks, (o.nids + nt + (size_t)argc) * sizeof(*tasks));
			for (size_t k = 0; k < nt; k++) {
				o.ids[o.nids] = id;
				tasks[o.nids++] = tv[k];
			}
			free(tv);
			any_task = 1;
			continue;
		}
		if (r == -1) {
			error("Invalid job id %s", argv[i]);
			free(o.ids);
			return 1;
		}
		if (r == -2) {
			error("Job steps are not supported yet: %s", argv[i]);
			free(o.ids);
			free(tasks);
			return 1;
		}
		tasks[o.nids] = NO_VAL32;
		o.ids[o.nids++] = id;
	}
	int filters = o.user || o.partition || o.name || o.account || o.qos ||
		o.nodes || o.state >= 0 || o.me || o.reservation || o.wckey;
	if (!o.nids && !filters) {
		error("No job identification provided");
		free(o.ids);
		free(tasks);
		return 1;
	}

	uint32_t *ids = o.ids;
	size_t nids = o.nids;
	if (filters || o.interactive) {
		if ((rc = select_jobs(&o, !filters, &ids, &nids))) {
			free(o.ids);
			free(tasks);
			return rc;
		}
		/* Given ids that are not active: what the controller says. */
		for (size_t i = 0; filters && i < o.nids; i++) {
			int hit = 0;
			for (size_t k = 0; k < nids && !hit; k++)
				hit = ids[k] == o.ids[i];
			if (!hit)
				verbose_err(&o, o.ids[i], ESLURM_INVALID_JOB_ID);
		}
		if (filters && !nids && o.verbose)
			no_match(&o);
		if (o.interactive && !filters) {
			/* Ids not found stay, to get the controller's answer. */
			for (size_t i = 0; i < o.nids; i++) {
				int hit = 0;
				for (size_t k = 0; k < nids && !hit; k++)
					hit = ids[k] == o.ids[i];
				if (!hit) {
					ids[nids++] = o.ids[i];
					strv_push(&labels, "name= partition=");
				}
			}
		}
	}
	if (o.interactive) {
		/* Ask per job, on stdout as Slurm; keep only the confirmed ones. */
		size_t k = 0;
		for (size_t i = 0; i < nids; i++) {
			char line[64];
			printf("Cancel job_id=%u %s [y/n]? ", ids[i],
			       i < labels.n ? labels.v[i] : "");
			fflush(stdout);
			if (fgets(line, sizeof(line), stdin) && (line[0] == 'y' || line[0] == 'Y')) {
				if (ids == o.ids)
					tasks[k] = tasks[i];
				ids[k++] = ids[i];
			}
		}
		nids = k;
	}
	strv_free(&labels);
	if (nids == 0) {
		if (ids != o.ids)
			free(ids);
		free(o.ids);
		free(tasks);
		return 0;
	}
	if (o.sibling) {
		/* Sluice is one cluster: no job is a federated one. */
		for (size_t i = 0; i < nids; i++)
			error("Kill job error on job id %u: %s", ids[i],
			      slurm_strerror(ESLURM_JOB_NOT_FEDERATED));
		if (ids != o.ids)
			free(ids);
		free(o.ids);
		free(tasks);
		return ESLURM_JOB_NOT_FEDERATED & 0xff;
	}

	for (size_t i = 0; i < nids; i++) {
		if (o.signal)
			verbose("Signal %d to %sjob %u", o.signal,
				o.batch ? "batch " : o.full ? "full " : "", ids[i]);
		else
			verbose("Terminating job %u", ids[i]);
	}
	msg_cancel_t req = {
		.njob_ids = (uint32_t)nids, .job_ids = ids,
		.signal = (uint32_t)o.signal,
		.flags = (o.batch ? CANCEL_F_BATCH_ONLY : 0) | (o.full ? CANCEL_F_FULL : 0),
		/* "11_3": the task of the array (the ids as typed only) */
		.ntask_ids = any_task && ids == o.ids ? (uint32_t)nids : 0,
		.task_ids = any_task && ids == o.ids ? tasks : NULL,
	};
	void *reply = NULL;
	int err = cmd_call(MSG_CANCEL, &req, MSG_CANCEL_REPLY, &reply, NULL);
	if (err) {
		/* The whole request failed: every id gets the error. */
		for (size_t i = 0; i < nids; i++) {
			if (err == ESLURM_INVALID_JOB_ID || err == ESLURM_ALREADY_DONE) {
				if (o.verbose)
					error("Kill job error on job id %u: %s", ids[i], slurm_strerror(err));
				continue;
			}
			error("Kill job error on job id %u: %s", ids[i], slurm_strerror(err));
			rc = err & 0xff;
			if (rc == 0)
				rc = 1;
		}
	} else {
		msg_cancel_reply_t *cr = reply;
		for (size_t i = 0; i < nids && i < cr->nrcs; i++) {
			int e = cr->rcs[i];
			if (!e)
				continue;
			if (e == ESLURM_INVALID_JOB_ID || e == ESLURM_ALREADY_DONE) {
				if (o.verbose)
					error("Kill job error on job id %u: %s", ids[i], slurm_strerror(e));
				continue;
			}
			error("Kill job error on job id %u: %s", ids[i], slurm_strerror(e));
			rc = e & 0xff;
			if (rc == 0)
				rc = 1;
		}
		proto_msg_destroy(MSG_CANCEL_REPLY, reply);
	}
	if (ids != o.ids)
		free(ids);
	free(o.ids);
	free(tasks);
	return rc;
}
