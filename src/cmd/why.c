/*
 * sluice why JOB|NODE: why a job is pending (and what would change it),
 * how it ran or ended, or why a node is in its state — in plain words and
 * numbers, from the controller's live state (src/ctld/why.c computes the
 * answer as one JSON document; --json prints it as is, otherwise it is
 * rendered here). For an ended job the last lines of its stderr file are
 * shown when the caller can read the file (read here, as the caller: the
 * controller never opens users' files).
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "errors.h"
#include "net.h"
#include "pattern.h"
#include "strbuf.h"
#include "xalloc.h"

#define WHY_TAIL_LINES 10
#define WHY_TAIL_BYTES 65536

static void usage(FILE *fp)
{
	fputs("Usage: sluice why [OPTIONS...] JOBID|NODENAME\n"
	      "Explain why a job is pending (what blocks it, which nodes could run it and\n"
	      "what each lacks now, the jobs ahead of it, its expected start, and the\n"
	      "commands that would change the answer), how a job ran or ended, or why a\n"
	      "node is in its state.\n"
	      "\n"
	      "      --json              print the answer as JSON, for programs\n"
	      "\n"
	      "Help options:\n"
	      "  -h, --help              show this help message\n"
	      "      --usage             display brief usage message\n", fp);
}

static const char *s(json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));
	return v ? v : "";
}

static long long n(json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

static const char *ordinal(long long v)
{
	long long t = v % 100;
	if (t >= 11 && t <= 13)
		return "th";
	switch (v % 10) {
	case 1: return "st";
	case 2: return "nd";
	case 3: return "rd";
	default: return "th";
	}
}

static void print_items(json_t *arr, const char *title)
{
	if (!json_array_size(arr))
		return;
	printf("%s\n", title);
	size_t i;
	json_t *it;
	json_array_foreach(arr, i, it)
		printf("  - %s\n", s(it, "text"));
}

static void print_fixes(json_t *arr)
{
	if (!json_array_size(arr))
		return;
	printf("To change the answer:\n");
	size_t i;
	json_t *it;
	json_array_foreach(arr, i, it)
		printf("  %s\n      %s\n", s(it, "command"), s(it, "effect"));
}

static void print_request(json_t *o)
{
	json_t *r = json_object_get(o, "request");
	strbuf_t sb = STRBUF_INIT;
	long long nmin = n(r, "nodes_min"), nmax = n(r, "nodes_max");
	if (nmin && nmax && nmax != nmin)
		strbuf_addf(&sb, "%lld-%lld nodes", nmin, nmax);
	else if (nmin)
		strbuf_addf(&sb, "%lld node(s)", nmin);
	if (n(r, "tasks"))
		strbuf_addf(&sb, "%s%lld task(s)", sb.len ? ", " : "", n(r, "tasks"));
	if (n(r, "cpus_per_task") > 1)
		strbuf_addf(&sb, " x %lld CPUs", n(r, "cpus_per_task"));
	if (n(r, "gpus_per_node"))
		strbuf_addf(&sb, "%s%lld GPU(s)%s%s per node", sb.len ? ", " : "", n(r, "gpus_per_node"),
			    *s(r, "gpu_type") ? " of type " : "", s(r, "gpu_type"));
	if (n(r, "gpus_per_job"))
		strbuf_addf(&sb, "%s%lld GPU(s) in all", sb.len ? ", " : "", n(r, "gpus_per_job"));
	if (n(r, "mem_per_node_mb"))
		strbuf_addf(&sb, "%s%lldM per node", sb.len ? ", " : "", n(r, "mem_per_node_mb"));
	if (n(r, "mem_per_cpu_mb"))
		strbuf_addf(&sb, "%s%lldM per CPU", sb.len ? ", " : "", n(r, "mem_per_cpu_mb"));
	if (*s(r, "features"))
		strbuf_addf(&sb, "%s-C %s", sb.len ? ", " : "", s(r, "features"));
	if (*s(r, "nodelist"))
		strbuf_addf(&sb, "%s-w %s", sb.len ? ", " : "", s(r, "nodelist"));
	if (*s(r, "exclude"))
		strbuf_addf(&sb, "%s-x %s", sb.len ? ", " : "", s(r, "exclude"));
	if (json_is_true(json_object_get(r, "exclusive")))
		strbuf_addf(&sb, "%s--exclusive", sb.len ? ", " : "");
	strbuf_addf(&sb, "%s-t %s, partition %s", sb.len ? ", " : "", s(o, "time_limit"),
		    s(o, "partition"));
	printf("  asks %s\n", sb.buf);
	strbuf_release(&sb);
}

/* The NCCL transport check's verdict (job_nccl.c), when there is one. */
static void print_nccl(json_t *o)
{
	json_t *v = json_object_get(o, "nccl");
	if (!json_is_object(v))
		return;
	int counters = !strcmp(s(v, "source"), "counters");
	if (json_is_true(json_object_get(v, "socket")))
		printf("NCCL: its collectives use TCP sockets, not the fabric: %s.\n",
		       counters ? "the fabric ports of its batch node stayed nearly still" :
		       "NCCL said so in its output");
	else if (counters)
		printf("NCCL: the fabric ports of its batch node carry traffic.\n");
	else
		printf("NCCL: its collectives use the %s network.\n", s(v, "transport"));
	printf("  evidence (%s on %s at %s): %s\n", s(v, "source"), s(v, "node"), s(v, "time"),
	       s(v, "detail"));
	if (json_is_true(json_object_get(v, "socket")))
		printf("  check the fabric of its nodes (`sinfo -R`, `scontrol show node`, ibstat) and "
		       "NCCL_IB_HCA/NCCL_NET/NCCL_SOCKET_IFNAME in the job's environment\n");
}

/* The last lines of the job's stderr file, if the caller can read it. */
static void print_stderr_tail(json_t *o)
{
	const char *pat = s(o, "std_err");
	if (!*pat)
		return;
	pattern_ctx_t pc = { .job_id = (uint32_t)n(o, "job_id"), .step_id = PATTERN_BATCH_STEP,
			     .array_task_id = NO_VAL32, .job_name = s(o, "name"),
			     .user = s(o, "user"), .node = s(o, "batch_host") };
	char *path = pattern_path(pat, NULL, s(o, "work_dir"), &pc);
	FILE *f = fopen(path, "r");
	if (!f) {
		printf("Its stderr (%s) cannot be read here.\n", path);
		free(path);
		return;
	}
	char *buf = xmalloc(WHY_TAIL_BYTES + 1);
	long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : 0;
	long from = size > WHY_TAIL_BYTES ? size - WHY_TAIL_BYTES : 0;
	size_t got = 0;
	if (fseek(f, from, SEEK_SET) == 0)
		got = fread(buf, 1, WHY_TAIL_BYTES, f);
	fclose(f);
	buf[got] = '\0';
	size_t end = got;
	while (end && buf[end - 1] == '\n')
		end--;
	size_t start = end;
	int lines = 0;
	while (start && lines < WHY_TAIL_LINES) {
		start--;
		if (buf[start] == '\n' && ++lines == WHY_TAIL_LINES) {
			start++;
			break;
		}
	}
	if (end == 0) {
		printf("Its stderr (%s) is empty.\n", path);
	} else {
		printf("Last lines of its stderr (%s):\n", path);
		for (char *l = buf + start; l < buf + end;) {
			char *nl = memchr(l, '\n', (size_t)(buf + end - l));
			size_t len = nl ? (size_t)(nl - l) : (size_t)(buf + end - l);
			printf("  | %.*s\n", (int)len, l);
			l += len + 1;
		}
	}
	free(buf);
	free(path);
}

static void render_job(json_t *o)
{
	const char *state = s(o, "state");
	printf("Job %lld \"%s\" of %s is %s", n(o, "job_id"), s(o, "name"), s(o, "user"), state);
	if (!strcmp(state, "PENDING"))
		printf(" (Reason=%s%s%s)", s(o, "reason"), *s(o, "reason_detail") ? ", " : "",
		       s(o, "reason_detail"));
	printf("\n");
	print_request(o);
	if (!strcmp(state, "PENDING")) {
		json_t *rk = json_object_get(o, "rank");
		long long pos = n(rk, "position");
		printf("  priority %lld: %lld%s of %lld pending in %s", n(o, "priority"), pos,
		       ordinal(pos), n(rk, "pending_in_partition"), s(o, "partition"));
		json_t *ahead = json_object_get(rk, "ahead");
		if (json_array_size(ahead)) {
			printf("; ahead of it:");
			size_t i;
			json_t *a;
			json_array_foreach(ahead, i, a)
				printf("%s %lld (%s, %lld)", i ? "," : "", n(a, "job_id"), s(a, "user"),
				       n(a, "priority"));
			if (pos - 1 > (long long)json_array_size(ahead))
				printf(", ...");
		}
		printf("\n");
		if (*s(o, "expected_start"))
			printf("  expected to start %s on %s (the backfill plan)\n", s(o, "expected_start"),
			       *s(o, "planned_nodes") ? s(o, "planned_nodes") : "nodes not yet chosen");
		print_items(json_object_get(o, "blockers"), "Why it waits:");
		json_t *nd = json_object_get(o, "nodes");
		printf("Nodes of partition %s: %lld; %lld could ever run it, %lld could now; it needs %lld\n",
		       s(o, "partition"), n(nd, "partition_nodes"), n(nd, "could_ever"),
		       n(nd, "could_now"), n(nd, "needed"));
		size_t i;
		json_t *g;
		int w = 0;
		json_array_foreach(json_object_get(nd, "groups"), i, g)
			if ((int)strlen(s(g, "nodes")) > w)
				w = (int)strlen(s(g, "nodes"));
		if (w > 40)
			w = 40;
		json_array_foreach(json_object_get(nd, "groups"), i, g)
			printf("  %-*s  %s%s\n", w, s(g, "nodes"), s(g, "text"),
			       json_is_true(json_object_get(g, "never")) ? " (never)" : "");
		if (n(nd, "more_nodes"))
			printf("  ... and %lld more node(s)\n", n(nd, "more_nodes"));
		print_fixes(json_object_get(o, "fixes"));
		return;
	}
	if (*s(o, "nodes_allocated"))
		printf("  ran on %s from %s%s%s\n", s(o, "nodes_allocated"), s(o, "start_time"),
		       !strcmp(state, "RUNNING") ? ", time limit ends " : " to ", s(o, "end_time"));
	print_items(json_object_get(o, "facts"), "How it ended:");
	print_nccl(o);
	if (strcmp(state, "RUNNING") && strcmp(state, "SUSPENDED"))
		print_stderr_tail(o);
}

static void render_node(json_t *o)
{
	printf("Node %s is %s\n", s(o, "node"), s(o, "state"));
	if (*s(o, "partitions"))
		printf("  partitions %s\n", s(o, "partitions"));
	print_items(json_object_get(o, "facts"), "Why:");
	json_t *jobs = json_object_get(o, "jobs");
	if (json_array_size(jobs)) {
		printf("Jobs on it:\n");
		size_t i;
		json_t *j;
		json_array_foreach(jobs, i, j)
			printf("  %lld  %s  %s  until %s\n", n(j, "job_id"), s(j, "user"), s(j, "state"),
			       *s(j, "end_time") ? s(j, "end_time") : "(no limit)");
	} else {
		printf("No jobs on it.\n");
	}
	print_fixes(json_object_get(o, "fixes"));
}

int cmd_why(int argc, char **argv)
{
	enum { OPT_JSON = 0x100, OPT_USAGE };
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ "usage", no_argument, NULL, OPT_USAGE },
		{ NULL, 0, NULL, 0 },
	};
	int json_out = 0, c;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON: json_out = 1; break;
		case 'h': usage(stdout); return 0;
		case OPT_USAGE: printf("Usage: sluice why [--json] JOBID|NODENAME\n"); return 0;
		default:
			fprintf(stderr, "Try \"sluice why --help\" for more information\n");
			return 1;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "sluice why: error: one job id or node name expected\n");
		fprintf(stderr, "Try \"sluice why --help\" for more information\n");
		return 1;
	}
	const char *target = argv[optind];
	int is_job = *target && strspn(target, "0123456789") == strlen(target);
	msg_acct_req_t req = { .op = ACCT_OP_WHY };
	char *arg = xasprintf("%s=%s", is_job ? "job" : "node", target);
	strv_push(&req.args, arg);
	free(arg);
	void *reply = NULL;
	int err = cmd_call(MSG_ACCT_REQ, &req, MSG_ACCT_REPLY, &reply, NULL);
	strv_free(&req.args);
	if (err) {
		fprintf(stderr, "sluice why: error: %s\n", slurm_strerror(err));
		return 1;
	}
	msg_acct_reply_t *r = reply;
	int rc = 0;
	if (r->rc) {
		fprintf(stderr, "sluice why: error: %s\n", r->msg ? r->msg : slurm_strerror(r->rc));
		rc = 1;
	} else if (json_out) {
		printf("%s\n", r->msg ? r->msg : "{}");
	} else {
		json_error_t je;
		json_t *o = json_loads(r->msg ? r->msg : "", 0, &je);
		if (!o) {
			fprintf(stderr, "sluice why: error: bad answer from the controller: %s\n", je.text);
			rc = 1;
		} else {
			if (!strcmp(s(o, "kind"), "node"))
				render_node(o);
			else
				render_job(o);
			json_decref(o);
		}
	}
	proto_msg_destroy(MSG_ACCT_REPLY, reply);
	return rc;
}
