/*
 * squeue: view the job queue, as Slurm 22.05's squeue.
 *
 * Options are parsed with getopt_long exactly as Slurm does (clustered
 * flags, glued values, a leading space in -o kept). The controller sends
 * every job, with only the groups of fields (JINFO_*) that the format,
 * sort keys and filters read; filters, sorting and formatting run here. Sorting uses qsort
 * over precomputed keys and output is built in one strbuf written with one
 * fwrite, so 100,000 jobs cost a few tens of milliseconds.
 */
#include <getopt.h>
#include <jansson.h>
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
#include "cmd/squeue_steps.h"
#include "errors.h"
#include "hostlist.h"
#include "log.h"
#include "net.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

enum {
	OPT_HELP = 0x100, OPT_USAGE, OPT_START, OPT_JSON, OPT_ME, OPT_YAML,
	OPT_NOCONVERT, OPT_HIDE, OPT_LOCAL, OPT_SIBLING, OPT_FEDERATION,
	OPT_ONLY_JOB_STATE,
};

static const struct option long_opts[] = {
	{ "account", required_argument, NULL, 'A' },
	{ "accounts", required_argument, NULL, 'A' },
	{ "all", no_argument, NULL, 'a' },
	{ "array", no_argument, NULL, 'r' },
	{ "noheader", no_argument, NULL, 'h' },
	{ "iterate", required_argument, NULL, 'i' },
	{ "jobs", optional_argument, NULL, 'j' },
	{ "long", no_argument, NULL, 'l' },
	{ "licenses", required_argument, NULL, 'L' },
	{ "cluster", required_argument, NULL, 'M' },
	{ "clusters", required_argument, NULL, 'M' },
	{ "name", required_argument, NULL, 'n' },
	{ "format", required_argument, NULL, 'o' },
	{ "Format", required_argument, NULL, 'O' },
	{ "partition", required_argument, NULL, 'p' },
	{ "partitions", required_argument, NULL, 'p' },
	{ "priority", no_argument, NULL, 'P' },
	{ "qos", required_argument, NULL, 'q' },
	{ "reservation", required_argument, NULL, 'R' },
	{ "steps", optional_argument, NULL, 's' },
	{ "sort", required_argument, NULL, 'S' },
	{ "states", required_argument, NULL, 't' },
	{ "state", required_argument, NULL, 't' },
	{ "user", required_argument, NULL, 'u' },
	{ "users", required_argument, NULL, 'u' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "nodelist", required_argument, NULL, 'w' },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "usage", no_argument, NULL, OPT_USAGE },
	{ "start", no_argument, NULL, OPT_START },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "yaml", no_argument, NULL, OPT_YAML },
	{ "me", no_argument, NULL, OPT_ME },
	{ "noconvert", no_argument, NULL, OPT_NOCONVERT },
	{ "hide", no_argument, NULL, OPT_HIDE },
	{ "local", no_argument, NULL, OPT_LOCAL },
	{ "sibling", no_argument, NULL, OPT_SIBLING },
	{ "federation", no_argument, NULL, OPT_FEDERATION },
	{ "only-job-state", no_argument, NULL, OPT_ONLY_JOB_STATE },
	{ NULL, 0, NULL, 0 },
};


struct opts {
	int no_header, long_fmt, array, start, json, all_states;
	int licenses;               /* -L given: Sluice jobs have none */
	const char *reservation;    /* -R NAME: only jobs in it */
	const char *cluster;      /* -M: our cluster's name ("CLUSTER: x" line) */
	const char *format, *format_long, *sort;
	strv_t accounts, names, parts, qos, jobs_s, users_s, states_s, clusters_s;
	uint32_t *uids; size_t nuids; int users_set;
	job_state_sel_t *states; size_t nstates;
	uint32_t *job_ids; size_t njob_ids;
	uint32_t *job_tasks;      /* parallel to job_ids: "-j 11_3", NO_VAL32 = none */
	hostlist_t *nodes;
	int iterate;
	int steps;                /* -s: steps instead of jobs */
	const char *steps_list;   /* -s's optional list */
	uint32_t fields;          /* JINFO_* groups to ask the controller for */
};

/* One output row: a job, or one task of a pending array with -r. */
struct row {
	const job_info_t *j;
	uint32_t task;
	const char *st_compact, *st_long;
	long idx;
	uint32_t prank;           /* partition's rank among the rows' (sort P) */
};

static void bad_letter(int c, void *arg)
{
	(void)arg;
	error("Invalid job format specification: %c", c);
}

static void bad_name(const char *name, void *arg)
{
	(void)arg;
	error("Invalid job format specification: %s", name);
}

/* Is j task `task` of array `id`: its own record, or the array's
 * pending record that still holds it? */
static int job_task_hit(const job_info_t *j, uint32_t id, uint32_t task)
{
	if (j->array_job_id != id)
		return 0;
	if (!j->array_task_str || !*j->array_task_str)
		return j->array_task_id == task;
	array_set_t set;
	uint32_t thr;
	if (array_spec_parse(j->array_task_str, 0, &set, &thr))
		return 0;
	int hit = array_set_has(&set, task);
	array_set_free(&set);
	return hit;
}

/* "-j 11_3" picked the pending record j of the array: the row shows that
 * task alone. NO_VAL32 otherwise. */
static uint32_t selected_task(const struct opts *o, const job_info_t *j)
{
	if (!j->array_task_str || !*j->array_task_str)
		return NO_VAL32;
	for (size_t i = 0; i < o->njob_ids; i++)
		if (o->job_tasks[i] != NO_VAL32 && job_task_hit(j, o->job_ids[i], o->job_tasks[i]))
			return o->job_tasks[i];
	return NO_VAL32;
}

static int job_selected(const struct opts *o, const job_info_t *j)
{
	if (o->nstates) {
		if (!job_state_sel_match(o->states, o->nstates, j->state))
			return 0;
	} else if (!o->all_states) {
		/* Default, with or without -j (as Slurm 22.05): hide finished
		 * jobs, but show those still completing. */
		if (JOB_IS_FINISHED(j->state) && !(j->state & JOB_COMPLETING))
			return 0;
	}
	if (o->njob_ids) {
		int hit = 0;
		for (size_t i = 0; i < o->njob_ids && !hit; i++) {
			if (o->job_tasks[i] != NO_VAL32)
				hit = job_task_hit(j, o->job_ids[i], o->job_tasks[i]);
			else
				hit = j->job_id == o->job_ids[i] || j->array_job_id == o->job_ids[i];
		}
		if (!hit)
			return 0;
	}
	if (o->users_set) {
		int hit = 0;
		for (size_t i = 0; i < o->nuids && !hit; i++)
			hit = j->user_id == o->uids[i];
		if (!hit)
			return 0;
	}
	if (o->parts.n) {
		/* a job may name several partitions ("defq,short") */
		strv_t jp = { 0 };
		int hit = 0;
		cmd_split(&jp, j->partition);
		for (uint32_t i = 0; i < jp.n && !hit; i++)
			hit = cmd_strv_has(&o->parts, jp.v[i]);
		strv_free(&jp);
		if (!hit)
			return 0;
	}
	if (o->accounts.n && !cmd_strv_has_case(&o->accounts, j->account))
		return 0;
	if (o->qos.n && !cmd_strv_has_case(&o->qos, j->qos))
		return 0;
	if (o->names.n && !cmd_strv_has(&o->names, j->name))
		return 0;
	/* Sluice has no licenses: no job holds one, so a -L filter matches
	 * none (as a Slurm job without them). */
	if (o->licenses)
		return 0;
	if (o->reservation && (!j->reservation || strcmp(j->reservation, o->reservation)))
		return 0;
	if (o->nodes) {
		if (!j->nodes || !*j->nodes)
			return 0;
		hostlist_t *hl = hostlist_create(j->nodes, NULL);
		int hit = 0;
		for (size_t i = 0; hl && i < hostlist_count(hl) && !hit; i++)
			hit = hostlist_find(o->nodes, hostlist_nth(hl, i)) >= 0;
		hostlist_destroy(hl);
		if (!hit)
			return 0;
	}
	return 1;
}

/* Sort keys, parsed once from the -S spec. */
struct skey { char c; int rev; };
static struct skey skeys[32];
static size_t nskeys;
static time_t sort_now;

static void sort_parse(const char *spec)
{
	nskeys = 0;
	for (size_t i = 0; spec[i] && nskeys < ARRAY_SIZE(skeys); i++) {
		if (spec[i] == ',' || spec[i] == '+' || spec[i] == '-')
			continue;
		skeys[nskeys].c = spec[i];
		skeys[nskeys].rev = i > 0 && spec[i - 1] == '-';
		nskeys++;
	}
}

static int cmpn(long long a, long long b) { return a < b ? -1 : a > b; }
static int cmps(const char *a, const char *b) { return strcmp(a ? a : "", b ? b : ""); }

/* Slurm's squeue sorts a job without a start time (N/A) after every
 * planned one (as 0xffffffff), a pending job whose start has passed as
 * now. */
static int64_t start_key(const job_info_t *j)
{
	if (!j->start_time)
		return 0xffffffffLL;
	if ((j->state & JOB_STATE_BASE) == JOB_PENDING && j->start_time < sort_now)
		return sort_now;
	return j->start_time;
}

#define SQ_SHARE_FLAGS (JOB_F_OVERSUBSCRIBE | JOB_F_EXCLUSIVE | JOB_F_EXCLUSIVE_USER)

/* Seconds left of the time limit (UNLIMITED last). */
static long long time_left(const job_info_t *j)
{
	if (j->time_limit == TIME_INFINITE || j->time_limit == TIME_NO_VAL)
		return INT64_MAX;
	return (long long)j->time_limit * 60 - job_time_used(j, sort_now);
}

static int row_cmp(const void *va, const void *vb)
{
	const struct row *a = va, *b = vb;
	const job_info_t *x = a->j, *y = b->j;
	for (size_t k = 0; k < nskeys; k++) {
		int d = 0;
		switch (skeys[k].c) {
		case 'P': d = cmpn(a->prank, b->prank); break;
		/* state strings are static: equal states share the pointer */
		case 't': d = a->st_compact == b->st_compact ? 0 : strcmp(a->st_compact, b->st_compact); break;
		case 'T': d = a->st_long == b->st_long ? 0 : strcmp(a->st_long, b->st_long); break;
		case 'p': case 'Q': d = cmpn(x->priority, y->priority); break;
		case 'i': case 'A': {
			uint32_t ia = x->array_job_id ? x->array_job_id : x->job_id;
			uint32_t ib = y->array_job_id ? y->array_job_id : y->job_id;
			d = cmpn(ia, ib);
			if (!d)
				d = cmpn(a->task != NO_VAL32 ? a->task : x->array_task_id,
					 b->task != NO_VAL32 ? b->task : y->array_task_id);
			break;
		}
		case 'j': d = cmps(x->name, y->name); break;
		case 'u': d = cmps(x->user_name, y->user_name); break;
		case 'U': d = cmpn(x->user_id, y->user_id); break;
		case 'g': d = cmps(x->group_name, y->group_name); break;
		case 'G': d = cmpn(x->group_id, y->group_id); break;
		case 'D': d = cmpn(x->num_nodes, y->num_nodes); break;
		case 'C': d = cmpn(x->num_cpus, y->num_cpus); break;
		case 'l': d = cmpn(x->time_limit, y->time_limit); break;
		case 'M': d = cmpn(job_time_used(x, sort_now), job_time_used(y, sort_now)); break;
		case 'S': d = cmpn(start_key(x), start_key(y)); break;
		case 'e': d = cmpn(x->end_time, y->end_time); break;
		case 'V': d = cmpn(x->submit_time, y->submit_time); break;
		case 'N': d = cmps(x->nodes, y->nodes); break;
		case 'B': d = cmps(x->batch_host, y->batch_host); break;
		case 'm': d = cmpn((long long)(x->mem_per_node + x->mem_per_cpu),
				   (long long)(y->mem_per_node + y->mem_per_cpu)); break;
		case 'b': d = cmps(x->tres_per_node, y->tres_per_node); break;
		case 'c': d = cmpn(x->pn_min_cpus, y->pn_min_cpus); break;
		case 'f': d = cmps(x->features, y->features); break;
		case 'h': d = cmpn(x->flags & SQ_SHARE_FLAGS, y->flags & SQ_SHARE_FLAGS); break;
		case 'L': d = cmpn(time_left(x), time_left(y)); break;
		case 'n': d = cmps(x->req_nodes, y->req_nodes); break;
		case 'O': d = cmpn(x->contiguous, y->contiguous); break;
		case 'v': d = cmps(x->reservation, y->reservation); break;
		/* d (tmp disk), H I J z (sockets, cores, threads): the same
		 * for every Sluice job */
		default: break;
		}
		if (skeys[k].rev)
			d = -d;
		if (d)
			return d;
	}
	return cmpn(a->idx, b->idx);   /* keep the controller's order: stable */
}

static int sort_letter_ok(char c)
{
	return strchr("BbcCdDefgGhHiIjJlLmMnNOpPQStTuUvVz", c) != NULL;
}

/* Task ids of an array expression "1-4,7%2" (the %N limit is dropped). */
static size_t array_tasks(const char *s, uint32_t **out)
{
	size_t n = 0, alloc = 0;
	*out = NULL;
	char *copy = xstrdup(s), *pct = strchr(copy, '%'), *save = NULL;
	if (pct)
		*pct = '\0';
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long lo = strtoul(t, &end, 10), hi = lo, step = 1;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (*end == ':')
			step = strtoul(end + 1, &end, 10);
		if (!step)
			step = 1;
		for (unsigned long v = lo; v <= hi && n < (1u << 24); v += step) {
			*out = xgrow(*out, sizeof(**out), n + 1, &alloc);
			(*out)[n++] = (uint32_t)v;
		}
	}
	free(copy);
	return n;
}

/* squeue --json: every job the controller holds, finished ones still
 * inside MinJobAge included, in the controller's order, with no state
 * filter (as Slurm 22.05); the other filters (-j -u -p ...) apply. */
static void print_json(const msg_job_info_t *ji, const struct opts *o)
{
	const job_info_t **sel = xmalloc((ji->njobs + 1) * sizeof(*sel));
	size_t n = 0;
	struct opts any = *o;
	any.nstates = 0;
	any.all_states = 1;
	for (uint32_t i = 0; i < ji->njobs; i++)
		if (job_selected(&any, &ji->jobs[i]))
			sel[n++] = &ji->jobs[i];
	/* Node layouts for job_resources (sockets and cores). */
	msg_info_req_t req = { 0 };
	msg_node_info_t *ni = NULL;
	if (cmd_call(MSG_NODE_INFO_REQ, &req, MSG_NODE_INFO, (void **)&ni, NULL))
		ni = NULL;
	strbuf_t sb = STRBUF_INIT;
	print_jobs_json(&sb, sel, n, ni);
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
	if (ni)
		proto_msg_destroy(MSG_NODE_INFO, ni);
	free(sel);
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return cmps(*(const char *const *)a, *(const char *const *)b);
}

/* Rank the rows' partitions by name, so the default sort (P,t,-p)
 * compares numbers instead of calling strcmp ~14 times per row. */
static void rank_partitions(struct row *rows, size_t n)
{
	const char **names = NULL;
	size_t nn = 0, alloc = 0;
	for (size_t i = 0; i < n; i++) {
		const char *p = rows[i].j->partition ? rows[i].j->partition : "";
		size_t k = 0;
		/* Rows come grouped: the previous row's partition first. */
		if (nn && !strcmp(names[rows[i - 1].prank], p))
			k = rows[i - 1].prank;
		else
			for (k = 0; k < nn && strcmp(names[k], p); k++)
				;
		if (k == nn) {
			names = xgrow(names, sizeof(*names), nn + 1, &alloc);
			names[nn++] = p;
		}
		rows[i].prank = (uint32_t)k;
	}
	/* index order -> name order */
	const char **sorted = xmalloc((nn ? nn : 1) * sizeof(*sorted));
	memcpy(sorted, names, nn * sizeof(*sorted));
	qsort(sorted, nn, sizeof(*sorted), cmp_str_ptr);
	uint32_t *rank = xmalloc((nn ? nn : 1) * sizeof(*rank));
	for (size_t k = 0; k < nn; k++)
		for (size_t s = 0; s < nn; s++)
			if (sorted[s] == names[k]) {
				rank[k] = (uint32_t)s;
				break;
			}
	for (size_t i = 0; i < n; i++)
		rows[i].prank = rank[rows[i].prank];
	free(rank);
	free(sorted);
	free(names);
}

/* -w names nodes the cluster has (Slurm: "Invalid node name X", exit 1). */
static int check_nodes(hostlist_t *want)
{
	msg_info_req_t req = { 0 };
	msg_node_info_t *ni = NULL;
	if (cmd_call(MSG_NODE_INFO_REQ, &req, MSG_NODE_INFO, (void **)&ni, "slurm_load_node"))
		return 1;
	hostlist_t *have = hostlist_create_empty();
	for (uint32_t i = 0; i < ni->nnodes; i++)
		hostlist_push_host(have, ni->nodes[i].name);
	int bad = 0;
	for (size_t i = 0; i < hostlist_count(want) && !bad; i++)
		if (hostlist_find(have, hostlist_nth(want, i)) < 0) {
			error("Invalid node name %s", hostlist_nth(want, i));
			bad = 1;
		}
	hostlist_destroy(have);
	proto_msg_destroy(MSG_NODE_INFO, ni);
	return bad;
}

static int run_once(struct opts *o, fmt_t *fmt)
{
	msg_info_req_t req = { 0 };
	msg_job_info_t *ji = NULL;
	/* One job: ask for it alone, so an unknown id is an error as in
	 * Slurm (slurm_load_job). */
	if (o->njob_ids == 1)
		req.job_id = o->job_ids[0];
	req.fields = o->fields;
	if (cmd_call(MSG_JOB_INFO_REQ, &req, MSG_JOB_INFO, (void **)&ji, "slurm_load_jobs"))
		return 1;

	time_t now = time(NULL);
	struct row *rows = NULL;
	size_t n = 0, alloc = 0;
	for (uint32_t i = 0; i < ji->njobs; i++) {
		const job_info_t *j = &ji->jobs[i];
		if (!job_selected(o, j))
			continue;
		const char *sc = job_state_string_compact(j->state);
		const char *sl = job_state_string(j->state);
		if (o->array && j->array_job_id && j->array_task_str && *j->array_task_str &&
		    selected_task(o, j) == NO_VAL32) {
			uint32_t *tasks;
			size_t nt = array_tasks(j->array_task_str, &tasks);
			for (size_t k = 0; k < nt; k++) {
				rows = xgrow(rows, sizeof(*rows), n + 1, &alloc);
				rows[n] = (struct row){ j, tasks[k], sc, sl, (long)n };
				n++;
			}
			free(tasks);
			continue;
		}
		rows = xgrow(rows, sizeof(*rows), n + 1, &alloc);
		rows[n] = (struct row){ j, selected_task(o, j), sc, sl, (long)n };
		n++;
	}
	sort_now = now;
	sort_parse(o->sort ? o->sort : (o->start ? "S" : "P,t,-p"));
	if (n > 1) {
		if (strchr(o->sort ? o->sort : (o->start ? "S" : "P"), 'P'))
			rank_partitions(rows, n);
		/* Often already in order (one partition, held or equal-priority
		 * jobs in id order): check in one pass before sorting. */
		size_t k = 1;
		while (k < n && row_cmp(&rows[k - 1], &rows[k]) <= 0)
			k++;
		if (k < n)
			qsort(rows, n, sizeof(*rows), row_cmp);
	}

	if (o->json) {
		print_json(ji, o);
	} else {
		/* Written in 64 KiB pieces: one buffer of the whole output
		 * (1 MB at 10,000 rows) costs page faults for nothing. */
		strbuf_t sb = STRBUF_INIT;
		strbuf_grow(&sb, 72 << 10);
		if (!o->no_header) {
			if (o->long_fmt || o->iterate > 0)
				print_date_line(&sb, now);
			if (o->cluster)
				strbuf_addf(&sb, "CLUSTER: %s\n", o->cluster);
			print_job_header(&sb, fmt);
		}
		for (size_t i = 0; i < n; i++) {
			print_job_row(&sb, fmt, rows[i].j, rows[i].task, now);
			if (sb.len >= 64 << 10) {
				fwrite(sb.buf, 1, sb.len, stdout);
				strbuf_setlen(&sb, 0);
			}
		}
		fwrite(sb.buf, 1, sb.len, stdout);
		strbuf_release(&sb);
	}
	free(rows);
	/* A one-shot squeue exits next: freeing every string of 10,000
	 * records would be ~10% of its run time for nothing. Free when the
	 * process goes on (-i) or when a leak checker is watching. */
#if defined(__SANITIZE_ADDRESS__)
	proto_msg_destroy(MSG_JOB_INFO, ji);
#else
	if (o->iterate > 0)
		proto_msg_destroy(MSG_JOB_INFO, ji);
#endif
	return 0;
}

int cmd_squeue(int argc, char **argv)
{
	struct opts o = { 0 };
	int c, rc = 0, bad_user = 0;
	int job_flag = 0;
	const char *env, *cluster_arg = "";

	log_init("squeue", 0, LOG_LVL_INFO, NULL);
	/* getopt names the program from argv[0]: print "squeue:" as Slurm does
	 * when run from PATH, whatever path we were started by. */
	argv[0] = (char *)"squeue";
	if ((env = getenv("SQUEUE_FORMAT")) && *env)
		o.format = env;
	if ((env = getenv("SQUEUE_FORMAT2")) && *env)
		o.format_long = env;
	if ((env = getenv("SQUEUE_SORT")) && *env)
		o.sort = env;

	optind = 0;   /* full reset: cmd_* may run more than once (tests) */
	opterr = 1;
	while ((c = getopt_long(argc, argv, "A:ahi:j::lL:M:n:o:O:p:Pq:rR:s::S:t:u:vVw:",
				long_opts, NULL)) != -1) {
		switch (c) {
		case 'A': cmd_split(&o.accounts, optarg); break;
		case 'a': break;
		case 'h': o.no_header = 1; break;
		case 'i': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (end == optarg || *end || v <= 0 || v > 1000000) {
				error("--iterate=%s\n", optarg);
				rc = 1;
				goto out;
			}
			o.iterate = (int)v;
			break;
		}
		case 'j':
			job_flag = 1;
			if (optarg)
				cmd_split(&o.jobs_s, optarg);
			break;
		case 'l': o.long_fmt = 1; break;
		case 'L': o.licenses = 1; break;
		case 'R': o.reservation = optarg; break;
		case 'M':
			strv_free(&o.clusters_s);
			cmd_split(&o.clusters_s, optarg);
			cluster_arg = optarg;
			break;
		case 'P': case 'v': break;
		case 'n': cmd_split(&o.names, optarg); break;
		case 'o': o.format = optarg; o.format_long = NULL; break;
		case 'O': o.format_long = optarg; o.format = NULL; break;
		case 'p': cmd_split(&o.parts, optarg); break;
		case 'q': cmd_split(&o.qos, optarg); break;
		case 'r': o.array = 1; break;
		case 's':   /* the live steps (squeue_steps.c) */
			o.steps = 1;
			o.steps_list = optarg;
			break;
		case 'S': o.sort = optarg; break;
		case 't':
			/* "all" alone means every state; inside a list it is
			 * an unknown state, as in Slurm. The last -t wins. */
			strv_free(&o.states_s);
			o.all_states = !strcasecmp(optarg, "all");
			if (!o.all_states)
				cmd_split(&o.states_s, optarg);
			break;
		case 'u': o.users_set = 1; cmd_split(&o.users_s, optarg); break;
		case 'V': printf("slurm %s\n", SLURM_COMPAT_VERSION); return 0;
		case 'w': {
			char *err = NULL;
			hostlist_destroy(o.nodes);
			o.nodes = hostlist_create(optarg, &err);
			if (!o.nodes) {
				error("Invalid node name %s", optarg);
				free(err);
				rc = 1;
				goto out;
			}
			break;
		}
		case OPT_HELP: cmd_help_print(stdout, &cmd_help_squeue); return 0;
		case OPT_USAGE: cmd_usage_print(stdout, &cmd_help_squeue); return 0;
		case OPT_START: o.start = 1; break;
		case OPT_JSON: case OPT_YAML: o.json = 1; break;
		case OPT_ME: {
			char buf[32];
			snprintf(buf, sizeof(buf), "%u", (unsigned)getuid());
			o.users_set = 1;
			strv_push(&o.users_s, buf);
			break;
		}
		case OPT_NOCONVERT: case OPT_HIDE: case OPT_LOCAL: case OPT_SIBLING:
		case OPT_FEDERATION: case OPT_ONLY_JOB_STATE:
			break;
		default:
			cmd_bad_option("squeue");
			rc = 1;
			goto out;
		}
	}
	/* squeue -j 5,6 is "-j" then a plain argument (optional value). */
	if (optind < argc && job_flag)
		cmd_split(&o.jobs_s, argv[optind++]);
	if (optind < argc) {
		error("Unrecognized option: %s", argv[optind]);
		cmd_usage_print(stderr, &cmd_help_squeue);
		rc = 1;
		goto out;
	}

	for (uint32_t i = 0; i < o.jobs_s.n; i++) {
		char *end;
		unsigned long id = strtoul(o.jobs_s.v[i], &end, 10);
		if (end == o.jobs_s.v[i] || (*end && *end != '_' && *end != '.')) {
			error("Invalid job id: %s", o.jobs_s.v[i]);
			rc = 1;
			goto out;
		}
		o.job_ids = xrealloc(o.job_ids, (o.njob_ids + 1) * sizeof(*o.job_ids));
		o.job_tasks = xrealloc(o.job_tasks, (o.njob_ids + 1) * sizeof(*o.job_tasks));
		o.job_tasks[o.njob_ids] = *end == '_' ? (uint32_t)strtoul(end + 1, NULL, 10) : NO_VAL32;
		o.job_ids[o.njob_ids++] = (uint32_t)id;
	}
	for (uint32_t i = 0; i < o.states_s.n; i++) {
		const char *s = o.states_s.v[i];
		job_state_sel_t sel;
		if (job_state_sel_parse(s, &sel)) {
			error("Invalid job state specified: %s", s);
			fprintf(stderr, "squeue: error: Valid job states include: %s\n\n",
				squeue_valid_states);
			rc = 1;
			goto out;
		}
		o.states = xrealloc(o.states, (o.nstates + 1) * sizeof(*o.states));
		o.states[o.nstates++] = sel;
	}
	for (uint32_t i = 0; i < o.users_s.n; i++) {
		uint32_t uid;
		if (cmd_user_id(o.users_s.v[i], &uid)) {
			error("Invalid user: %s\n", o.users_s.v[i]);
			bad_user = 1;
			continue;
		}
		o.uids = xrealloc(o.uids, (o.nuids + 1) * sizeof(*o.uids));
		o.uids[o.nuids++] = uid;
	}
	(void)bad_user;
	if (o.clusters_s.n) {
		/* One cluster: ours, by name, or "all". */
		const char *mine = cmd_conf()->cluster_name ? cmd_conf()->cluster_name : "";
		int known = 0;
		for (uint32_t i = 0; i < o.clusters_s.n; i++) {
			if (!strcmp(o.clusters_s.v[i], mine) || !strcasecmp(o.clusters_s.v[i], "all"))
				known = 1;
			else
				error("No cluster '%s' known by database.", o.clusters_s.v[i]);
		}
		if (!known) {
			error("'%s' can't be reached now, or it is an invalid entry for --cluster.  "
			      "Use 'sacctmgr list clusters' to see available clusters.", cluster_arg);
			rc = 1;
			goto out;
		}
		o.cluster = mine;
	}
	if (o.nodes && check_nodes(o.nodes)) {
		rc = 1;
		goto out;
	}
	if (o.sort) {
		for (const char *p = o.sort; *p; p++) {
			if (*p == ',' || *p == '+' || *p == '-')
				continue;
			if (!sort_letter_ok(*p)) {
				error("Invalid sort specification: %c", *p);
				rc = 1;
				goto out;
			}
		}
	}
	if (o.start && !o.nstates && !o.all_states) {
		o.states = xmalloc(sizeof(*o.states));
		o.states[0] = (job_state_sel_t){ JOB_PENDING, 0 };
		o.nstates = 1;
	}

	if (o.steps && !o.json) {   /* squeue --json -s lists jobs, as Slurm */
		squeue_steps_opts_t so = {
			.steps = o.steps_list, .format = o.format, .format_long = o.format_long,
			.sort = o.sort, .job_ids = o.job_ids, .njob_ids = o.njob_ids,
			.uids = o.uids, .nuids = o.nuids, .parts = &o.parts, .nodes = o.nodes,
			.no_header = o.no_header, .long_fmt = o.long_fmt, .iterate = o.iterate,
		};
		rc = squeue_steps_run(&so);
		goto out;
	}

	fmt_t fmt;
	if (o.format_long) {
		fmt_parse_long(&fmt, o.format_long, job_fmt_lookup, bad_name, NULL);
	} else {
		const char *spec = o.format;
		if (!spec)
			spec = o.start ? SQUEUE_FMT_START :
			       o.long_fmt ? SQUEUE_FMT_LONG : SQUEUE_FMT_DEFAULT;
		/* "%all": every letter, a-z then A-Z, '|' between (Slurm) */
		char all[160];
		if (!strncmp(spec, "%all", 4)) {
			char *p = all;
			for (const char *l = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"; *l; l++) {
				if (p != all)
					*p++ = '|';
				*p++ = '%';
				*p++ = *l;
			}
			*p = '\0';
			spec = all;
		}
		fmt_parse(&fmt, spec, 1, job_fmt_valid, bad_letter, NULL);
	}

	print_job_set_cluster(cmd_conf()->cluster_name);

	/* Ask only for the strings the format, sort keys and filters read:
	 * at 10,000 jobs the unused ones were most of the reply and of the
	 * time spent encoding and decoding it. */
	o.fields = JINFO_BASIC;
	if (o.json)
		o.fields = JINFO_ALL;
	for (size_t i = 0; i < fmt.n; i++)
		o.fields |= job_fmt_fields(fmt.f[i].code);
	sort_parse(o.sort ? o.sort : (o.start ? "S" : "P,t,-p"));
	for (size_t i = 0; i < nskeys; i++)
		o.fields |= job_fmt_fields(skeys[i].c);
	if (o.accounts.n || o.qos.n || o.reservation)
		o.fields |= JINFO_ACCT;

	for (;;) {
		rc = run_once(&o, &fmt);
		if (rc || o.iterate <= 0)
			break;
		printf("\n");
		fflush(stdout);
		sleep((unsigned)o.iterate);
	}

	fmt_release(&fmt);
out:   /* error exits come here too: LeakSanitizer runs on every exit in tests */
	strv_free(&o.accounts);
	strv_free(&o.names);
	strv_free(&o.parts);
	strv_free(&o.qos);
	strv_free(&o.jobs_s);
	strv_free(&o.users_s);
	strv_free(&o.states_s);
	strv_free(&o.clusters_s);
	free(o.uids);
	free(o.states);
	free(o.job_ids);
	free(o.job_tasks);
	hostlist_destroy(o.nodes);
	return rc;
}
