/*
 * sim.c: `sluice sim`, replay an SWF workload trace on the scheduler core
 * in virtual time (src/sim) and report waits, bounded slowdown and
 * utilization, overall and per size class, user and queue.
 *
 *   sluice sim [--nodes N --cpus C [--gpus G] | -f slurm.conf]
 *              [--backfill=easy|none] [--json] [--csv FILE] TRACE
 *
 * -f: the cluster of a slurm.conf (its nodes, partitions, GRES, topology
 * and scheduler parameters; jobs go to its default partition). Without
 * -f or --nodes the machine is the trace header's (MaxNodes nodes, or
 * MaxProcs one-CPU nodes). Output is a function of the inputs only: no
 * wall clock, no randomness, no addresses (docs/simulator.md).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cmd/cmds.h"
#include "conf.h"
#include "sim/sim.h"
#include "sim/sim_stats.h"
#include "sim/swf.h"
#include "xalloc.h"

static const char usage_text[] =
	"usage: sluice sim [--nodes N --cpus C [--gpus G] | -f slurm.conf]\n"
	"                  [--backfill=easy|none] [--json] [--csv FILE] TRACE\n"
	"Replay an SWF trace (plain or .gz) on the scheduler core in virtual time.\n";

/* A progress line on a terminal, at most every 1% of the jobs. */
typedef struct progress {
	size_t last;
} progress_t;

static void progress_cb(void *arg, size_t ended, size_t n)
{
	progress_t *p = arg;
	if (n < 100 || ended < p->last + n / 100)
		return;
	p->last = ended;
	fprintf(stderr, "\rsimulating: %zu/%zu jobs ended (%zu%%)", ended, n, ended * 100 / n);
}

static json_t *summary_json(const sim_summary_t *m, int with_util)
{
	json_t *o = json_object();
	json_object_set_new(o, "jobs", json_integer((json_int_t)m->jobs));
	if (with_util)
		json_object_set_new(o, "utilization", json_real(m->utilization));
	json_object_set_new(o, "wait_mean_s", json_real(m->wait_mean));
	json_object_set_new(o, "wait_median_s", json_real(m->wait_median));
	json_object_set_new(o, "wait_p95_s", json_real(m->wait_p95));
	json_object_set_new(o, "wait_max_s", json_real(m->wait_max));
	json_object_set_new(o, "bsld_mean", json_real(m->bsld_mean));
	return o;
}

static void row(const char *what, const char *key, const sim_summary_t *m)
{
	printf("  %-8s %-10s %7zu %12.1f %12.1f %12.1f %10.2f\n", what, key, m->jobs, m->wait_mean,
	       m->wait_median, m->wait_p95, m->bsld_mean);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Per distinct value of a field (user or queue), when the trace has it:
 * a text row and a JSON array entry each, in ascending order. */
static void by_field(const sim_job_t *jobs, size_t n, int queue, const char *name,
		     json_t *out, int text)
{
	int64_t *v = xmalloc((n ? n : 1) * sizeof(int64_t));
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t x = queue ? jobs[i].queue : jobs[i].user;
		if (x >= 0)
			v[m++] = x;
	}
	qsort(v, m, sizeof(int64_t), cmp_i64);
	uint32_t *idx = xmalloc((n ? n : 1) * sizeof(uint32_t));
	json_t *arr = json_array();
	for (size_t a = 0; a < m;) {
		size_t b = a;
		while (b < m && v[b] == v[a])
			b++;
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if ((queue ? jobs[i].queue : jobs[i].user) == v[a])
				idx[k++] = (uint32_t)i;
		sim_summary_t s;
		sim_summarize(jobs, idx, k, 0, &s);
		char key[32];
		snprintf(key, sizeof(key), "%" PRId64, v[a]);
		if (text)
			row(name, key, &s);
		json_t *o = summary_json(&s, 0);
		json_object_set_new(o, name, json_integer(v[a]));
		json_array_append_new(arr, o);
		a = b;
	}
	if (m)
		json_object_set_new(out, queue ? "by_queue" : "by_user", arr);
	else
		json_decref(arr);
	free(idx);
	free(v);
}

static int write_csv(const char *path, const sim_job_t *jobs, size_t n)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		return -1;
	}
	fprintf(f, "id,submit,start,end,wait,procs,nodes,backfilled\n");
	for (size_t i = 0; i < n; i++) {
		const sim_job_t *j = &jobs[i];
		if (!j->started)
			fprintf(f, "%" PRId64 ",%" PRId64 ",,,,%u,,\n", j->trace_id, j->req.submit_time,
				j->procs);
		else
			fprintf(f, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%u,%u,%d\n",
				j->trace_id, j->req.submit_time, j->start, j->end,
				j->start - j->req.submit_time, j->procs, j->nnodes, j->backfilled);
	}
	if (fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

static int parse_u32(const char *s, uint32_t *v, uint32_t min)
{
	char *e;
	unsigned long long x = strtoull(s, &e, 10);
	if (!*s || *e || x < min || x > 1000000000ull)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

int cmd_sim(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nodes", required_argument, NULL, 'N' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "gpus", required_argument, NULL, 'G' },
		{ "backfill", required_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "csv", required_argument, NULL, 'o' },
		{ "config", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint32_t nodes = 0, cpus = 0, gpus = 0;
	int backfill = -1, json = 0, c;
	const char *csv = NULL, *cfpath = NULL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+hf:", opts, NULL)) != -1) {
		switch (c) {
		case 'N':
			if (parse_u32(optarg, &nodes, 1))
				goto bad_num;
			break;
		case 'c':
			if (parse_u32(optarg, &cpus, 1))
				goto bad_num;
			break;
		case 'G':
			if (parse_u32(optarg, &gpus, 0) || gpus > SCHED_MAX_GPUS)
				goto bad_num;
			break;
		case 'b':
			if (!strcmp(optarg, "easy"))
				backfill = 1;
			else if (!strcmp(optarg, "none"))
				backfill = 0;
			else {
				fprintf(stderr, "sluice sim: --backfill is easy or none, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'j':
			json = 1;
			break;
		case 'o':
			csv = optarg;
			break;
		case 'f':
			cfpath = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			fputs(usage_text, stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fputs(usage_text, stderr);
		return 2;
	}
	if (cfpath && nodes) {
		fprintf(stderr, "sluice sim: -f and --nodes are two machines: give one\n");
		return 2;
	}
	if ((cpus || gpus) && !nodes) {
		fprintf(stderr, "sluice sim: --cpus and --gpus go with --nodes\n");
		return 2;
	}
	const char *path = argv[optind];
	swf_t t;
	char err[512];
	if (swf_load(path, &t, err, sizeof(err))) {
		fprintf(stderr, "sluice sim: %s\n", err);
		swf_free(&t);
		return 1;
	}
	sched_t s;
	conf_t *conf = NULL;
	uint32_t part = 0;
	if (cfpath) {
		conf = conf_load(cfpath, CONF_FULL);
		if (conf->nerrors || !conf->nnodes || !conf->nparts) {
			for (size_t i = 0; i < conf->nerrors; i++)
				fprintf(stderr, "sluice sim: %s\n", conf->errors[i]);
			if (!conf->nerrors)
				fprintf(stderr, "sluice sim: %s has no nodes or no partitions\n", cfpath);
			conf_destroy(conf);
			swf_free(&t);
			return 1;
		}
		sim_machine_conf(&s, conf, backfill);
		part = conf->default_part >= 0 ? (uint32_t)conf->default_part : 0;
		nodes = s.nnodes;
	} else if (!nodes) {
		/* the trace's machine: MaxNodes nodes sharing MaxProcs evenly,
		 * else MaxProcs one-CPU nodes */
		if (t.max_nodes > 0 && t.max_nodes <= 1000000000) {
			nodes = (uint32_t)t.max_nodes;
			cpus = t.max_procs > 0 && t.max_procs % t.max_nodes == 0 ?
				(uint32_t)(t.max_procs / t.max_nodes) : 1;
		} else if (t.max_procs > 0 && t.max_procs <= 1000000000) {
			nodes = (uint32_t)t.max_procs;
			cpus = 1;
		} else {
			fprintf(stderr, "sluice sim: %s has no MaxNodes or MaxProcs header: give --nodes\n",
				path);
			swf_free(&t);
			return 2;
		}
	}
	if (!cfpath) {
		if (!cpus)
			cpus = 1;
		sim_machine_bare(&s, nodes, cpus, gpus, backfill != 0);
	}
	backfill = s.params.backfill;
	sim_job_t *jobs;
	size_t n;
	sim_skipped_t sk;
	sim_jobs_from_swf(&t, &s, part, &jobs, &n, &sk);
	swf_free(&t);
	sim_counts_t cnt;
	progress_t pr = { 0 };
	int tty = isatty(STDERR_FILENO);
	sim_run(&s, jobs, n, &cnt, tty ? progress_cb : NULL, &pr);
	if (tty)
		fprintf(stderr, "\r\033[K");
	uint64_t procs = 0;
	for (uint32_t i = 0; i < s.nnodes; i++)
		procs += s.nodes[i].usable ? s.nodes[i].cpus : 0;
	sim_summary_t all, cls[SIM_NCLASSES];
	sim_summarize(jobs, NULL, n, procs, &all);
	uint32_t *idx = xmalloc((n ? n : 1) * sizeof(uint32_t));
	for (int k = 0; k < SIM_NCLASSES; k++) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (sim_size_class(jobs[i].procs) == k)
				idx[m++] = (uint32_t)i;
		sim_summarize(jobs, idx, m, 0, &cls[k]);
	}
	free(idx);
	json_t *o = json_object();
	json_object_set_new(o, "trace", json_string(path));
	if (cfpath)
		json_object_set_new(o, "config", json_string(cfpath));
	json_object_set_new(o, "nodes", json_integer(nodes));
	if (!cfpath) {
		json_object_set_new(o, "cpus_per_node", json_integer(cpus));
		json_object_set_new(o, "gpus_per_node", json_integer(gpus));
	}
	json_object_set_new(o, "cpus", json_integer((json_int_t)procs));
	json_object_set_new(o, "partition", json_string(s.nparts ? s.parts[part].name : ""));
	json_object_set_new(o, "backfill", json_string(backfill ? "easy" : "none"));
	json_t *top = summary_json(&all, 1);
	json_object_update(o, top);       /* takes its own references */
	json_decref(top);
	json_object_set_new(o, "makespan_s", json_integer(all.last_end - all.first_submit));
	json_object_set_new(o, "never_started", json_integer((json_int_t)cnt.never_started));
	json_object_set_new(o, "skipped_no_runtime", json_integer((json_int_t)sk.no_runtime));
	json_object_set_new(o, "skipped_no_procs", json_integer((json_int_t)sk.no_procs));
	json_object_set_new(o, "skipped_too_big", json_integer((json_int_t)sk.too_big));
	json_object_set_new(o, "passes", json_integer((json_int_t)cnt.passes));
	json_object_set_new(o, "backfill_cycles", json_integer((json_int_t)cnt.bf_cycles));
	json_t *arr = json_array();
	if (!json) {
		printf("Trace %s: %zu jobs simulated (left out: %zu without run time, "
		       "%zu without processors, %zu too big for the machine)\n",
		       path, n, sk.no_runtime, sk.no_procs, sk.too_big);
		if (cfpath)
			printf("Machine: %s: %u nodes, %" PRIu64 " CPUs, partition %s, backfill %s\n",
			       cfpath, nodes, procs, s.parts[part].name, backfill ? "easy" : "none");
		else
			printf("Machine: %u nodes x %u CPUs%s%.0u%s, backfill %s\n", nodes, cpus,
			       gpus ? " x " : "", gpus, gpus ? " GPUs" : "", backfill ? "easy" : "none");
		printf("Utilization      %.4f\n", all.utilization);
		printf("Wait mean        %.1f s\n", all.wait_mean);
		printf("Wait median      %.1f s\n", all.wait_median);
		printf("Wait p95         %.1f s\n", all.wait_p95);
		printf("Wait max         %.1f s\n", all.wait_max);
		printf("Bounded slowdown %.2f (mean, tau %d s)\n", all.bsld_mean, SIM_BSLD_TAU);
		printf("Makespan         %" PRId64 " s; %" PRIu64 " scheduling turns, %" PRIu64
		       " with a backfill cycle; %" PRIu64 " never started\n",
		       all.last_end - all.first_submit, cnt.passes, cnt.bf_cycles, cnt.never_started);
		printf("\n  %-8s %-10s %7s %12s %12s %12s %10s\n", "BY", "VALUE", "JOBS", "WAIT_MEAN",
		       "WAIT_MEDIAN", "WAIT_P95", "BSLD_MEAN");
	}
	for (int k = 0; k < SIM_NCLASSES; k++) {
		if (!json)
			row("procs", sim_size_class_name(k), &cls[k]);
		json_t *c1 = summary_json(&cls[k], 0);
		json_object_set_new(c1, "procs", json_string(sim_size_class_name(k)));
		json_array_append_new(arr, c1);
	}
	json_object_set_new(o, "by_size", arr);
	by_field(jobs, n, 0, "user", o, !json);
	by_field(jobs, n, 1, "queue", o, !json);
	int rc = 0;
	if (json) {
		char *txt = json_dumps(o, JSON_PRESERVE_ORDER | JSON_INDENT(2) | JSON_REAL_PRECISION(12));
		puts(txt);
		free(txt);
	}
	if (csv && write_csv(csv, jobs, n))
		rc = 1;
	json_decref(o);
	free(jobs);
	if (conf) {
		sched_free_conf(&s);
		conf_destroy(conf);
	} else {
		sim_machine_free(&s);
	}
	return rc;
bad_num:
	fprintf(stderr, "sluice sim: bad number '%s'\n", optarg);
	return 2;
}
