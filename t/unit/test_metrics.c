/*
 * test_metrics: the Prometheus text format writer (lib/prom.c: escaping,
 * HELP/TYPE lines, number formatting, histogram buckets) and the
 * controller's families (ctld/metrics.c) rendered from a state built in
 * memory (ctld_fixture.h): values against the jobs and nodes put there,
 * escaping of user-controlled label values, each family declared once
 * with its samples together, no duplicate series, cumulative buckets, and
 * `promtool check metrics` on the whole when promtool is installed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctld_fixture.h"
#include "prom.h"
#include "log.h"
#include "tap.h"

static void test_prom(void)
{
	strbuf_t sb = STRBUF_INIT;
	prom_escape(&sb, "a\"b\\c\nd");
	is_str(sb.buf, "a\\\"b\\\\c\\nd", "label value escaping");
	strbuf_reset(&sb);
	prom_family(&sb, "x_y", "gauge", "two\nlines \\ here");
	is_str(sb.buf, "# HELP x_y two\\nlines \\\\ here\n# TYPE x_y gauge\n", "HELP escaping and TYPE line");
	strbuf_reset(&sb);
	prom_sample(&sb, "m", 3, "a", "1", "b", NULL, NULL);
	prom_sample(&sb, "m", 0.25, NULL);
	prom_sample(&sb, "m", INFINITY, NULL);
	prom_sample_u(&sb, "m", 18446744073709551615ull, "k", "v", NULL);
	prom_sample(&sb, "m", 17179869184.0, NULL);
	is_str(sb.buf, "m{a=\"1\",b=\"\"} 3\nm 0.25\nm +Inf\nm{k=\"v\"} 18446744073709551615\nm 17179869184\n",
	       "samples: labels, NULL value, fractions, +Inf, 64-bit integers");
	strbuf_reset(&sb);
	static const double b[] = { 0.001, 0.01, 1 };
	prom_hist_t h;
	prom_hist_init(&h, b, 3);
	prom_hist_observe(&h, 0.0005);
	prom_hist_observe(&h, 0.001);     /* le is inclusive */
	prom_hist_observe(&h, 0.5);
	prom_hist_observe(&h, 7);
	prom_hist_write(&sb, "h_seconds", &h, "p", "x", NULL);
	is_str(sb.buf,
	       "h_seconds_bucket{p=\"x\",le=\"0.001\"} 2\n"
	       "h_seconds_bucket{p=\"x\",le=\"0.01\"} 2\n"
	       "h_seconds_bucket{p=\"x\",le=\"1\"} 3\n"
	       "h_seconds_bucket{p=\"x\",le=\"+Inf\"} 4\n"
	       "h_seconds_sum{p=\"x\"} 7.5015\n"
	       "h_seconds_count{p=\"x\"} 4\n", "histogram: cumulative buckets, inclusive bounds, sum, count");
	strbuf_reset(&sb);
	prom_hist_write(&sb, "e", &h, NULL);
	ok(strstr(sb.buf, "e_bucket{le=\"+Inf\"} 4\n") && strstr(sb.buf, "e_count 4\n"),
	   "histogram without labels");
	prom_hist_release(&h);
	strbuf_release(&sb);
}

/* The value of the sample whose line starts with "series " (name and
 * labels exactly), or -1. */
static double value_of(const char *text, const char *series)
{
	size_t n = strlen(series);
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, series, n) && p[n] == ' ')
			return strtod(p + n + 1, NULL);
	return -1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Structure: every family's HELP and TYPE once, its samples right after
 * (histograms: _bucket/_sum/_count), no series twice. */
static void check_structure(const char *text)
{
	char *copy = xstrdup(text);
	char **series = NULL, **fams = NULL;
	size_t ns = 0, as = 0, nf = 0, af = 0;
	int bad_order = 0, undeclared = 0, bad_bucket = 0;
	char cur[160] = "", type[32] = "";
	double last_bucket = -1;
	for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
		if (!strncmp(line, "# HELP ", 7)) {
			sscanf(line + 7, "%159s", cur);
			fams = xgrow(fams, sizeof(char *), nf + 1, &af);
			fams[nf++] = xstrdup(cur);
			continue;
		}
		if (!strncmp(line, "# TYPE ", 7)) {
			char name[160];
			sscanf(line + 7, "%159s %31s", name, type);
			bad_order += strcmp(name, cur) != 0;
			last_bucket = -1;
			continue;
		}
		char name[160];
		size_t l = strcspn(line, "{ ");
		snprintf(name, sizeof(name), "%.*s", (int)l, line);
		size_t cl = strlen(cur);
		int mine = !strcmp(name, cur);
		if (!strcmp(type, "histogram") && !strncmp(name, cur, cl) &&
		    (!strcmp(name + cl, "_bucket") || !strcmp(name + cl, "_sum") || !strcmp(name + cl, "_count")))
			mine = 1;
		undeclared += !mine;
		if (!strcmp(type, "histogram") && !strcmp(name + cl, "_bucket")) {
			double v = strtod(strrchr(line, ' ') + 1, NULL);
			if (strstr(line, "le=\"") && last_bucket >= 0 && v < last_bucket &&
			    !strstr(line, "le=\"0.0001\"") && !strstr(line, "le=\"1\"}"))
				bad_bucket++;
			last_bucket = strstr(line, "le=\"+Inf\"") ? -1 : v;
		}
		char *sp = strrchr(line, ' ');
		*sp = 0;
		series = xgrow(series, sizeof(char *), ns + 1, &as);
		series[ns++] = xstrdup(line);
	}
	is_int(bad_order, 0, "TYPE follows its HELP");
	is_int(undeclared, 0, "every sample follows its own family's HELP/TYPE");
	is_int(bad_bucket, 0, "histogram buckets are cumulative");
	qsort(series, ns, sizeof(char *), cmp_str);
	qsort(fams, nf, sizeof(char *), cmp_str);
	int dup = 0, dupf = 0;
	for (size_t i = 1; i < ns; i++)
		if (!strcmp(series[i], series[i - 1]) && dup++ < 3)
			printf("# duplicate series %s\n", series[i]);
	for (size_t i = 1; i < nf; i++)
		if (!strcmp(fams[i], fams[i - 1]) && dupf++ < 3)
			printf("# family twice %s\n", fams[i]);
	is_int(dup, 0, "no series twice (%zu series)", ns);
	is_int(dupf, 0, "no family twice (%zu families)", nf);
	for (size_t i = 0; i < ns; i++)
		free(series[i]);
	for (size_t i = 0; i < nf; i++)
		free(fams[i]);
	free(series);
	free(fams);
	free(copy);
}

static void test_render(void)
{
	char dir[] = "/tmp/test_metrics.XXXXXX";
	ok(mkdtemp(dir) != NULL, "temp dir");
	ctld_t *cd = fixture_ctld(dir, 4, NULL);
	is_int(cd->nnodes, 4, "fixture: 4 nodes");
	fixture_job(cd, JOB_RUNNING, 1001, "alice", "physics", 0, 0, 4, 0x3);
	fixture_job(cd, JOB_RUNNING, 1002, "bob", "chem\"lab\\1", 1, 1, 8, 0xff);
	job_t *p = fixture_job(cd, JOB_PENDING, 1001, "alice", "physics", 0, 0, 0, 0);
	(void)p;
	job_t *h = fixture_job(cd, JOB_PENDING, 1002, "bob", NULL, 0, 0, 0, 0);
	h->hold = WAIT_HELD_USER;
	h->reason = WAIT_HELD_USER;
	fixture_job(cd, JOB_COMPLETE, 1001, "alice", "physics", 0, 0, 0, 0);
	fixture_job(cd, JOB_CANCELLED, 1002, "bob", NULL, 1, 0, 0, 0);
	node_t *n3 = &cd->nodes[3];
	n3->flags |= NODE_FLAG_DRAIN;
	n3->reason = xstrdup("bad \"gpu\"\nsecond line");
	node_sync_sched(cd, n3);
	cd->nodes[2].base = NODE_DOWN;
	node_sync_sched(cd, &cd->nodes[2]);
	ctld_metrics_job_end(cd, JOB_COMPLETE);
	ctld_metrics_job_end(cd, JOB_CANCELLED);
	ctld_metrics_job_start(cd, cd->jobs[0], cd->jobs[0]->submit_time + 42);
	ctld_metrics_cycle(cd, 1500, 0);
	ctld_metrics_commit(cd, 800, 0);
	ctld_metrics_turn(cd, 2000);

	strbuf_t sb = STRBUF_INIT;
	ctld_metrics_render(cd, NULL, &sb);
	const char *t = sb.buf;
	is_int(value_of(t, "slurm_jobs"), 6, "slurm_jobs");
	is_int(value_of(t, "slurm_jobs_running"), 2, "slurm_jobs_running");
	is_int(value_of(t, "slurm_jobs_pending"), 2, "slurm_jobs_pending");
	is_int(value_of(t, "slurm_jobs_hold"), 1, "slurm_jobs_hold");
	is_int(value_of(t, "slurm_jobs_completed"), 1, "slurm_jobs_completed");
	is_int(value_of(t, "slurm_jobs_cancelled"), 1, "slurm_jobs_cancelled");
	is_int(value_of(t, "slurm_jobs_finished"), 2, "slurm_jobs_finished");
	is_int(value_of(t, "slurm_jobs_cpus_alloc"), 12, "slurm_jobs_cpus_alloc");
	is_int(value_of(t, "slurm_jobs_memory_alloc"), 12.0 * 1024 * 1048576, "slurm_jobs_memory_alloc in bytes");
	is_int(value_of(t, "slurm_jobs_gpus_alloc"), 10, "slurm_jobs_gpus_alloc");
	is_int(value_of(t, "slurm_jobs_pending_reason{partition=\"defq\",reason=\"Resources\"}"), 1,
	       "pending by reason: Resources");
	is_int(value_of(t, "slurm_jobs_pending_reason{partition=\"defq\",reason=\"JobHeldUser\"}"), 1,
	       "pending by reason: JobHeldUser");
	is_int(value_of(t, "slurm_partition_jobs_running{partition=\"short\"}"), 1, "per partition");
	is_int(value_of(t, "slurm_user_jobs_running{username=\"alice\"}"), 1, "per user");
	is_int(value_of(t, "slurm_user_jobs{username=\"bob\"}"), 3, "per user, all jobs");
	is_int(value_of(t, "slurm_account_jobs_running{account=\"chem\\\"lab\\\\1\"}"), 1,
	       "per account, the name escaped");
	is_int(value_of(t, "slurm_account_jobs{account=\"\"}"), 2, "jobs without account: account=\"\"");
	is_int(value_of(t, "slurm_nodes"), 4, "slurm_nodes");
	is_int(value_of(t, "slurm_nodes_mixed"), 1, "slurm_nodes_mixed (n00001: 4 of 8 CPUs)");
	is_int(value_of(t, "slurm_nodes_alloc"), 1, "slurm_nodes_alloc (n00002: all CPUs)");
	is_int(value_of(t, "slurm_nodes_down"), 1, "slurm_nodes_down");
	is_int(value_of(t, "slurm_nodes_drain"), 1, "slurm_nodes_drain");
	is_int(value_of(t, "slurm_nodes_drained"), 1, "slurm_nodes_drained");
	is_int(value_of(t, "slurm_node_state{node=\"n00004\",state=\"drained\"}"), 1, "slurm_node_state drained");
	is_int(value_of(t, "slurm_node_state{node=\"n00003\",state=\"down\"}"), 1, "slurm_node_state down");
	is_int(value_of(t, "slurm_node_reason{node=\"n00004\",reason=\"bad \\\"gpu\\\"\\nsecond line\"}"), 1,
	       "a node reason with quotes and a newline, escaped");
	is_int(value_of(t, "slurm_gpus"), 32, "slurm_gpus");
	is_int(value_of(t, "slurm_gpus_type_alloc{type=\"h100\"}"), 10, "GPUs allocated by type");
	is_int(value_of(t, "slurm_partition_gpus_idle{partition=\"short\",type=\"h100\"}"), 6,
	       "GPUs idle by partition and type (short: n00001-n00002)");
	is_int(value_of(t, "slurm_partition_nodes_cpus_alloc{partition=\"defq\"}"), 12, "CPUs allocated by partition");
	is_int(value_of(t, "sluice_jobs_ended_total{state=\"completed\"}"), 1, "end counter by state");
	is_int(value_of(t, "sluice_job_wait_seconds_bucket{partition=\"defq\",le=\"60\"}"), 1, "wait histogram");
	is_int(value_of(t, "sluice_job_wait_seconds_sum{partition=\"defq\"}"), 42, "wait histogram sum");
	is_int(value_of(t, "sluice_sched_cycle_seconds_bucket{kind=\"main\",le=\"0.001\"}"), 0, "cycle bucket below");
	is_int(value_of(t, "sluice_sched_cycle_seconds_bucket{kind=\"main\",le=\"0.0025\"}"), 1, "cycle bucket at");
	is_int(value_of(t, "sluice_state_commit_seconds_count"), 1, "commit histogram");
	ok(value_of(t, "sluice_loop_turn_max_seconds") == 0.002, "loop turn max");
	check_structure(t);

	/* Each Slurm endpoint is a subset; together they hold no family twice. */
	strbuf_t part = STRBUF_INIT;
	ctld_metrics_render(cd, "jobs", &part);
	ok(strstr(part.buf, "slurm_jobs_running 2") && !strstr(part.buf, "slurm_nodes_idle"), "/metrics/jobs");
	strbuf_reset(&part);
	ctld_metrics_render(cd, "scheduler", &part);
	ok(strstr(part.buf, "slurm_bf_cycle_cnt") && !strstr(part.buf, "slurm_jobs_running"), "/metrics/scheduler");
	strbuf_reset(&part);
	ctld_metrics_render(cd, "jobs-users-accts", &part);
	ok(strstr(part.buf, "slurm_user_jobs_pending{username=\"alice\"} 1"), "/metrics/jobs-users-accts");
	check_structure(part.buf);
	strbuf_release(&part);

	if (access("/usr/bin/promtool", X_OK) == 0) {
		char *f = xasprintf("%s/metrics.txt", dir);
		FILE *fp = fopen(f, "w");
		fwrite(sb.buf, 1, sb.len, fp);
		fclose(fp);
		char *cmd = xasprintf("promtool check metrics < %s", f);
		int rc = system(cmd);
		is_int(rc, 0, "promtool check metrics");
		unlink(f);
		free(cmd);
		free(f);
	} else {
		ok(1, "# SKIP promtool not installed");
	}
	strbuf_release(&sb);
	char *rm = xasprintf("rm -rf %s", dir);
	(void)!system(rm);
	free(rm);
}

int main(void)
{
	log_init("test_metrics", 0, LOG_LVL_ERROR, NULL);
	test_prom();
	test_render();
	return done_testing();
}
