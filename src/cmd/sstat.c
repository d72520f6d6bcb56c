/*
 * sstat: the live resource use of running job steps, as Slurm 22.05's
 * sstat prints it (`man sstat`; outputs captured from a real 22.05
 * cluster).
 *
 * For each job of -j, sstat asks the controller (MSG_STEP_STAT_AUTH)
 * whether the caller may see it and where it runs; the answer carries the
 * job's nodes and a stat credential the controller signed. Then it asks
 * each node daemon of the job (MSG_STEP_STAT on its step port, the
 * credential inside) for the usage of the job's steps running there, task
 * by task: one request per node, up to SSTAT_PARALLEL at once, each
 * bounded by MessageTimeout, so a dead node costs one error line and at
 * most that long, never a hang. The nodes' answers are aggregated per
 * step (sstat_fmt.c): minimum, maximum with its node and task, total and
 * average over the step's tasks.
 *
 * Which steps: J.S that step; J alone the lowest numbered step running
 * (not batch or extern), or with -a every running step; J.batch and
 * J.extern those. Errors are Slurm's and, as Slurm's sstat, do not change
 * the exit status (only bad options and a missing -j exit 1).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "cmd/sacct.h"
#include "cmd/sstat.h"
#include "errors.h"
#include "jobid.h"
#include "log.h"
#include "net.h"
#include "states.h"
#include "xalloc.h"

#define SSTAT_PARALLEL 16

typedef struct sel {
	uint32_t job_id, step_id;  /* step STEP_ALL: none named */
} sel_t;

typedef struct params {
	sstat_out_t *out;
	size_t nout;
	int allsteps, noheader, parsable, json;
	sstat_opts_t o;
	json_t *jsteps;
} params_t;

static void sstat_usage(FILE *f)
{
	fprintf(f, "Usage: sstat [options] -j <job(.stepid)>\n\tUse --help for help\n");
}

static void sstat_help(void)
{
	printf(
"sstat [<OPTION>] -j <job(.stepid)>\n"
"    Valid <OPTION> values are:\n"
"      -a, --allsteps:\n"
"                   With a job id and no step: show every running step of\n"
"                   the job, not only the lowest numbered one.\n"
"      -e, --helpformat:\n"
"                   List the fields --format accepts.\n"
"     -h, --help:   Show this help.\n"
"     -i, --pidformat:\n"
"                   Show the pids of each step's processes, one line per\n"
"                   node (JobId,Nodes,Pids).\n"
"     -j, --jobs:\n"
"                   <job(.step)>[,...]: the steps to show (required). A\n"
"                   job id alone means its lowest numbered running step\n"
"                   (not batch or extern), or all of them with -a;\n"
"                   'batch' and 'extern' name the batch and extern steps.\n"
"     --json:       Print the steps' usage as JSON (a Sluice extension).\n"
"     -n, --noheader:\n"
"                   Print no header line.\n"
"     --noconvert:  Print amounts as they are, without moving them to a\n"
"                   bigger unit (no 2048M shown as 2G).\n"
"     -o, --format:\n"
"                   Comma separated list of fields to show (see\n"
"                   --helpformat); NAME%%N sets a width.\n"
"     -p, --parsable: fields separated by '|', with a '|' at the end\n"
"     -P, --parsable2: fields separated by '|', without one at the end\n"
"     --usage:      Show a short usage line.\n"
"     -v, --verbose:\n"
"                   More detail about what sstat does.\n"
"     -V, --version: Print the version.\n"
"\n");
}

static void print_helpformat(void)
{
	for (size_t i = 0; i < sstat_nfields; i++)
		printf("%-19s%s", sstat_fields[i].name,
		       i + 1 == sstat_nfields || (i + 1) % 4 == 0 ? "\n" : " ");
}

/* "J", "J.S", "J.batch", "J.extern": 0, or -1 after Slurm's fatal line. */
static int parse_sel(const char *w, sel_t *s)
{
	char *e = NULL;
	errno = 0;
	unsigned long j = strtoul(w, &e, 10);
	if (e == w || !j || j >= STEP_INTERACTIVE || errno || (*e && *e != '.')) {
		fprintf(stderr, "sstat: fatal: Bad job/step specified: %s\n", w);
		return -1;
	}
	s->job_id = (uint32_t)j;
	s->step_id = STEP_ALL;
	if (!*e)
		return 0;
	const char *st = e + 1;
	if (!strcasecmp(st, "batch")) {
		s->step_id = STEP_BATCH;
		return 0;
	}
	if (!strcasecmp(st, "extern")) {
		s->step_id = STEP_EXTERN;
		return 0;
	}
	char *e2 = NULL;
	errno = 0;
	unsigned long n = strtoul(st, &e2, 10);
	if (e2 == st || *e2 || errno || n >= STEP_INTERACTIVE || *st == '-') {
		fprintf(stderr, "sstat: fatal: Bad step specified: %lu\n", j);
		return -1;
	}
	s->step_id = (uint32_t)n;
	return 0;
}

static char *step_name(uint32_t job, uint32_t step)
{
	if (step == STEP_BATCH)
		return xasprintf("%u.batch", job);
	if (step == STEP_EXTERN)
		return xasprintf("%u.extern", job);
	return xasprintf("%u.%u", job, step);
}

/* ---- asking the nodes ---- */

typedef struct node_q {
	const char *name, *addr;
	uint16_t port;
	int err;                   /* errors.h number, 0 ok */
	msg_step_stat_reply_t *reply;
} node_q_t;

typedef struct fan {
	const conf_t *conf;
	const msg_step_stat_t *req;
	node_q_t *q;
	size_t n;
	atomic_size_t next;
} fan_t;

static void ask_node(const conf_t *conf, const msg_step_stat_t *req, node_q_t *q)
{
	int err = 0;
	rpc_t *r = rpc_connect_addr(conf, q->addr, q->port, &err);
	if (!r) {
		q->err = err ? err : SLUICE_E_CONNECT;
		return;
	}
	enum msg_type t = MSG_NONE;
	void *m = NULL;
	int tmo = (int)(conf->message_timeout ? conf->message_timeout : 10) * 1000;
	err = rpc_send(r, MSG_STEP_STAT, req);
	if (!err)
		err = rpc_recv(r, &t, &m, tmo);
	if (!err && t == MSG_RC)
		err = ((msg_rc_t *)m)->rc ? ((msg_rc_t *)m)->rc : SLUICE_E_PROTOCOL;
	else if (!err && t != MSG_STEP_STAT_REPLY)
		err = SLUICE_E_PROTOCOL;
	if (!err) {
		q->reply = m;
		m = NULL;
	}
	if (m)
		proto_msg_destroy(t, m);
	q->err = err;
	rpc_close(r);
}

static void *fan_worker(void *arg)
{
	fan_t *f = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&f->next, 1);
		if (i >= f->n)
			break;
		ask_node(f->conf, f->req, &f->q[i]);
	}
	return NULL;
}

/* Ask every node, SSTAT_PARALLEL at a time. */
static void fan_out(const conf_t *conf, const msg_step_stat_t *req, node_q_t *q, size_t n)
{
	fan_t f = { .conf = conf, .req = req, .q = q, .n = n };
	atomic_init(&f.next, 0);
	size_t nt = n < SSTAT_PARALLEL ? n : SSTAT_PARALLEL;
	pthread_t *th = xcalloc(nt ? nt : 1, sizeof(*th));
	size_t started = 0;
	for (; started + 1 < nt; started++)
		if (pthread_create(&th[started], NULL, fan_worker, &f))
			break;
	fan_worker(&f);            /* this thread works too */
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
}

/* ---- printing ---- */

static void print_header(const params_t *p)
{
	strbuf_t sb = STRBUF_INIT;
	for (size_t i = 0; i < p->nout; i++) {
		const sstat_out_t *f = &p->out[i];
		if (p->parsable) {
			strbuf_addstr(&sb, f->def->name);
			if (i + 1 < p->nout || p->parsable == 1)
				strbuf_addch(&sb, '|');
			continue;
		}
		/* a header is cut without the '+' */
		char *h = xstrndup(f->def->name, (size_t)f->width);
		sacct_pad(&sb, h, f->width, f->left);
		free(h);
	}
	strbuf_addch(&sb, '\n');
	if (!p->parsable) {
		for (size_t i = 0; i < p->nout; i++) {
			for (int k = 0; k < p->out[i].width; k++)
				strbuf_addch(&sb, '-');
			strbuf_addch(&sb, ' ');
		}
		strbuf_addch(&sb, '\n');
	}
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
}

static void print_row(const params_t *p, const sstat_step_t *s, int node)
{
	strbuf_t sb = STRBUF_INIT, v = STRBUF_INIT;
	for (size_t i = 0; i < p->nout; i++) {
		const sstat_out_t *f = &p->out[i];
		strbuf_setlen(&v, 0);
		sstat_value(&v, f->def, s, node, &p->o);
		if (p->parsable) {
			strbuf_addstr(&sb, v.buf);
			if (i + 1 < p->nout || p->parsable == 1)
				strbuf_addch(&sb, '|');
		} else {
			sacct_pad(&sb, v.buf, f->width, f->left);
		}
	}
	strbuf_addch(&sb, '\n');
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
	strbuf_release(&v);
}

/* The TRES usage of a step as sacct --json shows a step's: per view
 * (max, min, average, total) a list of {type, count[, node, task]};
 * "requested" what the tasks read and hold, "consumed" what they wrote. */
static json_t *json_tres(const sstat_step_t *s, int out)
{
	static const char *const views[] = { "max", "min", "average", "total" };
	static const char *const names[SM_N] = { "cpu", "fs/disk", "mem", "pages", "vmem",
						 "fs/disk" };
	json_t *r = json_object();
	for (int view = 0; view < 4; view++) {
		json_t *l = json_array();
		for (int m = 0; m < SM_N; m++) {
			if ((m == SM_WRITE) != out)
				continue;
			const sstat_measure_t *x = &s->m[m];
			json_t *o = json_object();
			json_object_set_new(o, "type", json_string(names[m]));
			uint64_t v = view == 0 ? x->max : view == 1 ? x->min
				: view == 2 ? sstat_ave(s, m) : x->tot;
			if (m == SM_CPU)
				v /= 1000;        /* milliseconds, as Slurm's TRES cpu */
			json_object_set_new(o, "count", json_integer((json_int_t)v));
			if (view < 2) {
				uint32_t ni = view == 0 ? x->max_node : x->min_node;
				json_object_set_new(o, "node", json_string(ni < s->nodes.n
									   ? s->nodes.v[ni] : ""));
				json_object_set_new(o, "task", json_integer(view == 0 ? x->max_task
											: x->min_task));
			}
			json_array_append_new(l, o);
		}
		json_object_set_new(r, views[view], l);
	}
	return r;
}

static void json_step(const params_t *p, const sstat_step_t *s)
{
	json_t *o = json_object(), *tres = json_object();
	char *id = step_name(s->job_id, s->step_id);
	strbuf_t nodes = STRBUF_INIT, pids = STRBUF_INIT;
	sstat_value(&nodes, sstat_field_find("Nodelist"), s, -1, &p->o);
	sstat_value(&pids, sstat_field_find("Pids"), s, -1, &p->o);
	json_object_set_new(o, "job_id", json_integer(s->job_id));
	json_object_set_new(o, "step", json_string(strchr(id, '.') + 1));
	json_object_set_new(o, "step_id", json_string(id));
	json_object_set_new(o, "nodes", json_string(nodes.buf));
	json_object_set_new(o, "ntasks", json_integer(s->ntasks));
	json_object_set_new(o, "pids", json_string(pids.buf));
	json_object_set_new(tres, "requested", json_tres(s, 0));
	json_object_set_new(tres, "consumed", json_tres(s, 1));
	json_object_set_new(o, "tres", tres);
	json_array_append_new(p->jsteps, o);
	free(id);
	strbuf_release(&nodes);
	strbuf_release(&pids);
}

static void show_step(const params_t *p, const sstat_step_t *s, int pidformat)
{
	if (p->json) {
		json_step(p, s);
		return;
	}
	if (!pidformat) {
		print_row(p, s, -1);
		return;
	}
	for (size_t i = 0; i < s->nodes.n; i++)
		print_row(p, s, (int)i);
}

static int step_order(const void *a, const void *b)
{
	/* batch, extern, then the numbered steps */
	uint32_t x = ((const sstat_step_t *)a)->step_id, y = ((const sstat_step_t *)b)->step_id;
	int kx = x == STEP_BATCH ? 0 : x == STEP_EXTERN ? 1 : 2;
	int ky = y == STEP_BATCH ? 0 : y == STEP_EXTERN ? 1 : 2;
	if (kx != ky)
		return kx - ky;
	return x < y ? -1 : x > y;
}

/* One -j selector. */
static void stat_one(const params_t *p, const sel_t *sel, int pidformat)
{
	msg_step_stat_t req = { .job_id = sel->job_id, .step_id = sel->step_id };
	msg_step_stat_auth_t *a = NULL;
	char *name = step_name(sel->job_id, sel->step_id);
	int rc = cmd_call(MSG_STEP_STAT_AUTH, &req, MSG_STEP_STAT_AUTH_REPLY, (void **)&a, NULL);
	if (rc) {
		fprintf(stderr, "sstat: error: %s\n", slurm_strerror(rc));
		goto out;
	}
	if (a->rc == ESLURM_INVALID_JOB_ID) {
		fprintf(stderr, "sstat: error: couldn't get steps for job %u\n", sel->job_id);
		goto out;
	}
	if (a->rc == ESLURM_USER_ID_MISSING) {
		if (sel->step_id == STEP_ALL)
			fprintf(stderr, "sstat: error: problem getting step_layout for JobId=%u: %s\n",
				sel->job_id, slurm_strerror(a->rc));
		else
			fprintf(stderr, "sstat: error: problem getting step_layout for StepId=%s: %s\n",
				name, slurm_strerror(a->rc));
		goto out;
	}
	if (a->rc) {
		fprintf(stderr, "sstat: error: %s\n", slurm_strerror(a->rc));
		goto out;
	}
	if (!a->node_names.n) {
		if (sel->step_id == STEP_ALL)
			fprintf(stderr, "sstat: error: No steps running for job %u\n", sel->job_id);
		else
			fprintf(stderr, "sstat: error: StepId=%s not found running.\n", name);
		goto out;
	}
	size_t nn = a->node_names.n;
	node_q_t *q = xcalloc(nn, sizeof(*q));
	for (size_t i = 0; i < nn; i++) {
		q[i].name = a->node_names.v[i];
		q[i].addr = i < a->node_addrs.n ? a->node_addrs.v[i] : q[i].name;
		q[i].port = (uint16_t)(i < a->nports ? a->ports[i] : cmd_conf()->slurmd_port);
	}
	req.cred = a->cred;
	fan_out(cmd_conf(), &req, q, nn);
	/* the steps, node by node in the job's order */
	sstat_step_t *steps = NULL;
	size_t nsteps = 0;
	for (size_t i = 0; i < nn; i++) {
		if (q[i].err) {
			fprintf(stderr, "sstat: error: slurm_job_step_stat: there was an error with the "
				"request to %s rc = %s\n", q[i].name, slurm_strerror(q[i].err));
			continue;
		}
		const msg_step_stat_reply_t *r = q[i].reply;
		for (uint32_t k = 0; k < r->nsteps; k++) {
			uint32_t sid = r->steps[k].step_id;
			size_t at = 0;
			while (at < nsteps && steps[at].step_id != sid)
				at++;
			if (at == nsteps) {
				steps = xrealloc(steps, (nsteps + 1) * sizeof(*steps));
				memset(&steps[at], 0, sizeof(*steps));
				steps[at].job_id = sel->job_id;
				steps[at].step_id = sid;
				nsteps++;
			}
			/* its tasks are one run of r->tasks */
			uint32_t first = 0, cnt = 0;
			while (first < r->ntasks && r->tasks[first].step_id != sid)
				first++;
			while (first + cnt < r->ntasks && r->tasks[first + cnt].step_id == sid)
				cnt++;
			sstat_step_add(&steps[at], q[i].name, r->steps[k].pids, r->tasks + first, cnt);
		}
	}
	qsort(steps, nsteps, sizeof(*steps), step_order);
	int shown = 0;
	for (size_t k = 0; k < nsteps; k++) {
		uint32_t sid = steps[k].step_id;
		if (sel->step_id != STEP_ALL ? sid == sel->step_id
					     : p->allsteps || (!shown && sid < STEP_INTERACTIVE)) {
			show_step(p, &steps[k], pidformat);
			shown = 1;
		}
	}
	if (sel->step_id != STEP_ALL && !shown)
		fprintf(stderr, "sstat: error: StepId=%s not found running.\n", name);
	for (size_t k = 0; k < nsteps; k++)
		sstat_step_release(&steps[k]);
	free(steps);
	for (size_t i = 0; i < nn; i++)
		if (q[i].reply)
			proto_msg_destroy(MSG_STEP_STAT_REPLY, q[i].reply);
	free(q);
out:
	if (a)
		proto_msg_destroy(MSG_STEP_STAT_AUTH_REPLY, a);
	free(name);
	fflush(stdout);
}

enum { OPT_NOCONVERT = 256, OPT_USAGE, OPT_JSON };

int cmd_sstat(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "allsteps", no_argument, NULL, 'a' },
		{ "helpformat", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ "pidformat", no_argument, NULL, 'i' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "noheader", no_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'o' },
		{ "fields", required_argument, NULL, 'o' },
		{ "parsable", no_argument, NULL, 'p' },
		{ "parsable2", no_argument, NULL, 'P' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "noconvert", no_argument, NULL, OPT_NOCONVERT },
		{ "usage", no_argument, NULL, OPT_USAGE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ NULL, 0, NULL, 0 },
	};
	params_t p = { 0 };
	strbuf_t fmt = STRBUF_INIT;
	strv_t jobs = { 0 };
	int pidformat = 0, rc = 0, c;
	sel_t *sels = NULL;
	size_t nsels = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "aehij:no:pPvV", opts, NULL)) != -1) {
		switch (c) {
		case 'a': p.allsteps = 1; break;
		case 'e': print_helpformat(); goto out;
		case 'h': sstat_help(); goto out;
		case 'i': pidformat = 1; break;
		case 'j': cmd_split(&jobs, optarg); break;
		case 'n': p.noheader = 1; break;
		case 'o':
			if (fmt.len)
				strbuf_addch(&fmt, ',');
			strbuf_addstr(&fmt, optarg);
			break;
		case 'p': p.parsable = 1; break;
		case 'P': p.parsable = 2; break;
		case 'v': log_set_level((enum log_level)(log_get_level() + 1)); break;
		case 'V': printf("slurm %s\n", SLURM_COMPAT_VERSION); goto out;
		case OPT_NOCONVERT: p.o.noconvert = 1; break;
		case OPT_USAGE: sstat_usage(stdout); goto out;
		case OPT_JSON: p.json = 1; break;
		default:
			sstat_usage(stderr);
			rc = 1;
			goto out;
		}
	}
	for (int i = optind; i < argc; i++)
		cmd_split(&jobs, argv[i]);
	for (size_t i = 0; i < jobs.n; i++) {
		sels = xrealloc(sels, (nsels + 1) * sizeof(*sels));
		if (parse_sel(jobs.v[i], &sels[nsels]) < 0) {
			rc = 1;
			goto out;
		}
		nsels++;
	}
	char *bad = NULL;
	if (sstat_format_parse(pidformat ? SSTAT_PID_FORMAT : fmt.len ? fmt.buf
						   : SSTAT_DEFAULT_FORMAT, &p.out, &p.nout, &bad) < 0) {
		fprintf(stderr, "sstat: error: Invalid field requested: \"%s\"\n", bad);
		free(bad);
		rc = 1;
		goto out;
	}
	if (!nsels) {
		fprintf(stderr, "sstat: error: You didn't give me any jobs to stat.\n");
		rc = 1;
		goto out;
	}
	cmd_conf();
	if (p.json)
		p.jsteps = json_array();
	else if (!p.noheader)
		print_header(&p);
	fflush(stdout);
	for (size_t i = 0; i < nsels; i++)
		stat_one(&p, &sels[i], pidformat);
	if (p.json) {
		json_t *root = json_object(), *meta = json_object(), *pl = json_object();
		json_object_set_new(pl, "name", json_string("sluice sstat"));
		json_object_set_new(meta, "plugin", pl);
		json_object_set_new(meta, "release", json_string(SLURM_COMPAT_VERSION));
		json_object_set_new(root, "meta", meta);
		json_object_set_new(root, "errors", json_array());
		json_object_set_new(root, "steps", p.jsteps);
		p.jsteps = NULL;
		char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		if (s)
			printf("%s\n", s);
		free(s);
		json_decref(root);
	}
out:
	json_decref(p.jsteps);
	free(sels);
	free(p.out);
	strv_free(&jobs);
	strbuf_release(&fmt);
	return rc;
}
