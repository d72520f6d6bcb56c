/*
 * sdiag: the controller's scheduling and RPC statistics, in Slurm 22.05's
 * layout (t/compat/sdiag.txt).
 *
 * One MSG_STATS_REQ; the controller counts, this file only prints and
 * sorts the RPC tables (-i by id, -t by total time, -T by average time,
 * default by count). -r resets the counters (admins).
 *
 * Values Sluice has no equivalent for are printed as 0: agent queue and
 * threads (no agent threads: replies are written by the event loop), DBD
 * agent queue (accounting is in-process), heterogeneous job components.
 * "Server thread count" is 1: one event loop serves every request.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "errors.h"
#include "log.h"
#include "net.h"
#include "xalloc.h"

enum { SORT_COUNT, SORT_ID, SORT_TIME, SORT_TIME2 };
static int sort_mode;

/* ctime() without its newline, as Slurm's slurm_ctime2 prints it. */
static const char *ctime2(int64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;
	localtime_r(&tt, &tm);
	strftime(buf, len, "%a %b %e %H:%M:%S %Y", &tm);
	return buf;
}

static uint64_t avg(const rpc_stat_t *s)
{
	return s->count ? s->time_us / s->count : 0;
}

static int cmp_stat(const void *a, const void *b)
{
	const rpc_stat_t *x = a, *y = b;
	uint64_t kx, ky;
	switch (sort_mode) {
	case SORT_ID:
		return x->id < y->id ? -1 : x->id > y->id;
	case SORT_TIME: kx = x->time_us; ky = y->time_us; break;
	case SORT_TIME2: kx = avg(x); ky = avg(y); break;
	default: kx = x->count; ky = y->count; break;
	}
	if (kx != ky)
		return kx < ky ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static void print_stats(msg_stats_t *m)
{
	char b1[64], b2[64];
	printf("*******************************************************\n");
	printf("sdiag output at %s (%" PRId64 ")\n", ctime2(m->req_time, b1, sizeof(b1)), m->req_time);
	printf("Data since      %s (%" PRId64 ")\n", ctime2(m->req_time_start, b2, sizeof(b2)),
	       m->req_time_start);
	printf("*******************************************************\n");
	printf("Server thread count:  %u\n", m->server_threads);
	printf("Agent queue size:     %u\n", m->agent_queue);
	printf("Agent count:          %u\n", m->agent_count);
	printf("Agent thread count:   %u\n", m->agent_threads);
	printf("DBD Agent queue size: %u\n\n", m->dbd_queue);
	printf("Jobs submitted: %u\n", m->jobs_submitted);
	printf("Jobs started:   %u\n", m->jobs_started);
	printf("Jobs completed: %u\n", m->jobs_completed);
	printf("Jobs canceled:  %u\n", m->jobs_canceled);
	printf("Jobs failed:    %u\n\n", m->jobs_failed);
	printf("Job states ts:  %s (%" PRId64 ")\n", ctime2(m->job_states_ts, b1, sizeof(b1)),
	       m->job_states_ts);
	printf("Jobs pending:   %u\n", m->jobs_pending);
	printf("Jobs running:   %u\n", m->jobs_running);

	printf("\nMain schedule statistics (microseconds):\n");
	printf("\tLast cycle:   %u\n", m->sched_last);
	printf("\tMax cycle:    %u\n", m->sched_max);
	printf("\tTotal cycles: %u\n", m->sched_cycles);
	if (m->sched_cycles) {
		printf("\tMean cycle:   %u\n", m->sched_mean);
		printf("\tMean depth cycle:  %u\n", m->sched_mean_depth);
	}
	if (m->req_time - m->req_time_start > 60)
		printf("\tCycles per minute: %u\n",
		       (uint32_t)(m->sched_cycles / ((m->req_time - m->req_time_start) / 60)));
	printf("\tLast queue length: %u\n", m->sched_queue_len);

	printf("\nBackfilling stats\n");
	printf("\tTotal backfilled jobs (since last slurm start): %u\n", m->bf_backfilled_total);
	printf("\tTotal backfilled jobs (since last stats cycle start): %u\n", m->bf_backfilled);
	printf("\tTotal backfilled heterogeneous job components: %u\n", m->bf_backfilled_het);
	printf("\tTotal cycles: %u\n", m->bf_cycles);
	if (m->bf_last_when > 0)
		printf("\tLast cycle when: %s (%" PRId64 ")\n", ctime2(m->bf_last_when, b1, sizeof(b1)),
		       m->bf_last_when);
	else
		printf("\tLast cycle when: N/A\n");
	printf("\tLast cycle: %u\n", m->bf_last);
	printf("\tMax cycle:  %u\n", m->bf_max);
	if (m->bf_cycles)
		printf("\tMean cycle: %u\n", m->bf_mean);
	printf("\tLast depth cycle: %u\n", m->bf_last_depth);
	printf("\tLast depth cycle (try sched): %u\n", m->bf_last_depth_try);
	if (m->bf_cycles) {
		printf("\tDepth Mean: %u\n", m->bf_depth_mean);
		printf("\tDepth Mean (try depth): %u\n", m->bf_depth_try_mean);
	}
	printf("\tLast queue length: %u\n", m->bf_queue_len);
	if (m->bf_cycles)
		printf("\tQueue length mean: %u\n", m->bf_queue_mean);
	printf("\tLast table size: %u\n", m->bf_table_size);
	if (m->bf_cycles)
		printf("\tMean table size: %u\n", m->bf_table_mean);

	printf("\nLatency for 1000 calls to gettimeofday(): %u microseconds\n", m->gtod_latency);

	qsort(m->rpc_types, m->nrpc_types, sizeof(rpc_stat_t), cmp_stat);
	qsort(m->rpc_users, m->nrpc_users, sizeof(rpc_stat_t), cmp_stat);
	printf("\nRemote Procedure Call statistics by message type\n");
	for (uint32_t i = 0; i < m->nrpc_types; i++) {
		const rpc_stat_t *s = &m->rpc_types[i];
		printf("\t%-40s(%5u) count:%-6u ave_time:%-6" PRIu64 " total_time:%" PRIu64 "\n",
		       s->name ? s->name : "", s->id, s->count, avg(s), s->time_us);
	}
	if (!m->nrpc_types)
		printf("\tNo RPCs recorded yet.\n");
	printf("\nRemote Procedure Call statistics by user\n");
	for (uint32_t i = 0; i < m->nrpc_users; i++) {
		const rpc_stat_t *s = &m->rpc_users[i];
		printf("\t%-16s(%8u) count:%-6u ave_time:%-6" PRIu64 " total_time:%" PRIu64 "\n",
		       cmd_user_name(s->id), s->id, s->count, avg(s), s->time_us);
	}
	printf("\nPending RPC statistics\n");
	printf("\tNo pending RPCs\n");
}

int cmd_sdiag(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "cluster", required_argument, NULL, 'M' },
		{ "clusters", required_argument, NULL, 'M' },
		{ "reset", no_argument, NULL, 'r' },
		{ "sort-by-id", no_argument, NULL, 'i' },
		{ "sort-by-time", no_argument, NULL, 't' },
		{ "sort-by-time2", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ "usage", no_argument, NULL, 'U' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int c, reset = 0;
	log_init("sdiag", 0, LOG_LVL_INFO, NULL);
	argv[0] = (char *)"sdiag";
	sort_mode = SORT_COUNT;
	optind = 0;
	opterr = 1;
	while ((c = getopt_long(argc, argv, "aM:ritThV", opts, NULL)) != -1) {
		switch (c) {
		case 'a': case 'M': break;
		case 'r': reset = 1; break;
		case 'i': sort_mode = SORT_ID; break;
		case 't': sort_mode = SORT_TIME; break;
		case 'T': sort_mode = SORT_TIME2; break;
		case 'h': cmd_help_print(stdout, &cmd_help_sdiag); return 0;
		case 'U': cmd_usage_print(stdout, &cmd_help_sdiag); return 0;
		case 'V': printf("slurm %s\n", SLURM_COMPAT_VERSION); return 0;
		default:
			cmd_bad_option("sdiag");
			return 1;
		}
	}
	if (reset) {
		msg_stats_req_t r = { .flags = STATS_F_RESET };
		int rc = cmd_call_rc(MSG_STATS_REQ, &r);
		if (rc) {
			fprintf(stderr, "slurm_reset_statistics: %s\n", slurm_strerror(rc));
			return 1;
		}
		printf("Reset scheduling statistics\n");
		return 0;
	}
	msg_stats_req_t r = { 0 };
	void *reply = NULL;
	int rc = cmd_call(MSG_STATS_REQ, &r, MSG_STATS, &reply, NULL);
	if (rc) {
		fprintf(stderr, "slurm_get_statistics: %s\n", slurm_strerror(rc));
		return 1;
	}
	print_stats(reply);
	proto_msg_destroy(MSG_STATS, reply);
	return 0;
}
