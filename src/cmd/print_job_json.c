/*
 * print_job_json: squeue --json as Slurm 22.05 prints it (openapi
 * v0.0.38): the same 111 job fields in the same order, types and nesting,
 * and the serializer's pretty layout (two-space indent, "/" escaped, empty
 * arrays as "[\n  ]", no final newline). Pure: records in, text out.
 *
 * Fields for what Sluice does not have (burst buffers, federation,
 * heterogeneous jobs, containers, ...) print what Slurm prints for a job
 * without them ("", 0, null). docs/compatibility.md lists the few values
 * that are approximations.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "cmd/print.h"
#include "hostlist.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

/* A writer for Slurm's serializer/json pretty layout. */
struct jw {
	strbuf_t *sb;
	int depth;
	int first[16];
};

static void jw_indent(struct jw *w)
{
	for (int i = 0; i < w->depth; i++)
		strbuf_addstr(w->sb, "  ");
}

static void jw_item(struct jw *w, const char *key)
{
	strbuf_addstr(w->sb, w->first[w->depth] ? "\n" : ",\n");
	w->first[w->depth] = 0;
	jw_indent(w);
	if (key) {
		strbuf_addch(w->sb, '"');
		strbuf_addstr(w->sb, key);
		strbuf_addstr(w->sb, "\": ");
	}
}

static void jw_open(struct jw *w, const char *key, char c)
{
	if (key || w->depth)
		jw_item(w, key);
	strbuf_addch(w->sb, c);
	if (w->depth < 15)
		w->depth++;
	w->first[w->depth] = 1;
}

static void jw_close(struct jw *w, char c)
{
	w->depth--;
	strbuf_addch(w->sb, '\n');
	jw_indent(w);
	strbuf_addch(w->sb, c);
}

static void jw_str(struct jw *w, const char *key, const char *v)
{
	jw_item(w, key);
	if (!v) {
		strbuf_addstr(w->sb, "null");
		return;
	}
	strbuf_addch(w->sb, '"');
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		switch (*p) {
		case '"': strbuf_addstr(w->sb, "\\\""); break;
		case '\\': strbuf_addstr(w->sb, "\\\\"); break;
		case '/': strbuf_addstr(w->sb, "\\/"); break;
		case '\n': strbuf_addstr(w->sb, "\\n"); break;
		case '\t': strbuf_addstr(w->sb, "\\t"); break;
		case '\r': strbuf_addstr(w->sb, "\\r"); break;
		default:
			if (*p < 0x20)
				strbuf_addf(w->sb, "\\u%04x", *p);
			else
				strbuf_addch(w->sb, (char)*p);
		}
	}
	strbuf_addch(w->sb, '"');
}

/* "" for NULL: most string fields of a job print so. */
static void jw_s(struct jw *w, const char *key, const char *v)
{
	jw_str(w, key, v ? v : "");
}

static void jw_int(struct jw *w, const char *key, long long v)
{
	jw_item(w, key);
	strbuf_addf(w->sb, "%lld", v);
}

static void jw_null(struct jw *w, const char *key)
{
	jw_item(w, key);
	strbuf_addstr(w->sb, "null");
}

static void jw_bool(struct jw *w, const char *key, int v)
{
	jw_item(w, key);
	strbuf_addstr(w->sb, v ? "true" : "false");
}

/* Nodes by name: sorted once, then a binary search per allocated node. */
struct node_index {
	const node_info_t **v;
	size_t n;
};

static int cmp_node(const void *a, const void *b)
{
	return strcmp((*(const node_info_t *const *)a)->name, (*(const node_info_t *const *)b)->name);
}

static void node_index_build(struct node_index *ix, const msg_node_info_t *ni)
{
	ix->n = 0;
	ix->v = xmalloc(((ni ? ni->nnodes : 0) + 1) * sizeof(*ix->v));
	for (uint32_t i = 0; ni && i < ni->nnodes; i++)
		if (ni->nodes[i].name)
			ix->v[ix->n++] = &ni->nodes[i];
	qsort(ix->v, ix->n, sizeof(*ix->v), cmp_node);
}

static const node_info_t *node_by_name(const struct node_index *ix, const char *name)
{
	size_t lo = 0, hi = ix->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(ix->v[mid]->name, name);
		if (!c)
			return ix->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* job_resources of a started job: per node, the allocated cores by
 * socket ({"0": {"cores": {"3": "allocated"}}}), from the CPU ids the
 * controller keeps and the node's sockets/cores/threads. */
static void job_resources(struct jw *w, const job_info_t *j, const struct node_index *ni)
{
	char *err = NULL;
	hostlist_t *hl = hostlist_create(j->nodes, &err);
	free(err);
	size_t nn = hl ? hostlist_count(hl) : 0;
	jw_open(w, "job_resources", '{');
	jw_s(w, "nodes", j->nodes);
	jw_int(w, "allocated_cores", j->num_cpus);
	jw_int(w, "allocated_hosts", (long long)nn);
	jw_open(w, "allocated_nodes", '[');
	const char *ids = j->cpu_ids ? j->cpu_ids : "";
	const char *mems = j->mem_alloc ? j->mem_alloc : "";
	for (size_t i = 0; i < nn; i++) {
		const char *name = hostlist_nth(hl, i);
		const node_info_t *n = node_by_name(ni, name);
		uint32_t threads = n && n->threads ? n->threads : 1;
		uint32_t cores = n && n->cores ? n->cores : 1;
		if (!n || !n->sockets)
			cores = n && n->cpus ? n->cpus / threads : 1;
		size_t idl = strcspn(ids, " ");
		char *mine = xstrndup(ids, idl);
		ids = ids[idl] ? ids + idl + 1 : ids + idl;
		char *e;
		uint64_t mem = strtoull(mems, &e, 10);
		mems = *e ? e + 1 : e;
		if (e == mems && !mem)
			mem = j->mem_per_node ? j->mem_per_node : j->mem_per_cpu;

		jw_open(w, NULL, '{');
		jw_open(w, "sockets", '{');
		/* ids ascend: sockets and cores come out in order */
		long cur_sock = -1, last_core = -1;
		const char *p = mine;
		while (*p) {
			char *pe;
			unsigned long a = strtoul(p, &pe, 10), b = a;
			if (pe == p)
				break;
			if (*pe == '-')
				b = strtoul(pe + 1, &pe, 10);
			for (unsigned long id = a; id <= b; id++) {
				long sock = (long)(id / threads / cores);
				long core = (long)(id / threads % cores);
				char key[24];
				if (sock != cur_sock) {
					if (cur_sock >= 0) {
						jw_close(w, '}');
						jw_close(w, '}');
					}
					snprintf(key, sizeof(key), "%ld", sock);
					jw_open(w, key, '{');
					jw_open(w, "cores", '{');
					cur_sock = sock;
					last_core = -1;
				}
				if (core == last_core)
					continue;    /* another thread of the same core */
				snprintf(key, sizeof(key), "%ld", core);
				jw_str(w, key, "allocated");
				last_core = core;
			}
			p = *pe == ',' ? pe + 1 : pe;
		}
		if (cur_sock >= 0) {
			jw_close(w, '}');
			jw_close(w, '}');
		}
		jw_close(w, '}');
		free(mine);
		jw_s(w, "nodename", name);
		jw_int(w, "cpus_used", 0);
		jw_int(w, "memory_used", 0);
		jw_int(w, "memory_allocated", (long long)mem);
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_close(w, '}');
	hostlist_destroy(hl);
}

/* "cpu=4,mem=8G,node=1,billing=4" -> 4 */
static double tres_billing(const char *tres)
{
	const char *p = tres ? strstr(tres, "billing=") : NULL;
	return p ? strtod(p + 8, NULL) : 0.0;
}

static void one_job(struct jw *w, const job_info_t *j, const struct node_index *ni)
{
	uint32_t base = j->state & JOB_STATE_BASE;
	int started = base != JOB_PENDING && j->start_time;
	int limited = j->time_limit != TIME_INFINITE && j->time_limit != TIME_NO_VAL;
	char buf[64];

	jw_open(w, NULL, '{');
	jw_s(w, "account", j->account);
	jw_int(w, "accrue_time", j->accrue_time);
	jw_s(w, "admin_comment", NULL);
	jw_int(w, "array_job_id", j->array_job_id);
	if (j->array_job_id && j->array_task_id != NO_VAL32 &&
	    !(j->array_task_str && *j->array_task_str))
		jw_int(w, "array_task_id", j->array_task_id);
	else
		jw_null(w, "array_task_id");
	/* the throttle, on the array's tasks too (as Slurm) */
	jw_int(w, "array_max_tasks", j->array_max_tasks);
	jw_s(w, "array_task_string", j->array_task_str);
	jw_int(w, "association_id", j->assoc_id);
	jw_s(w, "batch_features", NULL);
	jw_bool(w, "batch_flag", (int)j->batch_flag);
	jw_s(w, "batch_host", base == JOB_PENDING ? NULL : j->batch_host);
	/* Slurm's job bits, in their bit order */
	jw_open(w, "flags", '[');
	if (j->cpus_per_task > 1)
		jw_str(w, NULL, "JOB_CPUS_SET");
	if (started) {
		jw_str(w, NULL, "JOB_ACCRUE_OVER");
		if (!JOB_IS_FINISHED(j->state))
			jw_str(w, NULL, "JOB_WAS_RUNNING");
	}
	if (j->mem_per_node)
		jw_str(w, NULL, "JOB_MEM_SET");
	jw_close(w, ']');
	jw_s(w, "burst_buffer", NULL);
	jw_s(w, "burst_buffer_state", NULL);
	jw_s(w, "cluster", print_job_cluster());
	jw_s(w, "cluster_features", NULL);
	jw_s(w, "command", j->command);
	jw_s(w, "comment", j->comment);
	jw_s(w, "container", NULL);
	jw_bool(w, "contiguous", (int)j->contiguous);
	jw_null(w, "core_spec");
	jw_null(w, "thread_spec");
	jw_null(w, "cores_per_socket");
	if (started) {
		jw_item(w, "billable_tres");
		strbuf_addf(w->sb, "%.1f", tres_billing(j->tres_alloc ? j->tres_alloc : j->tres_req));
	} else {
		jw_null(w, "billable_tres");
	}
	/* 22.05 prints null here whatever -c was (its dumper's quirk) */
	jw_null(w, "cpus_per_task");
	jw_null(w, "cpu_frequency_minimum");
	jw_null(w, "cpu_frequency_maximum");
	jw_null(w, "cpu_frequency_governor");
	if (j->cpus_per_gpu) {
		snprintf(buf, sizeof(buf), "gres:gpu:%u", j->cpus_per_gpu);
		jw_s(w, "cpus_per_tres", buf);
	} else {
		jw_s(w, "cpus_per_tres", NULL);
	}
	jw_int(w, "deadline", (long long)j->deadline);
	jw_int(w, "delay_boot", 0);
	char *dep = job_dep_fmt(j);
	jw_s(w, "dependency", dep);
	free(dep);
	jw_int(w, "derived_exit_code", j->derived_exit_code);
	jw_int(w, "eligible_time", j->eligible_time);
	int64_t end = j->end_time;
	if (base == JOB_PENDING && !end && j->start_time && limited)
		end = j->start_time + (int64_t)j->time_limit * 60;
	jw_int(w, "end_time", end);
	jw_s(w, "excluded_nodes", j->exc_nodes);
	jw_int(w, "exit_code", j->exit_code);
	jw_s(w, "features", j->features);
	jw_s(w, "federation_origin", NULL);
	jw_s(w, "federation_siblings_active", NULL);
	jw_s(w, "federation_siblings_viable", NULL);
	jw_open(w, "gres_detail", '[');
	int any_gres = 0;
	for (uint32_t i = 0; started && i < j->gres_detail.n; i++)
		any_gres |= j->gres_detail.v[i] && *j->gres_detail.v[i];
	for (uint32_t i = 0; any_gres && i < j->gres_detail.n; i++)
		jw_s(w, NULL, j->gres_detail.v[i]);
	jw_close(w, ']');
	jw_int(w, "group_id", j->group_id);
	jw_s(w, "group_name", j->group_name ? j->group_name : cmd_group_name(j->group_id));
	jw_int(w, "job_id", j->job_id);
	if (started && j->nodes && *j->nodes)
		job_resources(w, j, ni);
	jw_s(w, "job_state", job_state_string(j->state));
	jw_int(w, "last_sched_evaluation", j->last_sched_eval);
	jw_s(w, "licenses", NULL);
	jw_int(w, "max_cpus", 0);
	jw_int(w, "max_nodes", j->max_nodes);
	jw_s(w, "mcs_label", NULL);
	if (j->mem_per_gpu) {
		snprintf(buf, sizeof(buf), "gres:gpu:%" PRIu64, j->mem_per_gpu);
		jw_s(w, "memory_per_tres", buf);
	} else {
		jw_s(w, "memory_per_tres", NULL);
	}
	jw_s(w, "name", j->name);
	jw_s(w, "nodes", base == JOB_PENDING ? NULL : j->nodes);
	jw_null(w, "nice");     /* as 22.05 prints it */
	jw_null(w, "tasks_per_core");
	jw_int(w, "tasks_per_node", j->ntasks_per_node);
	jw_null(w, "tasks_per_socket");
	jw_int(w, "tasks_per_board", 0);
	jw_int(w, "cpus", j->num_cpus);
	jw_int(w, "node_count", j->num_nodes);
	jw_int(w, "tasks", j->num_tasks);
	jw_int(w, "het_job_id", 0);
	jw_s(w, "het_job_id_set", NULL);
	jw_int(w, "het_job_offset", 0);
	jw_s(w, "partition", j->partition);
	jw_s(w, "prefer", NULL);
	if (j->mem_per_node)
		jw_int(w, "memory_per_node", (long long)j->mem_per_node);
	else
		jw_null(w, "memory_per_node");
	if (!j->mem_per_node && j->mem_per_cpu)
		jw_int(w, "memory_per_cpu", (long long)j->mem_per_cpu);
	else
		jw_null(w, "memory_per_cpu");
	jw_int(w, "minimum_cpus_per_node", j->pn_min_cpus);
	jw_int(w, "minimum_tmp_disk_per_node", (long long)j->min_tmp_disk);
	jw_int(w, "preempt_time", 0);
	jw_int(w, "pre_sus_time", j->pre_sus_time);
	jw_int(w, "priority", j->priority);
	jw_null(w, "profile");
	jw_s(w, "qos", j->qos);
	jw_bool(w, "reboot", 0);
	jw_s(w, "required_nodes", j->req_nodes);
	jw_bool(w, "requeue", (int)j->requeue);
	jw_int(w, "resize_time", 0);
	jw_int(w, "restart_cnt", j->restarts);
	jw_s(w, "resv_name", NULL);
	if (j->flags & JOB_F_EXCLUSIVE)
		jw_str(w, "shared", "none");
	else if (j->flags & JOB_F_EXCLUSIVE_USER)
		jw_str(w, "shared", "user");
	else if (j->flags & JOB_F_OVERSUBSCRIBE)
		jw_str(w, "shared", "oversubscribe");
	else
		jw_null(w, "shared");
	jw_open(w, "show_flags", '[');
	jw_str(w, NULL, "SHOW_ALL");
	jw_str(w, NULL, "SHOW_DETAIL");
	jw_str(w, NULL, "SHOW_LOCAL");
	jw_close(w, ']');
	jw_int(w, "sockets_per_board", 0);
	jw_null(w, "sockets_per_node");
	jw_int(w, "start_time", j->start_time);
	jw_s(w, "state_description", j->state_desc);
	jw_s(w, "state_reason", job_reason_string(j->state_reason));
	/* The paths as asked: the controller fills stdout's default
	 * (WorkDir/slurm-N.out) and stderr from stdout, Slurm shows "". */
	const char *out = j->std_out;
	if (out && j->work_dir) {
		snprintf(buf, sizeof(buf), "/slurm-%u.out", j->job_id);
		size_t wl = strlen(j->work_dir);
		if (!strncmp(out, j->work_dir, wl) && !strcmp(out + wl, buf))
			out = NULL;
	}
	const char *errp = j->std_err && j->std_out && !strcmp(j->std_err, j->std_out) ?
			   NULL : j->std_err;
	jw_s(w, "standard_error", errp);
	jw_s(w, "standard_input", j->std_in);
	jw_s(w, "standard_output", out);
	jw_int(w, "submit_time", j->submit_time);
	jw_int(w, "suspend_time", j->suspend_time);
	jw_s(w, "system_comment", NULL);
	if (limited)
		jw_int(w, "time_limit", j->time_limit);
	else
		jw_null(w, "time_limit");
	jw_int(w, "time_minimum", 0);
	jw_null(w, "threads_per_core");
	jw_s(w, "tres_bind", NULL);
	jw_s(w, "tres_freq", NULL);
	jw_s(w, "tres_per_job", j->tres_per_job);
	jw_s(w, "tres_per_node", j->tres_per_node);
	jw_s(w, "tres_per_socket", NULL);
	jw_s(w, "tres_per_task", j->tres_per_task);
	jw_s(w, "tres_req_str", j->tres_req);
	jw_s(w, "tres_alloc_str", started ? (j->tres_alloc ? j->tres_alloc : j->tres_req) : NULL);
	jw_int(w, "user_id", j->user_id);
	jw_s(w, "user_name", j->user_name ? j->user_name : cmd_user_name(j->user_id));
	jw_s(w, "wckey", NULL);
	jw_s(w, "current_working_directory", j->work_dir);
	jw_close(w, '}');
}

void print_jobs_json(strbuf_t *sb, const job_info_t *const *jobs, size_t n,
		     const msg_node_info_t *nodes)
{
	struct jw w = { .sb = sb, .depth = 1 };
	w.first[1] = 1;
	strbuf_addch(sb, '{');
	jw_open(&w, "meta", '{');
	jw_open(&w, "plugin", '{');
	jw_str(&w, "type", "openapi/v0.0.38");
	jw_str(&w, "name", "Slurm OpenAPI v0.0.38");
	jw_close(&w, '}');
	jw_open(&w, "Slurm", '{');
	jw_open(&w, "version", '{');
	jw_int(&w, "major", 22);
	jw_int(&w, "micro", 8);
	jw_int(&w, "minor", 5);
	jw_close(&w, '}');
	jw_str(&w, "release", SLURM_COMPAT_VERSION);
	jw_close(&w, '}');
	jw_close(&w, '}');
	jw_open(&w, "errors", '[');
	jw_close(&w, ']');
	struct node_index ix;
	node_index_build(&ix, nodes);
	jw_open(&w, "jobs", '[');
	for (size_t i = 0; i < n; i++)
		one_job(&w, jobs[i], &ix);
	jw_close(&w, ']');
	free(ix.v);
	strbuf_addstr(sb, "\n}");
}
