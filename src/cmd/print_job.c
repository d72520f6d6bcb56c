/*
 * print_job: jobs as squeue (-o letters, -O names) and `scontrol show job`
 * print them, byte for byte as Slurm 22.05. Pure functions over job_info_t;
 * the clock comes in as `now`.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/print.h"
#include "hostlist.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

/* One table of job fields: -o letter, -O name, header. Codes above 255 are
 * -O only fields. */
enum {
	JF_STDERR = 256, JF_STDIN, JF_STDOUT, JF_TRES_ALLOC, JF_TRES_PER_JOB,
	JF_ELIGIBLE, JF_ACCRUE, JF_LAST_SCHED, JF_EXIT_CODE, JF_BATCH_FLAG,
	JF_REQUEUE, JF_RESTARTS, JF_CPUS_PER_TASK, JF_NTASKS, JF_MIN_TIME,
	JF_PENDING_TIME, JF_ALLOC_NODES, JF_ALLOC_SID, JF_CLUSTER, JF_PRIO_LONG,
	/* -O only fields Slurm 22.05 prints from data Sluice does not keep
	 * (burst buffers, federation, het jobs, ...): constant as Slurm's
	 * text for "none" (the field's `none` in the table below). */
	JF_CONST, JF_CONST_LAST = JF_CONST + 64,
	JF_ASSOC_ID, JF_CPUS_PER_TRES, JF_DERIVED_EC, JF_MAX_CPUS, JF_MAX_NODES,
	JF_MEM_PER_TRES, JF_NT_PER_NODE, JF_TRES_PER_TASK, JF_DEADLINE,
};

struct jfield {
	int code;
	const char *name;     /* -O name (NULL: -o only) */
	const char *header;
	const char *none;     /* JF_CONST fields: the text printed */
};

static const struct jfield jfields[] = {
	{ 'a', "Account", "ACCOUNT" },
	{ 'A', "JobID", "JOBID" },
	{ 'b', "tres-per-node", "TRES_PER_NODE" },
	{ 'B', "BatchHost", "EXEC_HOST" },
	{ 'c', "MinCpus", "MIN_CPUS" },
	{ 'C', "NumCPUs", "CPUS" },
	{ 'd', "MinTmpDisk", "MIN_TMP_DISK" },
	{ 'D', "NumNodes", "NODES" },
	{ 'e', "EndTime", "END_TIME" },
	{ 'E', "Dependency", "DEPENDENCY" },
	{ 'f', "Feature", "FEATURES" },
	{ 'F', "ArrayJobID", "ARRAY_JOB_ID" },
	{ 'g', "GroupName", "GROUP" },
	{ 'G', "GroupID", "GROUP" },
	{ 'h', "OverSubscribe", "OVER_SUBSCRIBE" },
	{ 'H', "Sockets", "SOCKETS_PER_NODE" },
	{ 'i', "JobArrayID", "JOBID" },
	{ 'I', "Cores", "CORES_PER_SOCKET" },
	{ 'j', "Name", "NAME" },
	{ 'J', "Threads", "THREADS_PER_CORE" },
	{ 'k', "Comment", "COMMENT" },
	{ 'K', "ArrayTaskID", "ARRAY_TASK_ID" },
	{ 'l', "TimeLimit", "TIME_LIMIT" },
	{ 'L', "TimeLeft", "TIME_LEFT" },
	{ 'm', "MinMemory", "MIN_MEMORY" },
	{ 'M', "TimeUsed", "TIME" },
	{ 'n', "ReqNodes", "REQ_NODES" },
	{ 'N', "NodeList", "NODELIST" },
	{ 'o', "Command", "COMMAND" },
	{ 'O', "Contiguous", "CONTIGUOUS" },
	{ 'p', "Priority", "PRIORITY" },
	{ 'P', "Partition", "PARTITION" },
	{ 'q', "QOS", "QOS" },
	{ 'Q', "PriorityLong", "PRIORITY" },
	{ 'r', "Reason", "REASON" },
	{ 'R', "ReasonList", "NODELIST(REASON)" },
	{ 's', "SelectJobInfo", "" },   /* Slurm 22.05: no header, no value */
	{ 'S', "StartTime", "START_TIME" },
	{ 't', "StateCompact", "ST" },
	{ 'T', "State", "STATE" },
	{ 'u', "UserName", "USER" },
	{ 'U', "UserID", "UID" },
	{ 'v', "Reservation", "RESERVATION" },
	{ 'V', "SubmitTime", "SUBMIT_TIME" },
	{ 'w', "WCKey", "WCKEY" },
	{ 'W', "Licenses", "LICENSES" },
	{ 'x', "ExcNodes", "EXC_NODES" },
	{ 'X', "CoreSpec", "CORE_SPEC" },
	{ 'y', "Nice", "NICE" },
	{ 'Y', "SchedNodes", "SCHEDNODES" },
	{ 'z', "SCT", "S:C:T" },
	{ 'Z', "WorkDir", "WORK_DIR" },
	{ JF_STDERR, "STDERR", "STDERR" },
	{ JF_STDIN, "STDIN", "STDIN" },
	{ JF_STDOUT, "STDOUT", "STDOUT" },
	{ JF_TRES_ALLOC, "tres-alloc", "TRES_ALLOC" },
	{ JF_TRES_PER_JOB, "tres-per-job", "TRES_PER_JOB" },
	{ JF_ELIGIBLE, "EligibleTime", "ELIGIBLE_TIME" },
	{ JF_ACCRUE, "AccrueTime", "ACCRUE_TIME" },
	{ JF_LAST_SCHED, "LastSchedEval", "LAST_SCHED_EVAL" },
	{ JF_EXIT_CODE, "exit_code", "EXIT_CODE" },
	{ JF_BATCH_FLAG, "BatchFlag", "BATCH_FLAG" },
	{ JF_REQUEUE, "Requeue", "REQUEUE" },
	{ JF_RESTARTS, "RestartCnt", "RESTARTCNT" },
	{ JF_CPUS_PER_TASK, "cpus-per-task", "CPUS_PER_TASK" },
	{ JF_NTASKS, "NumTasks", "TASKS" },
	{ JF_MIN_TIME, "MinTime", "TIME_MIN" },
	{ JF_PENDING_TIME, "PendingTime", "PENDING_TIME" },
	{ JF_ALLOC_NODES, "AllocNodes", "ALLOC_NODES" },
	{ JF_ALLOC_SID, "AllocSID", "ALLOC_SID" },
	{ JF_CLUSTER, "Cluster", "CLUSTER" },
	{ JF_ASSOC_ID, "AssocID", "ASSOC_ID" },
	{ JF_CPUS_PER_TRES, "cpus-per-tres", "CPUS_PER_TRES" },
	{ JF_DERIVED_EC, "DerivedEC", "DERIVED_EC" },
	{ JF_MAX_CPUS, "MaxCPUs", "MAX_CPUS" },
	{ JF_MAX_NODES, "MaxNodes", "MAX_NODES" },
	{ JF_MEM_PER_TRES, "mem-per-tres", "MEM_PER_TRES" },
	{ JF_NT_PER_NODE, "NTPerNode", "NTASKS_PER_NODE" },
	{ JF_TRES_PER_TASK, "tres-per-task", "TRES_PER_TASK" },
	{ JF_CONST + 0, "admin_comment", "ADMIN_COMMENT", "(null)" },
	{ JF_CONST + 1, "BoardsPerNode", "BOARDS_PER_NODE", "0" },
	{ JF_CONST + 2, "BurstBuffer", "BURST_BUFFER", "(null)" },
	{ JF_CONST + 3, "BurstBufferState", "BURST_BUFFER_STATE", "(null)" },
	{ JF_CONST + 4, "ClusterFeature", "CLUSTER_FEATURES", "(null)" },
	{ JF_CONST + 5, "Container", "CONTAINER", "(null)" },
	{ JF_DEADLINE, "Deadline", "DEADLINE" },
	{ JF_CONST + 7, "DelayBoot", "DELAY_BOOT", "0:00" },
	{ JF_CONST + 8, "HetJobID", "HET_JOB_ID", "N/A" },
	{ JF_CONST + 9, "HetJobIDSet", "HET_JOB_ID_SET", "N/A" },
	{ JF_CONST + 10, "HetJobOffset", "HET_JOB_OFFSET", "N/A" },
	{ JF_CONST + 11, "MCSLabel", "MCSLABEL", "(null)" },
	{ JF_CONST + 12, "Network", "NETWORK", "(null)" },
	{ JF_CONST + 13, "NTPerBoard", "NTASKS_PER_BOARD", "0" },
	{ JF_CONST + 14, "NTPerCore", "NTASKS_PER_CORE", "N/A" },
	{ JF_CONST + 15, "NTPerSocket", "NTASKS_PER_SOCKET", "N/A" },
	{ JF_CONST + 16, "Origin", "ORIGIN", "NA" },
	{ JF_CONST + 17, "OriginRaw", "ORIGIN_RAW", "NA" },
	{ JF_CONST + 18, "PreemptTime", "PREEMPT_TIME", "N/A" },
	{ JF_CONST + 19, "Prefer", "PREFER", "(null)" },
	{ JF_CONST + 20, "Profile", "PROFILE", "NotSet" },
	{ JF_CONST + 21, "Reboot", "REBOOT", "0" },
	{ JF_CONST + 22, "ReqSwitch", "REQ_SWITCH", "0" },
	{ JF_CONST + 23, "ResizeTime", "RESIZE_TIME", "N/A" },
	{ JF_CONST + 24, "SiblingsActive", "ACTIVE_SIBLINGS", "NA" },
	{ JF_CONST + 25, "SiblingsActiveRaw", "ACTIVE_SIBLINGS_RAW", "NA" },
	{ JF_CONST + 26, "SiblingsViable", "VIABLE_SIBLINGS", "NA" },
	/* sic: Slurm 22.05 spells this header so */
	{ JF_CONST + 27, "SiblingsViableRaw", "VIALBLE_SIBLINGS_RAW", "NA" },
	{ JF_CONST + 28, "SPerBoard", "SOCKETS_PER_BOARD", "0" },
	{ JF_CONST + 29, "system_comment", "SYSTEM_COMMENT", "(null)" },
	{ JF_CONST + 30, "tres-bind", "TRES_BIND", "N/A" },
	{ JF_CONST + 31, "tres-freq", "TRES_FREQ", "N/A" },
	{ JF_CONST + 32, "tres-per-socket", "TRES_PER_SOCKET", "N/A" },
	{ JF_CONST + 33, "Wait4Switch", "WAIT4SWITCH", "0:00" },
	{ 'i', "JobArrayID", "JOBID" },
	{ 'N', "Nodes", "NODES" },
	{ 'T', "StateLong", "STATE" },
	{ 'h', "Shared", "OVER_SUBSCRIBE" },
};

static const char *cluster_name;

void print_job_set_cluster(const char *name)
{
	cluster_name = name;
}

const char *print_job_cluster(void)
{
	return cluster_name ? cluster_name : "";
}

static const struct jfield *jfield_find(int code)
{
	for (size_t i = 0; i < ARRAY_SIZE(jfields); i++)
		if (jfields[i].code == code)
			return &jfields[i];
	return NULL;
}

int job_fmt_valid(int c)
{
	return c < 256 && jfield_find(c) != NULL;
}

int job_fmt_lookup(const char *name)
{
	/* -O JobID is the plain job id (%A); JobArrayID is %i. */
	for (size_t i = 0; i < ARRAY_SIZE(jfields); i++)
		if (!strcasecmp(jfields[i].name, name))
			return jfields[i].code;
	return -1;
}

static const char *nz(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

/* The dependency as Slurm 22.05 shows it ("afterok:18(unfulfilled),
 * singleton(failed)"): the controller formats it (it knows each element's
 * state); NULL when none is left. A copy: the caller frees. */
char *job_dep_fmt(const job_info_t *j)
{
	return j->dependency && *j->dependency ? xstrdup(j->dependency) : NULL;
}

static void add_time(strbuf_t *sb, int64_t t, const char *none, int width, int right)
{
	char buf[64];
	if (!t) {
		fmt_add(sb, none, width, right);
		return;
	}
	time_fmt_iso((time_t)t, buf, sizeof(buf));
	fmt_add(sb, buf, width, right);
}

long job_time_used(const job_info_t *j, time_t now)
{
	uint32_t base = j->state & JOB_STATE_BASE;
	if (!j->start_time || base == JOB_PENDING)
		return 0;
	int64_t end;
	if (base == JOB_SUSPENDED)
		end = j->suspend_time ? j->suspend_time : now;
	else if (JOB_IS_FINISHED(j->state) || (j->state & JOB_COMPLETING))
		end = j->end_time ? j->end_time : now;
	else
		end = now;
	/* after a resume: the run since it plus the run before the suspend */
	int64_t from = j->suspend_time ? j->suspend_time : j->start_time;
	long used = (long)(end - from) + (long)j->pre_sus_time;
	if (base == JOB_SUSPENDED)
		used = (long)j->pre_sus_time;
	return used < 0 ? 0 : used;
}

/* Append s to a fixed buffer (len/alloc of t), truncating; keeps a NUL. */
static void cat_bounded(strbuf_t *t, const char *s)
{
	size_t n = strlen(s);
	if (t->len + n + 1 > t->alloc)
		n = t->alloc - t->len - 1;
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
}

static char *put2(char *p, long v)
{
	*p++ = (char)('0' + v / 10 % 10);
	*p++ = (char)('0' + v % 10);
	return p;
}

static char *putl(char *p, long v)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* secs_fmt_squeue() without printf, for the TIME column of every row:
 * "M:SS", "H:MM:SS", "D-HH:MM:SS". buf holds at least 32 bytes. */
static void fast_squeue_time(long secs, char *buf)
{
	if (secs < 0) {
		secs_fmt_squeue(secs, buf, 32);
		return;
	}
	long d = secs / 86400, h = secs / 3600 % 24, m = secs / 60 % 60, s = secs % 60;
	char *p = buf;
	if (d) {
		p = putl(p, d);
		*p++ = '-';
		p = put2(p, h);
		*p++ = ':';
		p = put2(p, m);
	} else if (h) {
		p = putl(p, h);
		*p++ = ':';
		p = put2(p, m);
	} else {
		p = putl(p, m);
	}
	*p++ = ':';
	p = put2(p, s);
	*p = '\0';
}

/* A job's -o/-e/-i path as scontrol shows it: %j %u %x %A %a replaced
 * (with a width as "%5j"), as Slurm; the node and task forms (%N %n %t
 * %s) and %% are left as typed, as Slurm leaves them. */
static void std_path(strbuf_t *sb, const job_info_t *j, const char *pat)
{
	if (!pat) {
		strbuf_addstr(sb, "(null)");
		return;
	}
	if (strchr(pat, '\\')) {    /* a backslash turns replacement off */
		strbuf_addstr(sb, pat);
		return;
	}
	for (const char *p = pat; *p; p++) {
		const char *q = p + 1;
		int width = 0;
		if (*p == '%')
			while (*q >= '0' && *q <= '9')
				width = width * 10 + (*q++ - '0');
		if (*p != '%' || !*q || !strchr("juxAa", *q)) {
			strbuf_addch(sb, *p);
			continue;
		}
		if (width > 10)
			width = 10;
		switch (*q) {
		case 'j': strbuf_addf(sb, "%0*u", width, j->job_id); break;
		case 'A': strbuf_addf(sb, "%0*u", width, j->array_job_id ? j->array_job_id : j->job_id); break;
		case 'a': strbuf_addf(sb, "%0*u", width, j->array_job_id ? j->array_task_id : NO_VAL32); break;
		case 'u': strbuf_addstr(sb, j->user_name ? j->user_name : cmd_user_name(j->user_id)); break;
		case 'x': strbuf_addstr(sb, nz(j->name, "")); break;
		}
		p = q;
	}
}

static void job_id_str(char *buf, size_t len, const job_info_t *j, uint32_t task)
{
	if (j->array_job_id && task != NO_VAL32)
		snprintf(buf, len, "%u_%u", j->array_job_id, task);
	else if (j->array_job_id && j->array_task_str && *j->array_task_str)
		snprintf(buf, len, "%u_[%s]", j->array_job_id, j->array_task_str);
	else if (j->array_job_id && j->array_task_id != NO_VAL32)
		snprintf(buf, len, "%u_%u", j->array_job_id, j->array_task_id);
	else
		snprintf(buf, len, "%u", j->job_id);
}

/* The job's OverSubscribe (squeue %h, scontrol show job), as Slurm's:
 * YES for --oversubscribe (and every job of a FORCE partition), NO for
 * --exclusive, USER for --exclusive=user, OK otherwise. */
static const char *job_oversubscribe_str(const job_info_t *j)
{
	if (j->flags & JOB_F_OVERSUBSCRIBE)
		return "YES";
	if (j->flags & JOB_F_EXCLUSIVE)
		return "NO";
	return (j->flags & JOB_F_EXCLUSIVE_USER) ? "USER" : "OK";
}

/* A held job's description replaces its reason, as Slurm prints it
 * ("launch failed requeued held"); others add their detail to it. */
static int desc_replaces(const job_info_t *j)
{
	return (j->state_reason == WAIT_HELD_USER || j->state_reason == WAIT_HELD) &&
	       j->state_desc && *j->state_desc;
}

static void reason_text(strbuf_t *sb, const job_info_t *j)
{
	if (desc_replaces(j)) {
		strbuf_addstr(sb, j->state_desc);
		return;
	}
	strbuf_addstr(sb, job_reason_string(j->state_reason));
	if (j->state_desc && *j->state_desc) {
		strbuf_addstr(sb, ", ");
		strbuf_addstr(sb, j->state_desc);
	}
}

void job_reason_list(strbuf_t *sb, const job_info_t *j)
{
	uint32_t base = j->state & JOB_STATE_BASE;
	if (base == JOB_PENDING || (base != JOB_RUNNING && !(j->state & JOB_COMPLETING) &&
				    !(j->nodes && *j->nodes) && j->state_reason)) {
		strbuf_addch(sb, '(');
		reason_text(sb, j);
		strbuf_addch(sb, ')');
	} else {
		strbuf_addstr(sb, nz(j->nodes, ""));
	}
}

/* A time as Slurm's squeue prints TIME, TIME_LIMIT and TIME_LEFT
 * (_print_secs without cutting): right-justified it is never cut, so
 * "%.9l" shows 1-00:00:00 whole, a column wider; left-justified it is cut
 * to the width as any field. */
static void add_secs_str(strbuf_t *sb, const char *s, int w, int r)
{
	if (r && w > 0 && strlen(s) > (size_t)w)
		strbuf_addstr(sb, s);
	else
		fmt_add(sb, s, w, r);
}

static void limit_str(char *buf, size_t len, uint32_t mins)
{
	if (mins == TIME_INFINITE)
		snprintf(buf, len, "UNLIMITED");
	else if (mins == TIME_NO_VAL)
		snprintf(buf, len, "NOT_SET");
	else
		secs_fmt_squeue((long)mins * 60, buf, len);
}

static void min_memory(char *buf, size_t len, const job_info_t *j)
{
	if (j->mem_per_node)
		mem_fmt_mb(j->mem_per_node, buf, len);
	else if (j->mem_per_cpu)
		mem_fmt_mb(j->mem_per_cpu, buf, len);
	else
		snprintf(buf, len, "0");
}

void print_job_header(strbuf_t *sb, const fmt_t *f)
{
	if (f->prefix)
		strbuf_addstr(sb, f->prefix);
	for (size_t i = 0; i < f->n; i++) {
		const fmt_field_t *ff = &f->f[i];
		const struct jfield *jf = ff->code >= 0 ? jfield_find(ff->code) : NULL;
		if (jf)
			fmt_add(sb, jf->header, ff->width, ff->right);
		strbuf_addstr(sb, ff->suffix ? ff->suffix : "");
	}
	strbuf_addch(sb, '\n');
}

static void job_field(strbuf_t *sb, const fmt_field_t *ff, const job_info_t *j,
		      uint32_t task, time_t now)
{
	char buf[256];
	int w = ff->width, r = ff->right;
	uint32_t base = j->state & JOB_STATE_BASE;

	switch (ff->code) {
	case 'a': fmt_add(sb, nz(j->account, "(null)"), w, r); break;
	case 'A': fmt_add_u(sb, j->job_id, w, r); break;
	case 'b': fmt_add(sb, nz(j->tres_per_node, "N/A"), w, r); break;
	case 'B': fmt_add(sb, nz(j->batch_host, "n/a"), w, r); break;
	case 'c': fmt_add_u(sb, j->pn_min_cpus, w, r); break;
	case 'C': fmt_add_u(sb, j->num_cpus, w, r); break;
	case 'd': {
		char t[32];
		mem_fmt_mb(j->min_tmp_disk, t, sizeof(t));
		fmt_add(sb, t, w, r);
		break;
	}
	case 'D': fmt_add_u(sb, j->num_nodes, w, r); break;
	case 'e': add_time(sb, j->end_time, "N/A", w, r); break;
	case 'E': {
		char *dep = job_dep_fmt(j);
		fmt_add(sb, nz(dep, "(null)"), w, r);
		free(dep);
		break;
	}
	case 'f': fmt_add(sb, nz(j->features, "(null)"), w, r); break;
	case 'F': fmt_add_u(sb, j->array_job_id ? j->array_job_id : j->job_id, w, r); break;
	case 'g': fmt_add(sb, j->group_name ? j->group_name : cmd_group_name(j->group_id), w, r); break;
	case 'G': fmt_add_u(sb, j->group_id, w, r); break;
	case 'h': fmt_add(sb, job_oversubscribe_str(j), w, r); break;
	case 'H': case 'I': case 'J': fmt_add(sb, "*", w, r); break;
	case 'X': fmt_add(sb, "N/A", w, r); break;
	case 'i':
		if (!j->array_job_id) {
			fmt_add_u(sb, j->job_id, w, r);
			break;
		}
		job_id_str(buf, sizeof(buf), j, task);
		fmt_add(sb, buf, w, r);
		break;
	case 'j': fmt_add(sb, nz(j->name, ""), w, r); break;
	case 'k': fmt_add(sb, nz(j->comment, "(null)"), w, r); break;
	case 'K':
		if (task != NO_VAL32)
			snprintf(buf, sizeof(buf), "%u", task);
		else if (j->array_job_id && j->array_task_str)
			snprintf(buf, sizeof(buf), "%s", j->array_task_str);
		else if (j->array_job_id && j->array_task_id != NO_VAL32)
			snprintf(buf, sizeof(buf), "%u", j->array_task_id);
		else
			snprintf(buf, sizeof(buf), "N/A");
		fmt_add(sb, buf, w, r);
		break;
	case 'l':
		limit_str(buf, sizeof(buf), j->time_limit);
		if (j->time_limit == TIME_INFINITE || j->time_limit == TIME_NO_VAL)
			fmt_add(sb, buf, w, r);
		else
			add_secs_str(sb, buf, w, r);
		break;
	case 'L':
		if (j->time_limit == TIME_INFINITE || j->time_limit == TIME_NO_VAL) {
			fmt_add(sb, "UNLIMITED", w, r);
		} else {
			long left = (long)j->time_limit * 60 - job_time_used(j, now);
			if (left < 0)
				left = 0;
			secs_fmt_squeue(left, buf, sizeof(buf));
			add_secs_str(sb, buf, w, r);
		}
		break;
	case 'm': min_memory(buf, sizeof(buf), j); fmt_add(sb, buf, w, r); break;
	case 'M': fast_squeue_time(job_time_used(j, now), buf); add_secs_str(sb, buf, w, r); break;
	case 'n': fmt_add(sb, nz(j->req_nodes, ""), w, r); break;
	case 'N': fmt_add(sb, nz(j->nodes, ""), w, r); break;
	case 'o': fmt_add(sb, nz(j->command, "(null)"), w, r); break;
	case 'O': fmt_add_u(sb, j->contiguous, w, r); break;
	case 'p':
		snprintf(buf, sizeof(buf), "%.14f", (double)j->priority / 4294967296.0);
		fmt_add(sb, buf, w, r);
		break;
	case 'P': fmt_add(sb, nz(j->partition, ""), w, r); break;
	case 'q': fmt_add(sb, nz(j->qos, "(null)"), w, r); break;
	case 'Q': fmt_add_u(sb, j->priority, w, r); break;
	case 'r': {
		strbuf_t t = STRBUF_INIT;
		reason_text(&t, j);
		fmt_add(sb, t.buf, w, r);
		strbuf_release(&t);
		break;
	}
	case 'R':
		if (base == JOB_PENDING || (base != JOB_RUNNING && !(j->state & JOB_COMPLETING) &&
					    !(j->nodes && *j->nodes) && j->state_reason)) {
			/* Built by hand: this runs for every pending row. */
			strbuf_t t = { buf, 0, sizeof(buf) };
			cat_bounded(&t, "(");
			cat_bounded(&t, desc_replaces(j) ? "" : job_reason_string(j->state_reason));
			if (desc_replaces(j)) {
				cat_bounded(&t, j->state_desc);
			} else if (j->state_desc && *j->state_desc) {
				cat_bounded(&t, ", ");
				cat_bounded(&t, j->state_desc);
			}
			cat_bounded(&t, ")");
			fmt_add(sb, buf, w, r);
		} else {
			fmt_add(sb, nz(j->nodes, ""), w, r);
		}
		break;
	case 's': fmt_add(sb, "", w, r); break;
	case 'S':
		if (base == JOB_PENDING && j->start_time && j->start_time < now)
			add_time(sb, now, "N/A", w, r);
		else
			add_time(sb, j->start_time, "N/A", w, r);
		break;
	case 't': fmt_add(sb, job_state_string_compact(j->state), w, r); break;
	case 'T': fmt_add(sb, job_state_string(j->state), w, r); break;
	case 'u': fmt_add(sb, j->user_name ? j->user_name : cmd_user_name(j->user_id), w, r); break;
	case 'U': fmt_add_u(sb, j->user_id, w, r); break;
	case 'v': fmt_add(sb, nz(j->reservation, "(null)"), w, r); break;
	case 'V': add_time(sb, j->submit_time, "N/A", w, r); break;
	case 'w': fmt_add(sb, "(null)", w, r); break;
	case 'W': fmt_add(sb, "(null)", w, r); break;
	case 'x': fmt_add(sb, nz(j->exc_nodes, ""), w, r); break;
	case 'y': snprintf(buf, sizeof(buf), "%d", j->nice); fmt_add(sb, buf, w, r); break;
	case 'Y': fmt_add(sb, nz(j->sched_nodes, "(null)"), w, r); break;
	case 'z': fmt_add(sb, "*:*:*", w, r); break;
	case 'Z': fmt_add(sb, nz(j->work_dir, "(null)"), w, r); break;
	case JF_STDERR: fmt_add(sb, nz(j->std_err, ""), w, r); break;
	case JF_STDIN: fmt_add(sb, nz(j->std_in, ""), w, r); break;
	case JF_STDOUT: fmt_add(sb, nz(j->std_out, ""), w, r); break;
	case JF_TRES_ALLOC: fmt_add(sb, nz(j->tres_alloc, nz(j->tres_req, "")), w, r); break;
	case JF_TRES_PER_JOB: fmt_add(sb, nz(j->tres_per_job, "N/A"), w, r); break;
	case JF_ELIGIBLE: add_time(sb, j->eligible_time, "N/A", w, r); break;
	case JF_ACCRUE: add_time(sb, j->accrue_time, "N/A", w, r); break;
	case JF_LAST_SCHED: add_time(sb, j->last_sched_eval, "N/A", w, r); break;
	case JF_EXIT_CODE:   /* Slurm 22.05 prints the raw wait status here */
		fmt_add_u(sb, j->exit_code, w, r);
		break;
	case JF_DERIVED_EC: fmt_add_u(sb, j->derived_exit_code, w, r); break;
	case JF_BATCH_FLAG: fmt_add_u(sb, j->batch_flag, w, r); break;
	case JF_REQUEUE: fmt_add_u(sb, j->requeue, w, r); break;
	case JF_RESTARTS: fmt_add_u(sb, j->restarts, w, r); break;
	case JF_CPUS_PER_TASK: fmt_add_u(sb, j->cpus_per_task ? j->cpus_per_task : 1, w, r); break;
	case JF_NTASKS: fmt_add_u(sb, j->num_tasks, w, r); break;
	case JF_MIN_TIME:
		limit_str(buf, sizeof(buf), j->time_min);
		fmt_add(sb, buf, w, r);
		break;
	case JF_DEADLINE: add_time(sb, j->deadline, "N/A", w, r); break;
	case JF_PENDING_TIME: {
		/* From submission to the start (or now while pending). */
		long pend = 0;
		if (j->submit_time) {
			int64_t until = (base == JOB_PENDING || !j->start_time) ? now : j->start_time;
			pend = (long)(until - j->submit_time);
		}
		fmt_add_u(sb, (uint64_t)(pend > 0 ? pend : 0), w, r);
		break;
	}
	case JF_ALLOC_NODES: fmt_add(sb, nz(j->alloc_node, ""), w, r); break;
	case JF_ALLOC_SID: fmt_add_u(sb, j->alloc_sid, w, r); break;
	case JF_CLUSTER: fmt_add(sb, nz(cluster_name, ""), w, r); break;
	case JF_ASSOC_ID: fmt_add_u(sb, j->assoc_id, w, r); break;
	case JF_CPUS_PER_TRES:
		if (j->cpus_per_gpu) {
			snprintf(buf, sizeof(buf), "gres:gpu:%u", j->cpus_per_gpu);
			fmt_add(sb, buf, w, r);
		} else {
			fmt_add(sb, "N/A", w, r);
		}
		break;
	case JF_MEM_PER_TRES:
		if (j->mem_per_gpu) {
			snprintf(buf, sizeof(buf), "gres:gpu:%" PRIu64, j->mem_per_gpu);
			fmt_add(sb, buf, w, r);
		} else {
			fmt_add(sb, "N/A", w, r);
		}
		break;
	/* A job that did not ask a maximum prints what it has (Slurm). */
	case JF_MAX_CPUS: fmt_add_u(sb, j->num_cpus, w, r); break;
	case JF_MAX_NODES: fmt_add_u(sb, j->max_nodes ? j->max_nodes : j->num_nodes, w, r); break;
	case JF_NT_PER_NODE: fmt_add_u(sb, j->ntasks_per_node, w, r); break;
	case JF_TRES_PER_TASK: fmt_add(sb, nz(j->tres_per_task, "N/A"), w, r); break;
	default:
		if (ff->code >= JF_CONST && ff->code < JF_CONST_LAST) {
			const struct jfield *jf = jfield_find(ff->code);
			fmt_add(sb, jf ? jf->none : "", w, r);
		}
		break;   /* invalid field: only its "%x" suffix prints */   /* invalid field: only its "%x" suffix prints */
	}
}

void print_job_row(strbuf_t *sb, const fmt_t *f, const job_info_t *j,
		   uint32_t array_task, time_t now)
{
	if (f->prefix)
		strbuf_addstr(sb, f->prefix);
	for (size_t i = 0; i < f->n; i++) {
		job_field(sb, &f->f[i], j, array_task, now);
		strbuf_addstr(sb, f->f[i].suffix ? f->f[i].suffix : "");
	}
	strbuf_addch(sb, '\n');
}

uint32_t job_fmt_fields(int code)
{
	/* Which JINFO_* groups hold the fields job_field() reads for a code
	 * (squeue asks the controller for these alone). A code not listed
	 * asks for everything: a new field is then right, just not fast. */
	switch (code) {
	case 'A': case 'B': case 'D': case 'e': case 'F': case 'G':
	case 'H': case 'I': case 'J': case 'X': case 'i': case 'j': case 'K':
	case 'M': case 'N': case 'p': case 'P': case 'Q': case 'r': case 'R':
	case 's': case 'S': case 't': case 'T': case 'u': case 'U':
	case 'w': case 'W': case 'z': case JF_CLUSTER:
		return 0;
	case JF_ASSOC_ID: return JINFO_ACCT;
	case JF_CPUS_PER_TRES: case JF_MEM_PER_TRES: case JF_TRES_PER_TASK:
		return JINFO_TRES;
	case JF_DERIVED_EC: case JF_MAX_CPUS: case JF_MAX_NODES: case JF_NT_PER_NODE:
		return JINFO_NUMS;   /* JINFO_BASIC fields or constants */
	case 'g': return JINFO_GROUP;
	case 'a': case 'q': case 'k': case 'v': return JINFO_ACCT;
	case 'E': case 'f': case 'n': case 'x': case 'Y': case JF_ALLOC_NODES:
		return JINFO_REQ;
	case 'o': case 'Z': case JF_STDERR: case JF_STDIN: case JF_STDOUT:
		return JINFO_PATHS;
	case 'b': case JF_TRES_ALLOC: case JF_TRES_PER_JOB: return JINFO_TRES;
	case 'c': case 'C': case 'd': case 'h': case 'l': case 'L': case 'm': case 'O':
	case 'V': case 'y': case JF_ELIGIBLE: case JF_ACCRUE: case JF_LAST_SCHED:
	case JF_EXIT_CODE: case JF_BATCH_FLAG: case JF_REQUEUE: case JF_RESTARTS:
	case JF_CPUS_PER_TASK: case JF_NTASKS: case JF_PENDING_TIME: case JF_ALLOC_SID:
	case JF_MIN_TIME: case JF_DEADLINE:
		return JINFO_NUMS;
	default:
		if (code >= JF_CONST && code < JF_CONST_LAST)
			return 0;
		return JINFO_ALL;
	}
}

/* ---- scontrol show job ---- */

static void iso_or(char *buf, size_t len, int64_t t, const char *none)
{
	if (!t)
		snprintf(buf, len, "%s", none);
	else
		time_fmt_iso((time_t)t, buf, len);
}

/* Line breaks: "\n   " in the multi-line form, " " in the one-liner. */
static void nl(strbuf_t *sb, int one_liner)
{
	strbuf_addstr(sb, one_liner ? " " : "\n   ");
}

/* Number of CPU ids in "0-3,32-35". */
static uint64_t ids_count(const char *s, size_t len)
{
	uint64_t n = 0;
	const char *p = s, *end = s + len;
	while (p < end) {
		char *e;
		unsigned long a = strtoul(p, &e, 10), b = a;
		if (e == p)
			break;
		if (e < end && *e == '-')
			b = strtoul(e + 1, &e, 10);
		n += b >= a ? b - a + 1 : 0;
		p = e < end && *e == ',' ? e + 1 : e;
	}
	return n;
}

/* scontrol show job -d: "JOB_GRES=gpu:h100:2" (the sum of the per-node
 * GRES), then one "Nodes=... CPU_IDs=... Mem=... GRES=..." line per run
 * of consecutive nodes with the same CPU ids, memory and GRES, as
 * Slurm 22.05 groups them. j->cpu_ids holds per node ids, space separated. */
static void detail_lines(strbuf_t *sb, const job_info_t *j, int one_liner)
{
	/* JOB_GRES: add counts of identical "name[:type]" prefixes. */
	strbuf_t tot = STRBUF_INIT;
	char keys[8][64];
	uint64_t cnt[8];
	uint32_t nk = 0;
	for (uint32_t i = 0; i < j->gres_detail.n; i++) {
		const char *g = j->gres_detail.v[i];
		while (g && *g) {
			const char *paren = strchr(g, '(');
			const char *next = paren ? strchr(paren, ')') : NULL;
			if (!paren || !next)
				break;
			const char *colon = paren;
			while (colon > g && colon[-1] != ':')
				colon--;
			size_t kl = colon > g ? (size_t)(colon - 1 - g) : 0;
			uint64_t c = strtoull(colon, NULL, 10);
			uint32_t k = 0;
			while (k < nk && (strlen(keys[k]) != kl || strncmp(keys[k], g, kl)))
				k++;
			if (k == nk && nk < 8 && kl < sizeof(keys[0])) {
				memcpy(keys[k], g, kl);
				keys[k][kl] = 0;
				cnt[nk++] = 0;
			}
			if (k < nk)
				cnt[k] += c;
			g = next[1] == ',' ? next + 2 : next + 1;
		}
	}
	for (uint32_t k = 0; k < nk; k++)
		strbuf_addf(&tot, "%s%s:%" PRIu64, k ? "," : "", keys[k], cnt[k]);
	nl(sb, one_liner);
	strbuf_addf(sb, "JOB_GRES=%s", tot.len ? tot.buf : "(null)");
	strbuf_release(&tot);

	char *err = NULL;
	hostlist_t *hl = hostlist_create(j->nodes, &err);
	free(err);
	size_t nn = hl ? hostlist_count(hl) : 0;
	const char *ids = j->cpu_ids ? j->cpu_ids : "";
	const char *mems = j->mem_alloc;   /* per node MB from the controller */
	hostlist_t *grp = NULL;
	const char *g_ids = NULL, *g_gres = NULL;
	size_t g_idl = 0;
	uint64_t g_mem = 0;
	for (size_t i = 0; i <= nn; i++) {
		const char *id = ids, *gres = "";
		size_t idl = 0;
		uint64_t mem = 0;
		if (i < nn) {
			idl = strcspn(id, " ");
			ids = id[idl] ? id + idl + 1 : id + idl;
			gres = i < j->gres_detail.n ? j->gres_detail.v[i] : "";
			if (mems && *mems) {
				char *e;
				mem = strtoull(mems, &e, 10);
				mems = *e ? e + 1 : e;
			} else {
				uint64_t ncpu = idl ? ids_count(id, idl) :
					(j->num_nodes ? j->num_cpus / j->num_nodes : j->num_cpus);
				mem = j->mem_per_node ? j->mem_per_node : j->mem_per_cpu * ncpu;
			}
			if (grp && idl == g_idl && !strncmp(id, g_ids, idl) && mem == g_mem &&
			    !strcmp(gres, g_gres)) {
				hostlist_push_host(grp, hostlist_nth(hl, i));
				continue;
			}
		}
		if (grp) {
			char *names = hostlist_ranged_string(grp);
			nl(sb, one_liner);
			strbuf_addf(sb, "  Nodes=%s CPU_IDs=%.*s Mem=%" PRIu64 " GRES=%s", names,
				    (int)(g_idl ? g_idl : 1), g_idl ? g_ids : "0", g_mem, g_gres);
			free(names);
			hostlist_destroy(grp);
			grp = NULL;
		}
		if (i < nn) {
			grp = hostlist_create_empty();
			hostlist_push_host(grp, hostlist_nth(hl, i));
			g_ids = id;
			g_idl = idl;
			g_mem = mem;
			g_gres = gres;
		}
	}
	hostlist_destroy(hl);
}

void print_job_scontrol(strbuf_t *sb, const job_info_t *j, int detail,
			int one_liner, time_t now)
{
	char b1[64], b2[64], b3[64];
	uint32_t base = j->state & JOB_STATE_BASE;
	const char *user = j->user_name ? j->user_name : cmd_user_name(j->user_id);
	const char *group = j->group_name ? j->group_name : cmd_group_name(j->group_id);

	if (j->array_job_id) {
		strbuf_addf(sb, "JobId=%u ArrayJobId=%u ", j->job_id, j->array_job_id);
		if (j->array_task_str && *j->array_task_str)
			strbuf_addf(sb, "ArrayTaskId=%s", j->array_task_str);
		else
			strbuf_addf(sb, "ArrayTaskId=%u", j->array_task_id);
		if (j->array_max_tasks)
			strbuf_addf(sb, " ArrayTaskThrottle=%u", j->array_max_tasks);
		strbuf_addf(sb, " JobName=%s", nz(j->name, ""));
	} else {
		strbuf_addf(sb, "JobId=%u JobName=%s", j->job_id, nz(j->name, ""));
	}
	nl(sb, one_liner);
	strbuf_addf(sb, "UserId=%s(%u) GroupId=%s(%u) MCS_label=N/A",
		    user, j->user_id, group, j->group_id);
	nl(sb, one_liner);
	strbuf_addf(sb, "Priority=%u Nice=%d Account=%s QOS=%s", j->priority, j->nice,
		    nz(j->account, "(null)"), nz(j->qos, "(null)"));
	nl(sb, one_liner);
	strbuf_addf(sb, "JobState=%s Reason=", job_state_string(j->state));
	{
		/* Slurm replaces blanks in the reason with '_' here. */
		strbuf_t t = STRBUF_INIT;
		reason_text(&t, j);
		for (size_t i = 0; i < t.len; i++)
			if (t.buf[i] == ' ')
				t.buf[i] = '_';
		strbuf_addstr(sb, t.buf);
		strbuf_release(&t);
	}
	char *dep = job_dep_fmt(j);
	strbuf_addf(sb, " Dependency=%s", nz(dep, "(null)"));
	free(dep);
	nl(sb, one_liner);
	strbuf_addf(sb, "Requeue=%u Restarts=%u BatchFlag=%u Reboot=0 ExitCode=%u:%u",
		    j->requeue, j->restarts, j->batch_flag,
		    (j->exit_code >> 8) & 0xff, j->exit_code & 0x7f);
	nl(sb, one_liner);
	if (detail) {
		/* -d: a line of its own (Slurm's "line 5a"). */
		strbuf_addf(sb, "DerivedExitCode=%u:%u", (j->derived_exit_code >> 8) & 0xff,
			    j->derived_exit_code & 0x7f);
		nl(sb, one_liner);
	}
	secs_fmt_hms(job_time_used(j, now), b1, sizeof(b1));
	mins_fmt_limit(j->time_limit, b2, sizeof(b2));
	if (j->time_min)
		mins_fmt_limit(j->time_min, b3, sizeof(b3));
	strbuf_addf(sb, "RunTime=%s TimeLimit=%s TimeMin=%s", b1, b2, j->time_min ? b3 : "N/A");
	nl(sb, one_liner);
	iso_or(b1, sizeof(b1), j->submit_time, "Unknown");
	iso_or(b2, sizeof(b2), j->eligible_time, "Unknown");
	strbuf_addf(sb, "SubmitTime=%s EligibleTime=%s", b1, b2);
	nl(sb, one_liner);
	iso_or(b1, sizeof(b1), j->accrue_time, "Unknown");
	strbuf_addf(sb, "AccrueTime=%s", b1);
	nl(sb, one_liner);
	iso_or(b1, sizeof(b1), j->start_time, "Unknown");
	/* A pending job with a planned start ends a time limit later (Slurm
	 * prints that; Unknown while the start is). */
	int64_t end = j->end_time;
	if (base == JOB_PENDING && !end && j->start_time && j->time_limit &&
	    j->time_limit != TIME_INFINITE && j->time_limit != TIME_NO_VAL)
		end = j->start_time + (int64_t)j->time_limit * 60;
	iso_or(b2, sizeof(b2), end, "Unknown");
	iso_or(b3, sizeof(b3), j->deadline, "N/A");
	strbuf_addf(sb, "StartTime=%s EndTime=%s Deadline=%s", b1, b2, b3);
	nl(sb, one_liner);
	iso_or(b1, sizeof(b1), j->suspend_time, "None");
	iso_or(b3, sizeof(b3), j->last_sched_eval, "Unknown");
	strbuf_addf(sb, "SuspendTime=%s SecsPreSuspend=%" PRId64 " LastSchedEval=%s Scheduler=%s",
		    b1, j->pre_sus_time, b3, nz(j->scheduler, "Main"));
	nl(sb, one_liner);
	strbuf_addf(sb, "Partition=%s AllocNode:Sid=%s:%u", nz(j->partition, "(null)"),
		    nz(j->alloc_node, "(null)"), j->alloc_sid);
	nl(sb, one_liner);
	strbuf_addf(sb, "ReqNodeList=%s ExcNodeList=%s", nz(j->req_nodes, "(null)"),
		    nz(j->exc_nodes, "(null)"));
	nl(sb, one_liner);
	strbuf_addf(sb, "NodeList=%s", nz(j->nodes, ""));
	if (base == JOB_PENDING && j->sched_nodes && *j->sched_nodes)
		strbuf_addf(sb, " SchedNodeList=%s", j->sched_nodes);
	if (j->batch_host && *j->batch_host && base != JOB_PENDING) {
		nl(sb, one_liner);
		strbuf_addf(sb, "BatchHost=%s", j->batch_host);
	}
	nl(sb, one_liner);
	if (base == JOB_PENDING && j->max_nodes)
		strbuf_addf(sb, "NumNodes=%u-%u", j->num_nodes, j->max_nodes);
	else
		strbuf_addf(sb, "NumNodes=%u", j->num_nodes);
	strbuf_addf(sb, " NumCPUs=%u NumTasks=%u CPUs/Task=%u ReqB:S:C:T=0:0:*:*",
		    j->num_cpus, j->num_tasks, j->cpus_per_task ? j->cpus_per_task : 1);
	nl(sb, one_liner);
	const char *tres = (base == JOB_PENDING) ? j->tres_req : nz(j->tres_alloc, j->tres_req);
	strbuf_addf(sb, "TRES=%s", nz(tres, "(null)"));
	nl(sb, one_liner);
	strbuf_addf(sb, "Socks/Node=* NtasksPerN:B:S:C=%u:0:*:* CoreSpec=*", j->ntasks_per_node);
	if (detail && j->nodes && *j->nodes && base != JOB_PENDING)
		detail_lines(sb, j, one_liner);
	nl(sb, one_liner);
	mem_fmt_mb(j->mem_per_node ? j->mem_per_node : j->mem_per_cpu, b1, sizeof(b1));
	mem_fmt_mb(j->min_tmp_disk, b2, sizeof(b2));
	strbuf_addf(sb, "MinCPUsNode=%u %s=%s MinTmpDiskNode=%s",
		    j->pn_min_cpus ? j->pn_min_cpus : 1,
		    j->mem_per_node ? "MinMemoryNode" : "MinMemoryCPU", b1, b2);
	nl(sb, one_liner);
	strbuf_addf(sb, "Features=%s DelayBoot=00:00:00", nz(j->features, "(null)"));
	nl(sb, one_liner);
	if (j->reservation && *j->reservation) {
		strbuf_addf(sb, "Reservation=%s", j->reservation);
		nl(sb, one_liner);
	}
	strbuf_addf(sb, "OverSubscribe=%s Contiguous=%u Licenses=(null) Network=(null)",
		    job_oversubscribe_str(j), j->contiguous);
	nl(sb, one_liner);
	strbuf_addf(sb, "Command=%s", nz(j->command, "(null)"));
	nl(sb, one_liner);
	strbuf_addf(sb, "WorkDir=%s", nz(j->work_dir, "(null)"));
	if (j->comment && *j->comment) {
		nl(sb, one_liner);
		strbuf_addf(sb, "Comment=%s ", j->comment);
	}
	if (j->batch_flag) {
		nl(sb, one_liner);
		strbuf_addstr(sb, "StdErr=");
		std_path(sb, j, j->std_err);
		nl(sb, one_liner);
		strbuf_addstr(sb, "StdIn=");
		std_path(sb, j, j->std_in);
		nl(sb, one_liner);
		strbuf_addstr(sb, "StdOut=");
		std_path(sb, j, j->std_out);
	}
	nl(sb, one_liner);
	strbuf_addstr(sb, "Power=");
	/* sic: Slurm 22.05's spelling */
	if (j->flags & (JOB_F_KILL_INV_DEP | JOB_F_NO_KILL_INV_DEP)) {
		nl(sb, one_liner);
		strbuf_addf(sb, "KillOInInvalidDependent=%s",
			    j->flags & JOB_F_KILL_INV_DEP ? "Yes" : "No");
	}
	/* Slurm's order: CpusPerTres, MemPerTres, ..., TresPerJob,
	 * TresPerNode, TresPerSocket, TresPerTask. */
	if (j->cpus_per_gpu) {
		nl(sb, one_liner);
		strbuf_addf(sb, "CpusPerTres=gres:gpu:%u", j->cpus_per_gpu);
	}
	if (j->mem_per_gpu) {
		nl(sb, one_liner);
		strbuf_addf(sb, "MemPerTres=gres:gpu:%" PRIu64, j->mem_per_gpu);
	}
	if (j->tres_per_job && *j->tres_per_job) {
		nl(sb, one_liner);
		strbuf_addf(sb, "TresPerJob=%s", j->tres_per_job);
	}
	if (j->tres_per_node && *j->tres_per_node) {
		nl(sb, one_liner);
		strbuf_addf(sb, "TresPerNode=%s", j->tres_per_node);
	}
	if (j->tres_per_task && *j->tres_per_task) {
		nl(sb, one_liner);
		strbuf_addf(sb, "TresPerTask=%s", j->tres_per_task);
	}
	/* Sluice's own line, last and only with a verdict (the NCCL
	 * transport check): Key=Value tokens, so parsers of the record
	 * take it like any other line. */
	if (j->nccl_transport && *j->nccl_transport) {
		nl(sb, one_liner);
		strbuf_addf(sb, "NcclTransport=%s NcclCheck=%s NcclNode=%s", j->nccl_transport,
			    nz(j->nccl_source, "(null)"), nz(j->nccl_node, "(null)"));
	}
	if (one_liner) {
		strbuf_addch(sb, '\n');
	} else {
		/* Slurm ends each record with an indented empty line and a
		 * blank separator line. */
		strbuf_addstr(sb, "\n   \n\n");
	}
}
