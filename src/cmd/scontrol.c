/*
 * scontrol: view and modify controller state, as Slurm 22.05's scontrol
 * (the non-interactive form: `scontrol [options] command [args]`).
 *
 * Commands and entity names may be abbreviated as Slurm allows (a prefix
 * at least as long as Slurm's minimum). Client-side checks (node states,
 * missing reasons) print Slurm's texts before anything is sent.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "array_range.h"
#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "cmd/print.h"
#include "conf.h"
#include "errors.h"
#include "hostlist.h"
#include "log.h"
#include "net.h"
#include "resv_spec.h"
#include "states.h"
#include "strbuf.h"
#include "timefmt.h"
#include "xalloc.h"

static int detail, one_liner, quiet;
/* -F/--future: show FUTURE nodes, which Slurm's controller leaves out of
 * node listings unless asked (show_flags SHOW_FUTURE). */
static int future;
static int json_out;              /* --json (show node) */

enum { OPT_HELP = 0x100, OPT_USAGE, OPT_JSON, OPT_YAML, OPT_LOCAL, OPT_SIBLING,
       OPT_FEDERATION, OPT_HIDE };

static const struct option long_opts[] = {
	{ "all", no_argument, NULL, 'a' },
	{ "cluster", required_argument, NULL, 'M' },
	{ "clusters", required_argument, NULL, 'M' },
	{ "details", no_argument, NULL, 'd' },
	{ "future", no_argument, NULL, 'F' },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "hide", no_argument, NULL, OPT_HIDE },
	{ "oneliner", no_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'Q' },
	{ "usage", no_argument, NULL, OPT_USAGE },
	{ "uid", required_argument, NULL, 'u' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "yaml", no_argument, NULL, OPT_YAML },
	{ "local", no_argument, NULL, OPT_LOCAL },
	{ "sibling", no_argument, NULL, OPT_SIBLING },
	{ "federation", no_argument, NULL, OPT_FEDERATION },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *fp)
{
	fputs("Usage: scontrol [<OPTION>] [<COMMAND>]\n"
	      "    Valid <OPTION> values are:\n"
	      "     -a or --all: equivalent to \"all\" command\n"
	      "     -d or --details: equivalent to \"details\" command\n"
	      "     -h or --help: equivalent to \"help\" command\n"
	      "     -o or --oneliner: equivalent to \"oneliner\" command\n"
	      "     -Q or --quiet: equivalent to \"quiet\" command\n"
	      "     -V or --version: equivalent to \"version\" command\n"
	      "\n"
	      "  <keyword> may be omitted from the execute line and scontrol will execute\n"
	      "  in interactive mode. Sluice's scontrol runs one command per invocation.\n"
	      "\n"
	      "    Valid <COMMAND> values are:\n"
	      "     hold <job_list>          prevent specified job from starting.\n"
	      "     listpids [<job>[.<step>]] [<node>]  the processes of a job's (or one\n"
	      "                              step's, or every job's) steps on this host's\n"
	      "                              node, or on <node>.\n"
	      "     ping                     print status of slurmctld daemons.\n"
	      "     reconfigure              re-read configuration files.\n"
	      "     release <job_list>       permit specified job to start.\n"
	      "     setdebug <level>         set slurmctld debug level\n"
	      "     show <ENTITY> [<ID>]     display state of identified entity, default\n"
	      "                              is all records. <ENTITY> may be config, hostlist,\n"
	      "                              hostlistsorted, hostnames, job, node,\n"
	      "                              partition, step or topology.\n"
	      "     shutdown                 shutdown slurm daemons.\n"
	      "     uhold <job_list>         place user hold on specified job.\n"
	      "     update <SPECIFICATIONS>  update job, node or partition configuration.\n"
	      "     version                  display tool version number.\n", fp);
}

/* Slurm's abbreviation rule: tag matches name if it is a prefix of it at
 * least min characters long (or the whole name). */
static int kw(const char *tag, const char *name, size_t min)
{
	size_t n = strlen(tag);
	if (n < min && n < strlen(name))
		return 0;
	return n <= strlen(name) && !strncasecmp(tag, name, n);
}

static const char *ctld_host_name(const conf_t *conf, size_t i)
{
	static char host[256];
	const char *h = conf->nctld_hosts > i ? conf->ctld_hosts[i] : "localhost";
	/* Slurm shows the real host name for "localhost". */
	if (!strcasecmp(h, "localhost") && !gethostname(host, sizeof(host))) {
		host[sizeof(host) - 1] = '\0';
		char *dot = strchr(host, '.');
		if (dot)
			*dot = '\0';
		return host;
	}
	return h;
}

static int do_ping(void)
{
	const conf_t *conf = cmd_conf();
	int rc = rpc_call_ctld_rc(conf, MSG_PING, &(msg_empty_t){ 0 }, NULL);
	size_t n = conf->nctld_hosts ? conf->nctld_hosts : 1;
	for (size_t i = 0; i < n; i++) {
		/* Only the primary is contacted; backups are reported DOWN. */
		int up = i == 0 && rc == 0;
		printf("Slurmctld(%s) at %s is %s\n", i == 0 ? "primary" : "backup",
		       ctld_host_name(conf, i), up ? "UP" : "DOWN");
	}
	return rc ? 1 : 0;
}

/* An array task id after "N_": *plus1 = task + 1 (msg_update_job_t). */
static int task_parse(const char *s, uint32_t *plus1)
{
	char *end;
	unsigned long t = strtoul(s, &end, 10);
	if (end == s || *end || t >= NO_VAL32 - 1)
		return -1;
	*plus1 = (uint32_t)t + 1;
	return 0;
}

/* Is task in an array's pending task string ("1-4,7%2")? */
static int array_str_has(const char *str, uint32_t task)
{
	array_set_t set;
	uint32_t thr;
	if (array_spec_parse(str, 0, &set, &thr))
		return 0;
	int has = array_set_has(&set, task);
	array_set_free(&set);
	return has;
}

static int show_jobs(const char *id)
{
	msg_info_req_t req = { 0 };
	msg_job_info_t *ji = NULL;
	if (id) {
		char *end;
		unsigned long v = strtoul(id, &end, 10);
		if (end == id || (*end && *end != '_')) {
			fprintf(stderr, "Invalid job id specified\n");
			return 1;
		}
		req.job_id = (uint32_t)v;
	}
	if (detail)
		req.flags |= INFO_F_DETAIL;
	if (cmd_call(MSG_JOB_INFO_REQ, &req, MSG_JOB_INFO, (void **)&ji, "slurm_load_jobs"))
		return 1;
	if (!ji->njobs) {
		if (id)
			fprintf(stderr, "slurm_load_jobs error: Invalid job id specified\n");
		else
			printf("No jobs in the system\n");
		proto_msg_destroy(MSG_JOB_INFO, ji);
		return id ? 1 : 0;
	}
	time_t now = time(NULL);
	strbuf_t sb = STRBUF_INIT;
	const char *us = id ? strchr(id, '_') : NULL;
	uint32_t task = NO_VAL32;
	if (us) {
		/* ID_TASK: that task alone, its own record or the array's
		 * pending record shown as that task (as Slurm) */
		char *end;
		unsigned long t = strtoul(us + 1, &end, 10);
		if (end == us + 1 || *end || t >= NO_VAL32) {
			fprintf(stderr, "scontrol_print_job error: Invalid job id specified\n");
			proto_msg_destroy(MSG_JOB_INFO, ji);
			return 1;
		}
		task = (uint32_t)t;
	}
	int shown = 0;
	for (uint32_t i = 0; i < ji->njobs; i++) {
		job_info_t *j = &ji->jobs[i];
		if (us) {
			if (!j->array_job_id)
				continue;
			if (j->array_task_str && *j->array_task_str) {
				if (!array_str_has(j->array_task_str, task))
					continue;
				xfree(j->array_task_str);
				j->array_task_id = task;
			} else if (j->array_task_id != task) {
				continue;
			}
		}
		print_job_scontrol(&sb, j, detail, one_liner, now);
		shown++;
	}
	if (us && !shown) {
		printf("Job %s not found\n", id);
		proto_msg_destroy(MSG_JOB_INFO, ji);
		return 1;
	}
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
	proto_msg_destroy(MSG_JOB_INFO, ji);
	return 0;
}

static int show_nodes(const char *name)
{
	msg_info_req_t req = { 0 };
	msg_node_info_t *ni = NULL;
	hostlist_t *want = NULL;
	/* A single name is asked for directly; a range is filtered here. */
	if (name && !strpbrk(name, "[,")) {
		req.name = (char *)name;
	} else if (name) {
		want = hostlist_create(name, NULL);
		if (!want) {
			printf("Node %s not found\n", name);
			return 1;
		}
	}
	int err = cmd_call(MSG_NODE_INFO_REQ, &req, MSG_NODE_INFO, (void **)&ni, NULL);
	if (err == ESLURM_INVALID_NODE_NAME) {
		printf("Node %s not found\n", name ? name : "");
		hostlist_destroy(want);
		return 1;
	}
	if (err) {
		fprintf(stderr, "slurm_load_node error: %s\n", slurm_strerror(err));
		hostlist_destroy(want);
		return 1;
	}
	strbuf_t sb = STRBUF_INIT;
	size_t shown = 0;
	print_node_set_slurmd_port(cmd_conf()->slurmd_port);
	/* --json shows the selected nodes as sinfo --json does */
	node_info_t *sel = json_out ? xcalloc(ni->nnodes ? ni->nnodes : 1, sizeof(*sel)) : NULL;
	for (uint32_t i = 0; i < ni->nnodes; i++) {
		const node_info_t *n = &ni->nodes[i];
		if (want && hostlist_find(want, n->name) < 0)
			continue;
		if (req.name && strcmp(n->name, req.name))
			continue;
		if (!future && (n->state & NODE_STATE_BASE) == NODE_FUTURE)
			continue;
		if (sel)
			sel[shown] = *n;
		else
			print_node_scontrol_detail(&sb, n, one_liner, detail);
		shown++;
	}
	if (sel) {
		print_nodes_json(&sb, sel, shown);
		free(sel);
		fwrite(sb.buf, 1, sb.len, stdout);
		strbuf_release(&sb);
		hostlist_destroy(want);
		proto_msg_destroy(MSG_NODE_INFO, ni);
		return 0;
	}
	int rc = 0;
	if (!shown) {
		if (name) {
			printf("Node %s not found\n", name);
			rc = 1;
		} else {
			printf("No nodes in the system\n");
		}
	}
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
	hostlist_destroy(want);
	proto_msg_destroy(MSG_NODE_INFO, ni);
	return rc;
}

static int show_parts(const char *name)
{
	msg_info_req_t req = { 0 };
	msg_part_info_t *pi = NULL;
	int err = cmd_call(MSG_PART_INFO_REQ, &req, MSG_PART_INFO, (void **)&pi, NULL);
	if (err) {
		fprintf(stderr, "slurm_load_partitions error: %s\n", slurm_strerror(err));
		return 1;
	}
	strbuf_t sb = STRBUF_INIT;
	size_t shown = 0;
	for (uint32_t i = 0; i < pi->nparts; i++) {
		if (name && strcmp(pi->parts[i].name, name))
			continue;
		print_part_scontrol(&sb, &pi->parts[i], one_liner);
		shown++;
	}
	int rc = 0;
	if (!shown) {
		if (name) {
			printf("Partition %s not found\n", name);
			rc = 1;
		} else {
			printf("No partitions in the system\n");
		}
	}
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
	proto_msg_destroy(MSG_PART_INFO, pi);
	return rc;
}

static int show_resvs(const char *name)
{
	msg_info_req_t req = { .name = (char *)name };
	msg_resv_info_t *m = NULL;
	int err = cmd_call(MSG_RESV_INFO_REQ, &req, MSG_RESV_INFO, (void **)&m, NULL);
	if (err) {
		fprintf(stderr, "slurm_load_reservations error: %s\n", slurm_strerror(err));
		return 1;
	}
	int rc = 0;
	if (!m->nresvs) {
		if (name) {
			printf("Reservation %s not found\n", name);
			rc = 1;
		} else {
			printf("No reservations in the system\n");
		}
	}
	strbuf_t sb = STRBUF_INIT;
	time_t now = time(NULL);
	for (uint32_t i = 0; i < m->nresvs; i++)
		print_resv_scontrol(&sb, &m->resvs[i], one_liner, now);
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
	proto_msg_destroy(MSG_RESV_INFO, m);
	return rc;
}

/* scontrol create reservation SPEC... / update ReservationName=X SPEC...:
 * the spec is checked here first, as Slurm's scontrol does. */
static int resv_send(uint32_t op, int argc, char **argv)
{
	msg_resv_update_t m;
	char *err = NULL, *timerr = NULL, *reply = NULL;
	const char *what = op == RESV_OP_CREATE ? "created" : "update";
	if (resv_spec_parse(&m, op, argc, argv, time(NULL), &err, &timerr)) {
		if (timerr)
			fprintf(stderr, "%s\n", timerr);
		fprintf(stderr, "scontrol: error: %s.  No reservation %s.\n", err, what);
		if (op == RESV_OP_UPDATE)
			fprintf(stderr, "slurm_update error: No error\n");
		free(err);
		free(timerr);
		proto_free(MSG_RESV_UPDATE, &m);
		return 1;
	}
	if (op == RESV_OP_UPDATE && !m.name) {
		fprintf(stderr, "scontrol: error: Reservation must be given.  No reservation update.\n"
			"slurm_update error: No error\n");
		proto_free(MSG_RESV_UPDATE, &m);
		return 1;
	}
	int rc = rpc_call_ctld_rc(cmd_conf(), MSG_RESV_UPDATE, &m, &reply);
	proto_free(MSG_RESV_UPDATE, &m);
	if (rc) {
		fprintf(stderr, "Error %s the reservation: %s\n",
			op == RESV_OP_CREATE ? "creating" : "updating", slurm_strerror(rc));
		/* the controller's note (NodeCnt= that no partition holds) */
		if (reply && *reply && strcmp(reply, slurm_strerror(rc)))
			fprintf(stderr, "%s\n", reply);
		if (op == RESV_OP_UPDATE)
			fprintf(stderr, "slurm_update error: %s\n", slurm_strerror(rc));
		free(reply);
		return 1;
	}
	if (op == RESV_OP_CREATE)
		printf("Reservation created: %s\n", reply ? reply : "");
	else
		printf("Reservation updated.\n");
	free(reply);
	return 0;
}

static int is_resv_word(const char *a)
{
	return !strchr(a, '=') && kw(a, "reservations", 3);
}

static int cmd_create(int argc, char **argv)
{
	if (argc < 1) {
		fprintf(stderr, "too few arguments for create keyword\n");
		return 1;
	}
	if (!is_resv_word(argv[0])) {
		fprintf(stderr, "invalid entity:%s for keyword:create\n", argv[0]);
		return 1;
	}
	return resv_send(RESV_OP_CREATE, argc - 1, argv + 1);
}

static int update_resv(int argc, char **argv)
{
	/* "scontrol update reservation ReservationName=x ...": the entity
	 * word is optional */
	int k = 0;
	char **args = xmalloc((size_t)(argc ? argc : 1) * sizeof(char *));
	for (int i = 0; i < argc; i++)
		if (!is_resv_word(argv[i]))
			args[k++] = argv[i];
	int rc = resv_send(RESV_OP_UPDATE, k, args);
	free(args);
	return rc;
}

static int cmd_delete(int argc, char **argv)
{
	if (argc < 1) {
		fprintf(stderr, "too few arguments for delete keyword\n");
		return 1;
	}
	const char *ent = argv[0], *name = NULL;
	const char *eq = strchr(ent, '=');
	char *tag = NULL;
	if (eq) {
		/* delete ReservationName=x */
		tag = xstrndup(ent, (size_t)(eq - ent));
		name = eq + 1;
		ent = tag;
	} else if (argc > 1) {
		name = argv[1];
	}
	if (!kw(ent, "reservationname", 3) && !kw(ent, "reservations", 3)) {
		fprintf(stderr, "invalid entity:%s for keyword:delete\n", ent);
		free(tag);
		return 1;
	}
	if (!name || argc > (eq ? 1 : 2)) {
		fprintf(stderr, "too %s arguments for keyword:delete\n", name ? "many" : "few");
		free(tag);
		return 1;
	}
	msg_resv_update_t m = { .op = RESV_OP_DELETE, .name = (char *)name,
				.duration = TIME_NO_VAL };
	int rc = cmd_call_rc(MSG_RESV_UPDATE, &m);
	if (rc)
		fprintf(stderr, "delete_reservation %s: %s\n", ent, slurm_strerror(rc));
	free(tag);
	return rc ? 1 : 0;
}

static int show_config(void)
{
	msg_config_t *mc = NULL;
	int err = cmd_call(MSG_CONFIG_REQ, &(msg_empty_t){ 0 }, MSG_CONFIG, (void **)&mc, NULL);
	if (err) {
		fprintf(stderr, "slurm_load_ctl_conf error: %s\n", slurm_strerror(err));
		return 1;
	}
	char buf[64];
	time_fmt_iso(time(NULL), buf, sizeof(buf));
	strbuf_t sb = STRBUF_INIT;
	strbuf_addf(&sb, "Configuration data as of %s\n", buf);
	for (uint32_t i = 0; i < mc->keys.n && i < mc->values.n; i++)
		strbuf_addf(&sb, "%-23s = %s\n", mc->keys.v[i], mc->values.v[i]);
	strbuf_addch(&sb, '\n');
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
	proto_msg_destroy(MSG_CONFIG, mc);
	do_ping();
	return 0;
}

static int show_topology(const char *name)
{
	conf_t *conf = conf_load(NULL, CONF_FULL);
	int rc = 0;
	if (!conf->nswitches) {
		printf("No topology information available\n");
		conf_destroy(conf);
		return 0;
	}
	strbuf_t sb = STRBUF_INIT;
	size_t shown = 0;
	for (size_t i = 0; i < conf->nswitches; i++) {
		const conf_switch_t *s = &conf->switches[i];
		if (name) {
			/* A node name shows the switches above it; a switch name
			 * shows that switch. */
			int hit = !strcmp(s->name, name);
			for (size_t k = 0; !hit && k < s->nnodes; k++)
				hit = !strcmp(conf->nodes[s->node_idx[k]].name, name);
			if (!hit)
				continue;
		}
		const char **names = xmalloc((s->nnodes ? s->nnodes : 1) * sizeof(*names));
		for (size_t k = 0; k < s->nnodes; k++)
			names[k] = conf->nodes[s->node_idx[k]].name;
		char *nodes = hostlist_compress(names, s->nnodes);
		free(names);
		strbuf_addf(&sb, "SwitchName=%s Level=%d LinkSpeed=%u Nodes=%s", s->name, s->level,
			    s->link_speed, nodes);
		free(nodes);
		if (s->nchildren) {
			strbuf_addstr(&sb, " Switches=");
			for (size_t k = 0; k < s->nchildren; k++) {
				if (k)
					strbuf_addch(&sb, ',');
				strbuf_addstr(&sb, conf->switches[s->child_idx[k]].name);
			}
		}
		strbuf_addch(&sb, '\n');
		shown++;
	}
	if (!shown && name) {
		printf("No topology information available\n");
		rc = 0;
	}
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
	conf_destroy(conf);
	return rc;
}

/* scontrol show step [JOB[.STEP]]: the controller's live steps. */
static int show_steps(const char *id)
{
	msg_info_req_t req = { 0 };
	uint32_t step = NO_VAL32, task = NO_VAL32;
	const char *us = id ? strchr(id, '_') : NULL;
	if (us) {
		/* ARRAY_TASK[.STEP]: that task's steps (Slurm's form) */
		char *end, *rest = NULL;
		unsigned long t = strtoul(us + 1, &end, 10);
		if (end == us + 1 || t >= NO_VAL32 || (*end && *end != '.')) {
			fprintf(stderr, "Invalid job step id: %s\n", id);
			return 1;
		}
		task = (uint32_t)t;
		rest = xasprintf("%.*s%s", (int)(us - id), id, end);
		int bad = step_id_parse(rest, &req.job_id, &step);
		free(rest);
		if (bad) {
			fprintf(stderr, "Invalid job step id: %s\n", id);
			return 1;
		}
	} else if (id && step_id_parse(id, &req.job_id, &step)) {
		fprintf(stderr, "Invalid job step id: %s\n", id);
		return 1;
	}
	uint32_t array_id = NO_VAL32;
	if (task != NO_VAL32) {   /* the task's job id is not known here */
		array_id = req.job_id;
		req.job_id = 0;
	}
	msg_step_info_t *si = NULL;
	if (cmd_call(MSG_STEP_INFO_REQ, &req, MSG_STEP_INFO, (void **)&si, "slurm_get_job_steps"))
		return 1;
	strbuf_t sb = STRBUF_INIT;
	for (uint32_t i = 0; i < si->nsteps; i++) {
		const step_info_t *s = &si->steps[i];
		if (array_id != NO_VAL32 && (s->array_job_id != array_id || s->array_task_id != task))
			continue;
		if (step == NO_VAL32 || s->step_id == step)
			print_step_scontrol(&sb, s, one_liner);
	}
	int rc = 0;
	if (!sb.len) {
		/* Slurm's words: the id as typed, its step part empty */
		if (id) {
			const char *dot = strchr(id, '.');
			printf("Job step %.*s.%s not found\n", (int)(dot ? dot - id : (long)strlen(id)),
			       id, dot ? dot + 1 : "");
		} else {
			printf("No job steps in the system\n");
		}
		rc = 1;
	}
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
	proto_msg_destroy(MSG_STEP_INFO, si);
	return rc;
}

static int show_hosts(const char *expr, int mode)
{
	if (!expr)
		expr = getenv("SLURM_JOB_NODELIST");
	if (!expr) {
		fprintf(stderr, "Usage: scontrol show hostnames <hostlist>\n");
		return 1;
	}
	char *err = NULL;
	hostlist_t *hl = hostlist_create(expr, &err);
	if (!hl) {
		fprintf(stderr, "Invalid hostlist: %s\n", expr);
		free(err);
		return 1;
	}
	if (mode == 0) {
		strbuf_t sb = STRBUF_INIT;
		for (size_t i = 0; i < hostlist_count(hl); i++) {
			strbuf_addstr(&sb, hostlist_nth(hl, i));
			strbuf_addch(&sb, '\n');
		}
		fwrite(sb.buf, 1, sb.len, stdout);
		strbuf_release(&sb);
	} else {
		if (mode == 2)
			hostlist_uniq(hl);
		char *s = hostlist_ranged_string(hl);
		printf("%s\n", s);
		free(s);
	}
	hostlist_destroy(hl);
	return 0;
}

static int cmd_show(int argc, char **argv)
{
	if (argc < 1) {
		fprintf(stderr, "too few arguments for keyword:show\n");
		return 1;
	}
	const char *what = argv[0];
	const char *id = argc > 1 ? argv[1] : NULL;
	if (argc > 2) {
		fprintf(stderr, "too many arguments for keyword:show\n");
		return 1;
	}
	if (kw(what, "jobs", 1) || kw(what, "jobid", 4))
		return show_jobs(id);
	if (kw(what, "steps", 2))
		return show_steps(id);
	if (kw(what, "nodes", 1))
		return show_nodes(id);
	if (kw(what, "partitions", 2))
		return show_parts(id);
	if (kw(what, "config", 1))
		return show_config();
	if (kw(what, "reservations", 3) || kw(what, "reservationname", 3))
		return show_resvs(id);
	if (kw(what, "topology", 1))
		return show_topology(id);
	if (!strcasecmp(what, "hostnames"))
		return show_hosts(id, 0);
	if (!strcasecmp(what, "hostlist"))
		return show_hosts(id, 1);
	if (!strcasecmp(what, "hostlistsorted"))
		return show_hosts(id, 2);
	fprintf(stderr, "invalid entity:%s for keyword:show \n", what);
	return 1;
}

/* Split "Key=Value" (value may be empty); returns 0 or -1. */
static int split_kv(const char *arg, char **key, const char **val)
{
	const char *eq = strchr(arg, '=');
	if (!eq)
		return -1;
	*key = xstrndup(arg, (size_t)(eq - arg));
	*val = eq + 1;
	return 0;
}

static int report_update(int rc)
{
	if (!rc)
		return 0;
	fprintf(stderr, "slurm_update error: %s\n", slurm_strerror(rc));
	return 1;
}

/* scontrol's keyword rule: tag may abbreviate name down to min letters. */
static int tag_is(const char *tag, size_t tag_len, const char *name, size_t min)
{
	return !strncasecmp(tag, name, tag_len > min ? tag_len : min) &&
	       tag_len <= strlen(name);
}

/* A value typed with quotes inside one argument (Reason="a b") loses them. */
static char *unquote_dup(const char *val)
{
	char *s = xstrdup(val[0] == '"' ? val + 1 : val);
	size_t l = strlen(s);
	if (l && s[l - 1] == '"')
		s[l - 1] = '\0';
	return s;
}

static int update_node(int argc, char **argv)
{
	msg_update_node_t m = { 0 };
	int changes = 0, rc = 0;
	char *reason = NULL, *comment = NULL, *extra = NULL;
	for (int i = 0; i < argc; i++) {
		const char *tag = argv[i], *eq = strchr(argv[i], '=');
		if (!eq) {
			fprintf(stderr, "scontrol: error: Invalid input: %s  Request aborted\n", argv[i]);
			rc = 1;
			goto out;
		}
		size_t tl = (size_t)(eq - tag);
		const char *val = eq + 1;
		if (tag_is(tag, tl, "NodeName", 1)) {
			m.names = (char *)val;
		} else if (tag_is(tag, tl, "State", 1)) {
			if (node_update_state_parse(val) < 0) {
				fprintf(stderr, "Invalid input: %s\nRequest aborted\n"
					"Valid states are: NoResp DRAIN FAIL FUTURE RESUME POWER_DOWN POWER_UP UNDRAIN\n"
					"Not all states are valid given a node's prior state\n", argv[i]);
				rc = 1;
				goto out;
			}
			m.state = (char *)val;
			changes++;
		} else if (tag_is(tag, tl, "Reason", 1)) {
			/* a quoted reason loses its quotes, as in scontrol */
			free(reason);
			reason = xstrdup(val[0] == '"' ? val + 1 : val);
			size_t rl = strlen(reason);
			if (rl && reason[rl - 1] == '"')
				reason[rl - 1] = '\0';
			m.reason = reason;
			changes++;
		} else if (tag_is(tag, tl, "Comment", 3)) {
			free(comment);
			m.comment = comment = unquote_dup(val);
			changes++;
		} else if (tag_is(tag, tl, "Extra", 1)) {
			free(extra);
			m.extra = extra = unquote_dup(val);
			changes++;
		} else if (tag_is(tag, tl, "Features", 1) || tag_is(tag, tl, "AvailableFeatures", 3)) {
			m.features = (char *)val;
			changes++;
		} else if (tag_is(tag, tl, "Gres", 1)) {
			m.gres = (char *)val;
			changes++;
		} else if (tag_is(tag, tl, "Weight", 1)) {
			char *end = NULL;
			unsigned long w = strtoul(val, &end, 10);
			if (!*val || *end) {
				fprintf(stderr, "scontrol: error: Invalid value %s for Weight\n", argv[i]);
				rc = 1;
				goto out;
			}
			m.weight = (uint32_t)w;
			changes++;
		} else {
			fprintf(stderr, "Update of this parameter is not supported: %s\nRequest aborted\n",
				argv[i]);
			rc = 1;
			goto out;
		}
	}
	int st = m.state ? node_update_state_parse(m.state) : 0;
	if ((st == NODE_UPD_DOWN || st == NODE_UPD_DRAIN || st == NODE_UPD_FAIL) &&
	    (!m.reason || !*m.reason)) {
		fprintf(stderr, "You must specify a reason when DOWNING or DRAINING a node. Request denied\n");
		rc = 1;
		goto out;
	}
	if (!changes) {
		fprintf(stderr, "No changes specified\n");
		rc = 1;
		goto out;
	}
	rc = report_update(cmd_call_rc(MSG_UPDATE_NODE, &m));
out:
	free(reason);
	free(comment);
	free(extra);
	return rc;
}

static int update_part(int argc, char **argv)
{
	msg_update_part_t m = { 0 };
	int rc;
	for (int i = 0; i < argc; i++) {
		char *key;
		const char *val;
		if (split_kv(argv[i], &key, &val)) {
			fprintf(stderr, "Invalid input: %s\nRequest aborted\n", argv[i]);
			strv_free(&m.keys);
			strv_free(&m.values);
			return 1;
		}
		if (!strcasecmp(key, "PartitionName")) {
			m.name = (char *)val;
		} else if (!strcasecmp(key, "State")) {
			if (strcasecmp(val, "up") && strcasecmp(val, "down") &&
			    strcasecmp(val, "drain") && strcasecmp(val, "inactive")) {
				fprintf(stderr, "Invalid input: %s\nRequest aborted\n"
					"Acceptable State values are UP, DOWN, DRAIN and INACTIVE\n", argv[i]);
				free(key);
				strv_free(&m.keys);
				strv_free(&m.values);
				return 1;
			}
			m.state = (char *)val;
		} else {
			strv_push(&m.keys, key);
			strv_push(&m.values, val);
		}
		free(key);
	}
	rc = report_update(cmd_call_rc(MSG_UPDATE_PART, &m));
	strv_free(&m.keys);
	strv_free(&m.values);
	return rc;
}

/* The keys Slurm 22.05's scontrol takes in update jobid= (others are
 * refused before anything is sent); the controller answers for those it
 * does not support. */
static const char *const job_update_keys[] = {
	"Account", "AdminComment", "ArrayTaskThrottle", "BurstBuffer", "Clusters",
	"ClusterFeatures", "Comment", "Contiguous", "CoreSpec", "CPUsPerTask",
	"CpusPerTres", "Deadline", "DelayBoot", "Dependency", "EligibleTime",
	"EndTime", "ExcNodeList", "Extra", "Features", "Gres", "JobName", "Licenses",
	"MailType", "MailUser", "MCSLabel", "MemPerTres", "MinCPUsNode", "MinMemoryCPU",
	"MinMemoryNode", "MinTmpDiskNode", "Name", "Nice", "NodeList", "NumCPUs",
	"NumNodes", "NumTasks", "OverSubscribe", "Partition", "Prefer", "Priority",
	"QOS", "Reboot", "ReqCores", "ReqNodeList", "ReqNodes", "ReqProcs",
	"ReqSockets", "ReqThreads", "Requeue", "Reservation", "Shared", "SiteFactor",
	"StartTime", "StdOut", "Switches", "TasksPerNode", "ThreadSpec", "TimeLimit",
	"TimeMin", "TresBind", "TresFreq", "TresPerJob", "TresPerNode", "TresPerSocket",
	"TresPerTask", "UserID", "WCKey", "WorkDir",
};

static int all_digits(const char *v)
{
	if (!*v)
		return 0;
	for (; *v; v++)
		if (*v < '0' || *v > '9')
			return 0;
	return 1;
}

static int update_job(int argc, char **argv)
{
	msg_update_job_t m = { 0 };
	int rc = 0;
	for (int i = 0; i < argc; i++) {
		char *key;
		const char *val;
		if (split_kv(argv[i], &key, &val)) {
			fprintf(stderr, "Invalid input: %s\nRequest aborted\n", argv[i]);
			rc = 1;
			goto out;
		}
		if (!strcasecmp(key, "JobId") || !strcasecmp(key, "Job")) {
			char *end;
			m.job_id = (uint32_t)strtoul(val, &end, 10);
			if (end != val && *end == '_' && task_parse(end + 1, &m.array_task) == 0)
				end += strlen(end);
			if (end == val || *end) {
				fprintf(stderr, "Invalid JobId value: %s\n", val);
				free(key);
				rc = 1;
				goto out;
			}
			free(key);
			continue;
		}
		const char *known = NULL;
		for (size_t k = 0; k < ARRAY_SIZE(job_update_keys) && !known; k++)
			if (!strcasecmp(key, job_update_keys[k]))
				known = job_update_keys[k];
		const char *bad = NULL;
		if (!known) {
			fprintf(stderr, "Update of this parameter is not supported: %s\n"
				"Request aborted\n", argv[i]);
			free(key);
			rc = 1;
			goto out;
		} else if (!strcmp(known, "TimeLimit")) {
			uint32_t mins;
			if (time_limit_parse(val, &mins)) {
				fprintf(stderr, "scontrol: error: Invalid TimeLimit value\n");
				free(key);
				rc = 1;
				goto out;
			}
		} else if (!strcmp(known, "NumTasks") || !strcmp(known, "MinMemoryNode") ||
			   !strcmp(known, "MinMemoryCPU")) {
			if (!all_digits(val))
				bad = known;
		} else if (!strcmp(known, "Requeue")) {
			if (strcmp(val, "0") && strcmp(val, "1"))
				bad = known;
		} else if (!strcmp(known, "NumNodes")) {
			/* Slurm says so and goes on with nothing to change */
			const char *dash = strchr(val, '-');
			char *lo = dash ? strndup(val, (size_t)(dash - val)) : strdup(val);
			int ok = lo && all_digits(lo) && (!dash || all_digits(dash + 1));
			free(lo);
			if (!ok) {
				fprintf(stderr, "scontrol: error: Invalid numeric value \"%s\" for "
					"requested node count.\n", val);
				free(key);
				goto out;
			}
		} else if (!strcmp(known, "StartTime") || !strcmp(known, "EligibleTime")) {
			time_t t;
			if (time_abs_parse(val, time(NULL), &t)) {
				fprintf(stderr, "Invalid time specification (pos=0): %s\n"
					"No changes specified\n", val);
				free(key);
				rc = 1;
				goto out;
			}
		}
		if (bad) {
			fprintf(stderr, "scontrol: error: Invalid %s value: %s\n", bad, val);
			free(key);
			rc = 1;
			goto out;
		}
		strv_push(&m.keys, known);
		strv_push(&m.values, val);
		free(key);
	}
	if (!m.job_id) {
		fprintf(stderr, "No job id specified\n");
		rc = 1;
		goto out;
	}
	/* Slurm names the job in the error: "Job is no longer pending
	 * execution for job 43" */
	int err = cmd_call_rc(MSG_UPDATE_JOB, &m);
	if (err) {
		fprintf(stderr, "%s for job %u\n", slurm_strerror(err), m.job_id);
		rc = 1;
	}
out:
	strv_free(&m.keys);
	strv_free(&m.values);
	return rc;
}

static int cmd_update(int argc, char **argv)
{
	if (argc < 1) {
		fprintf(stderr, "too few arguments for keyword:update\n");
		return 1;
	}
	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t n = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
		if ((n == 8 && !strncasecmp(argv[i], "NodeName", 8)) ||
		    (n == 4 && !strncasecmp(argv[i], "Node", 4)))
			return update_node(argc, argv);
		if (n == 13 && !strncasecmp(argv[i], "PartitionName", 13))
			return update_part(argc, argv);
		if ((n == 15 && !strncasecmp(argv[i], "ReservationName", 15)) ||
		    (n == 11 && !strncasecmp(argv[i], "Reservation", 11)))
			return update_resv(argc, argv);
		if ((n == 5 && !strncasecmp(argv[i], "JobId", 5)) ||
		    (n == 3 && !strncasecmp(argv[i], "Job", 3)))
			return update_job(argc, argv);
	}
	fprintf(stderr, "No valid entity in update command\n"
		"Input line must include \"NodeName\", \"PartitionName\", \"Reservation/ReservationName\", or \"JobId\"\n");
	return 1;
}

/* scontrol hold|uhold|release|requeue|requeuehold|top|suspend|resume
 * JOBLIST...: each argument a comma separated list of job ids. Errors as
 * Slurm's: "<error> for job N" for each job, and for hold, uhold and
 * release also "slurm_suspend error: <last error>" after each argument
 * that failed (sic). top takes its list in order: the first one ends up
 * first. */
static int cmd_hold(const char *action, int argc, char **argv)
{
	if (argc < 1) {
		fprintf(stderr, "too few arguments for keyword:%s\n", action);
		return 1;
	}
	int rc = 0;
	int holdlike = !strcmp(action, "hold") || !strcmp(action, "uhold") ||
		       !strcmp(action, "release");
	int top = !strcmp(action, "top");
	int suspend = !strcmp(action, "suspend") || !strcmp(action, "resume");
	for (int i = 0; i < argc; i++) {
		strv_t ids = { 0 };
		int last_err = 0;
		cmd_split(&ids, argv[i]);
		for (uint32_t n = 0; n < ids.n; n++) {
			/* top: from the last to the first, each moved to the top */
			uint32_t k = top ? ids.n - 1 - n : n;
			char *end;
			msg_update_job_t m = { 0 };
			m.job_id = (uint32_t)strtoul(ids.v[k], &end, 10);
			if (end != ids.v[k] && *end == '_' && task_parse(end + 1, &m.array_task) == 0)
				end += strlen(end);
			if (end == ids.v[k] || *end) {
				fprintf(stderr, "Invalid job id specified\n");
				rc = 1;
				continue;
			}
			m.action = (char *)action;
			int err = cmd_call_rc(MSG_UPDATE_JOB, &m);
			/* Slurm's suspend RPC answers an unknown job so */
			if (err == ESLURM_INVALID_JOB_ID && suspend)
				err = SLURM_UNEXPECTED_MSG_ERROR;
			if (err && m.array_task) {
				/* as Slurm: "11_9: Invalid job id specified", alone */
				fprintf(stderr, "%s: %s\n", ids.v[k], slurm_strerror(err));
				rc = 1;
			} else if (err) {
				fprintf(stderr, "%s for job %s\n", slurm_strerror(err), ids.v[k]);
				last_err = err;
				rc = 1;
			}
		}
		if (last_err && holdlike)
			fprintf(stderr, "slurm_suspend error: %s\n", slurm_strerror(last_err));
		strv_free(&ids);
	}
	return rc;
}

/* scontrol write batch_script JOBID [FILE]: the script to FILE (default
 * slurm-JOBID.sh, "-" for stdout), as Slurm's: an error to retrieve it is
 * printed but exits 0 (sic). */
static int cmd_write(int argc, char **argv)
{
	if (argc < 1) {
		fprintf(stderr, "too few arguments for keyword:write\n");
		return 1;
	}
	if (strcasecmp(argv[0], "batch_script")) {
		fprintf(stderr, "invalid write argument:%s\n", argv[0]);
		return 1;
	}
	if (argc < 2)
		return 0;
	char *end;
	msg_update_job_t m = { 0 };
	m.job_id = (uint32_t)strtoul(argv[1], &end, 10);
	if (end == argv[1] || *end) {
		fprintf(stderr, "Invalid job id specified\n");
		return 1;
	}
	m.action = (char *)"batch_script";
	char *script = NULL;
	int err = rpc_call_ctld_rc(cmd_conf(), MSG_UPDATE_JOB, &m, &script);
	if (err) {
		fprintf(stderr, "job script retrieval failed: %s\n", slurm_strerror(err));
		free(script);
		return 0;
	}
	const char *path = argc > 2 ? argv[2] : NULL;
	char *dflt = NULL;
	if (path && !strcmp(path, "-")) {
		fputs(script ? script : "", stdout);
		free(script);
		return 0;
	}
	if (!path)
		path = dflt = xasprintf("slurm-%u.sh", m.job_id);
	FILE *f = fopen(path, "w");
	int rc = 0;
	int bad = !f;
	if (f) {
		bad = fputs(script ? script : "", f) == EOF;
		bad |= fclose(f) != 0;
	}
	if (bad) {
		fprintf(stderr, "failed to write %s: %s\n", path, strerror(errno));
		rc = 1;
	} else {
		printf("batch script for job %u written to %s\n", m.job_id, path);
	}
	free(dflt);
	free(script);
	return rc;
}

/* scontrol notify JOBID MESSAGE...: the words make one line (Slurm's). */
static int cmd_notify(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "too few arguments for keyword:notify\n");
		return 1;
	}
	char *end;
	msg_update_job_t m = { 0 };
	m.job_id = (uint32_t)strtoul(argv[0], &end, 10);
	if (end == argv[0] || *end) {
		fprintf(stderr, "Invalid job id specified\n");
		return 1;
	}
	strbuf_t sb = STRBUF_INIT;
	for (int i = 1; i < argc; i++)
		strbuf_addf(&sb, "%s%s", i > 1 ? " " : "", argv[i]);
	m.action = (char *)"notify";
	strv_push(&m.keys, "Message");
	strv_push(&m.values, sb.buf ? sb.buf : "");
	int err = cmd_call_rc(MSG_UPDATE_JOB, &m);
	strv_free(&m.keys);
	strv_free(&m.values);
	strbuf_release(&sb);
	if (err) {
		fprintf(stderr, "job notify failure: %s\n", slurm_strerror(err));
		return 1;
	}
	return 0;
}

/* scontrol setdebug LEVEL: the controller's log level until the next
 * reconfigure or restart (a name, quiet..debug5, or 0-9). */
static int do_setdebug(int nargs, char **args)
{
	if (nargs < 1) {
		fprintf(stderr, "too few arguments for keyword:setdebug\n");
		return 1;
	}
	if (nargs > 1) {
		fprintf(stderr, "too many arguments for keyword:setdebug\n");
		return 1;
	}
	int level = log_level_parse(args[0]);
	if (level < 0 || (args[0][0] >= '0' && args[0][0] <= '9' && atoi(args[0]) > 9)) {
		fprintf(stderr, "invalid debug level: %s\n", args[0]);
		return 1;
	}
	int err = cmd_call_rc(MSG_SET_DEBUG, &(msg_set_debug_t){ (uint32_t)level });
	if (err) {
		fprintf(stderr, "slurm_set_debug_level error: %s\n", slurm_strerror(err));
		return 1;
	}
	return 0;
}

static int simple_rpc(enum msg_type type, const char *what)
{
	int err = cmd_call_rc(type, &(msg_empty_t){ 0 });
	if (err) {
		fprintf(stderr, "%s error: %s\n", what, slurm_strerror(err));
		return 1;
	}
	return 0;
}

/* The controller re-reads its config files; a rejected config comes back
 * with every reason (file:line ...), one per line, each printed here. */
static int do_reconfigure(void)
{
	char *msg = NULL;
	int err = rpc_call_ctld_rc(cmd_conf(), MSG_RECONFIGURE, &(msg_empty_t){ 0 }, &msg);
	if (!err) {
		free(msg);
		return 0;
	}
	if (!msg || !*msg) {
		fprintf(stderr, "slurm_reconfigure error: %s\n", slurm_strerror(err));
	} else {
		for (char *line = msg, *nl; line && *line; line = nl ? nl + 1 : NULL) {
			nl = strchr(line, '\n');
			fprintf(stderr, "slurm_reconfigure error: %.*s\n",
				(int)(nl ? nl - line : (long)strlen(line)), line);
		}
	}
	free(msg);
	return 1;
}

int cmd_scontrol(int argc, char **argv)
{
	int c;
	log_init("scontrol", 0, LOG_LVL_INFO, NULL);
	/* getopt names the program from argv[0]: print "scontrol:" as Slurm does
	 * when run from PATH, whatever path we were started by. */
	argv[0] = (char *)"scontrol";
	detail = one_liner = quiet = future = 0;
	optind = 0;
	opterr = 1;
	/* Permuting, as Slurm's scontrol: options may follow the command
	 * words too (scontrol show nodes -oF, scontrol show job 5 -dd). */
	while ((c = getopt_long(argc, argv, "adhM:oQu:vVF", long_opts, NULL)) != -1) {
		switch (c) {
		case 'a': case 'M': case 'u': case 'v': break;
		case 'F': future = 1; break;
		case 'd': detail++; break;
		case 'h': case OPT_HELP: usage(stdout); return 0;
		case OPT_USAGE: usage(stdout); return 0;
		case 'o': one_liner = 1; break;
		case 'Q': quiet = 1; break;
		case 'V': printf("slurm %s\n", SLURM_COMPAT_VERSION); return 0;
		case OPT_JSON: json_out = 1; break;
		case OPT_YAML: case OPT_LOCAL: case OPT_SIBLING:
		case OPT_FEDERATION: case OPT_HIDE:
			break;
		default:
			cmd_bad_option("scontrol");
			return 1;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 1;
	}
	const char *cmd = argv[optind];
	int nargs = argc - optind - 1;
	char **args = argv + optind + 1;

	if (kw(cmd, "show", 3))
		return cmd_show(nargs, args);
	if (kw(cmd, "ping", 2))
		return do_ping();
	if (kw(cmd, "update", 1))
		return cmd_update(nargs, args);
	if (kw(cmd, "create", 2))
		return cmd_create(nargs, args);
	if (kw(cmd, "delete", 3))
		return cmd_delete(nargs, args);
	if (kw(cmd, "hold", 2))
		return cmd_hold("hold", nargs, args);
	if (kw(cmd, "uhold", 2))
		return cmd_hold("uhold", nargs, args);
	if (kw(cmd, "release", 3))
		return cmd_hold("release", nargs, args);
	if (!strcasecmp(cmd, "requeuehold"))
		return cmd_hold("requeuehold", nargs, args);
	if (kw(cmd, "requeue", 3))
		return cmd_hold("requeue", nargs, args);
	if (kw(cmd, "suspend", 2))
		return cmd_hold("suspend", nargs, args);
	if (kw(cmd, "resume", 3))
		return cmd_hold("resume", nargs, args);
	if (kw(cmd, "notify", 2))
		return cmd_notify(nargs, args);
	if (kw(cmd, "write", 2))
		return cmd_write(nargs, args);
	if (kw(cmd, "listpids", 5))
		return scontrol_listpids(nargs, args);
	if (kw(cmd, "top", 3))
		return cmd_hold("top", nargs, args);
	if (kw(cmd, "reconfigure", 3))
		return do_reconfigure();
	if (kw(cmd, "setdebug", 8))
		return do_setdebug(nargs, args);
	if (kw(cmd, "shutdown", 8))
		return simple_rpc(MSG_SHUTDOWN, "slurm_shutdown");
	if (kw(cmd, "version", 4)) {
		printf("slurm %s\n", SLURM_COMPAT_VERSION);
		return 0;
	}
	if (kw(cmd, "help", 2)) {
		usage(stdout);
		return 0;
	}
	if (!strcasecmp(cmd, "details")) {
		detail = 1;
		return 0;
	}
	if (!strcasecmp(cmd, "oneliner") || !strcasecmp(cmd, "quiet") || !strcasecmp(cmd, "all"))
		return 0;
	fprintf(stderr, "invalid keyword: %s\n", cmd);
	return 1;
}
