/*
 * print_step: running job steps as squeue -s and scontrol show step print
 * them (pure: records and a clock in, text out; see print.h). The field
 * letters and -O names are those Slurm 22.05's squeue takes for steps, with
 * their headers as it prints them (some differ from the jobs' ones:
 * tres-per-node is headed TRES_PER_JOB there, and Nodes is the step's
 * NODELIST), captured from Slurm 22.05.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/print.h"
#include "jobid.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

/* -O codes: past the letters' range */
enum {
	SF_ARRAY_JOB = 256, SF_ARRAY_TASK, SF_CLUSTER, SF_CPU_FREQ, SF_CPUS_PER_TRES,
	SF_MEM_PER_TRES, SF_NETWORK, SF_NODES, SF_NUM_CPUS, SF_NUM_TASKS, SF_PARTITION,
	SF_RESV_PORTS, SF_START, SF_STEP_ID, SF_NAME, SF_STATE, SF_LIMIT, SF_USED,
	SF_TRES_BIND, SF_TRES_FREQ, SF_TRES_PER_NODE, SF_TRES_PER_SOCKET, SF_TRES_PER_STEP,
	SF_TRES_PER_TASK, SF_UID, SF_USER, SF_JOB_ID,
};

static const struct {
	const char *name;
	int code;
	const char *header;
} long_fields[] = {
	{ "ArrayJobID", SF_ARRAY_JOB, "ARRAY_JOB_ID" },
	{ "ArrayTaskID", SF_ARRAY_TASK, "ARRAY_TASK_ID" },
	{ "Cluster", SF_CLUSTER, "CLUSTER" },
	{ "CPUFreq", SF_CPU_FREQ, "CPU_FREQ" },
	{ "cpus-per-tres", SF_CPUS_PER_TRES, "CPUS_PER_TRES" },
	{ "JobID", SF_JOB_ID, "JOB_ID" },
	{ "mem-per-tres", SF_MEM_PER_TRES, "MEM_PER_TRES" },
	{ "Network", SF_NETWORK, "NETWORK" },
	{ "Nodes", SF_NODES, "NODELIST" },
	{ "NumCPUs", SF_NUM_CPUS, "NUM_CPUS" },
	{ "NumTasks", SF_NUM_TASKS, "TASKS" },
	{ "Partition", SF_PARTITION, "PARTITION" },
	{ "ResvPorts", SF_RESV_PORTS, "RESERVED_PORTS" },
	{ "StartTime", SF_START, "START_TIME" },
	{ "StepID", SF_STEP_ID, "STEPID" },
	{ "StepName", SF_NAME, "NAME" },
	{ "StepState", SF_STATE, "STATE" },
	{ "TimeLimit", SF_LIMIT, "TIME_LIMIT" },
	{ "TimeUsed", SF_USED, "TIME" },
	{ "tres-bind", SF_TRES_BIND, "TRES_BIND" },
	{ "tres-freq", SF_TRES_FREQ, "TRES_FREQ" },
	{ "tres-per-job", SF_TRES_PER_STEP, "TRES_PER_STEP" },
	{ "tres-per-node", SF_TRES_PER_NODE, "TRES_PER_JOB" },
	{ "tres-per-socket", SF_TRES_PER_SOCKET, "TRES_PER_SOCKET" },
	{ "tres-per-step", SF_TRES_PER_STEP, "TRES_PER_STEP" },
	{ "tres-per-task", SF_TRES_PER_TASK, "TRES_PER_TASK" },
	{ "UserID", SF_UID, "UID" },
	{ "UserName", SF_USER, "USER" },
};
#define NLONG (sizeof(long_fields) / sizeof(long_fields[0]))

int step_fmt_valid(int c)
{
	return c && strchr("bijluAMNPSU", c) != NULL;
}

int step_fmt_lookup(const char *name)
{
	for (size_t i = 0; i < NLONG; i++)
		if (!strcasecmp(name, long_fields[i].name))
			return long_fields[i].code;
	return -1;
}

static const char *header_of(int code)
{
	switch (code) {
	case 'b': return "TRES_PER_JOB";
	case 'i': return "STEPID";
	case 'j': return "NAME";
	case 'l': return "TIME_LIMIT";
	case 'u': return "USER";
	case 'A': return "TASKS";
	case 'M': return "TIME";
	case 'N': return "NODELIST";
	case 'P': return "PARTITION";
	case 'S': return "START_TIME";
	case 'U': return "UID";
	default:
		for (size_t i = 0; i < NLONG; i++)
			if (long_fields[i].code == code)
				return long_fields[i].header;
		return "";
	}
}

void step_id_fmt(char *buf, size_t len, const step_info_t *s, int array_form)
{
	char step[16];
	if (s->step_id == STEP_BATCH)
		snprintf(step, sizeof(step), "batch");
	else if (s->step_id == STEP_EXTERN)
		snprintf(step, sizeof(step), "extern");
	else
		snprintf(step, sizeof(step), "%u", s->step_id);
	if (array_form && s->array_job_id && s->array_task_id != NO_VAL32)
		snprintf(buf, len, "%u_%u.%s", s->array_job_id, s->array_task_id, step);
	else
		snprintf(buf, len, "%u.%s", s->job_id, step);
}

int step_id_parse(const char *s, uint32_t *job_id, uint32_t *step_id)
{
	char *end;
	if (!s || *s < '0' || *s > '9')
		return -1;
	unsigned long j = strtoul(s, &end, 10);
	if (end == s || !j || j >= NO_VAL32)
		return -1;
	*job_id = (uint32_t)j;
	if (!*end) {
		*step_id = NO_VAL32;
		return 0;
	}
	if (*end != '.' || !end[1])
		return -1;
	const char *p = end + 1;
	if (!strcasecmp(p, "batch")) {
		*step_id = STEP_BATCH;
		return 0;
	}
	if (!strcasecmp(p, "extern")) {
		*step_id = STEP_EXTERN;
		return 0;
	}
	if (*p < '0' || *p > '9')
		return -1;
	unsigned long st = strtoul(p, &end, 10);
	if (*end || st >= STEP_BATCH)
		return -1;
	*step_id = (uint32_t)st;
	return 0;
}

long step_time_used(const step_info_t *s, time_t now)
{
	return s->start_time && now > s->start_time ? (long)(now - s->start_time) : 0;
}

static void limit_squeue(char *buf, size_t len, uint32_t mins)
{
	if (mins == TIME_INFINITE || mins == TIME_NO_VAL || !mins)
		snprintf(buf, len, "UNLIMITED");
	else
		secs_fmt_squeue((long)mins * 60, buf, len);
}

/* Padded to width like fmt_add but never cut (Slurm's time columns). */
static void add_uncut(strbuf_t *sb, const char *s, int width, int right)
{
	int n = (int)strlen(s);
	if (right)
		for (int i = n; i < width; i++)
			strbuf_addch(sb, ' ');
	strbuf_addstr(sb, s);
	if (!right)
		for (int i = n; i < width; i++)
			strbuf_addch(sb, ' ');
}

void print_step_header(strbuf_t *sb, const fmt_t *f)
{
	if (f->prefix)
		strbuf_addstr(sb, f->prefix);
	for (size_t i = 0; i < f->n; i++) {
		const fmt_field_t *x = &f->f[i];
		if (x->code >= 0)
			fmt_add(sb, header_of(x->code), x->width, x->right);
		if (x->suffix)
			strbuf_addstr(sb, x->suffix);
	}
	strbuf_addch(sb, '\n');
}

void print_step_row(strbuf_t *sb, const fmt_t *f, const step_info_t *s, time_t now)
{
	char buf[128];
	if (f->prefix)
		strbuf_addstr(sb, f->prefix);
	for (size_t i = 0; i < f->n; i++) {
		const fmt_field_t *x = &f->f[i];
		int w = x->width, r = x->right;
		switch (x->code) {
		case -1: break;
		case 'i': case SF_STEP_ID:
			step_id_fmt(buf, sizeof(buf), s, 1);
			fmt_add(sb, buf, w, r);
			break;
		case 'j': case SF_NAME: fmt_add(sb, s->name ? s->name : "", w, r); break;
		case 'l': case SF_LIMIT:
			limit_squeue(buf, sizeof(buf), s->time_limit);
			fmt_add(sb, buf, w, r);
			break;
		case 'u': case SF_USER: fmt_add(sb, s->user_name ? s->user_name : "", w, r); break;
		case 'A': case SF_NUM_TASKS: fmt_add_u(sb, s->num_tasks, w, r); break;
		case 'M': case SF_USED:
			secs_fmt_squeue(step_time_used(s, now), buf, sizeof(buf));
			add_uncut(sb, buf, w, r);
			break;
		case 'N': case SF_NODES: fmt_add(sb, s->nodes ? s->nodes : "", w, r); break;
		case 'P': case SF_PARTITION:
			fmt_add(sb, s->partition ? s->partition : "", w, r);
			break;
		case 'S': case SF_START:
			if (s->start_time)
				time_fmt_iso((time_t)s->start_time, buf, sizeof(buf));
			else
				snprintf(buf, sizeof(buf), "N/A");
			fmt_add(sb, buf, w, r);
			break;
		case 'U': case SF_UID: fmt_add_u(sb, s->user_id, w, r); break;
		case SF_ARRAY_JOB: fmt_add_u(sb, s->array_job_id, w, r); break;
		case SF_ARRAY_TASK:
			if (s->array_job_id && s->array_task_id != NO_VAL32)
				fmt_add_u(sb, s->array_task_id, w, r);
			else
				fmt_add(sb, "N/A", w, r);
			break;
		case SF_CLUSTER: fmt_add(sb, print_job_cluster(), w, r); break;
		case SF_CPU_FREQ: fmt_add(sb, "Unknown-Unknown:Unknown", w, r); break;
		case SF_NUM_CPUS: fmt_add_u(sb, s->num_cpus, w, r); break;
		case SF_STATE: fmt_add(sb, job_state_string(s->state), w, r); break;
		case SF_JOB_ID: fmt_add_u(sb, s->job_id, w, r); break;
		default:   /* b, network, ports and the TRES requests: not kept */
			fmt_add(sb, "(null)", w, r);
			break;
		}
		if (x->suffix)
			strbuf_addstr(sb, x->suffix);
	}
	strbuf_addch(sb, '\n');
}

void print_step_scontrol(strbuf_t *sb, const step_info_t *s, int one_liner)
{
	char id[64], start[32], limit[32];
	const char *sep = one_liner ? " " : "\n   ";
	step_id_fmt(id, sizeof(id), s, 1);
	if (s->start_time)
		time_fmt_iso((time_t)s->start_time, start, sizeof(start));
	else
		snprintf(start, sizeof(start), "Unknown");
	if (s->time_limit == TIME_INFINITE || s->time_limit == TIME_NO_VAL || !s->time_limit)
		snprintf(limit, sizeof(limit), "UNLIMITED");
	else
		secs_fmt_hms((long)s->time_limit * 60, limit, sizeof(limit));
	strbuf_addf(sb, "StepId=%s UserId=%u StartTime=%s TimeLimit=%s", id, s->user_id, start,
		    limit);
	strbuf_addf(sb, "%sState=%s Partition=%s NodeList=%s", sep, job_state_string(s->state),
		    s->partition ? s->partition : "(null)", s->nodes ? s->nodes : "(null)");
	strbuf_addf(sb, "%sNodes=%u CPUs=%u Tasks=%u Name=%s Network=(null)", sep, s->num_nodes,
		    s->num_cpus, s->num_tasks, s->name ? s->name : "(null)");
	strbuf_addf(sb, "%sTRES=%s", sep, s->tres_alloc && *s->tres_alloc ? s->tres_alloc : "(null)");
	strbuf_addf(sb, "%sResvPorts=(null)", sep);
	strbuf_addf(sb, "%sCPUFreqReq=Default", sep);
	if (s->dist == STEP_DIST_BLOCK)
		strbuf_addstr(sb, " Dist=Block");
	else if (s->dist == STEP_DIST_CYCLIC)
		strbuf_addstr(sb, " Dist=Cyclic");
	strbuf_addf(sb, "%sSrunHost:Pid=%s:%u", sep, s->srun_host ? s->srun_host : "(null)",
		    s->srun_pid);
	strbuf_addstr(sb, one_liner ? "\n" : "\n\n");
}

/* Default order (Slurm's "P,i" for steps) and -S keys: i (step id), P, u,
 * U, j, S, M, l, N, A; '-' reverses. Unknown keys are ignored. */
static const char *sort_keys;

static int step_cmp_key(const step_info_t *a, const step_info_t *b, char k)
{
#define CMP(x, y) ((x) < (y) ? -1 : (x) > (y) ? 1 : 0)
	switch (k) {
	case 'i':
		if (a->job_id != b->job_id)
			return CMP(a->job_id, b->job_id);
		return CMP(a->step_id, b->step_id);
	case 'P': return strcmp(a->partition ? a->partition : "", b->partition ? b->partition : "");
	case 'u': return strcmp(a->user_name ? a->user_name : "", b->user_name ? b->user_name : "");
	case 'U': return CMP(a->user_id, b->user_id);
	case 'j': return strcmp(a->name ? a->name : "", b->name ? b->name : "");
	case 'S': return CMP(a->start_time, b->start_time);
	case 'M': return CMP(b->start_time, a->start_time);
	case 'l': return CMP(a->time_limit, b->time_limit);
	case 'N': return strcmp(a->nodes ? a->nodes : "", b->nodes ? b->nodes : "");
	case 'A': return CMP(a->num_tasks, b->num_tasks);
	default: return 0;
	}
#undef CMP
}

static int step_cmp(const void *pa, const void *pb)
{
	const step_info_t *a = *(const step_info_t *const *)pa, *b = *(const step_info_t *const *)pb;
	int neg = 0;
	for (const char *p = sort_keys; *p; p++) {
		if (*p == ',' || *p == '+')
			continue;
		if (*p == '-') {
			neg = 1;
			continue;
		}
		int c = step_cmp_key(a, b, *p);
		if (c)
			return neg ? -c : c;
		neg = 0;
	}
	/* stable: the controller's order */
	return a < b ? -1 : a > b;
}

void steps_sort(const step_info_t **v, size_t n, const char *keys)
{
	sort_keys = keys && *keys ? keys : "P,i";
	qsort(v, n, sizeof(*v), step_cmp);
}

/* scontrol listpids: Slurm's table, "-" for a process that is no task. */
void print_listpids_header(strbuf_t *sb)
{
	strbuf_addstr(sb, "PID      JOBID    STEPID   LOCALID GLOBALID\n");
}

void print_listpids_row(strbuf_t *sb, const list_pid_t *p)
{
	char job[16], step[16], local[16], global[16];
	snprintf(job, sizeof(job), "%u", p->job_id);
	step_info_t s = { .step_id = p->step_id };
	char id[48];
	step_id_fmt(id, sizeof(id), &s, 0);
	snprintf(step, sizeof(step), "%s", strchr(id, '.') + 1);
	if (p->local_id == NO_VAL32)
		snprintf(local, sizeof(local), "-");
	else
		snprintf(local, sizeof(local), "%u", p->local_id);
	if (p->global_id == NO_VAL32)
		snprintf(global, sizeof(global), "-");
	else
		snprintf(global, sizeof(global), "%u", p->global_id);
	strbuf_addf(sb, "%-8u %-8s %-8s %-7s %-8s\n", p->pid, job, step, local, global);
}
